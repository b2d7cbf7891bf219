package io.sentinel.nativeimage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.RecordComponentNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SimpleVerifier;

/**
 * Our classes that a library reaches by reflection, read from the class files: what a native image
 * needs registered. Found: a class with a Jackson annotation; a class literal handed to a
 * data-binding call ({@code readValue(json, X.class)}, {@code mapTo(X.class)} ...); a value of our
 * type handed to a serialising call ({@code writeValueAsString(x)}, {@code JsonObject.mapFrom(x)}
 * ...), by the argument's static type; a class named in a {@code META-INF/services} file; a class
 * loaded by a constant name ({@code Class.forName}, {@code ClassLoader.loadClass}). Not found: one
 * of our values inside a Map or List that is serialised later (the code serialises Maps of plain
 * values by design: docs/native.md).
 */
final class ReflectiveUses {
  private static final String OURS = "io/sentinel/";

  /** Owner and names of the calls that bind a Class argument reflectively. */
  private static final Map<String, Set<String>> BY_CLASS =
      Map.of(
          "com/fasterxml/jackson/databind/ObjectMapper",
              Set.of("readValue", "convertValue", "treeToValue", "readerFor", "writerFor"),
          "com/fasterxml/jackson/databind/ObjectReader", Set.of("forType", "readValue"),
          "io/vertx/core/json/JsonObject", Set.of("mapTo"),
          "io/vertx/core/json/Json", Set.of("decodeValue"));

  /** Owner and names of the calls that serialise an Object argument reflectively. */
  private static final Map<String, Set<String>> BY_VALUE =
      Map.of(
          "com/fasterxml/jackson/databind/ObjectMapper",
              Set.of("writeValueAsString", "writeValueAsBytes", "writeValue", "valueToTree"),
          "com/fasterxml/jackson/databind/ObjectWriter",
              Set.of("writeValueAsString", "writeValueAsBytes", "writeValue"),
          "io/vertx/core/json/JsonObject", Set.of("mapFrom", "put"),
          "io/vertx/core/json/JsonArray", Set.of("add"),
          "io/vertx/core/json/Json", Set.of("encode", "encodePrettily", "encodeToBuffer"));

  private ReflectiveUses() {}

  /** Every use found under {@code classes} in {@code pkg} (a / path), by class name: why. */
  static Map<String, String> scan(Path classes, String pkg) throws IOException {
    Map<String, String> uses = new TreeMap<>();
    Path root = classes.resolve(pkg);
    if (Files.isDirectory(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
          try (InputStream in = Files.newInputStream(f)) {
            ClassNode node = new ClassNode();
            new ClassReader(in).accept(node, 0);
            scanClass(node, uses);
          }
        }
      }
    }
    Path services = classes.resolve("META-INF/services");
    if (Files.isDirectory(services)) {
      try (Stream<Path> files = Files.list(services)) {
        for (Path f : files.toList()) {
          for (String line : Files.readAllLines(f)) {
            String name = line.replaceAll("#.*", "").trim();
            if (name.startsWith(pkg.replace('/', '.'))) {
              uses.put(name, "named in META-INF/services/" + f.getFileName());
            }
          }
        }
      }
    }
    return uses;
  }

  private static void scanClass(ClassNode c, Map<String, String> uses) {
    String self = c.name.replace('/', '.');
    if (jackson(c.visibleAnnotations)
        || c.fields.stream().map((FieldNode f) -> f.visibleAnnotations).anyMatch(a -> jackson(a))
        || c.methods.stream().map((MethodNode m) -> m.visibleAnnotations).anyMatch(a -> jackson(a))
        || (c.recordComponents != null
            && c.recordComponents.stream()
                .map((RecordComponentNode r) -> r.visibleAnnotations)
                .anyMatch(a -> jackson(a)))) {
      uses.put(self, "carries Jackson annotations");
    }
    for (MethodNode m : c.methods) {
      scanMethod(c, m, uses);
    }
  }

  private static boolean jackson(List<AnnotationNode> annotations) {
    return annotations != null
        && annotations.stream().anyMatch(a -> a.desc.startsWith("Lcom/fasterxml/jackson/"));
  }

  private static void scanMethod(ClassNode c, MethodNode m, Map<String, String> uses) {
    boolean bindsByClass = false;
    for (AbstractInsnNode insn : m.instructions) {
      if (insn instanceof MethodInsnNode call && named(BY_CLASS, call)) {
        bindsByClass = true;
      }
    }
    String where = c.name.replace('/', '.') + "." + m.name;
    loadedByName(m, where, uses);
    if (bindsByClass) {
      for (AbstractInsnNode insn : m.instructions) {
        if (insn instanceof LdcInsnNode ldc
            && ldc.cst instanceof Type t
            && t.getSort() == Type.OBJECT
            && t.getInternalName().startsWith(OURS)) {
          uses.putIfAbsent(t.getClassName(), "bound by class in " + where);
        }
      }
    }
    if (m.instructions.size() == 0
        || Stream.of(m.instructions.toArray())
            .noneMatch(i -> i instanceof MethodInsnNode call && named(BY_VALUE, call))) {
      return;
    }
    Frame<BasicValue>[] frames;
    try {
      frames = new Analyzer<>(new SimpleVerifier()).analyze(c.name, m);
    } catch (AnalyzerException e) {
      throw new IllegalStateException("cannot analyse " + where, e);
    }
    AbstractInsnNode[] insns = m.instructions.toArray();
    for (int i = 0; i < insns.length; i++) {
      if (insns[i] instanceof MethodInsnNode call && named(BY_VALUE, call) && frames[i] != null) {
        Frame<BasicValue> f = frames[i];
        int args = Type.getArgumentTypes(call.desc).length;
        for (int a = 0; a < args; a++) {
          Type t = f.getStack(f.getStackSize() - args + a).getType();
          if (t != null && t.getSort() == Type.OBJECT && t.getInternalName().startsWith(OURS)) {
            uses.putIfAbsent(t.getClassName(), "serialised by value in " + where);
          }
        }
      }
    }
  }

  /**
   * A class of ours loaded by a constant name ({@code Class.forName("io.sentinel...")}, {@code
   * ClassLoader.loadClass}): the name is the last string constant before the call.
   */
  private static void loadedByName(MethodNode m, String where, Map<String, String> uses) {
    String last = null;
    for (AbstractInsnNode insn : m.instructions) {
      if (insn instanceof LdcInsnNode ldc && ldc.cst instanceof String name) {
        last = name;
      } else if (insn instanceof MethodInsnNode call
          && last != null
          && last.startsWith(OURS.replace('/', '.'))
          && ((call.owner.equals("java/lang/Class") && call.name.equals("forName"))
              || (call.owner.equals("java/lang/ClassLoader") && call.name.equals("loadClass")))) {
        uses.putIfAbsent(last, "loaded by name in " + where);
        last = null;
      }
    }
  }

  private static boolean named(Map<String, Set<String>> calls, MethodInsnNode call) {
    return call.getOpcode() != Opcodes.INVOKEDYNAMIC
        && calls.getOrDefault(call.owner, Set.of()).contains(call.name);
  }
}
