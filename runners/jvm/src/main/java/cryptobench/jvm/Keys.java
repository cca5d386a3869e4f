package cryptobench.jvm;

import cryptobench.jvm.Types.AlgorithmInfo;
import cryptobench.jvm.Types.KeyParts;
import cryptobench.jvm.Types.Unsupported;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.EdECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.XECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.KeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Keys between the protocol's named parts (docs/protocol.md, "Keys") and JCA key objects. A key
 * is built by the JDK from its parts (RSA and EC specs; EdDSA and XDH from their PKCS#8 / X.509
 * encodings), then handed to the provider's own KeyFactory as its encoding, so every provider
 * works on a key object of its own where it has a KeyFactory for the type.
 */
final class Keys {
  private Keys() {}

  /** The JCA key family of a catalogue key type, and the KeyFactory names that take it. */
  static String family(AlgorithmInfo info) {
    String t = info.keyType;
    if (t.startsWith("rsa-")) return "RSA";
    if (t.startsWith("ecdsa-") || t.startsWith("ecdh-")) return "EC";
    if (t.equals("ed25519")) return "Ed25519";
    if (t.equals("ed448")) return "Ed448";
    if (t.startsWith("x25519")) return "X25519";
    if (t.startsWith("x448")) return "X448";
    return "";
  }

  static List<String> factoryNames(String family) {
    return switch (family) {
      case "Ed25519", "Ed448" -> List.of(family, "EdDSA");
      case "X25519", "X448" -> List.of(family, "XDH");
      default -> List.of(family);
    };
  }

  static String curve(AlgorithmInfo info) {
    String t = info.keyType;
    if (t.endsWith("p256")) return "secp256r1";
    if (t.endsWith("p384")) return "secp384r1";
    if (t.endsWith("p521")) return "secp521r1";
    return "";
  }

  static int fieldBytes(AlgorithmInfo info) {
    String c = curve(info);
    return c.equals("secp256r1") ? 32 : c.equals("secp384r1") ? 48 : 66;
  }

