package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import cryptobench.jvm.Protocol.SpecError;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Unsupported;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;

/**
 * The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
 * return the outputs. Nothing here knows what an output should be: the coordinator judges, and
 * puts an earlier output a step uses in its place itself (runners/go/steps.go).
 */
final class Steps {
  private Steps() {}

  static final HexFormat HEX = HexFormat.of();

  /** One run of a prepared operation on {@code in} into a fresh array; the output, copied. */
  static byte[] runOnce(Op op, byte[] in, int extra) throws Exception {
    op.rewind();
    byte[] out = new byte[in.length + extra + 64];
    int n = op.run(in, 0, in.length, out, 0);
    return Arrays.copyOf(out, n);
  }

  /** A byte string from its hex (docs/protocol.md); Protocol.SPEC decodes every byte[] with it. */
  static byte[] unhex(JsonElement v) {
    try {
      return HEX.parseHex(v.getAsString());
    } catch (RuntimeException e) {
      throw new JsonParseException("not a hex string: " + v);
    }
  }

  static byte[] hex(JsonElement v, String where) throws SpecError {
    try {
      return unhex(v);
    } catch (JsonParseException e) {
      throw new SpecError(where + ": " + e.getMessage());
    }
  }

  /** A step's (or open's) parameters, byte strings in hex; open's "public" is the test key's public parts. */
  static Params params(JsonElement v, String where) throws SpecError {
    try {
      Params p = Protocol.SPEC.fromJson(v, Params.class);
      return p != null ? p : new Params();
    } catch (RuntimeException e) {
      throw new SpecError(where + ": " + e.getMessage());
    }
  }

  static JsonObject failure(Throwable e) {
    return Protocol.obj(e instanceof Unsupported ? "unsupported" : "error", Types.message(e));
  }

  /** Length, SHA-256 and first 16 bytes of an output, instead of its bytes. */
  static JsonObject digest(byte[] b) {
    byte[] sum;
    try {
      sum = MessageDigest.getInstance("SHA-256").digest(b);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // SHA-256 is in every JDK
    }
    return Protocol.obj(
        "len", b.length, "sha256", HEX.formatHex(sum), "head", HEX.formatHex(b, 0, Math.min(16, b.length)));
  }

  /** A key's parts, hex (docs/protocol.md, "Keys"). */
  static JsonObject hexParts(KeyParts key) {
    JsonObject k = new JsonObject();
    for (Map.Entry<String, byte[]> e : key.entrySet()) k.addProperty(e.getKey(), HEX.formatHex(e.getValue()));
    return k;
  }

  /** Runs the steps on {@code p}, {@code alg} unless a step names another; one result each. */
  static JsonArray run(CryptoProvider p, String alg, JsonElement raw, byte[] input) throws SpecError {
    if (raw == null || !raw.isJsonArray()) throw new SpecError("steps: must be an array");
    JsonArray results = new JsonArray();
    for (JsonElement s : raw.getAsJsonArray()) {
      String where = "steps[" + results.size() + "]";
      JsonObject step = s.isJsonObject() ? s.getAsJsonObject() : new JsonObject();
      // The operation is the schema's (docs/protocol.schema.json): one the provider does not take
      // is refused by its adapter, a result like any operation it does not offer.
      String op = step.has("op") ? step.get("op").getAsString() : "";
      if (op.isEmpty()) throw new SpecError(where + ".op: missing");
      String name = step.has("algorithm") ? step.get("algorithm").getAsString() : alg;
      if (Types.findAlgorithm(name) == null)
        throw new SpecError(where + ".algorithm: unknown algorithm '" + name + "'");
      Params params = params(step.get("params"), where);
      // A keygen step with a seed derives the key pair from it (the gate's known answer).
      byte[] seed = op.equals("keygen") ? params.keypair.get("seed") : null;
      Op prepared = null;
      try {
        prepared = op.equals("keygen") ? null : p.prepare(name, op, params);
        if (op.equals("keygen") && !p.algorithms().contains(name))
          throw new Unsupported(p.name() + " does not offer " + name);
      } catch (Exception | LinkageError e) {
        results.add(failure(e));
        continue;
      }
      boolean digest = step.has("digest") && step.get("digest").getAsBoolean();
      JsonArray runs = new JsonArray();
      JsonArray inputs = step.has("inputs") ? step.getAsJsonArray("inputs") : new JsonArray();
      for (JsonElement v : inputs) {
        boolean whole = v.isJsonObject() && v.getAsJsonObject().has("case_input");
        byte[] data = whole ? input : hex(v, where);
        try {
          if (op.equals("keygen"))
            runs.add(Protocol.obj("key", hexParts(seed != null ? p.keyFromSeed(name, seed) : p.generateKey(name))));
          else {
            byte[] out = runOnce(prepared, data, Types.findAlgorithm(name).outputRoom());
            runs.add(digest ? digest(out) : Protocol.obj("out", HEX.formatHex(out)));
          }
        } catch (Exception | LinkageError e) {
          runs.add(failure(e));
        }
      }
      results.add(Protocol.obj("runs", runs));
    }
    return results;
  }
}
