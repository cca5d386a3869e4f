package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import cryptobench.jvm.Protocol.SpecError;
import cryptobench.jvm.Types.CryptoProvider;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Unsupported;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
 * return the outputs. Nothing here knows what an output should be: the coordinator judges
 * (runners/go/steps.go).
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

  /** One run's output (bytes, or a generated key), kept for later steps' references. */
  record Output(byte[] out, KeyParts key) {}

  /** A value that refers to a run without output: that run's (or step's) error. */
  static final class NoOutput extends Exception {
    NoOutput(String m) {
      super(m);
    }
  }

  /** Reads a step's (or open's) values: hex, the case's input, or an earlier run's output. */
  record Resolver(List<List<Output>> outputs, byte[] input, int n) {
    SpecError spec(String why) {
      return new SpecError("steps[" + n + "]: " + why);
    }

    Output earlier(JsonObject v) throws SpecError, NoOutput {
      JsonArray ref = v.get("ref").isJsonArray() ? v.getAsJsonArray("ref") : new JsonArray();
      if (ref.size() != 2) throw spec("a ref is [step, run]");
      int s = ref.get(0).getAsInt(), run = ref.get(1).getAsInt();
      if (s < 0 || s >= n || run < 0 || run >= outputs.get(s).size() || outputs.get(s).get(run) == null)
        throw new NoOutput("refers to run " + run + " of step " + s + ", which gave no output");
      return outputs.get(s).get(run);
    }

    byte[] hex(JsonElement v) throws SpecError {
      try {
        return HEX.parseHex(v.getAsString());
      } catch (RuntimeException e) {
        throw spec("not a hex string: " + v);
      }
    }

    byte[] bytes(JsonElement v) throws SpecError, NoOutput {
      if (!v.isJsonObject()) return hex(v);
      JsonObject x = v.getAsJsonObject();
      if (x.has("case_input") && x.get("case_input").getAsBoolean()) return input;
      Output o = earlier(x);
      if (o.out == null) throw new NoOutput("refers to a generated key where bytes are expected");
      byte[] out = o.out.clone();
      if (x.has("prefix")) {
        int keep = x.get("prefix").getAsInt();
        if (keep < 0 || keep > out.length)
          throw new NoOutput("keeps " + keep + " bytes of a " + out.length + "-byte output");
        out = Arrays.copyOf(out, keep);
      }
      if (x.has("flip")) {
        JsonArray f = x.getAsJsonArray("flip");
        int at = f.get(0).getAsInt();
        int i = at < 0 ? at + out.length : at;
        if (i < 0 || i >= out.length)
          throw new NoOutput("flips byte " + at + " of a " + out.length + "-byte output");
        out[i] ^= (byte) f.get(1).getAsInt();
      }
      return x.has("append") ? TestKeys.concat(out, hex(x.get("append"))) : out;
    }

    KeyParts key(JsonElement v) throws SpecError, NoOutput {
      if (!v.isJsonObject()) throw spec("key parts are an object");
      JsonObject x = v.getAsJsonObject();
      KeyParts out = new KeyParts();
      if (!x.has("ref")) {
        for (String k : x.keySet()) out.put(k, hex(x.get(k)));
        return out;
      }
      Output o = earlier(x);
      if (o.key == null) throw new NoOutput("refers to an output that is not a generated key");
      for (Map.Entry<String, byte[]> e : o.key.entrySet())
        if (!x.has("parts") || x.getAsJsonArray("parts").contains(new JsonPrimitive(e.getKey())))
          out.put(e.getKey(), e.getValue());
      return out;
    }

    /** A step's (or open's) parameters; open's "public" is the test key's public parts. */
    Params params(JsonElement v) throws SpecError, NoOutput {
      Params p = new Params();
      JsonObject m = v != null && v.isJsonObject() ? v.getAsJsonObject() : new JsonObject();
      if (m.has("key")) p.key = bytes(m.get("key"));
      if (m.has("iv")) p.iv = bytes(m.get("iv"));
      if (m.has("aad")) p.aad = bytes(m.get("aad"));
      if (m.has("salt")) p.salt = bytes(m.get("salt"));
      if (m.has("info")) p.info = bytes(m.get("info"));
      if (m.has("secret")) p.secret = bytes(m.get("secret"));
      if (m.has("ad")) p.ad = bytes(m.get("ad"));
      if (m.has("signature")) p.signature = bytes(m.get("signature"));
      if (m.has("keypair")) p.keypair = key(m.get("keypair"));
      if (m.has("peer")) p.peer = key(m.get("peer"));
      if (m.has("public")) p.publicKey = key(m.get("public"));
      if (m.has("randomness")) p.randomness = bytes(m.get("randomness"));
      if (m.has("out_len")) p.outLen = m.get("out_len").getAsInt();
      if (m.has("cost"))
        for (Map.Entry<String, JsonElement> e : m.getAsJsonObject("cost").entrySet())
          p.cost.put(e.getKey(), e.getValue().getAsLong());
      return p;
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

  static JsonObject encode(Output o, boolean digest) {
    if (o.key != null) {
      JsonObject k = new JsonObject();
      for (Map.Entry<String, byte[]> e : o.key.entrySet()) k.addProperty(e.getKey(), HEX.formatHex(e.getValue()));
      return Protocol.obj("key", k);
    }
    return digest ? digest(o.out) : Protocol.obj("out", HEX.formatHex(o.out));
  }

  /** Runs the steps on {@code p}, {@code alg} unless a step names another; one result each. */
  static JsonArray run(CryptoProvider p, String alg, JsonElement raw, byte[] input) throws SpecError {
    if (raw == null || !raw.isJsonArray()) throw new SpecError("steps: must be an array");
    List<List<Output>> outputs = new ArrayList<>();
    JsonArray results = new JsonArray();
    for (JsonElement s : raw.getAsJsonArray()) {
      int n = outputs.size();
      JsonObject step = s.isJsonObject() ? s.getAsJsonObject() : new JsonObject();
      // The operation is the schema's (docs/protocol.schema.json): one the provider does not take
      // is refused by its adapter, a result like any operation it does not offer.
      String op = step.has("op") ? step.get("op").getAsString() : "";
      if (op.isEmpty()) throw new SpecError("steps[" + n + "].op: missing");
      String name = step.has("algorithm") ? step.get("algorithm").getAsString() : alg;
      if (Types.findAlgorithm(name) == null)
        throw new SpecError("steps[" + n + "].algorithm: unknown algorithm '" + name + "'");
      Resolver r = new Resolver(outputs, input, n);
      List<Output> got = new ArrayList<>();
      outputs.add(got);
      Op prepared = null;
      byte[] seed = null; // a keygen step with a seed derives the key pair from it (the gate's KAT)
      try {
        Params params = r.params(step.get("params"));
        if (op.equals("keygen")) seed = params.keypair.get("seed");
        prepared = op.equals("keygen") ? null : p.prepare(name, op, params);
        if (op.equals("keygen") && !p.algorithms().contains(name))
          throw new Unsupported(p.name() + " does not offer " + name);
      } catch (SpecError e) {
        throw e;
      } catch (Exception | LinkageError e) {
        results.add(failure(e));
        continue;
      }
      boolean digest = step.has("digest") && step.get("digest").getAsBoolean();
      JsonArray runs = new JsonArray();
      JsonArray inputs = step.has("inputs") ? step.getAsJsonArray("inputs") : new JsonArray();
      for (JsonElement v : inputs) {
        Output o = null;
        try {
          byte[] data = r.bytes(v);
          int room = Types.findAlgorithm(name).outputRoom();
          o = !op.equals("keygen")
              ? new Output(runOnce(prepared, data, room), null)
              : new Output(null, seed != null ? p.keyFromSeed(name, seed) : p.generateKey(name));
          runs.add(encode(o, digest));
        } catch (SpecError e) {
          throw e;
        } catch (Exception | LinkageError e) {
          o = null;
          runs.add(failure(e));
        }
        got.add(o);
      }
      results.add(Protocol.obj("runs", runs));
    }
    return results;
  }
}
