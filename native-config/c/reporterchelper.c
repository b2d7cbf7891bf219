/* The builder's progress reporter loads this from <java.home>/lib/svm/builder/lib: a GraalVM
 * distribution ships it, the Maven Central jars do not. Peak RSS and the terminal's width. */
#include <jni.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

JNIEXPORT jlong JNICALL
Java_com_oracle_svm_hosted_ProgressReporterCHelper_getPeakRSS0(JNIEnv *env, jclass cls) {
  struct rusage usage;
  return getrusage(RUSAGE_SELF, &usage) == 0 ? (jlong) usage.ru_maxrss * 1024 : -1;
}

JNIEXPORT jint JNICALL
Java_com_oracle_svm_hosted_ProgressReporterCHelper_getTerminalWindowColumns0(JNIEnv *env, jclass cls) {
  struct winsize size;
  return ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : -1;
}
