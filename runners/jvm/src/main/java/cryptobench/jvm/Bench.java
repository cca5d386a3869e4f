package cryptobench.jvm;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The fidelity bench: reference cases measured by this runner's engine and by JMH (the JVM's
 * standard harness). JMH runs as it is meant to, in a fork of its own with its own warm-up, on the
 * same case (same spec, gate, prepared operation and buffers: JmhReference opens it there); the
 * engine measures in this JVM after its own warm-up until steady. So the check is whether the
 * engine's loop and its steady-state detection reach the figure JMH reaches. The two alternate,
 * so drift on a shared machine hits both; the ratio of the medians should be 0.9-1.1. Both are
 * pinned to the same CPU (a fork inherits the affinity).
 */
final class Bench {
  private Bench() {}

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
    int rounds = quick ? 3 : 7;
    long jmhMs = quick ? 250 : 500;
    out.printf(
        "fidelity: engine (median of 11 samples of 25 ms) vs JMH 1.37 (a fork per round, AverageTime,"
            + " median of 11 iterations of 25 ms), median of %d alternating"
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
      Options opts = options(spec.id, jmhMs, quick);
      List<Double> engine = new ArrayList<>(), harness = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        c.samples.clear();
        c.checked = false;
        for (int i = 0; i < 11; i++) Engine.sample(c);
        engine.add(Protocol.summarise(c.samples, spec.size).get("median_ns").getAsDouble());
        harness.add(medianIteration(new Runner(opts).runSingle()));
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

  static Options options(String caseId, long measureMs, boolean quick) {
    return new OptionsBuilder()
        .include(JmhReference.class.getName() + ".operation")
        .param("caseId", caseId)
        .forks(1)
        // The fork inherits the pinning; it is given the ergonomics this JVM started with (G1,
        // its compiler threads), not those of one CPU (Serial GC, one compiler thread).
        .jvmArgsAppend(
            "-Dcryptobench.vectors=" + Vectors.dir(),
            "-XX:-UsePerfData",
            "-XX:ActiveProcessorCount=" + Main.START_CPUS)
        .threads(1)
        .mode(Mode.AverageTime)
        .timeUnit(TimeUnit.NANOSECONDS)
        .warmupIterations(quick ? 4 : 10)
        .warmupTime(TimeValue.milliseconds(measureMs))
        .measurementIterations(11)
        .measurementTime(TimeValue.milliseconds(25))
        .shouldDoGC(false)
        .verbosity(VerboseMode.SILENT)
        .build();
  }

  /**
   * The median of JMH's measurement iterations (11 of 25 ms, like the engine's samples): on a
   * shared machine a mean over long iterations counts every preemption, a median of short ones
   * few, so both harnesses are summarised the same way.
   */
  static double medianIteration(RunResult r) {
    List<Double> scores = new ArrayList<>();
    for (BenchmarkResult b : r.getBenchmarkResults())
      for (IterationResult i : b.getIterationResults()) scores.add(i.getPrimaryResult().getScore());
    return median(scores);
  }

  static double median(List<Double> v) {
    double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
    return Engine.median(a);
  }
}