  // DER prefixes of the PKCS#8 and X.509 encodings of RFC 8410 keys (the raw key follows).
  private static byte[] der(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  static byte[] privatePrefix(String family) {
    return switch (family) {
      case "Ed25519" -> der("302e020100300506032b657004220420");
      case "X25519" -> der("302e020100300506032b656e04220420");
      case "Ed448" -> der("3047020100300506032b6571043b0439");
      case "X448" -> der("3046020100300506032b656f043a0438");
      default -> null;
    };
  }

  static byte[] publicPrefix(String family) {
    return switch (family) {
      case "Ed25519" -> der("302a300506032b6570032100");
      case "X25519" -> der("302a300506032b656e032100");
      case "Ed448" -> der("3043300506032b6571033a00");
      case "X448" -> der("3042300506032b656f033900");
      default -> null;
    };
  }

  static BigInteger big(byte[] b) {
    return new BigInteger(1, b);
  }

  static ECParameterSpec ecParams(AlgorithmInfo info) throws Exception {
    AlgorithmParameters ap = AlgorithmParameters.getInstance("EC", "SunEC");
    ap.init(new ECGenParameterSpec(curve(info)));
    return ap.getParameterSpec(ECParameterSpec.class);
  }

  /** The JDK's encoding of a key given by its parts (PKCS#8 when it has a private part). */
  static KeySpec encodedSpec(AlgorithmInfo info, KeyParts k, boolean priv) throws Exception {
    String family = family(info);
    switch (family) {
      case "RSA":
        {
          KeyFactory kf = KeyFactory.getInstance("RSA", "SunRsaSign");
          if (priv) {
            Key key =
                kf.generatePrivate(
                    new RSAPrivateCrtKeySpec(
                        big(k.part("n")), big(k.part("e")), big(k.part("d")), big(k.part("p")),
                        big(k.part("q")), big(k.part("dp")), big(k.part("dq")),
                        big(k.part("qinv"))));
            return new PKCS8EncodedKeySpec(key.getEncoded());
          }
          return new X509EncodedKeySpec(
              kf.generatePublic(new RSAPublicKeySpec(big(k.part("n")), big(k.part("e"))))
                  .getEncoded());
        }
      case "EC":
        {
          KeyFactory kf = KeyFactory.getInstance("EC", "SunEC");
          ECParameterSpec params = ecParams(info);
          if (priv)
            return new PKCS8EncodedKeySpec(
                kf.generatePrivate(new ECPrivateKeySpec(big(k.part("d")), params)).getEncoded());
          return new X509EncodedKeySpec(
              kf.generatePublic(
                      new ECPublicKeySpec(new ECPoint(big(k.part("x")), big(k.part("y"))), params))
                  .getEncoded());
        }
      case "":
        throw new Unsupported("no JCA key type for " + info.keyType);
      default:
        if (priv) return new PKCS8EncodedKeySpec(TestKeys.concat(privatePrefix(family), k.part("priv")));
        return new X509EncodedKeySpec(TestKeys.concat(publicPrefix(family), k.part("pub")));
    }
  }

  /** The provider's KeyFactory for the family, or the JDK's when it has none. */
  static KeyFactory factory(List<Provider> providers, String family) throws Exception {
    for (Provider p : providers)
      for (String name : factoryNames(family))
        if (p.getService("KeyFactory", name) != null) return KeyFactory.getInstance(name, p);
    return KeyFactory.getInstance(family);
  }

  static PrivateKey privateKey(List<Provider> providers, AlgorithmInfo info, KeyParts k)
      throws Exception {
    KeySpec spec = encodedSpec(info, k, true);
    return factory(providers, family(info)).generatePrivate(spec);
  }

  static PublicKey publicKey(List<Provider> providers, AlgorithmInfo info, KeyParts k)
      throws Exception {
    KeySpec spec = encodedSpec(info, TestKeys.publicParts(info, k), false);
    return factory(providers, family(info)).generatePublic(spec);
  }

  static byte[] fixed(BigInteger v, int len) {
    byte[] b = v.toByteArray();
    if (b.length == len) return b;
    if (b.length > len) return Arrays.copyOfRange(b, b.length - len, b.length);
    byte[] out = new byte[len];
    System.arraycopy(b, 0, out, len - b.length, b.length);
    return out;
  }

  static byte[] minimal(BigInteger v) {
    byte[] b = v.toByteArray();
    return b[0] == 0 && b.length > 1 ? Arrays.copyOfRange(b, 1, b.length) : b;
  }

  /** A generated key pair as named parts, read back through the JDK from its encodings. */
  static KeyParts export(AlgorithmInfo info, KeyPair pair) throws Exception {
    byte[] priv = pair.getPrivate().getEncoded(), pub = pair.getPublic().getEncoded();
    if (priv == null || pub == null)
      throw new Unsupported("the keys it generates cannot be exported (no encoding)");
    String family = family(info);
    KeyFactory kf = KeyFactory.getInstance(family.equals("RSA") ? "RSA" : factoryNames(family).get(0));
    KeyParts out = new KeyParts();
    switch (family) {
      case "RSA":
        {
          RSAPrivateCrtKey k = (RSAPrivateCrtKey) kf.generatePrivate(new PKCS8EncodedKeySpec(priv));
          int n = (k.getModulus().bitLength() + 7) / 8, half = (n + 1) / 2;
          out.put("n", fixed(k.getModulus(), n));
          out.put("e", minimal(k.getPublicExponent()));
          out.put("d", fixed(k.getPrivateExponent(), n));
          out.put("p", fixed(k.getPrimeP(), half));
          out.put("q", fixed(k.getPrimeQ(), half));
          out.put("dp", fixed(k.getPrimeExponentP(), half));
          out.put("dq", fixed(k.getPrimeExponentQ(), half));
          out.put("qinv", fixed(k.getCrtCoefficient(), half));
          return out;
        }
      case "EC":
        {
          int len = fieldBytes(info);
          ECPrivateKey k = (ECPrivateKey) kf.generatePrivate(new PKCS8EncodedKeySpec(priv));
          ECPublicKey p = (ECPublicKey) kf.generatePublic(new X509EncodedKeySpec(pub));
          out.put("d", fixed(k.getS(), len));
          out.put("x", fixed(p.getW().getAffineX(), len));
          out.put("y", fixed(p.getW().getAffineY(), len));
          return out;
        }
      default:
        {
          int len = publicPrefix(family).length;
          out.put("pub", Arrays.copyOfRange(pub, len, pub.length));
          Key k = kf.generatePrivate(new PKCS8EncodedKeySpec(priv));
          byte[] raw;
          if (k instanceof EdECPrivateKey) raw = ((EdECPrivateKey) k).getBytes().orElse(null);
          else raw = ((XECPrivateKey) k).getScalar().orElse(null);
          if (raw == null) throw new Unsupported("the generated private key has no raw encoding");
          out.put("priv", raw);
          return out;
        }
    }
  }

  /** An ECDSA signature from DER (SEQUENCE of two INTEGERs) to r‖s, each of {@code len} bytes. */
  static byte[] derToPlain(byte[] der, int len) throws Exception {
    int at = 0;
    if (der[at++] != 0x30) throw new Exception("ECDSA signature is not a DER sequence");
    if ((der[at++] & 0x80) != 0) at++;
    byte[] out = new byte[2 * len];
    for (int i = 0; i < 2; i++) {
      if (der[at++] != 0x02) throw new Exception("ECDSA signature part is not a DER integer");
      int n = der[at++] & 0xff;
      BigInteger v = new BigInteger(1, Arrays.copyOfRange(der, at, at + n));
      at += n;
      System.arraycopy(fixed(v, len), 0, out, i * len, len);
    }
    return out;
  }

  /** r‖s to DER. */
  static byte[] plainToDer(byte[] plain) {
    int len = plain.length / 2;
    byte[][] ints = new byte[2][];
    for (int i = 0; i < 2; i++)
      ints[i] = new BigInteger(1, Arrays.copyOfRange(plain, i * len, (i + 1) * len)).toByteArray();
    int body = 4 + ints[0].length + ints[1].length;
    byte[] out = new byte[body + (body > 127 ? 3 : 2)];
    int at = 0;
    out[at++] = 0x30;
    if (body > 127) out[at++] = (byte) 0x81;
    out[at++] = (byte) body;
    for (byte[] v : ints) {
      out[at++] = 0x02;
      out[at++] = (byte) v.length;
      System.arraycopy(v, 0, out, at, v.length);
      at += v.length;
    }
    return out;
  }
}
