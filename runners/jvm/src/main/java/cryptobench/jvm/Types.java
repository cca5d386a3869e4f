package cryptobench.jvm;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.annotations.SerializedName;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Shared types of the JVM runner: the catalogue, operations, key parts and the provider interface,
 * shaped like native/include/cryptobench/{algorithms,provider}.hpp and runners/go/types.go.
 */
final class Types {
  private Types() {}

  /**
   * One catalogue entry, decoded by Protocol.SPEC; {@code raw} is exactly what `cryptobench-native
   * list` prints.
   */
  static final class AlgorithmInfo {
    transient JsonObject raw;
    String name, kind, family, keyType = "", digest = "";
    List<String> operations = List.of();
    int keyBytes, ivBytes, tagBytes, outputBytes, publicKeyBytes, ciphertextBytes;

    boolean hasOp(String op) {
      return operations.contains(op);
    }

    boolean isPublicKey() {
      return kind.equals("keypair")
          || kind.equals("signature")
          || kind.equals("pk-encryption")
          || kind.equals("key-agreement")
          || kind.equals("kem");
    }

    /** Room an output may need: an SLH-DSA signature, a KEM's ciphertext and secret; 1 KiB at least. */
    int outputRoom() {
      return Math.max(1024, outputBytes + ciphertextBytes);
    }

    boolean isPkOrKdf() {
      return isPublicKey() || kind.equals("kdf");
    }
  }

  /**
   * The catalogue: catalogue/algorithms.json of the repository, packed into the jar by pom.xml;
   * python/tests/test_catalogue.py checks that `list` prints its entries unchanged.
   */
  static final List<AlgorithmInfo> CATALOGUE = loadCatalogue();

  private static List<AlgorithmInfo> loadCatalogue() {
    try (Reader r =
        new InputStreamReader(
            Types.class.getResourceAsStream("algorithms.json"), StandardCharsets.UTF_8)) {
      JsonArray all = JsonParser.parseReader(r).getAsJsonObject().getAsJsonArray("algorithms");
      List<AlgorithmInfo> out = new ArrayList<>();
      for (JsonElement e : all) {
        AlgorithmInfo a = Protocol.SPEC.fromJson(e, AlgorithmInfo.class);
        a.raw = e.getAsJsonObject();
        out.add(a);
      }
      return Collections.unmodifiableList(out);
    } catch (Exception e) {
      throw new IllegalStateException("algorithms.json (the catalogue): " + e, e);
    }
  }

  static AlgorithmInfo findAlgorithm(String name) {
    for (AlgorithmInfo a : CATALOGUE) if (a.name.equals(name)) return a;
    return null;
  }

  /** A key's named big-endian parts (docs/protocol.md, "Keys"). */
  static final class KeyParts extends TreeMap<String, byte[]> {
    KeyParts() {}

    KeyParts(Map<String, byte[]> m) {
      super(m);
    }

    byte[] part(String name) {
      byte[] b = get(name);
      return b == null ? new byte[0] : b;
    }
  }

  /** What one operation is prepared with (provider.hpp, Params): Protocol.SPEC decodes it. */
  static final class Params {
    byte[] key = new byte[0], iv = new byte[0], aad = new byte[0];
    KeyParts keypair = new KeyParts(), peer = new KeyParts();
    /** open's params: the test key's public parts. */
    @SerializedName("public")
    KeyParts publicKey = new KeyParts();
    byte[] signature = new byte[0], salt = new byte[0], info = new byte[0];
    byte[] secret = new byte[0], ad = new byte[0];
    int outLen;
    Map<String, Long> cost = new TreeMap<>();
    byte[] randomness; // a KEM encapsulation's m (the gate's known answers), or null
  }

  /**
   * One prepared operation: {@code run} does one operation on {@code in[inOff, inOff+inLen)},
   * writes its output to {@code out} at {@code outOff} and returns the number of bytes written.
   * It must restart every time (the gate runs it twice). {@code rewind} returns an operation that
   * draws a fresh nonce per message (AEAD encryption: JCA providers refuse a reused one) to its
   * first nonce, so it gives the gated output again.
   */
  interface Op {
    int run(byte[] in, int inOff, int inLen, byte[] out, int outOff) throws Exception;

    default void rewind() throws Exception {}
  }

  /**
   * A MAC verification (docs/leaks.md, "MAC verification"): the input is message ‖ tag. {@code
   * verify} says whether the tag is the message's, so the `leak` request times a wrong tag on the
   * same path as a valid one, nothing thrown ("refusal": "status", as the native
   * Operation::try_run); {@code run}, for everything else, gives no output for a valid tag and
   * throws Rejected for a wrong one.
   */
  interface MacVerifyOp extends Op {
    boolean verify(byte[] in, int inOff, int inLen) throws Exception;

    @Override
    default int run(byte[] in, int inOff, int inLen, byte[] out, int outOff) throws Exception {
      if (!verify(in, inOff, inLen)) throw new Rejected("the MAC does not verify");
      return 0;
    }
  }

  /** One library binding (provider.hpp, Provider). */
  interface CryptoProvider {
    String name();

    String version();

    /** Catalogue names this provider offers (probed once). */
    List<String> algorithms();

    /** Why an algorithm is not offered, for the catalogue entries it does not offer. */
    Map<String, String> notOffered();

    Op prepare(String alg, String op, Params p) throws Exception;

    KeyParts generateKey(String alg) throws Exception;

    /** The key pair a FIPS 203/204/205 seed gives: the gate's known answer for key generation. */
    default KeyParts keyFromSeed(String alg, byte[] seed) throws Exception {
      throw new Unsupported(name() + " derives no " + alg + " key from a seed");
    }

    /**
     * Key setup alone: every run builds a key object from {@code p.key} and initialises the
     * cipher with it and an IV, processing no data (the paper 001's "key setup").
     */
    default Op prepareKeySetup(String alg, String op, Params p) throws Exception {
      throw new Unsupported(name() + " has no key setup measurement for " + alg);
    }

    /** MAC verification for the `leak` request; Unsupported where the provider has none. */
    default MacVerifyOp prepareMacVerify(String alg, Params p) throws Exception {
      throw new Unsupported(name() + " offers no verification of " + alg);
    }

    Map<String, String> codePath();

    /** Non-null when the provider could not be loaded: every case is unsupported with it. */
    String loadError();
  }

  /** The provider does not offer this: a case status, never a failure. */
  static final class Unsupported extends Exception {
    Unsupported(String msg) {
      super(msg);
    }
  }

  /** What a verifier or an AEAD decryption throws for a forgery. */
  static final class Rejected extends Exception {
    Rejected(String msg) {
      super(msg);
    }
  }

  /** A failure whose message is the whole reason (a refused gate). */
  static final class Failed extends Exception {
    Failed(String msg) {
      super(msg);
    }
  }

  static String message(Throwable e) {
    // Never null: a reason (not_offered's, a case's) is a non-empty line (protocol.schema.json).
    String m = e.getMessage();
    String n = e.getClass().getSimpleName();
    if (e instanceof Unsupported || e instanceof Rejected || e instanceof Failed)
      return m == null || m.isEmpty() ? n : m;
    return m == null || m.isEmpty() ? n : n + ": " + m;
  }
}
