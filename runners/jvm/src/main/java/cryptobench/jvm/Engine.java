package cryptobench.jvm;

import com.sun.management.ThreadMXBean;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Unsupported;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The timing engine: one open case (gated by the coordinator), calibration, JIT warm-up, allocation pass and
 * samples, with the semantics of native/src/core/engine.cpp and runners/go/engine.go
 * (docs/runners.md puts them side by side).
 */
final class Engine {
  private Engine() {}

  static final String OK = "ok", FAILED = "failed", UNSUPPORTED = "unsupported";
  static final int SLACK = 128, CANARY = 64;
  static final byte CANARY_BYTE = (byte) 0xA5;
  // A sample that starts this long after the previous one ended is a new visit: it re-warms for
  // about REWARM_NS first (engine.hpp, kVisitGapNs and kRewarmNs).
  static final long VISIT_GAP_NS = 50_000, REWARM_NS = 750_000;
  // JIT warm-up: untimed samples until the median of the last STEADY_RUN per-sample times is
  // within STEADY_SPREAD of the median of the STEADY_RUN before, for at most MAX_WARMUP_NS
  // (docs/runners.md).
  static final int STEADY_RUN = 5;
  static final double STEADY_SPREAD = 0.03;
  // The floor: an operation's code warms for MIN_WARMUP_NS in this process, JMH's default warm-up
  // (5 s), before a level may count as steady: a case of microseconds reached 20,000 operations
  // and a level that held in ~1.3 s, right as C2 finished, and measured AES-256-GCM 16 KiB 10-25%
  // slower than the same process warmed for 5 s (docs/runners.md). The JIT warms code, not a
  // case: the warm-up an operation (provider, algorithm, operation) already had in this process
  // counts towards it, so its further sizes need only MIN_CASE_OPS operations or MIN_CASE_NS.
  static final long MAX_WARMUP_NS = 10_000_000_000L;
  static final long MIN_WARMUP_NS = 5_000_000_000L;
  static final long MIN_CASE_OPS = 20_000, MIN_CASE_NS = 2_000_000_000L;
  static final java.util.Map<String, Long> WARMED_NS = new java.util.HashMap<>();

  static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  static long monoNs() {
    return System.nanoTime();
  }

  /** One sample: iterations back-to-back operations and their time; ticks 0 (no TSC on the JVM). */
  record Sample(long iterations, long ns, long ticks) {}

  /** The case's message (engine.cpp, make_input). */
  static byte[] makeInput(String kind, int n, long seed) {
    byte[] out = new byte[n];
    if (kind.equals("zeros")) return out;
    new ByteStream(seed ^ 0x1234567L).fill(out);
    if (kind.equals("text")) {
      String printable = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_=\n";
      for (int i = 0; i < n; i++) out[i] = (byte) printable.charAt((out[i] & 0xff) % printable.length());
    }
    return out;
  }

  static final class OpenCase {
    final CaseSpec spec;
    String status = OK, reason = "";
    long iterations, calibrationNs;
    final List<Sample> samples = new ArrayList<>();
    double bytesPerOp = -1;
    long prepareBytes;
    Rss.PeakPass resident = new Rss.PeakPass();
    Op op;
    byte[] in, out; // in == out in place
    int inLen;
    /** Every output's first byte ends here: results are consumed. */
    volatile int sink;

    // The check of the timed instance (protocol.md, step 6).
    byte[] input, expected;
    int refLen, canaryAt;
    boolean deterministic, keygen, checked, inplace;
    String timedCheck = "", layoutNote = "";
    // In-place AEAD decryption alternates between two texts and their tags (engine.cpp).
    boolean alternate;
    int tagAt, parity;
    byte[][] tags = new byte[2][];

    long rewarms, lastSampleEnd;
    // JVM figures (result.jvm): warm-up until steady, collections during the samples.
    long warmupIterations, warmupNs, gcCount, gcMs;
    boolean steady;
    double steadyNsPerOp;

    OpenCase(CaseSpec spec) {
      this.spec = spec;
    }

    void fail(String why) {
      if (status.equals(FAILED) && !reason.isEmpty()) return; // the first reason is the one to report
      status = FAILED;
      reason = why;
      samples.clear();
      op = null;
    }
  }

