package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.Set;
import java.util.TreeSet;

/** The JVM's facts (java_version, jvm) and the CPUs this process may run on. */
final class Machine {
  private Machine() {}

  /** The CPUs this process may run on (Cpus_allowed_list). */
  static Set<Integer> allowedCpus() {
    Set<Integer> out = new TreeSet<>();
    String list = Rss.status("Cpus_allowed_list:");
    if (list == null) return out;
    for (String part : list.split(",")) {
      String[] range = part.split("-");
      int lo = Integer.parseInt(range[0].strip());
      int hi = range.length > 1 ? Integer.parseInt(range[1].strip()) : lo;
      for (int c = lo; c <= hi; c++) out.add(c);
    }
    return out;
  }

  /**
   * What only this process knows: its JVM, its compiler and its clock; the machine itself (CPU,
   * kernel, OS) is the native runner's record (docs/protocol.md, "capabilities").
   */
  static JsonObject record() {
    JsonArray gcs = new JsonArray();
    for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) gcs.add(gc.getName());
    return Protocol.obj(
        "compiler", "javac " + System.getProperty("java.specification.version") + ", HotSpot JIT",
        "java_version", System.getProperty("java.runtime.version"),
        "java_vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"),
        "java_home", System.getProperty("java.home"),
        "tsc_hz", null,
        "tsc_note", "the JVM reads no TSC: ticks are 0 (times come from System.nanoTime, CLOCK_MONOTONIC)",
        "jvm_gc", gcs);
  }
}
