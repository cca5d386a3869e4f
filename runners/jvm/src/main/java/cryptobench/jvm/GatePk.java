package cryptobench.jvm;

import static cryptobench.jvm.Gate.clip;
import static cryptobench.jvm.Gate.runOnce;
import static cryptobench.jvm.Vectors.hasPrivate;
import static cryptobench.jvm.Vectors.publicParts;

import cryptobench.jvm.Gate.Report;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Unsupported;
import cryptobench.jvm.Vectors.PkVector;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The correctness gate for public-key algorithms and KDFs (native/src/core/gate_pk.cpp,
 * runners/go/gate_pk.go). Randomised operations (ECDSA and PSS signatures, OAEP, key generation)
 * are checked by round trip here and by the other providers through the coordinator's cross_check.
 */
final class GatePk {
  private GatePk() {}

  static boolean deterministicSignature(AlgorithmInfo info) {
    return info.family.equals("rsa-pkcs1")
        || info.family.equals("ed25519")
        || info.family.equals("ed448");
  }

  static boolean offers(CryptoProvider p, String alg) {
    return p.algorithms().contains(alg);
  }

  /** Prepares one operation and runs it once on {@code in}. */
  static byte[] runOne(CryptoProvider p, String alg, String op, Params params, byte[] in)
      throws Exception {
    return runOnce(p.prepare(alg, op, params), in, 1024);
  }

  static byte[] sign(CryptoProvider p, String alg, KeyParts key, byte[] msg) throws Exception {
    Params params = new Params();
    params.keypair = key;
    return runOne(p, alg, "sign", params, msg);
  }

  /** True when the signature verifies, false when the provider rejects it. */
  static boolean verifies(CryptoProvider p, String alg, KeyParts pub, byte[] msg, byte[] sig)
      throws Unsupported {
    Params params = new Params();
    params.keypair = pub;
    params.signature = sig;
    Op op;
    try {
      op = p.prepare(alg, "verify", params);
    } catch (Unsupported u) {
      throw u;
    } catch (Exception e) {
      return false;
    }
    try {
      op.run(msg, 0, msg.length, new byte[1024], 0);
      return true;
    } catch (Unsupported u) {
      throw u;
    } catch (Exception e) {
      return false;
    }
  }

  static byte[] encrypt(CryptoProvider p, String alg, KeyParts pub, byte[] msg) throws Exception {
    Params params = new Params();
    params.keypair = pub;
    return runOne(p, alg, "encrypt", params, msg);
  }

  static byte[] decrypt(CryptoProvider p, String alg, KeyParts key, byte[] ct) throws Exception {
    Params params = new Params();
    params.keypair = key;
    return runOne(p, alg, "decrypt", params, ct);
  }

  static byte[] agree(CryptoProvider p, String alg, KeyParts own, KeyParts peerPub)
      throws Exception {
    Params params = new Params();
    params.keypair = own;
    params.peer = peerPub;
    return runOne(p, alg, "derive", params, new byte[0]);
  }

  static final class LaxAccept extends Exception {
    LaxAccept() {
      super("lax");
    }
  }

  static void addLax(Report r, String what) {
    if (!r.lax.isEmpty()) r.lax += "; ";
    r.lax += what;
  }

  static byte[] flipped(byte[] b, int at, int mask) {
    byte[] out = b.clone();
    out[at] ^= (byte) mask;
    return out;
  }

