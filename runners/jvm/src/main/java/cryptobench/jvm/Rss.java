package cryptobench.jvm;

import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's resident set across a heap pass (docs/protocol.md, result "heap"): the thread's
 * allocation counter sees only the Java heap, so memory a JNI library takes (ACCP, Conscrypt,
 * NSS) is seen here or nowhere. Before the pass VmRSS, then the resident high-water mark is reset
 * (/proc/self/clear_refs, "5"); after it VmHWM. A figure that cannot be read is null ("not
 * measured"), never 0. The same procedure as native/src/core/heap.cpp.
 */
final class Rss {
  private Rss() {}

  /** VmHWM folded in before each reset, so max_rss_kb stays the lifetime peak. */
  private static long lifetimePeakKb = -1;

  /** The value of a line of /proc/self/status, or null (not Linux, or no such line). */
  static String status(String key) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status")))
        if (line.startsWith(key)) return line.substring(key.length()).strip();
    } catch (Exception ignored) {
      // not measured
    }
    return null;
  }

  static Long statusKb(String key) {
    String v = status(key);
    return v == null ? null : Long.parseLong(v.replaceAll("[^0-9]", ""));
  }

  /** rss_before_kb and rss_peak_kb of one heap pass: start() before it, end() after it. */
  static final class PeakPass {
    Long beforeKb, peakKb;
    private boolean reset;

    static PeakPass start() {
      PeakPass p = new PeakPass();
      p.beforeKb = statusKb("VmRSS:");
      Long hwm = statusKb("VmHWM:");
      if (hwm != null) lifetimePeakKb = Math.max(lifetimePeakKb, hwm);
      try (FileOutputStream f = new FileOutputStream("/proc/self/clear_refs")) {
        f.write("5".getBytes(StandardCharsets.US_ASCII));
        p.reset = true;
      } catch (Exception refused) {
        p.reset = false;
      }
      return p;
    }

    void end() {
      peakKb = reset ? statusKb("VmHWM:") : null;
    }
  }

  /** The process's peak resident set over its life (-1 where unknown), despite the resets. */
  static long maxRssKb() {
    Long hwm = statusKb("VmHWM:");
    return Math.max(lifetimePeakKb, hwm == null ? -1 : hwm);
  }
}
