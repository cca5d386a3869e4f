package cryptobench.jvm;

import cryptobench.jvm.Types.AlgorithmInfo;
import java.util.List;

/**
 * The catalogue's names in the JCA's standard names (Java Security Standard Algorithm Names),
 * with the aliases some providers use instead, tried in order.
 */
final class JcaNames {
  private JcaNames() {}

  static final class Names {
    final List<String> jca;
    final String keyAlgorithm, params;
    final boolean freshNonce;

    Names(List<String> jca, String keyAlgorithm, String params, boolean freshNonce) {
      this.jca = jca;
      this.keyAlgorithm = keyAlgorithm;
      this.params = params;
      this.freshNonce = freshNonce;
    }
  }

  static Names of(AlgorithmInfo info) {
    String n = info.name;
    switch (info.kind) {
      case "cipher":
        if (n.startsWith("aes-") && !n.endsWith("-xts")) {
          String mode = n.substring(n.lastIndexOf('-') + 1).toUpperCase();
          return new Names(List.of("AES/" + mode + "/NoPadding"), "AES", "iv", false);
        }
        if (n.equals("des-ede3-cbc"))
          return new Names(List.of("DESede/CBC/NoPadding"), "DESede", "iv", false);
        if (n.equals("chacha20"))
          // SunJCE: ChaCha20 with a ChaCha20ParameterSpec; Bouncy Castle: RFC 7539's as CHACHA7539.
          return new Names(List.of("ChaCha20", "CHACHA7539"), "ChaCha20", "chacha20", true);
        if (n.equals("salsa20")) return new Names(List.of("Salsa20"), "Salsa20", "iv", false);
        if (n.equals("xsalsa20")) return new Names(List.of("XSalsa20"), "XSalsa20", "iv", false);
        return null;
      case "aead":
        if (n.startsWith("aes-") && n.endsWith("-gcm"))
          return new Names(List.of("AES/GCM/NoPadding"), "AES", "gcm", true);
        if (n.equals("chacha20-poly1305"))
          return new Names(
              List.of("ChaCha20-Poly1305", "ChaCha20/Poly1305/NoPadding"), "ChaCha20", "iv", true);
        return null;
      case "hash":
        switch (n) {
          case "md5":
            return names("MD5");
          case "sha1":
            return names("SHA-1");
          case "sha224":
          case "sha256":
          case "sha384":
          case "sha512":
            return names("SHA-" + n.substring(3));
          case "sha512-256":
            return names("SHA-512/256");
          case "sha3-256":
          case "sha3-512":
            return names(n.toUpperCase());
          case "blake2b-512":
            return names("BLAKE2B-512");
          case "whirlpool":
            return names("WHIRLPOOL");
          case "ripemd160":
            return names("RIPEMD160");
          default:
            return null;
        }
      case "mac":
        if (n.startsWith("hmac-sha")) {
          String jca = "HmacSHA" + n.substring("hmac-sha".length());
          return new Names(List.of(jca), jca, "", false);
        }
        if (n.startsWith("cmac-aes")) return new Names(List.of("AESCMAC", "AES-CMAC"), "AES", "", false);
        return null;
      case "signature":
        if (info.family.equals("rsa-pkcs1")) return names("SHA256withRSA");
        if (info.family.equals("rsa-pss")) return names("RSASSA-PSS", "SHA256withRSA/PSS");
        if (info.family.equals("ecdsa")) return names(info.digest.toUpperCase() + "withECDSA");
        if (n.equals("ed25519")) return names("Ed25519", "EdDSA");
        if (n.equals("ed448")) return names("Ed448");
        return null;
      case "pk-encryption":
        if (info.family.equals("rsa-pkcs1v15-enc")) return names("RSA/ECB/PKCS1Padding");
        return names("RSA/ECB/OAEPPadding", "RSA/ECB/OAEPWithSHA-256AndMGF1Padding");
      case "key-agreement":
        if (info.family.equals("ecdh")) return names("ECDH");
        if (n.equals("x25519")) return names("X25519", "XDH");
        if (n.equals("x448")) return names("X448");
        return null;
      case "keypair":
        return names("RSA");
      case "kdf":
        if (n.startsWith("pbkdf2-sha")) return names("PBKDF2WithHmacSHA" + n.substring("pbkdf2-sha".length()));
        return null;
      default:
        return null;
    }
  }

  private static Names names(String... jca) {
    return new Names(List.of(jca), "", "", false);
  }
}