  /** A case the coordinator gated, opened with its params (docs/protocol.md, "Who gates"). */
  static OpenCase openCase(CaseSpec spec, JsonElement params) {
    OpenCase c = new OpenCase(spec);
    try {
      open(c, params);
    } catch (OutOfMemoryError e) {
      c.fail("the JVM ran out of heap: " + e.getMessage());
    } catch (Exception | LinkageError e) {
      c.fail(Types.message(e));
      c.status = e instanceof Unsupported ? UNSUPPORTED : FAILED;
    }
    return c;
  }

  /** A reply (steps, leak) for a case whose operation could not be prepared: unsupported, or failed. */
  static JsonObject refused(JsonObject reply, Throwable e) {
    reply.addProperty("status", e instanceof Unsupported ? UNSUPPORTED : FAILED);
    reply.addProperty("reason", Types.message(e));
    return reply;
  }

  /** What makes a parsed case unsupported before any library work (engine.cpp, open()). */
  static CryptoProvider resolve(CaseSpec spec) throws Unsupported {
    CryptoProvider p = Providers.byName(spec.provider);
    String current = Variants.current();
    if (!spec.variant.isEmpty() && !spec.variant.equals(current))
      throw new Unsupported(
          "this runner runs " + spec.provider + " as variant '" + current
              + "'; start one with --variant " + spec.provider + "=" + spec.variant);
    spec.variant = current;
    if (p.loadError() != null)
      throw new Unsupported(spec.provider + " could not be loaded: " + p.loadError());
    if (!p.algorithms().contains(spec.algorithm)) {
      String why = p.notOffered().get(spec.algorithm);
      throw new Unsupported(
          spec.provider + " does not offer " + spec.algorithm + (why == null ? "" : " (" + why + ")"));
    }
    if (spec.alignOffset != 0)
      throw new Unsupported("align_offset does not apply on the JVM: it places and moves arrays itself");
    return p;
  }

  /**
   * The case's own input: the message, nothing for key generation and key agreement, and for a
   * key-setup case (which has no message) one 64-byte message for the gate's round trip.
   */
  static byte[] caseInput(CaseSpec spec, AlgorithmInfo info) {
    if (spec.operation.equals("keygen") || info.kind.equals("key-agreement") || info.kind.equals("kem"))
      return new byte[0];
    return makeInput(spec.input, spec.keySetup ? 64 : (int) spec.size, spec.seed);
  }

