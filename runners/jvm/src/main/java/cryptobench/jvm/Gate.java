package cryptobench.jvm;

import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Unsupported;
import cryptobench.jvm.Vectors.Vector;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The correctness gate for symmetric algorithms, hashes and MACs (native/src/core/gate.cpp,
 * runners/go/gate.go): every known-answer vector twice on one prepared operation, an AEAD
 * decryption must reject a flipped tag, then the round trip on the case's own input.
 * Cross-provider agreement is the coordinator's (Agreement.java).
 */
final class Gate {
  private Gate() {}

  static final int STREAM_BLOCK = 64; // what initial_counter counts (ChaCha20 / Salsa20 blocks)

  /** The gate's outcome (engine.hpp, GateReport). */
  static final class Report {
    boolean ok;
    String reason = "", kat = "", roundtrip = "", agreement = "", lax = "";
  }

  /** A step's verdict: "" passes, text fails; Unsupported propagates. */
  interface Step {
    String run(Report r) throws Exception;
  }

  static byte[] runOnce(Op op, byte[] in, int extra) throws Exception {
    op.rewind();
    byte[] out = new byte[in.length + extra + 64];
    int n = op.run(in, 0, in.length, out, 0);
    return Arrays.copyOf(out, n);
  }

  static String forward(AlgorithmInfo info) {
    if (info.kind.equals("hash")) return "hash";
    if (info.kind.equals("mac")) return "mac";
    return "encrypt";
  }

  static String clip(byte[] b) {
    String h = HexFormat.of().formatHex(b, 0, Math.min(b.length, 24));
    if (b.length > 24) h += "...";
    return h + " (" + b.length + " bytes)";
  }

  static String mismatch(String what, byte[] got, byte[] want) {
    return what + ": got " + clip(got) + ", expected " + clip(want);
  }

  static String checkVector(CryptoProvider p, AlgorithmInfo info, String op, Vector v)
      throws Exception {
    Params params = new Params();
    params.key = v.key;
    params.iv = v.iv;
    params.aad = v.aad;
    byte[] prefix = new byte[v.initialCounter * STREAM_BLOCK];
    byte[] in = op.equals("decrypt") ? v.expected : v.input;
    byte[] want = op.equals("decrypt") ? v.input : v.expected;
    in = Vectors.concat(prefix, in);
    Op prepared = p.prepare(info.name, op, params);
    for (int round = 1; round <= 2; round++) {
      byte[] got = runOnce(prepared, in, info.tagBytes);
      if (got.length < prefix.length) return mismatch("output too short", got, want);
      got = Arrays.copyOfRange(got, prefix.length, got.length);
      if (info.kind.equals("mac") && want.length < got.length)
        got = Arrays.copyOf(got, want.length);
      if (!Arrays.equals(got, want))
        return mismatch(round == 2 ? "wrong output on the second run" : "wrong output", got, want);
    }
    if (info.kind.equals("aead") && op.equals("decrypt")) {
      byte[] tampered = in.clone();
      tampered[tampered.length - 1] ^= 1;
      try {
        runOnce(prepared, tampered, 0);
        return "accepted a ciphertext whose tag was altered";
      } catch (Unsupported u) {
        throw u;
      } catch (Exception expected) {
        // rejected, as it must be
      }
      byte[] got = runOnce(prepared, in, 0);
      if (!Arrays.equals(Arrays.copyOfRange(got, prefix.length, got.length), want))
        return "wrong output after rejecting a forgery";
    }
    return "";
  }

  interface VectorCheck {
    String check(int i) throws Exception;
  }

  /**
   * gate_util.hpp, run_vectors: "" passes; a reason fails; an Unsupported vector does not apply
   * (at least one must).
   */
  static String runVectors(
      List<String> sources, String provider, AlgorithmInfo info, Report report, VectorCheck c) {
    int passed = 0, notApplicable = 0;
    String naReason = "";
    for (int i = 0; i < sources.size(); i++) {
      String why;
      try {
        why = c.check(i);
      } catch (Unsupported u) {
        notApplicable++;
        naReason = u.getMessage();
        continue;
      } catch (Exception e) {
        why = Types.message(e);
      }
      if (!why.isEmpty()) {
        String name = sources.get(i).isEmpty() ? info.name : sources.get(i);
        return "known-answer test " + name + " failed for " + provider + ": " + why;
      }
      passed++;
    }
    if (passed == 0) return "no known-answer vector applies: " + naReason;
    report.kat = "passed " + passed + (passed == 1 ? " vector" : " vectors");
    if (notApplicable > 0) report.kat += ", " + notApplicable + " not applicable (" + naReason + ")";
    return "";
  }

  static String runKat(CryptoProvider p, AlgorithmInfo info, String op, Report report) {
    List<Vector> vectors;
    try {
      vectors = Vectors.vectorsFor(info);
    } catch (Vectors.VectorError e) {
      return e.getMessage();
    }
    if (vectors.isEmpty())
      return "no known-answer vector for "
          + info.name
          + " in "
          + Vectors.dir()
          + "/"
          + info.family
          + ".json";
    List<String> sources = vectors.stream().map(v -> v.source).toList();
    return runVectors(
        sources, p.name(), info, report, i -> checkVector(p, info, op, vectors.get(i)));
  }

  static String runRoundtrip(CryptoProvider p, AlgorithmInfo info, byte[] input, Params params)
      throws Exception {
    if (info.kind.equals("hash") || info.kind.equals("mac")) {
      Op op = p.prepare(info.name, forward(info), params);
      byte[] a = runOnce(op, input, 0), b = runOnce(op, input, 0);
      if (a.length != info.outputBytes)
        return "output is " + a.length + " bytes, expected " + info.outputBytes;
      if (!Arrays.equals(a, b)) return "two runs on the same input gave different outputs";
      return "";
    }
    Op enc = p.prepare(info.name, "encrypt", params);
    Op dec = p.prepare(info.name, "decrypt", params);
    byte[] ct = runOnce(enc, input, info.tagBytes);
    if (ct.length != input.length + info.tagBytes)
      return "ciphertext is " + ct.length + " bytes for " + input.length + " bytes of input";
    if (input.length >= 16
        && Arrays.equals(Arrays.copyOf(ct, 16), Arrays.copyOf(input, 16)))
      return "ciphertext starts with the plaintext";
    byte[] pt = runOnce(dec, ct, 0);
    if (!Arrays.equals(pt, input)) return "decrypt(encrypt(input)) differs from the input";
    return "";
  }

  /**
   * gate_util.hpp, run_steps, without the agreement step. An Unsupported step is thrown (the case
   * is unsupported, not failed); any other exception is the gate's reason.
   */
  static Report runSteps(Step kat, Step roundtrip) throws Unsupported {
    Report r = new Report();
    r.agreement = "by the coordinator (agreement request)";
    String why;
    try {
      why = kat.run(r);
    } catch (Unsupported u) {
      throw u;
    } catch (Exception e) {
      why = Types.message(e);
    }
    if (!why.isEmpty()) {
      r.reason = why;
      return r;
    }
    try {
      why = roundtrip.run(r);
    } catch (Unsupported u) {
      throw u;
    } catch (Exception e) {
      why = Types.message(e);
    }
    if (!why.isEmpty()) {
      r.reason = "round trip failed: " + why;
      return r;
    }
    r.roundtrip = "passed";
    r.ok = true;
    return r;
  }

  static Report runGate(
      CryptoProvider p, AlgorithmInfo info, String op, byte[] input, Params params)
      throws Unsupported {
    return runSteps(
        r -> runKat(p, info, op, r), r -> runRoundtrip(p, info, input, params));
  }
}
