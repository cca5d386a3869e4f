package cryptobench.jvm;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import com.google.gson.reflect.TypeToken;
import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.KeyParts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The shared test keys of vectors/keys.json, for one use only: the adapter's probe of what a JCA
 * provider offers runs each public-key operation once on the test key, since some providers
 * refuse a key size only then (docs/protocol.md, "What a provider offers"). Vectors, and the
 * keys of measured cases, are the coordinator's.
 */
final class TestKeys {
  private TestKeys() {}

  /** $CRYPTOBENCH_VECTORS, then the directory the build recorded. */
  static String dir() {
    String env = System.getenv("CRYPTOBENCH_VECTORS");
    if (env != null && !env.isEmpty()) return env;
    String built = System.getProperty("cryptobench.vectors");
    return built != null ? built : "vectors";
  }

  private static Map<String, KeyParts> keys;

  static KeyParts get(String name) throws Exception {
    if (keys == null) {
      Path path = Path.of(dir(), "keys.json");
      try {
        JsonElement doc = JsonParser.parseString(Files.readString(path, StandardCharsets.UTF_8));
        keys = Protocol.SPEC.fromJson(doc.getAsJsonObject().get("keys"), new TypeToken<Map<String, KeyParts>>() {});
      } catch (Exception e) {
        throw new Types.Failed("cannot read the test keys " + path + ": " + Types.message(e));
      }
    }
    KeyParts k = keys.get(name);
    if (k == null) throw new Types.Failed("no test key " + name + " in " + dir() + "/keys.json");
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

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