  static void open(OpenCase c, JsonElement raw) throws Exception {
    CryptoProvider p = resolve(c.spec);
    AlgorithmInfo info = Types.findAlgorithm(c.spec.algorithm);
    if (raw == null || !raw.isJsonObject())
      throw new Types.Failed("params: missing (the coordinator sends the case's parameters)");
    Params params = Steps.params(raw, "params");
    if (c.spec.keySetup) {
      // Key setup: the algorithm passed its gate on the case's key; one operation is an init.
      c.keygen = true; // writes nothing: the canaries are the check
      allocateBuffers(c, new byte[0], SLACK, false);
      measureHeapAndCalibrate(c, p, info, params);
      return;
    }
    byte[] plaintext = caseInput(c.spec, info);
    int size = plaintext.length, room = SLACK + info.tagBytes;
    Params encrypting = Steps.params(raw, "params"); // a copy of its own: it encrypts to the public key
    if (info.isPkOrKdf()) {
      room = info.outputRoom() + SLACK; // an SLH-DSA signature, a KEM's ciphertext and secret
      encrypting.keypair = params.publicKey;
    }
    if (c.spec.operation.equals("verify")) { // this provider's signature of the message
      params.signature =
          Steps.runOnce(p.prepare(info.name, "sign", params), plaintext, info.outputRoom());
      params.keypair = params.publicKey;
    } else if ((c.spec.operation.equals("encrypt") && info.isPkOrKdf())
        || c.spec.operation.equals("encaps")) {
      params.keypair = params.publicKey;
    } else if (c.spec.operation.equals("decaps")) { // its length passed the gate (gate/pq.py)
      byte[] ct = Steps.runOnce(p.prepare(info.name, "encaps", encrypting), plaintext, room);
      plaintext = Arrays.copyOf(ct, info.ciphertextBytes);
    }
    // The measured input: the plaintext, or for decryption this provider's ciphertext of it.
    byte[] input = plaintext;
    boolean inplace = c.spec.inplace && (info.kind.equals("cipher") || info.kind.equals("aead"));
    if (c.spec.operation.equals("decrypt")) {
      Op enc = p.prepare(info.name, "encrypt", encrypting);
      input = Steps.runOnce(enc, plaintext, room);
      if (inplace && info.kind.equals("aead")) {
        // Decrypting in place leaves the plaintext where the ciphertext was, and the next run
        // would fail its tag check. For CTR-based AEADs encrypting the ciphertext gives back the
        // plaintext as ciphertext, with its own tag: the runs alternate between the two texts,
        // each preceded by the tag that belongs to the text in the buffer (engine.cpp).
        byte[] again = Steps.runOnce(enc, Arrays.copyOf(input, size), info.tagBytes);
        if (again.length == input.length && Arrays.equals(Arrays.copyOf(again, size), plaintext)) {
          c.alternate = true;
          c.tagAt = size;
          c.tags[0] = Arrays.copyOfRange(input, size, input.length);
          c.tags[1] = Arrays.copyOfRange(again, size, again.length);
        } else {
          inplace = false;
          c.layoutNote =
              info.name + " decryption is not an involution, so it cannot repeat in place: measured out of place";
        }
      }
      c.expected = plaintext;
      c.refLen = plaintext.length;
      c.deterministic = true;
    } else {
      computeReference(c, p, info, params, input);
    }
    if (inplace) {
      // An API that cannot work in place is measured out of place, and says so.
      String why = "";
      try {
        Op trial = p.prepare(info.name, c.spec.operation, params);
        byte[] buf = Arrays.copyOf(input, input.length + info.tagBytes + SLACK);
        int n = trial.run(buf, 0, input.length, buf, 0);
        if (!Arrays.equals(Arrays.copyOf(buf, n), c.expected)) why = "gives a different output in place";
      } catch (Exception e) {
        why = "fails in place (" + Types.message(e) + ")";
      }
      if (!why.isEmpty()) {
        inplace = false;
        c.alternate = false;
        String what = c.spec.provider + " " + c.spec.operation + " " + info.name;
        c.layoutNote = what + " " + why + ": measured out of place";
      }
    }
    allocateBuffers(c, input, room, inplace);
    measureHeapAndCalibrate(c, p, info, params);
  }

  /**
   * The output of a fresh instance on the case's input, which the timed instance must still give
   * after sampling (engine.cpp, compute_reference).
   */
  static void computeReference(OpenCase c, CryptoProvider p, AlgorithmInfo info, Params params, byte[] input)
      throws Exception {
    if (c.spec.operation.equals("keygen")) {
      c.keygen = true; // nothing to compare; the canaries are still checked
      return;
    }
    int room = info.outputRoom() + SLACK;
    c.expected = Steps.runOnce(p.prepare(info.name, c.spec.operation, params), input, room);
    c.refLen = c.expected.length;
    if (c.spec.operation.equals("encrypt") && info.kind.equals("pk-encryption")) return; // OAEP
    if (c.spec.operation.equals("encaps")) return; // randomised
    // Signatures are deterministic for some schemes (PKCS#1 v1.5, EdDSA) and not for others.
    c.deterministic = true;
    if (c.spec.operation.equals("sign")) {
      byte[] again = Steps.runOnce(p.prepare(info.name, c.spec.operation, params), input, room);
      c.deterministic = Arrays.equals(again, c.expected);
    }
  }

  /**
   * The input at the start of one array; the output in it (in place) or in a separate array, with
   * canaries after the bytes a correct run writes (engine.cpp, allocate_buffers).
   */
  static void allocateBuffers(OpenCase c, byte[] input, int room, boolean inplace) {
    int n = input.length;
    c.input = input;
    c.inLen = n;
    int written = c.refLen;
    if (inplace && n > written) written = n;
    int outCap = Math.max(n + room, written + CANARY);
    if (inplace) {
      c.in = Arrays.copyOf(input, outCap);
      c.out = c.in;
    } else {
      c.in = input.clone();
      c.out = new byte[outCap];
    }
    c.canaryAt = written;
    Arrays.fill(c.out, written, written + CANARY, CANARY_BYTE);
    c.inplace = inplace;
  }

