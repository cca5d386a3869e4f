package cryptobench.jvm;

import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.KeyParts;
import java.util.HexFormat;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
    s.targetSampleMs = 25;
    s.warmupMs = 200;
    s.heapIterations = 1;
    return s;
  }

  /**
   * What the coordinator sends with `open` (gate/material.py): key and IV from ByteStream(seed),
   * or the test key; the bench has no coordinator.
   */
  static JsonObject params(CaseSpec spec) throws Exception {
    AlgorithmInfo info = Types.findAlgorithm(spec.algorithm);
    if (info.isPublicKey()) {
      KeyParts key = TestKeys.get(info.keyType);
      return Protocol.obj("keypair", Steps.hexParts(key), "public", Steps.hexParts(TestKeys.publicParts(info, key)));
    }
    ByteStream stream = new ByteStream(spec.seed);
    return Protocol.obj(
        "key", HexFormat.of().formatHex(stream.bytes(info.keyBytes)),
        "iv", HexFormat.of().formatHex(stream.bytes(info.ivBytes)));
  }

  static final List<CaseSpec> CASES =
      List.of(
          spec("gcm", "sunjce", "encrypt", "aes-256-gcm", 16384),
          spec("sha256", "sunjce", "hash", "sha256", 1 << 20),
          spec("ed25519", "sunjce", "sign", "ed25519", 64));

  /**
   * Alternating rounds of each case; one JSON line per case with every round's figure of both, and
   * the coordinator's summary (python/cryptobench/runner_fidelity.py) their medians' ratio.
   */
  static int run(PrintStream out, boolean quick, Integer cpu) throws Exception {
    int rounds = quick ? 3 : 7;
    long jmhMs = quick ? 250 : 500;
    String note = "a serve process and a JMH 1.37 fork per round, 11 samples of 25 ms each, Java "
        + Runtime.version() + ", " + (cpu == null ? "not pinned" : "every thread on CPU " + cpu);
    for (CaseSpec spec : CASES) {
      Options opts = options(spec.id, jmhMs, quick);
      List<Double> engine = new ArrayList<>(), harness = new ArrayList<>();
      for (int round = 0; round < rounds; round++) {
        String failed = engineRound(spec, engine);
        if (failed != null) {
          Protocol.emit(out, Protocol.errorMessage(spec.id + ": " + failed));
          return 1;
        }
        harness.add(medianIteration(new Runner(opts).runSingle()));
      }
      String label = spec.provider + " " + spec.operation + " " + spec.algorithm + " " + spec.size;
      Protocol.emit(out, Protocol.obj("type", "fidelity", "case", label, "harness", "JMH",
          "engine_ns", engine, "harness_ns", harness, "note", note));
    }
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
            "-Dcryptobench.vectors=" + TestKeys.dir(),
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
   * One engine round in a JVM of its own, as the coordinator runs it: a `serve` process (pinned
   * like this one, with this JVM's start-up ergonomics) opens the case, warms it until steady and
   * takes 11 samples of 25 ms; the result's median goes to {@code into}. Null, or what failed.
   */
  static String engineRound(CaseSpec spec, List<Double> into) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UsePerfData",
                "-XX:ActiveProcessorCount=" + Main.START_CPUS,
                "-Dcryptobench.vectors=" + TestKeys.dir(),
                "-Dcryptobench.variant=" + Variants.current(),
                "-Dcryptobench.jdk25=" + System.getProperty("cryptobench.jdk25", ""),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "serve",
                "--no-pin"));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try (PrintStream in = new PrintStream(p.getOutputStream(), true, StandardCharsets.UTF_8);
        BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      out.readLine(); // hello
      JsonObject open =
          Protocol.obj("cmd", "open", "case", Protocol.SPEC.toJsonTree(spec), "params", params(spec));
      in.println(Protocol.GSON.toJson(open));
      JsonObject opened = JsonParser.parseString(out.readLine()).getAsJsonObject();
      if (!opened.get("status").getAsString().equals(Engine.OK))
        return opened.get("status").getAsString() + " " + opened.get("reason").getAsString();
      in.println("{\"cmd\": \"sample\", \"id\": \"" + spec.id + "\", \"count\": 11}");
      out.readLine();
      in.println("{\"cmd\": \"close\", \"id\": \"" + spec.id + "\"}");
      JsonObject result = JsonParser.parseString(out.readLine()).getAsJsonObject();
      if (!result.get("status").getAsString().equals(Engine.OK))
        return result.get("status").getAsString() + " " + result.get("reason").getAsString();
      List<Double> perOp = new ArrayList<>();
      for (JsonElement x : result.getAsJsonArray("samples"))
        perOp.add(x.getAsJsonObject().get("ns").getAsDouble() / x.getAsJsonObject().get("iterations").getAsDouble());
      into.add(Engine.median(perOp));
      in.println("{\"cmd\": \"quit\"}");
    } finally {
      if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
    }
    return null;
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
    return Engine.median(scores);
  }
}
