package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import cryptobench.jvm.Protocol.SpecError;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.MacVerifyOp;
import cryptobench.jvm.Types.Op;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The `leak` request (docs/protocol.md, "`leak`: input classes timed in turns"): one prepared
 * operation run on the coordinator's input classes, in a fresh random order every round, each
 * measurement `batch` back-to-back runs of one class timed with System.nanoTime (as native
 * leak.cpp). A refusal is an exception, whose throwing is part of the refused class's time,
 * except in a MAC verification (JcaProvider.prepareMacVerify): MessageDigest.isEqual returns a
 * boolean, so a wrong tag is a status there.
 */
final class Leak {
  private Leak() {}

  static final int MAX_CLASSES = 16, WARMUP_ROUNDS = 16;

  static JsonObject request(JsonObject req) throws SpecError {
    if (!req.has("case")) throw new SpecError("case: missing");
    JsonElement macCase = macVerifyCase(req.get("case"));
    CaseSpec spec = Protocol.parseCase(macCase != null ? macCase : req.get("case"), "case");
    JsonArray raw = req.has("classes") && req.get("classes").isJsonArray() ? req.getAsJsonArray("classes") : null;
    if (raw == null || raw.size() < 2 || raw.size() > MAX_CLASSES)
      throw new SpecError("classes: must be an array of 2 to " + MAX_CLASSES + " hex strings");
    byte[][] classes = new byte[raw.size()][]; // each class in an array of its own
    int longest = 0;
    for (int i = 0; i < classes.length; i++) {
      classes[i] = Steps.hex(raw.get(i), "classes[" + i + "]");
      longest = Math.max(longest, classes[i].length);
    }
    int rounds = Protocol.count(req, "rounds", 1000, 1_000_000);
    int batch = Protocol.count(req, "batch", 1, 100_000);
    long seed = req.has("seed") ? Protocol.uint(req.get("seed"), "seed") : 1;
    Types.Params params = Steps.params(req.get("params"), "params");
    JsonObject reply = Protocol.obj("type", "leak", "id", spec.id, "status", Engine.OK, "reason", "");
    Op op;
    try {
      CryptoProvider provider = Engine.resolve(spec);
      op =
          macCase != null
              ? provider.prepareMacVerify(spec.algorithm, params)
              : provider.prepare(spec.algorithm, spec.operation, params);
    } catch (Exception | LinkageError e) {
      return Engine.refused(reply, e);
    }

    byte[] out = new byte[longest + Types.findAlgorithm(spec.algorithm).outputRoom() + Engine.SLACK];
    JsonArray outcomes = new JsonArray(); // what one untimed run of each class gave
    for (byte[] c : classes) {
      try { // runOnce rewinds an AEAD encryption to the coordinator's nonce first
        outcomes.add(Protocol.obj("out", Steps.HEX.formatHex(Steps.runOnce(op, c, out.length))));
      } catch (Exception e) {
        outcomes.add(Protocol.obj("error", Types.message(e)));
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int k = 0; k < classes.length; k++) order.add(k);
    Random rng = new Random(seed);
    long[][] ns = new long[classes.length][rounds];
    for (int r = -WARMUP_ROUNDS; r < rounds; r++) { // the first rounds are untimed warm-up
      Collections.shuffle(order, rng);
      for (int k : order) {
        long t = measure(op, classes[k], out, batch);
        if (r >= 0) ns[k][r] = t;
      }
    }
    reply.add("outcomes", outcomes);
    reply.addProperty("batch", batch);
    reply.addProperty("refusal", op instanceof MacVerifyOp ? "status" : "exception");
    reply.add("ns", Protocol.GSON.toJsonTree(ns));
    return reply;
  }

  /**
   * MAC verification is no catalogue operation (a `mac` case computes a tag): asked for as a MAC
   * algorithm's `verify`, it is resolved as the `mac` it verifies (as leak.cpp does); null for
   * any other case.
   */
  private static JsonElement macVerifyCase(JsonElement raw) {
    if (raw == null || !raw.isJsonObject()) return null;
    JsonObject c = raw.getAsJsonObject();
    JsonElement op = c.get("operation"), alg = c.get("algorithm");
    if (op == null || !op.isJsonPrimitive() || !op.getAsString().equals("verify")) return null;
    if (alg == null || !alg.isJsonPrimitive()) return null;
    Types.AlgorithmInfo info = Types.findAlgorithm(alg.getAsString());
    if (info == null || !info.kind.equals("mac")) return null;
    JsonObject mac = c.deepCopy();
    mac.addProperty("operation", "mac");
    return mac;
  }

  /** Written once per measurement, so the JIT cannot drop a verification whose result is unused. */
  private static volatile int sink;

  private static long measure(Op op, byte[] in, byte[] out, int batch) {
    if (op instanceof MacVerifyOp mac) return measureStatus(mac, in, batch);
    long t0 = Engine.monoNs();
    for (int b = 0; b < batch; b++) {
      try {
        op.run(in, 0, in.length, out, 0);
      } catch (Exception e) {
        // a refused class (a wrong tag, bad padding) is timed like any other
      }
    }
    return Engine.monoNs() - t0;
  }

  /** A refusal reported as a status: a wrong tag takes the same path as a valid one. */
  private static long measureStatus(MacVerifyOp op, byte[] in, int batch) {
    int accepted = 0;
    long t0 = Engine.monoNs();
    for (int b = 0; b < batch; b++) {
      try {
        if (op.verify(in, 0, in.length)) accepted++;
      } catch (Exception e) {
        // the library failed: timed like a refusal (the outcome run reported it)
      }
    }
    sink = accepted;
    return Engine.monoNs() - t0;
  }
}