  static boolean canariesIntact(OpenCase c) {
    for (int i = c.canaryAt; i < c.canaryAt + CANARY; i++) if (c.out[i] != CANARY_BYTE) return false;
    return true;
  }

  static long allocatedBytes() {
    return THREADS.getCurrentThreadAllocatedBytes();
  }

  static void measureHeapAndCalibrate(OpenCase c, CryptoProvider p, AlgorithmInfo info, Params params)
      throws Exception {
    long before = allocatedBytes();
    if (c.spec.keySetup) {
      c.op = p.prepareKeySetup(info.name, c.spec.operation, params);
    } else if (c.spec.operation.equals("keygen")) {
      String alg = info.name;
      c.op =
          (in, inOff, inLen, out, outOff) -> {
            p.generateKey(alg);
            return 0;
          };
    } else {
      c.op = p.prepare(info.name, c.spec.operation, params);
    }
    c.prepareBytes = allocatedBytes() - before;

    long t0 = monoNs();
    if (c.spec.operation.equals("keygen")) {
      // One key per sample (every key takes a different time); untimed keys first, as warm-up.
      runOps(c, 1);
      c.warmupIterations = 1;
      while (monoNs() - t0 < c.spec.warmupMs * 1e6) {
        runOps(c, 1);
        c.warmupIterations++;
      }
      c.iterations = 1;
      c.steady = true;
    } else {
      c.iterations = calibrate(c, c.spec.targetSampleMs * 1e6, c.spec.warmupMs * 1e6);
      warmUntilSteady(c);
    }
    c.calibrationNs = monoNs() - t0;
    c.warmupNs = c.calibrationNs;

    long heapOps = c.spec.heapIterations;
    if (c.spec.operation.equals("keygen") && heapOps > 2) heapOps = 2;
    c.resident = Rss.PeakPass.start();
    before = allocatedBytes();
    runOps(c, heapOps);
    c.bytesPerOp = (double) (allocatedBytes() - before) / heapOps;
    c.resident.end();
  }

  /** n back-to-back operations on the case's buffers; every output's first byte goes to sink. */
  static void runOps(OpenCase c, long n) throws Exception {
    Op op = c.op;
    byte[] in = c.in, out = c.out;
    int acc = 0;
    if (c.alternate) {
      int whole = c.tagAt + c.tags[0].length;
      for (long i = 0; i < n; i++) {
        System.arraycopy(c.tags[c.parity], 0, in, c.tagAt, c.tags[c.parity].length);
        c.parity ^= 1;
        acc ^= op.run(in, 0, whole, out, 0) ^ out[0];
      }
    } else {
      int len = c.inLen;
      for (long i = 0; i < n; i++) acc ^= op.run(in, 0, len, out, 0) ^ out[0];
    }
    c.sink ^= acc;
  }

  /**
   * Warm-up for warmupNs, then the count doubles until a batch lasts a quarter of the target; the
   * fastest of three timings of that count is scaled to the target (engine.cpp).
   */
  static long calibrate(OpenCase c, double targetNs, double warmupNs) throws Exception {
    long start = monoNs();
    do {
      runOps(c, 1);
      c.warmupIterations++;
    } while (monoNs() - start < warmupNs);
    final long maxIter = 1L << 40;
    long n = 1;
    double elapsed = timed(c, n);
    while (elapsed < targetNs / 4 && n < maxIter) {
      n *= 2;
      elapsed = timed(c, n);
    }
    for (int i = 0; i < 2; i++) elapsed = Math.min(elapsed, timed(c, n));
    if (elapsed <= 0) return n;
    double scaled = Math.rint(n * targetNs / elapsed);
    return (long) Math.max(1, Math.min(scaled, (double) maxIter));
  }

  private static double timed(OpenCase c, long n) throws Exception {
    long t0 = monoNs();
    runOps(c, n);
    c.warmupIterations += n;
    return monoNs() - t0;
  }

