package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The machine record (machine.cpp's fields) and the JVM's facts (java_version, jvm). */
final class Machine {
  private Machine() {}

  static String read(String path) {
    try {
      return Files.readString(Path.of(path)).strip();
    } catch (Exception e) {
      return null;
    }
  }

  static String cpuinfoField(String key) {
    String all = read("/proc/cpuinfo");
    if (all == null) return "";
    for (String line : all.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).strip().equals(key)) return line.substring(colon + 1).strip();
    }
    return "";
  }

  static String osName() {
    String all = read("/etc/os-release");
    if (all != null)
      for (String line : all.split("\n"))
        if (line.startsWith("PRETTY_NAME=")) return line.substring(12).replace("\"", "");
    return "unknown";
  }

  /** The CPUs this process may run on (Cpus_allowed_list). */
  static Set<Integer> allowedCpus() {
    Set<Integer> out = new TreeSet<>();
    String status = read("/proc/self/status");
    if (status == null) return out;
    for (String line : status.split("\n")) {
      if (!line.startsWith("Cpus_allowed_list:")) continue;
      for (String part : line.substring(18).strip().split(",")) {
        String[] range = part.split("-");
        int lo = Integer.parseInt(range[0].strip());
        int hi = range.length > 1 ? Integer.parseInt(range[1].strip()) : lo;
        for (int c = lo; c <= hi; c++) out.add(c);
      }
    }
    return out;
  }

  static JsonObject record() {
    JsonObject m = new JsonObject();
    List<String> flags = List.of(cpuinfoField("flags").split("\\s+"));
    m.addProperty("cpu_model", cpuinfoField("model name"));
    m.add("cpu_flags", Protocol.GSON.toJsonTree(flags));
    m.addProperty("cores", Runtime.getRuntime().availableProcessors());
    m.addProperty(
        "kernel",
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
            + System.getProperty("os.arch"));
    String host = read("/proc/sys/kernel/hostname");
    m.addProperty("hostname", host == null ? "" : host);
    m.addProperty("os", osName());
    m.addProperty("compiler", "javac " + System.getProperty("java.specification.version") + ", HotSpot JIT");
    m.addProperty("java_version", System.getProperty("java.runtime.version"));
    m.addProperty("java_vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    m.addProperty("java_home", System.getProperty("java.home"));
    m.add("tsc_hz", JsonNull.INSTANCE);
    m.addProperty("tsc_invariant", flags.contains("constant_tsc") && flags.contains("nonstop_tsc"));
    m.addProperty("tsc_note", "the JVM reads no TSC: ticks are 0 (times come from System.nanoTime, CLOCK_MONOTONIC)");
    String gov = read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    if (gov == null) m.add("governor", JsonNull.INSTANCE);
    else m.addProperty("governor", gov);
    JsonArray gcs = new JsonArray();
    for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) gcs.add(gc.getName());
    m.add("jvm_gc", gcs);
    return m;
  }
}
