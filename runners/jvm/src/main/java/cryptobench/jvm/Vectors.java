package cryptobench.jvm;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Params;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Known-answer vectors and test keys from vectors/ (the same files and parsing as
 * native/src/core/vectors.cpp and runners/go/vectors.go).
 */
final class Vectors {
  private Vectors() {}

  /** --vectors wins, then $CRYPTOBENCH_VECTORS, then the directory the build recorded. */
  static String dirFlag;

  static String dir() {
    if (dirFlag != null) return dirFlag;
    String env = System.getenv("CRYPTOBENCH_VECTORS");
    if (env != null && !env.isEmpty()) return env;
    String built = System.getProperty("cryptobench.vectors");
    return built != null ? built : "vectors";
  }

  /** Symmetric, hash and MAC known answer. */
  static final class Vector {
    String source = "";
    byte[] key, iv, aad, input, expected;
    int initialCounter;
  }

  /** Public-key and KDF known answer. */
  static final class PkVector {
    String source = "";
    KeyParts key, peer;
    byte[] message, signature, plaintext, ciphertext, shared, input, output;
    boolean valid = true, strictOnly;
    Params kdf;
  }

  static final class VectorError extends Exception {
    VectorError(String m) {
      super(m);
    }
  }

  private static final Map<String, List<JsonObject>> CACHE = new HashMap<>();

  private static List<JsonObject> family(String family) throws VectorError {
    Path path = Path.of(dir(), family + ".json");
    String key = path.toString();
    if (CACHE.containsKey(key)) return CACHE.get(key);
    List<JsonObject> out = new ArrayList<>();
    if (Files.isRegularFile(path)) {
      try {
        JsonObject doc =
            JsonParser.parseString(Files.readString(path, StandardCharsets.UTF_8))
                .getAsJsonObject();
        for (JsonElement e : doc.getAsJsonArray("vectors")) out.add(e.getAsJsonObject());
      } catch (Exception e) {
        throw new VectorError(path + ": " + e.getMessage());
      }
    }
    CACHE.put(key, out);
    return out;
  }

  static String str(JsonObject v, String field) {
    return v.has(field) && v.get(field).isJsonPrimitive() ? v.get(field).getAsString() : "";
  }

  static byte[] hex(JsonObject v, String field, String where) throws VectorError {
    if (!v.has(field)) return new byte[0];
    try {
      return HexFormat.of().parseHex(v.get(field).getAsString());
    } catch (RuntimeException e) {
      throw new VectorError(where + "." + field + ": not a hex string");
    }
  }

  static KeyParts keyField(JsonObject v, String field, String where) throws VectorError {
    KeyParts parts = new KeyParts();
    if (!v.has(field)) return parts;
    if (!v.get(field).isJsonObject())
      throw new VectorError(where + "." + field + ": not an object of hex strings");
    JsonObject m = v.getAsJsonObject(field);
    for (String k : m.keySet()) parts.put(k, hex(m, k, where + "." + field));
    return parts;
  }

  private static List<JsonObject> forAlgorithm(AlgorithmInfo info, List<String> where)
      throws VectorError {
    List<JsonObject> out = new ArrayList<>();
    List<JsonObject> all = family(info.family);
    for (int i = 0; i < all.size(); i++) {
      if (!str(all.get(i), "algorithm").equals(info.name)) continue;
      out.add(all.get(i));
      where.add(Path.of(dir(), info.family + ".json") + ": vectors[" + i + "]");
    }
    return out;
  }

  static List<Vector> vectorsFor(AlgorithmInfo info) throws VectorError {
    List<String> where = new ArrayList<>();
    List<JsonObject> raw = forAlgorithm(info, where);
    List<Vector> out = new ArrayList<>();
    for (int i = 0; i < raw.size(); i++) {
      JsonObject v = raw.get(i);
      String w = where.get(i);
      Vector x = new Vector();
      x.source = str(v, "source");
      x.key = hex(v, "key", w);
      x.iv = hex(v, "iv", w);
      x.aad = hex(v, "aad", w);
      if (v.has("initial_counter")) x.initialCounter = v.get("initial_counter").getAsInt();
      switch (info.kind) {
        case "cipher":
          x.input = hex(v, "plaintext", w);
          x.expected = hex(v, "ciphertext", w);
          break;
        case "aead":
          x.input = hex(v, "plaintext", w);
          x.expected = concat(hex(v, "ciphertext", w), hex(v, "tag", w));
          break;
        default: // hash, mac
          byte[] msg = hex(v, "message", w);
          int repeat = v.has("repeat") ? v.get("repeat").getAsInt() : 1;
          ByteArrayOutputStream b = new ByteArrayOutputStream();
          for (int r = 0; r < repeat; r++) b.writeBytes(msg);
          x.input = b.toByteArray();
          x.expected = hex(v, info.kind.equals("hash") ? "digest" : "tag", w);
      }
      out.add(x);
    }
    return out;
  }