  /**
   * The JIT compiles a method after thousands of calls and recompiles it hotter later, so a
   * figure taken right after calibration can be many times the steady one. Untimed samples of
   * the calibrated count run until the median of the last STEADY_RUN per-sample times is within
   * STEADY_SPREAD of the median of the STEADY_RUN before them (the level has stopped moving; a
   * median, so the noise of a shared machine does not keep it from settling) and the JIT
   * compiled nothing during the last STEADY_RUN samples, and the warm-up floor passed (the
   * operation's code warmed MIN_WARMUP_NS in this process, this case at least MIN_CASE_OPS
   * operations or MIN_CASE_NS), or MAX_WARMUP_NS passed (steady = false); the count is then
   * rescaled to the target with the steady time.
   */
  static void warmUntilSteady(OpenCase c) throws Exception {
    double targetNs = c.spec.targetSampleMs * 1e6;
    long start = monoNs();
    String code = c.spec.provider + "/" + c.spec.variant + " " + c.spec.algorithm + " "
        + c.spec.operation + (c.spec.keySetup ? " key-setup" : "");
    long floorNs = Math.max(0, MIN_WARMUP_NS - WARMED_NS.getOrDefault(code, 0L));
    try {
      warmUntilSteady(c, targetNs, start, floorNs);
    } finally {
      WARMED_NS.merge(code, monoNs() - start, Long::sum);
    }
    if (c.steadyNsPerOp > 0) c.iterations = Math.max(1, Math.round(targetNs / c.steadyNsPerOp));
  }

  private static void warmUntilSteady(OpenCase c, double targetNs, long start, long floorNs)
      throws Exception {
    List<Double> times = new ArrayList<>();
    List<Long> compiling = new ArrayList<>();
    while (true) {
      long t0 = monoNs();
      runOps(c, c.iterations);
      double perOp = (double) (monoNs() - t0) / c.iterations;
      c.warmupIterations += c.iterations;
      times.add(perOp);
      compiling.add(compilationMs());
      int n = times.size();
      if (n >= 2 * STEADY_RUN) {
        double last = median(times.subList(n - STEADY_RUN, n));
        double before = median(times.subList(n - 2 * STEADY_RUN, n - STEADY_RUN));
        c.steadyNsPerOp = last;
        // The JIT compiles in the background, and a method can sit at one tier (interpreted,
        // C1) for a while before C2 has it: a level that holds is steady only once the
        // compilers have been idle for the last samples.
        boolean jitIdle = compiling.get(n - 1).equals(compiling.get(n - STEADY_RUN - 1));
        // ... and the JIT compiles a method only once it was called thousands of times (C2:
        // Tier4 thresholds of 5,000-15,000 calls), and stays idle until then: an operation whose
        // hot code is one call per message (GHASH.processBlocks) needs that many operations.
        // Operations of milliseconds would need minutes for that: their inner loops compile on
        // their own back-edge counts, and MIN_CASE_NS is their floor. And a level that holds
        // right after C2's last compile is not yet the steady one (the fidelity bench measured
        // it): the operation's code warms for MIN_WARMUP_NS in this process first.
        long warmed = monoNs() - start;
        boolean enoughCalls =
            warmed >= floorNs && (c.warmupIterations >= MIN_CASE_OPS || warmed >= MIN_CASE_NS);
        if (enoughCalls && jitIdle && Math.abs(last - before) <= STEADY_SPREAD * before) {
          c.steady = true;
          break;
        }
      }
      if (monoNs() - start > MAX_WARMUP_NS) {
        if (c.steadyNsPerOp == 0) c.steadyNsPerOp = median(times.subList(Math.max(0, n - STEADY_RUN), n));
        break;
      }
      // A count that no longer fills the target (the JIT made it faster) is scaled back up.
      if (perOp * c.iterations < targetNs / 2) {
        c.iterations = Math.max(1, Math.round(targetNs / perOp));
        times.clear();
        compiling.clear();
      }
    }
  }

  static final java.lang.management.CompilationMXBean JIT =
      ManagementFactory.getCompilationMXBean();

  /** Milliseconds the JIT compilers have spent so far (0 where the JVM does not say). */
  static long compilationMs() {
    return JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : 0;
  }