  static String checkPkVector(CryptoProvider p, AlgorithmInfo info, String op, PkVector v)
      throws Exception {
    switch (info.kind) {
      case "signature":
        {
          if (op.equals("sign")) {
            if (!v.valid || !hasPrivate(info, v.key)) throw new Unsupported("vector has no private key");
            Params params = new Params();
            params.keypair = v.key;
            Op prepared = p.prepare(info.name, "sign", params);
            for (int round = 1; round <= 2; round++) {
              byte[] sig = runOnce(prepared, v.message, 1024);
              if (deterministicSignature(info)) {
                if (!Arrays.equals(sig, v.signature))
                  return "signature " + clip(sig) + ", expected " + clip(v.signature);
              } else if (!verifies(p, info.name, publicParts(info, v.key), v.message, sig)) {
                return "its own signature does not verify";
              }
            }
            return "";
          }
          Params params = new Params();
          params.keypair = publicParts(info, v.key);
          params.signature = v.signature;
          Op prepared;
          try {
            prepared = p.prepare(info.name, "verify", params);
          } catch (Unsupported u) {
            throw u;
          } catch (Exception e) {
            if (v.valid) throw e;
            prepared = null; // a key or signature refused on parsing is a rejection
          }
          for (int round = 1; round <= 2; round++) {
            boolean ok = false;
            if (prepared != null) {
              try {
                prepared.run(v.message, 0, v.message.length, new byte[1024], 0);
                ok = true;
              } catch (Unsupported u) {
                throw u;
              } catch (Exception e) {
                ok = false;
              }
            }
            if (ok && !v.valid && v.strictOnly) throw new LaxAccept();
            if (ok != v.valid)
              return v.valid ? "rejected a valid signature" : "accepted an invalid signature";
          }
          if (v.valid) {
            KeyParts pub = publicParts(info, v.key);
            if (verifies(p, info.name, pub, v.message, flipped(v.signature, v.signature.length / 2, 1)))
              return "accepted a signature with one bit flipped";
            byte[] other = Arrays.copyOf(v.message, v.message.length + 1);
            if (verifies(p, info.name, pub, other, v.signature))
              return "accepted the signature for a different message";
          }
          return "";
        }
      case "pk-encryption":
        {
          if (op.equals("decrypt")) {
            Params params = new Params();
            params.keypair = v.key;
            Op prepared = p.prepare(info.name, "decrypt", params);
            for (int round = 1; round <= 2; round++) {
              byte[] pt = runOnce(prepared, v.ciphertext, 1024);
              if (!Arrays.equals(pt, v.plaintext))
                return "plaintext " + clip(pt) + ", expected " + clip(v.plaintext);
            }
            try {
              runOnce(prepared, flipped(v.ciphertext, v.ciphertext.length / 2, 1), 1024);
              return "accepted a ciphertext with one bit flipped";
            } catch (Unsupported u) {
              throw u;
            } catch (Exception expected) {
              return "";
            }
          }
          if (!hasPrivate(info, v.key)) throw new Unsupported("vector has no private key");
          byte[] ct = encrypt(p, info.name, publicParts(info, v.key), v.plaintext);
          byte[] pt = decrypt(p, info.name, v.key, ct);
          if (!Arrays.equals(pt, v.plaintext))
            return "its own ciphertext does not decrypt to the plaintext";
          return "";
        }
      case "key-agreement":
        {
          Params params = new Params();
          params.keypair = v.key;
          params.peer = v.peer;
          Op prepared = p.prepare(info.name, "derive", params);
          for (int round = 1; round <= 2; round++) {
            byte[] z = runOnce(prepared, new byte[0], 1024);
            if (!Arrays.equals(z, v.shared))
              return "shared secret " + clip(z) + ", expected " + clip(v.shared);
          }
          return "";
        }
      case "kdf":
        {
          Op prepared = p.prepare(info.name, "derive", v.kdf);
          for (int round = 1; round <= 2; round++) {
            byte[] out = runOnce(prepared, v.input, 1024);
            if (!Arrays.equals(out, v.output))
              return "output " + clip(out) + ", expected " + clip(v.output);
          }
          return "";
        }
      default:
        throw new Unsupported("no vectors for " + info.name);
    }
  }

  static String runPkKat(CryptoProvider p, AlgorithmInfo info, String op, Report r) {
    if (op.equals("keygen")) {
      r.kat = "not applicable (random keys; checked by use)";
      return "";
    }
    List<PkVector> vectors;
    try {
      vectors = Vectors.pkVectorsFor(info);
    } catch (Vectors.VectorError e) {
      return e.getMessage();
    }
    if (vectors.isEmpty()) {
      if (info.kind.equals("pk-encryption")) {
        r.kat = "no published vector; checked by round trip and cross-provider decryption";
        return "";
      }
      return "no known-answer vector for "
          + info.name
          + " in "
          + Vectors.dir()
          + "/"
          + info.family
          + ".json";
    }
    List<String> sources = vectors.stream().map(v -> v.source).toList();
    return Gate.runVectors(
        sources,
        p.name(),
        info,
        r,
        i -> {
          try {
            return checkPkVector(p, info, op, vectors.get(i));
          } catch (LaxAccept lax) {
            String src = vectors.get(i).source.isEmpty() ? "a vector" : vectors.get(i).source;
            addLax(r, "accepts " + src);
            return "";
          }
        });
  }

  /** The signature algorithm that exercises a key of info's type. */
  static String signatureForKey(CryptoProvider p, AlgorithmInfo info) {
    if (info.kind.equals("signature")) return info.name;
    for (String scheme : new String[] {"-pkcs1-sha256", "-pss-sha256"})
      if (offers(p, info.name + scheme)) return info.name + scheme;
    return "";
  }

