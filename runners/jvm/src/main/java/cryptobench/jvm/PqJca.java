package cryptobench.jvm;

import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Op;
import cryptobench.jvm.Types.Params;
import cryptobench.jvm.Types.Rejected;
import cryptobench.jvm.Types.Unsupported;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import javax.crypto.SecretKey;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.ASN1TaggedObject;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;

/**
 * ML-KEM, ML-DSA and SLH-DSA through the JCA (docs/post-quantum.md): KeyPairGenerator, KeyFactory
 * and Signature by their standard names, and javax.crypto.KEM (Java 21+: JEP 452), which the
 * runner is compiled without (it targets Java 17) and calls through method handles. Keys go to the
 * provider's KeyFactory as the LAMPS encodings: PKCS#8 with the seed ({@code [0] IMPLICIT OCTET
 * STRING}) where the provider takes it, else with the expanded key (SunJCE/SUN on Java 25 take
 * only that), and X.509 SubjectPublicKeyInfo. Signing is hedged: {@code initSign} with a
 * SecureRandom (Bouncy Castle signs deterministically without one). Every key is parsed when the
 * operation is prepared.
 */
final class PqJca {
  private PqJca() {}

  static boolean isPostQuantum(AlgorithmInfo info) {
    return info.family.equals("ml-kem") || info.family.equals("ml-dsa") || info.family.equals("slh-dsa");
  }

  /** The NIST OID arc 2.16.840.1.101.3.4 of a parameter set (FIPS 203/204/205, CSOR). */
  private static byte[] oid(AlgorithmInfo info) throws Unsupported {
    String n = info.name;
    int arc, last;
    if (n.startsWith("ml-kem-")) {
      arc = 4;
      last = List.of("ml-kem-512", "ml-kem-768", "ml-kem-1024").indexOf(n) + 1;
    } else if (n.startsWith("ml-dsa-")) {
      arc = 3;
      last = List.of("ml-dsa-44", "ml-dsa-65", "ml-dsa-87").indexOf(n) + 17;
    } else {
      arc = 3;
      List<String> sets = List.of("sha2-128s", "sha2-128f", "sha2-192s", "sha2-192f", "sha2-256s",
          "sha2-256f", "shake-128s", "shake-128f", "shake-192s", "shake-192f", "shake-256s", "shake-256f");
      last = sets.indexOf(n.substring("slh-dsa-".length())) + 20;
    }
    if (last < (arc == 4 ? 1 : 17)) throw new Unsupported("no OID for " + n);
    return HexFormat.of().parseHex(String.format("60864801650304%02x%02x", arc, last));
  }