  static long[] gcTotals() {
    long count = 0, ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      count += Math.max(0, gc.getCollectionCount());
      ms += Math.max(0, gc.getCollectionTime());
    }
    return new long[] {count, ms};
  }

  static Sample sample(OpenCase c) throws Exception {
    if (!c.status.equals(OK)) throw new IllegalStateException("sample on a case that is not ok");
    rewarmIfVisitBegan(c);
    long[] gc0 = gcTotals();
    long t0 = monoNs();
    runOps(c, c.iterations);
    long t1 = monoNs();
    long[] gc1 = gcTotals();
    c.gcCount += gc1[0] - gc0[0];
    c.gcMs += gc1[1] - gc0[1];
    Sample s = new Sample(c.iterations, t1 - t0, 0);
    c.samples.add(s);
    c.lastSampleEnd = t1;
    if (c.samples.size() >= c.spec.samples) checkTimedInstance(c);
    return s;
  }

  /**
   * A sample that begins more than VISIT_GAP_NS after the previous one ended (another case or
   * process had the CPU) is preceded by about REWARM_NS of untimed operations; operations longer
   * than half a sample warm themselves.
   */
  static void rewarmIfVisitBegan(OpenCase c) throws Exception {
    if (monoNs() - c.lastSampleEnd <= VISIT_GAP_NS || c.iterations < 2) return;
    double perOp = c.spec.targetSampleMs * 1e6 / c.iterations;
    runOps(c, (long) Math.ceil(REWARM_NS / perOp));
    c.rewarms++;
  }

  /**
   * protocol.md, step 6: once the case has its samples, and at the latest at close, the canaries
   * are intact, out of place the input is unchanged, and one more run of the timed operation in
   * the timed buffers gives the output a fresh instance gave after the gate.
   */
  static void checkTimedInstance(OpenCase c) {
    if (c.checked || !c.status.equals(OK)) return;
    c.checked = true;
    String why = "", wrotePast = "the timed operation wrote past its " + c.refLen + "-byte output";
    if (!canariesIntact(c)) {
      why = wrotePast;
    } else if (!c.inplace && !Arrays.equals(c.in, 0, c.inLen, c.input, 0, c.inLen)) {
      why = "the timed operation changed its input buffer";
    } else if (!c.keygen) {
      restoreInput(c); // in place, the buffer holds a later text
      int len = c.inLen;
      if (c.alternate) {
        len = c.tagAt + c.tags[0].length;
        System.arraycopy(c.tags[0], 0, c.in, c.tagAt, c.tags[0].length);
        c.parity = 1;
      }
      try {
        c.op.rewind();
        int n = c.op.run(c.in, 0, len, c.out, 0);
        byte[] r = Arrays.copyOf(c.out, n);
        if (!canariesIntact(c)) {
          why = wrotePast;
        } else if (c.deterministic && r.length != c.expected.length) {
          why = "the timed instance returned " + r.length + " bytes, the gated one " + c.expected.length;
        } else if (c.deterministic && !Arrays.equals(r, c.expected)) {
          int at = 0;
          while (at < r.length && r[at] == c.expected[at]) at++;
          why = "the timed instance's output differs from the gated instance's (byte " + at + ")";
        }
      } catch (Exception e) {
        why = "the timed instance failed on the case's input: " + Types.message(e);
      }
    }
    if (!why.isEmpty()) {
      c.fail("check of the timed instance after sampling: " + why);
      c.timedCheck = "failed";
      return;
    }
    c.timedCheck =
        c.spec.keySetup
            ? "canaries intact (key setup writes no output)"
            : c.deterministic
                ? "output equals the gated instance's; canaries intact"
                : "canaries intact (randomised output: not compared)";
    // More samples may be asked for (adaptive sampling): the buffer goes back to the state
    // sampling starts from.
    if (!c.keygen) restoreInput(c);
  }

  /** The case's input back in the input buffer, and the tag alternation at its start. */
  static void restoreInput(OpenCase c) {
    System.arraycopy(c.input, 0, c.in, 0, c.inLen);
    c.parity = 0;
  }

  static double median(List<Double> v) {
    double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return (s[(s.length - 1) / 2] + s[s.length / 2]) / 2;
  }
}
