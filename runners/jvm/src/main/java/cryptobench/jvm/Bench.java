package cryptobench.jvm;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The fidelity bench: reference cases measured by this runner's engine and by JMH (the JVM's
 * standard harness) on the same prepared operation and buffers, in this JVM (JMH with forks = 0,
 * so both see one JIT profile). The two alternate so drift on a shared machine hits both; the
 * ratio of the medians should be 0.9-1.1. Cases with in-place AEAD encryption write their output
 * over their input, exactly as the engine's loop does.
 */
final class Bench {
  private Bench() {}

  /** The case JmhReference measures (JMH instantiates its state itself). */
  static volatile Engine.OpenCase current;

  static CaseSpec spec(String id, String provider, String operation, String algorithm, long size) {
    CaseSpec s = new CaseSpec();
    s.id = id;
    s.provider = provider;
    s.operation = operation;
    s.algorithm = algorithm;
    s.size = size;
    s.samples = 11;
    s.targetSampleMs = 25;
    s.warmupMs = 200;
    s.heapIterations = 1;
    s.agreement = false;
    return s;
  }

  static final List<CaseSpec> CASES =
      List.of(
          spec("gcm", "sunjce", "encrypt", "aes-256-gcm", 16384),
          spec("sha256", "sunjce", "hash", "sha256", 1 << 20),
          spec("ed25519", "sunjce", "sign", "ed25519", 64));

  static int run(PrintStream out, boolean quick, Integer cpu) throws Exception {
    int rounds = quick ? 3 : 9;
    long jmhMs = quick ? 100 : 250;
    out.printf(
        "fidelity: cryptobench engine vs JMH 1.37 (forks 0, AverageTime), median of %d alternating"
            + " rounds, Java %s, %s%n",
        rounds, Runtime.version(), cpu == null ? "not pinned" : "every thread on CPU " + cpu);
    out.printf("%-34s %14s %14s %8s%n", "case", "engine ns/op", "JMH ns/op", "ratio");
    double worst = 1;
    for (CaseSpec spec : CASES) {
      Engine.OpenCase c = Engine.openCase(spec);
      if (!c.status.equals(Engine.OK)) {
        out.printf("%s: %s %s%n", spec.id, c.status, c.reason);
        return 1;
      }
      current = c;
      // JMH's own frames (its stub loop, JmhReference.operation) start cold even in this warm JVM:
      // the engine's compiled loop inlined the operation, so the operation's methods were never
      // compiled standalone. One long JMH warm-up per case first, as JMH's own defaults would do
      // (5 x 10 s there; 10 x 0.5 s here), so JMH's figure is its steady state too.
      new Runner(options(jmhMs, quick ? 3 : 10, quick ? 300 : 500)).runSingle();
      Options opts = options(jmhMs, 1, jmhMs / 2);
      List<Double> engine = new ArrayList<>(), harness = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        c.samples.clear();
        c.checked = false;
        for (int i = 0; i < 11; i++) Engine.sample(c);
        engine.add(Protocol.summarise(c.samples, spec.size).get("median_ns").getAsDouble());
        RunResult r = new Runner(opts).runSingle();
        harness.add(r.getPrimaryResult().getScore());
      }
      if (!c.status.equals(Engine.OK)) {
        out.printf("%s: %s %s%n", spec.id, c.status, c.reason);
        return 1;
      }
      double e = median(engine), h = median(harness), ratio = e / h;
      worst = Math.max(worst, Math.max(ratio, 1 / ratio));
      out.printf(
          "%-34s %14.1f %14.1f %8.3f%n",
          spec.provider + " " + spec.operation + " " + spec.algorithm + " " + spec.size, e, h, ratio);
    }
    if (worst > 1.1) {
      out.println("some ratio is outside 0.9-1.1");
      return 1;
    }
    out.println("all ratios within 0.9-1.1");
    return 0;
  }

  static Options options(long measureMs, int warmups, long warmupMs) {
    return new OptionsBuilder()
        .include(JmhReference.class.getName() + ".operation")
        .forks(0)
        .threads(1)
        .mode(Mode.AverageTime)
        .timeUnit(TimeUnit.NANOSECONDS)
        .warmupIterations(warmups)
        .warmupTime(TimeValue.milliseconds(warmupMs))
        .measurementIterations(1)
        .measurementTime(TimeValue.milliseconds(measureMs))
        .shouldDoGC(false)
        .verbosity(VerboseMode.SILENT)
        .build();
  }

  static double median(List<Double> v) {
    double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
    return Engine.median(a);
  }
}