  static boolean keysEqual(KeyParts a, KeyParts b) {
    if (a.size() != b.size()) return false;
    for (String k : a.keySet()) if (!Arrays.equals(a.get(k), b.get(k))) return false;
    return true;
  }

  static String checkGeneratedKey(CryptoProvider p, AlgorithmInfo info, KeyParts a, KeyParts b)
      throws Exception {
    if (keysEqual(a, b)) return "two generated keys are identical";
    if (!hasPrivate(info, a)) return "generated key has no private part";
    byte[] msg = new ByteStream(7).bytes(32);
    if (info.kind.equals("key-agreement")) {
      byte[] ab = agree(p, info.name, a, publicParts(info, b));
      byte[] ba = agree(p, info.name, b, publicParts(info, a));
      if (!Arrays.equals(ab, ba)) return "two generated keys do not agree on a shared secret";
      if (ab.length != info.outputBytes) return "shared secret is " + clip(ab);
      return "";
    }
    String sigAlg = signatureForKey(p, info);
    if (sigAlg.isEmpty()) return "";
    byte[] sig = sign(p, sigAlg, a, msg);
    if (!verifies(p, sigAlg, publicParts(info, a), msg, sig))
      return "a signature made with a generated key does not verify";
    if (verifies(p, sigAlg, publicParts(info, b), msg, sig))
      return "a signature verifies under another generated key";
    return "";
  }

  static String checkFreshKeys(CryptoProvider p, AlgorithmInfo info) throws Exception {
    KeyParts a = p.generateKey(info.name), b = p.generateKey(info.name);
    return checkGeneratedKey(p, info, a, b);
  }

  static String runPkRoundtrip(
      CryptoProvider p, AlgorithmInfo info, String op, byte[] input, Params params, Report r)
      throws Exception {
    KeyParts key = params.keypair;
    switch (info.kind) {
      case "keypair":
      case "signature":
        {
          if (op.equals("keygen")) return checkFreshKeys(p, info);
          byte[] sig = sign(p, info.name, key, input);
          if (sig.length != info.outputBytes)
            return "signature is " + sig.length + " bytes, expected " + info.outputBytes;
          KeyParts pub = publicParts(info, key);
          if (!verifies(p, info.name, pub, input, sig)) return "its own signature does not verify";
          for (int at : new int[] {0, sig.length / 3, sig.length - 1}) {
            if (!verifies(p, info.name, pub, input, flipped(sig, at, 0x80))) continue;
            if (info.name.equals("ed448") && at == sig.length - 1) {
              addLax(
                  r,
                  "accepts a signature whose last byte (zero in every valid Ed448 signature) was"
                      + " altered");
              continue;
            }
            return "accepted its signature with a bit of byte " + at + " flipped";
          }
          return "";
        }
      case "pk-encryption":
        {
          KeyParts pub = publicParts(info, key);
          byte[] c1 = encrypt(p, info.name, pub, input), c2 = encrypt(p, info.name, pub, input);
          if (c1.length != info.outputBytes) return "ciphertext is " + clip(c1);
          if (Arrays.equals(c1, c2))
            return "two encryptions of the same message are identical (no randomness)";
          byte[] pt = decrypt(p, info.name, key, c1);
          if (!Arrays.equals(pt, input)) return "decrypt(encrypt(input)) differs from the input";
          return "";
        }
      case "key-agreement":
        {
          if (op.equals("keygen")) return checkFreshKeys(p, info);
          KeyParts peer = Vectors.testKey(info.keyType + "-peer");
          byte[] ab = agree(p, info.name, key, publicParts(info, peer));
          byte[] ba = agree(p, info.name, peer, publicParts(info, key));
          if (ab.length != info.outputBytes)
            return "shared secret is " + ab.length + " bytes, expected " + info.outputBytes;
          if (!Arrays.equals(ab, ba)) return "the two parties compute different shared secrets";
          return "";
        }
      case "kdf":
        {
          byte[] a = runOne(p, info.name, "derive", params, input);
          byte[] b = runOne(p, info.name, "derive", params, input);
          if (a.length != params.outLen)
            return "output is " + a.length + " bytes, expected " + params.outLen;
          if (!Arrays.equals(a, b)) return "two derivations from the same input differ";
          return "";
        }
      default:
        return "not a public-key algorithm";
    }
  }

  static Report runPkGate(
      CryptoProvider p, AlgorithmInfo info, String op, byte[] input, Params params)
      throws Unsupported {
    Objects.requireNonNull(params);
    return Gate.runSteps(
        r -> runPkKat(p, info, op, r), r -> runPkRoundtrip(p, info, op, input, params, r));
  }
}