  private static byte[] tlv(int tag, byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) n += p.length;
    byte[] len = n < 128 ? new byte[] {(byte) n}
        : n < 256 ? new byte[] {(byte) 0x81, (byte) n}
        : n < 65536 ? new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n}
        : new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
    byte[] out = new byte[1 + len.length + n];
    out[0] = (byte) tag;
    System.arraycopy(len, 0, out, 1, len.length);
    int at = 1 + len.length;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static byte[] pkcs8(AlgorithmInfo info, byte[] privateKey) throws Unsupported {
    return tlv(0x30, new byte[] {2, 1, 0}, tlv(0x30, tlv(6, oid(info))), tlv(4, privateKey));
  }

  private static String keyFactoryName(AlgorithmInfo info) {
    return info.name.toUpperCase(Locale.ROOT);
  }

  private static KeyFactory keyFactory(List<Provider> jca, AlgorithmInfo info) throws Exception {
    String type = info.family.toUpperCase(Locale.ROOT);
    for (String n : List.of(keyFactoryName(info), type))
      for (Provider p : jca)
        if (p.getService("KeyFactory", n) != null) return KeyFactory.getInstance(n, p);
    throw new Unsupported("none of its JCA providers has a KeyFactory for " + type);
  }

  static PublicKey publicKey(List<Provider> jca, AlgorithmInfo info, KeyParts k) throws Exception {
    byte[] spki = tlv(0x30, tlv(0x30, tlv(6, oid(info))), tlv(3, new byte[] {0}, k.part("pub")));
    try {
      return keyFactory(jca, info).generatePublic(new X509EncodedKeySpec(spki));
    } catch (java.security.spec.InvalidKeySpecException e) {
      throw new Rejected("the public key was refused: " + Types.message(e));
    }
  }

  /**
   * The private key: ML-KEM and ML-DSA from the seed where the provider takes it, else from the
   * expanded key (`keyForm` says which it took); SLH-DSA from its FIPS 205 private key.
   */
  static PrivateKey privateKey(List<Provider> jca, AlgorithmInfo info, KeyParts k, String[] keyForm)
      throws Exception {
    KeyFactory f = keyFactory(jca, info);
    if (info.family.equals("slh-dsa")) return f.generatePrivate(new PKCS8EncodedKeySpec(pkcs8(info, k.part("priv"))));
    Exception seedRefused = null;
    if (k.part("seed").length > 0) {
      try {
        PrivateKey key = f.generatePrivate(new PKCS8EncodedKeySpec(pkcs8(info, tlv(0x80, k.part("seed")))));
        keyForm[0] = "seed";
        return key;
      } catch (java.security.spec.InvalidKeySpecException e) {
        seedRefused = e;
      }
    }
    if (k.part("priv").length == 0)
      throw new Unsupported(
          "imports no " + info.name + " seed ("
              + (seedRefused == null ? "none given" : Types.message(seedRefused))
              + ") and the key has no expanded form");
    keyForm[0] = "expanded";
    return f.generatePrivate(new PKCS8EncodedKeySpec(pkcs8(info, tlv(4, k.part("priv")))));
  }

  /**
   * A generated key pair as parts: `seed` and `pub` where the encoding holds the seed (Bouncy
   * Castle writes seed and expanded key), `priv` and `pub` where it holds the expanded key only
   * (SunJCE/SUN on Java 25); SLH-DSA `seed`, `priv` and `pub`.
   */
  static KeyParts export(AlgorithmInfo info, KeyPair pair) throws Exception {
    KeyParts k = new KeyParts();
    byte[] spki = pair.getPublic().getEncoded();
    k.put("pub", Arrays.copyOfRange(spki, spki.length - info.publicKeyBytes, spki.length));
    byte[] inner = PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded()).getPrivateKey().getOctets();
    if (info.family.equals("slh-dsa")) {
      k.put("priv", inner);
      k.put("seed", Arrays.copyOf(inner, inner.length / 4 * 3));
      return k;
    }
    switch (inner[0]) {
      case (byte) 0x80 -> k.put("seed", ASN1OctetString.getInstance(ASN1TaggedObject.getInstance(inner), false).getOctets());
      case 0x04 -> k.put("priv", ASN1OctetString.getInstance(inner).getOctets());
      case 0x30 -> k.put("seed", ASN1OctetString.getInstance(ASN1Sequence.getInstance(inner).getObjectAt(0)).getOctets());
      default -> throw new Types.Failed("an encoding of the " + info.name + " private key this runner cannot read");
    }
    return k;
  }

  /**
   * The key pair a seed gives (FIPS 203/204/205 KeyGen_internal): the provider's own
   * KeyPairGenerator, initialised with a SecureRandom that hands it the seed (ML-KEM d then z,
   * ML-DSA ξ, SLH-DSA SK.seed, SK.prf, PK.seed: the order the standards draw them in) and fails if
   * it asks for more. A generator that drew otherwise would give another public key, which the
   * gate's known answer catches.
   */
  static KeyParts fromSeed(KeyPairGenerator g, AlgorithmInfo info, byte[] seed) throws Exception {
    g.initialize(
        new java.security.spec.NamedParameterSpec(info.name.toUpperCase(Locale.ROOT)), new GivenRandom(seed));
    KeyParts k = export(info, g.generateKeyPair());
    k.put("seed", seed);
    return k;
  }

  /** A SecureRandom that hands out the given bytes once: an encapsulation's m for the KAT. */
  static final class GivenRandom extends SecureRandom {
    private final byte[] bytes;
    private int at;

    GivenRandom(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public void nextBytes(byte[] out) {
      if (at + out.length > bytes.length)
        throw new IllegalStateException("the library asked for more randomness than m");
      System.arraycopy(bytes, at, out, 0, out.length);
      at += out.length;
    }
  }

  /** javax.crypto.KEM's methods (Java 21+), or null with the reason on an older JVM. */
  private static final class KemApi {
    static final String MISSING;
    static final MethodHandle GET, NEW_ENC, NEW_DEC, ENCAPSULATE, KEY, ENCAPSULATION, DECAPSULATE;

    static {
      MethodHandle[] h = new MethodHandle[7];
      String missing = null;
      try {
        MethodHandles.Lookup l = MethodHandles.publicLookup();
        Class<?> kem = Class.forName("javax.crypto.KEM");
        Class<?> enc = Class.forName("javax.crypto.KEM$Encapsulator");
        Class<?> dec = Class.forName("javax.crypto.KEM$Decapsulator");
        Class<?> res = Class.forName("javax.crypto.KEM$Encapsulated");
        h[0] = l.findStatic(kem, "getInstance", MethodType.methodType(kem, String.class, Provider.class));
        h[1] = l.findVirtual(kem, "newEncapsulator", MethodType.methodType(enc, PublicKey.class, SecureRandom.class));
        h[2] = l.findVirtual(kem, "newDecapsulator", MethodType.methodType(dec, PrivateKey.class));
        h[3] = l.findVirtual(enc, "encapsulate", MethodType.methodType(res));
        h[4] = l.findVirtual(res, "key", MethodType.methodType(SecretKey.class));
        h[5] = l.findVirtual(res, "encapsulation", MethodType.methodType(byte[].class));
        h[6] = l.findVirtual(dec, "decapsulate", MethodType.methodType(SecretKey.class, byte[].class));
      } catch (ReflectiveOperationException e) {
        missing = "javax.crypto.KEM needs Java 21 or later (this JVM is " + Runtime.version() + ")";
      }
      MISSING = missing;
      GET = h[0];
      NEW_ENC = h[1];
      NEW_DEC = h[2];
      ENCAPSULATE = h[3];
      KEY = h[4];
      ENCAPSULATION = h[5];
      DECAPSULATE = h[6];
    }
  }

  private static Object kem(List<Provider> jca) throws Throwable {
    if (KemApi.MISSING != null) throw new Unsupported(KemApi.MISSING);
    for (Provider p : jca)
      if (p.getService("KEM", "ML-KEM") != null) return KemApi.GET.invoke("ML-KEM", p);
    throw new Unsupported("none of its JCA providers has KEM ML-KEM");
  }

  /** Encapsulation (output ciphertext ‖ secret) or decapsulation (output the secret). */
  static Op kemOp(List<Provider> jca, AlgorithmInfo info, String op, Params p, String[] keyForm)
      throws Exception {
    try {
      Object kem = kem(jca);
      if (op.equals("encaps")) {
        PublicKey ek = publicKey(jca, info, p.keypair);
        SecureRandom random = p.randomness != null ? null : new SecureRandom();
        Object fixed = p.randomness == null ? KemApi.NEW_ENC.invoke(kem, ek, random) : null;
        return (in, inOff, inLen, out, outOff) -> {
          try {
            Object enc = fixed != null ? fixed : KemApi.NEW_ENC.invoke(kem, ek, new GivenRandom(p.randomness));
            Object r = KemApi.ENCAPSULATE.invoke(enc);
            byte[] ct = (byte[]) KemApi.ENCAPSULATION.invoke(r);
            byte[] ss = ((SecretKey) KemApi.KEY.invoke(r)).getEncoded();
            System.arraycopy(ct, 0, out, outOff, ct.length);
            System.arraycopy(ss, 0, out, outOff + ct.length, ss.length);
            return ct.length + ss.length;
          } catch (Exception e) {
            throw e;
          } catch (Throwable t) {
            throw new Types.Failed(Types.message(t));
          }
        };
      }
      if (!op.equals("decaps")) throw new Unsupported(op + " is not an ML-KEM operation");
      Object dec = KemApi.NEW_DEC.invoke(kem, privateKey(jca, info, p.keypair, keyForm));
      return (in, inOff, inLen, out, outOff) -> {
        try {
          byte[] ss = ((SecretKey) KemApi.DECAPSULATE.invoke(dec, Arrays.copyOfRange(in, inOff, inOff + inLen))).getEncoded();
          System.arraycopy(ss, 0, out, outOff, ss.length);
          return ss.length;
        } catch (javax.crypto.DecapsulateException | IllegalArgumentException e) {
          throw new Rejected("decapsulation refused the ciphertext: " + Types.message(e));
        } catch (Exception e) {
          throw e;
        } catch (Throwable t) {
          throw new Types.Failed(Types.message(t));
        }
      };
    } catch (Exception e) {
      throw e;
    } catch (Throwable t) {
      throw new Types.Failed(Types.message(t));
    }
  }

  private static Signature signature(List<Provider> jca, AlgorithmInfo info) throws Exception {
    for (String n : List.of(info.name.toUpperCase(Locale.ROOT), info.family.toUpperCase(Locale.ROOT)))
      for (Provider p : jca) if (p.getService("Signature", n) != null) return Signature.getInstance(n, p);
    throw new Unsupported("none of its JCA providers has Signature " + info.name.toUpperCase(Locale.ROOT));
  }

  /** Hedged signing with a SecureRandom, pure, empty context; verification of `signature`. */
  static Op signatureOp(List<Provider> jca, AlgorithmInfo info, String op, Params p, String[] keyForm)
      throws Exception {
    Signature sig = signature(jca, info);
    if (op.equals("sign")) {
      sig.initSign(privateKey(jca, info, p.keypair, keyForm), new SecureRandom());
      return (in, inOff, inLen, out, outOff) -> {
        sig.update(in, inOff, inLen);
        return sig.sign(out, outOff, out.length - outOff);
      };
    }
    if (!op.equals("verify")) throw new Unsupported(op + " does not apply to " + info.name);
    sig.initVerify(publicKey(jca, info, p.keypair));
    return JcaProvider.verifying(sig, p.signature);
  }
}