  static List<PkVector> pkVectorsFor(AlgorithmInfo info) throws VectorError {
    List<String> where = new ArrayList<>();
    List<JsonObject> raw = forAlgorithm(info, where);
    List<PkVector> out = new ArrayList<>();
    for (int i = 0; i < raw.size(); i++) {
      JsonObject v = raw.get(i);
      String w = where.get(i);
      PkVector x = new PkVector();
      x.source = str(v, "source");
      x.key = keyField(v, "key", w);
      x.peer = keyField(v, "peer", w);
      if (v.has("valid")) x.valid = v.get("valid").getAsBoolean();
      if (v.has("strict_only")) x.strictOnly = v.get("strict_only").getAsBoolean();
      x.message = hex(v, "message", w);
      x.signature = hex(v, "signature", w);
      x.plaintext = hex(v, "plaintext", w);
      x.ciphertext = hex(v, "ciphertext", w);
      x.shared = hex(v, "shared", w);
      x.input = hex(v, "input", w);
      x.output = hex(v, "output", w);
      Params k = new Params();
      k.salt = hex(v, "salt", w);
      k.info = hex(v, "info", w);
      k.secret = hex(v, "secret", w);
      k.ad = hex(v, "ad", w);
      k.outLen = x.output.length;
      if (v.has("cost")) {
        JsonObject c = v.getAsJsonObject("cost");
        for (String name : c.keySet()) k.cost.put(name, c.get(name).getAsLong());
      }
      x.kdf = k;
      out.add(x);
    }
    return out;
  }

  private static Map<String, KeyParts> testKeys;

  static KeyParts testKey(String name) throws VectorError {
    if (testKeys == null) {
      Path path = Path.of(dir(), "keys.json");
      Map<String, KeyParts> keys = new HashMap<>();
      try {
        JsonObject doc =
            JsonParser.parseString(Files.readString(path, StandardCharsets.UTF_8))
                .getAsJsonObject()
                .getAsJsonObject("keys");
        for (String k : doc.keySet()) keys.put(k, keyField(doc, k, path + ": keys"));
      } catch (VectorError e) {
        throw e;
      } catch (Exception e) {
        throw new VectorError("cannot read the test keys " + path);
      }
      testKeys = keys;
    }
    KeyParts k = testKeys.get(name);
    if (k == null) throw new VectorError("no test key " + name + " in " + dir() + "/keys.json");
    return k;
  }

  /** The public parts of a key (gate_pk.cpp, public_parts). */
  static KeyParts publicParts(AlgorithmInfo info, KeyParts key) {
    String t = info.keyType;
    String[] names = {"pub"};
    if (t.startsWith("rsa-")) names = new String[] {"n", "e"};
    else if (t.startsWith("ecdsa-") || t.startsWith("ecdh-")) names = new String[] {"x", "y"};
    else if (t.startsWith("ffdhe")) names = new String[] {"y"};
    KeyParts out = new KeyParts();
    for (String n : names) if (key.containsKey(n)) out.put(n, key.get(n));
    return out;
  }

  /** The part that makes a key private (EC's x is a public coordinate). */
  static String privatePart(AlgorithmInfo info) {
    String t = info.keyType;
    if (t.startsWith("ffdhe")) return "x";
    if (t.startsWith("rsa-") || t.startsWith("ecdsa-") || t.startsWith("ecdh-")) return "d";
    return "priv";
  }

  static boolean hasPrivate(AlgorithmInfo info, KeyParts key) {
    return key.part(privatePart(info)).length > 0;
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
