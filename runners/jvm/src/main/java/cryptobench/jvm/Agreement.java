package cryptobench.jvm;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import cryptobench.jvm.Gate.Report;
import cryptobench.jvm.Protocol.SpecError;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Unsupported;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * Cross-provider agreement, computed in this process (docs/protocol.md, "Agreement";
 * runners/go/agreement.go): `agreement` produces this provider's artifacts from the
 * coordinator's material, `cross_check` checks other providers' artifacts that equality cannot
 * decide.
 */
final class Agreement {
  private Agreement() {}

  static final HexFormat HEX = HexFormat.of();

  static final class Material {
    byte[] key = new byte[0], iv = new byte[0], aad = new byte[0], input = new byte[0];
    byte[] salt = new byte[0], info = new byte[0];

    byte[] password() {
      return Arrays.copyOf(input, Math.min(32, input.length));
    }
  }

  static Material parseMaterial(JsonObject req) throws SpecError {
    if (!req.has("material") || !req.get("material").isJsonObject())
      throw new SpecError("material: missing or not an object");
    JsonObject raw = req.getAsJsonObject("material");
    Material m = new Material();
    for (String name : new String[] {"key", "iv", "aad", "input", "salt", "info"}) {
      JsonElement v = raw.get(name);
      if (v == null) continue;
      if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString())
        throw new SpecError("material." + name + ": must be a hex string");
      byte[] b;
      try {
        b = HEX.parseHex(v.getAsString());
      } catch (IllegalArgumentException e) {
        throw new SpecError("material." + name + ": " + e.getMessage());
      }
      switch (name) {
        case "key" -> m.key = b;
        case "iv" -> m.iv = b;
        case "aad" -> m.aad = b;
        case "input" -> m.input = b;
        case "salt" -> m.salt = b;
        default -> m.info = b;
      }
    }
    return m;
  }

  static JsonObject hexParts(KeyParts k) {
    JsonObject o = new JsonObject();
    for (Map.Entry<String, byte[]> e : k.entrySet()) o.addProperty(e.getKey(), HEX.formatHex(e.getValue()));
    return o;
  }

  static JsonObject one(String name, byte[] value) {
    JsonObject o = new JsonObject();
    o.addProperty(name, HEX.formatHex(value));
    return o;
  }

  /** This provider's outputs for the material (the contract's table). */
  static JsonObject artifacts(CryptoProvider p, AlgorithmInfo info, CaseSpec spec, Material m)
      throws Exception {
    String op = spec.operation;
    Params params = new Params();
    switch (info.kind) {
      case "cipher":
      case "aead":
        params.key = m.key;
        params.iv = m.iv;
        params.aad = m.aad;
        return one("ciphertext", GatePk.runOne(p, info.name, "encrypt", params, m.input));
      case "hash":
        return one("digest", GatePk.runOne(p, info.name, "hash", params, m.input));
      case "mac":
        params.key = m.key;
        return one("mac", GatePk.runOne(p, info.name, "mac", params, m.input));
      case "kdf":
        EnginePk.caseParams(info, spec); // the cost's names are checked
        params.salt = m.salt;
        params.info = m.info;
        params.outLen = 32;
        params.cost = spec.cost;
        return one("derived", GatePk.runOne(p, info.name, "derive", params, m.password()));
      default:
    }
    if (op.equals("keygen")) {
      JsonObject o = new JsonObject();
      o.add("generated", hexParts(p.generateKey(info.name)));
      return o;
    }
    KeyParts key = Vectors.testKey(info.keyType);
    switch (info.kind) {
      case "signature":
        return one("signature", GatePk.sign(p, info.name, key, m.input));
      case "pk-encryption":
        return one(
            "ciphertext",
            GatePk.encrypt(p, info.name, Vectors.publicParts(info, key), m.password()));
      case "key-agreement":
        {
          KeyParts peer = Vectors.testKey(info.keyType + "-peer");
          return one("secret", GatePk.agree(p, info.name, key, Vectors.publicParts(info, peer)));
        }
      default:
        throw new Unsupported("no artifacts for " + op + " " + info.name);
    }
  }

  /** This provider's known-answer result for the case's algorithm, every operation but keygen. */
  static JsonObject ownKat(CryptoProvider p, AlgorithmInfo info, String op) {
    Report r = new Report();
    String why = info.isPkOrKdf() ? GatePk.runPkKat(p, info, op, r) : Gate.runKat(p, info, op, r);
    JsonObject o = new JsonObject();
    o.addProperty("ok", why.isEmpty());
    o.addProperty("detail", why.isEmpty() ? r.kat : why);
    return o;
  }

  static JsonObject request(String cmd, JsonObject req) throws SpecError {
    if (!req.has("case")) throw new SpecError("case: missing");
    CaseSpec spec = Protocol.parseCase(req.get("case"), "case");
    Material m = parseMaterial(req);
    CryptoProvider p = null;
    Exception resolveError = null;
    try {
      p = Engine.resolve(spec);
    } catch (Exception e) {
      resolveError = e;
    }
    AlgorithmInfo info = Types.findAlgorithm(spec.algorithm);
    if (cmd.equals("cross_check")) {
      if (!req.has("peers") || !req.get("peers").isJsonObject())
        throw new SpecError("peers: missing or not an object");
      return crossCheck(spec, info, p, resolveError, m, req.getAsJsonObject("peers"));
    }
    JsonObject reply = Protocol.obj("type", "agreement", "id", spec.id, "status", Engine.OK, "reason", "");
    if (resolveError != null) {
      reply.addProperty("status", resolveError instanceof Unsupported ? Engine.UNSUPPORTED : Engine.FAILED);
      reply.addProperty("reason", Types.message(resolveError));
      return reply;
    }
    reply.add("kat", ownKat(p, info, spec.operation));
    try {
      reply.add("artifacts", artifacts(p, info, spec, m));
    } catch (Exception | LinkageError e) {
      reply.addProperty("status", e instanceof Unsupported ? Engine.UNSUPPORTED : Engine.FAILED);
      reply.addProperty("reason", Types.message(e));
      reply.remove("artifacts");
    }
    return reply;
  }

  static JsonObject verdict(Boolean ok, String reason) {
    JsonObject v = new JsonObject();
    if (ok == null) v.add("ok", JsonNull.INSTANCE);
    else v.addProperty("ok", ok);
    v.addProperty("reason", reason);
    return v;
  }

  static JsonObject crossCheck(
      CaseSpec spec,
      AlgorithmInfo info,
      CryptoProvider p,
      Exception resolveError,
      Material m,
      JsonObject peers) {
    JsonObject verdicts = new JsonObject();
    for (String name : new TreeMap<>(peers.asMap()).keySet()) {
      if (resolveError != null) {
        verdicts.add(name, verdict(null, "not checked: " + Types.message(resolveError)));
        continue;
      }
      JsonElement raw = peers.get(name);
      JsonObject arts = raw.isJsonObject() ? raw.getAsJsonObject() : new JsonObject();
      try {
        String why = checkPeer(p, info, spec, m, arts);
        verdicts.add(name, verdict(why.isEmpty(), why));
      } catch (Exception | LinkageError e) {
        verdicts.add(name, verdict(null, "not checked: " + Types.message(e)));
      }
    }
    JsonObject o = Protocol.obj("type", "cross_check", "id", spec.id);
    o.add("verdicts", verdicts);
    return o;
  }

  static byte[] hexArtifact(JsonObject arts, String name) {
    JsonElement v = arts.get(name);
    if (v == null || !v.isJsonPrimitive()) return null;
    try {
      return HEX.parseHex(v.getAsString());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Verify the peer's signature, decrypt its ciphertext, use its generated key; for the
   * deterministic artifacts compare with ours. "" accepts, a reason rejects; an exception means
   * the check could not be made here.
   */
  static String checkPeer(
      CryptoProvider p, AlgorithmInfo info, CaseSpec spec, Material m, JsonObject arts)
      throws Exception {
    if (arts.has("generated") && arts.get("generated").isJsonObject()) {
      KeyParts key = new KeyParts();
      JsonObject g = arts.getAsJsonObject("generated");
      for (String n : g.keySet()) {
        byte[] b = hexArtifact(g, n);
        if (b == null) return "generated." + n + " is not hex";
        key.put(n, b);
      }
      return useGeneratedKey(p, info, key);
    }
    byte[] sig = hexArtifact(arts, "signature");
    if (sig != null) {
      KeyParts key = Vectors.testKey(info.keyType);
      if (!GatePk.verifies(p, info.name, Vectors.publicParts(info, key), m.input, sig))
        return "its signature does not verify";
      return "";
    }
    byte[] ct = hexArtifact(arts, "ciphertext");
    if (ct != null) {
      byte[] want = m.input, pt;
      try {
        if (info.kind.equals("pk-encryption")) {
          want = m.password();
          pt = GatePk.decrypt(p, info.name, Vectors.testKey(info.keyType), ct);
        } else {
          Params params = new Params();
          params.key = m.key;
          params.iv = m.iv;
          params.aad = m.aad;
          pt = GatePk.runOne(p, info.name, "decrypt", params, ct);
        }
      } catch (Unsupported u) {
        throw u;
      } catch (Exception e) {
        return "cannot decrypt its ciphertext";
      }
      return Arrays.equals(pt, want) ? "" : "cannot decrypt its ciphertext";
    }
    for (String name : new String[] {"digest", "mac", "secret", "derived"}) {
      byte[] theirs = hexArtifact(arts, name);
      if (theirs == null) continue;
      JsonObject mine = artifacts(p, info, spec, m);
      if (!mine.has(name) || !mine.get(name).getAsString().equals(HEX.formatHex(theirs)))
        return "its " + name + " differs from ours";
      return "";
    }
    throw new Unsupported("no artifact this runner can check");
  }

  static String useGeneratedKey(CryptoProvider p, AlgorithmInfo info, KeyParts key) throws Exception {
    byte[] msg = new ByteStream(0xC0FFEEL).bytes(32);
    if (info.kind.equals("key-agreement")) {
      KeyParts peer = Vectors.testKey(info.keyType + "-peer");
      byte[] ours, theirs;
      try {
        ours = GatePk.agree(p, info.name, key, Vectors.publicParts(info, peer));
      } catch (Exception e) {
        return "we cannot derive with its generated key: " + Types.message(e);
      }
      try {
        theirs = GatePk.agree(p, info.name, peer, Vectors.publicParts(info, key));
      } catch (Exception e) {
        return "we cannot derive with its generated public key: " + Types.message(e);
      }
      return Arrays.equals(ours, theirs)
          ? ""
          : "its generated key does not give one shared secret from both sides";
    }
    String sigAlg = GatePk.signatureForKey(p, info);
    if (sigAlg.isEmpty()) throw new Unsupported("no signature scheme for " + info.name + " here");
    byte[] sig;
    try {
      sig = GatePk.sign(p, sigAlg, key, msg);
    } catch (Exception e) {
      return "we cannot sign with its generated key: " + Types.message(e);
    }
    if (!GatePk.verifies(p, sigAlg, Vectors.publicParts(info, key), msg, sig))
      return "a signature made with its generated key does not verify";
    return "";
  }
}
