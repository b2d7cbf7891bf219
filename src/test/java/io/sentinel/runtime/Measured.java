package io.sentinel.runtime;

/** Wall time and the heap's peak growth over one request (an upper bound: the JVM is shared). */
record Measured(long millis, long peakHeapMb) {
  @Override
  public String toString() {
    return millis + " ms, heap peak +" + peakHeapMb + " MB";
  }

  static Measured measure(Runnable r) {
    var pools = java.lang.management.ManagementFactory.getMemoryPoolMXBeans();
    long base = 0;
    for (var p : pools) {
      if (p.getType() == java.lang.management.MemoryType.HEAP) {
        p.resetPeakUsage();
        base += p.getUsage().getUsed();
      }
    }
    long t0 = System.nanoTime();
    r.run();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    long peak = 0;
    for (var p : pools) {
      if (p.getType() == java.lang.management.MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    return new Measured(ms, Math.max(0, peak - base) >> 20);
  }
}
