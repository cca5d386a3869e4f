#include "cryptobench/algorithms.hpp"

#include <stdexcept>

namespace cb {

namespace {

AlgorithmInfo cipher(std::string name, size_t key, size_t iv, size_t block, std::string family,
                     std::string description, size_t min_len = 1) {
  return {std::move(name),   Kind::Cipher,           key, iv, block, min_len, 0, 0,
          std::move(family), std::move(description), "",  0,  ""};
}
AlgorithmInfo aead(std::string name, size_t key, size_t iv, std::string family,
                   std::string description) {
  return {std::move(name),        Kind::Aead, key, iv, 1, 0, 16, 0, std::move(family),
          std::move(description), "",         0,   ""};
}
AlgorithmInfo hash(std::string name, size_t out, std::string family, std::string description) {
  return {std::move(name),        Kind::Hash, 0, 0, 1, 0, 0, out, std::move(family),
          std::move(description), "",         0, ""};
}
AlgorithmInfo mac(std::string name, size_t key, size_t out, std::string family,
                  std::string description) {
  return {std::move(name),        Kind::Mac, key, 0, 1, 0, 0, out, std::move(family),
          std::move(description), "",        0,   ""};
}

AlgorithmInfo pk(std::string name, Kind kind, std::string key_type, size_t bits, size_t out,
                 std::string digest, std::string family, std::string description) {
  AlgorithmInfo a{std::move(name),        kind, 0, 0, 1, 0, 0, out, std::move(family),
                  std::move(description), "",   0, ""};
  a.key_type = std::move(key_type);
  a.bits = bits;
  a.digest = std::move(digest);
  return a;
}
AlgorithmInfo kdf(std::string name, std::string digest, std::string family,
                  std::string description) {
  AlgorithmInfo a{std::move(name),        Kind::Kdf, 0, 0, 1, 0, 0, 32, std::move(family),
                  std::move(description), "",        0, ""};
  a.digest = std::move(digest);
  return a;
}

void add_public_key(std::vector<AlgorithmInfo>& v) {
  for (size_t bits : {1024, 2048, 3072, 4096}) {
    const std::string type = "rsa-" + std::to_string(bits);
    const size_t k = bits / 8;
    v.push_back(pk(type, Kind::KeyPair, type, bits, 0, "", "rsa-keygen",
                   "RSA key pair, e = 65537 (FIPS 186-5)"));
    v.push_back(pk(type + "-pkcs1-sha256", Kind::Signature, type, bits, k, "sha256", "rsa-pkcs1",
                   "RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017)"));
    v.push_back(pk(type + "-pss-sha256", Kind::Signature, type, bits, k, "sha256", "rsa-pss",
                   "RSASSA-PSS, SHA-256, MGF1-SHA-256, 32-byte salt (RFC 8017)"));
    v.push_back(pk(type + "-oaep-sha256", Kind::PkEncryption, type, bits, k, "sha256", "rsa-oaep",
                   "RSAES-OAEP, SHA-256, MGF1-SHA-256, empty label (RFC 8017)"));
  }
  v.push_back(pk("ecdsa-p256", Kind::Signature, "ecdsa-p256", 256, 64, "sha256", "ecdsa",
                 "ECDSA on P-256 with SHA-256, signature r||s (FIPS 186-5)"));
  v.push_back(pk("ecdsa-p384", Kind::Signature, "ecdsa-p384", 384, 96, "sha384", "ecdsa",
                 "ECDSA on P-384 with SHA-384, signature r||s (FIPS 186-5)"));
  v.push_back(pk("ecdsa-p521", Kind::Signature, "ecdsa-p521", 521, 132, "sha512", "ecdsa",
                 "ECDSA on P-521 with SHA-512, signature r||s (FIPS 186-5)"));
  v.push_back(pk("ed25519", Kind::Signature, "ed25519", 255, 64, "", "ed25519",
                 "Ed25519, pure (RFC 8032)"));
  v.push_back(
      pk("ed448", Kind::Signature, "ed448", 448, 114, "", "ed448", "Ed448, pure (RFC 8032)"));
  v.push_back(pk("x25519", Kind::KeyAgreement, "x25519", 255, 32, "", "x25519",
                 "X25519 Diffie-Hellman (RFC 7748)"));
  v.push_back(pk("x448", Kind::KeyAgreement, "x448", 448, 56, "", "x448",
                 "X448 Diffie-Hellman (RFC 7748)"));
  v.push_back(pk("ecdh-p256", Kind::KeyAgreement, "ecdh-p256", 256, 32, "", "ecdh",
                 "ECDH on P-256, shared secret = x-coordinate (SP 800-56A)"));
  v.push_back(pk("ecdh-p384", Kind::KeyAgreement, "ecdh-p384", 384, 48, "", "ecdh",
                 "ECDH on P-384, shared secret = x-coordinate (SP 800-56A)"));
  for (size_t bits : {2048, 3072, 4096}) {
    const std::string name = "ffdhe" + std::to_string(bits);
    v.push_back(pk(name, Kind::KeyAgreement, name, bits, bits / 8, "", "ffdhe",
                   "Finite-field DH, RFC 7919 group, secret padded to the group size"));
  }
  v.push_back(kdf("pbkdf2-sha1", "sha1", "pbkdf2", "PBKDF2-HMAC-SHA-1 (RFC 8018; RFC 6070)"));
  v.push_back(kdf("pbkdf2-sha256", "sha256", "pbkdf2", "PBKDF2-HMAC-SHA-256 (RFC 8018)"));
  v.push_back(kdf("pbkdf2-sha512", "sha512", "pbkdf2", "PBKDF2-HMAC-SHA-512 (RFC 8018)"));
  v.push_back(kdf("scrypt", "", "scrypt", "scrypt (RFC 7914)"));
  v.push_back(kdf("argon2id", "", "argon2", "Argon2id v1.3 (RFC 9106)"));
  v.push_back(kdf("hkdf-sha256", "sha256", "hkdf", "HKDF-SHA-256, extract and expand (RFC 5869)"));
}

std::vector<AlgorithmInfo> build() {
  std::vector<AlgorithmInfo> v;
  for (int bits : {128, 192, 256}) {
    const std::string p = "aes-" + std::to_string(bits) + "-";
    const size_t k = bits / 8;
    v.push_back(cipher(p + "cbc", k, 16, 16, "aes-cbc", "AES-CBC, no padding (SP 800-38A)"));
    v.push_back(cipher(p + "cfb", k, 16, 1, "aes-cfb", "AES-CFB128 (SP 800-38A)"));
    v.push_back(cipher(p + "ofb", k, 16, 1, "aes-ofb", "AES-OFB (SP 800-38A)"));
    v.push_back(cipher(p + "ctr", k, 16, 1, "aes-ctr",
                       "AES-CTR, 128-bit big-endian counter block (SP 800-38A)"));
    v.push_back(aead(p + "gcm", k, 12, "aes-gcm", "AES-GCM, 96-bit IV, 128-bit tag (SP 800-38D)"));
  }
  v.push_back(cipher("aes-128-xts", 32, 16, 1, "aes-xts",
                     "AES-XTS with a 256-bit key (two AES-128 keys), 128-bit tweak (SP 800-38E)",
                     16));
  v.push_back(cipher("aes-256-xts", 64, 16, 1, "aes-xts",
                     "AES-XTS with a 512-bit key (two AES-256 keys), 128-bit tweak (SP 800-38E)",
                     16));
  v.push_back(cipher("des-ede3-cbc", 24, 8, 8, "des-ede3",
                     "Triple DES (168-bit, three keys) CBC, no padding (SP 800-67)"));
  v.push_back(cipher("chacha20", 32, 12, 1, "chacha20",
                     "ChaCha20, 96-bit nonce, block counter starting at 0 (RFC 8439)"));
  v.push_back(cipher("xchacha20", 32, 24, 1, "xchacha20",
                     "XChaCha20, 192-bit nonce, counter starting at 0 (draft-irtf-cfrg-xchacha)"));
  v.push_back(cipher("salsa20", 32, 8, 1, "salsa20",
                     "Salsa20/20, 256-bit key, 64-bit nonce, counter starting at 0"));
  v.push_back(cipher("xsalsa20", 32, 24, 1, "xsalsa20", "XSalsa20, 192-bit nonce"));
  v.push_back(aead("chacha20-poly1305", 32, 12, "chacha20-poly1305",
                   "ChaCha20-Poly1305 AEAD, IETF 96-bit nonce (RFC 8439)"));
  v.push_back(aead("xchacha20-poly1305", 32, 24, "xchacha20-poly1305",
                   "XChaCha20-Poly1305 AEAD, 192-bit nonce (draft-irtf-cfrg-xchacha)"));

  v.push_back(hash("null", 1, "null",
                   "No cryptography: the harness floor (the built-in null provider's baseline)"));
  v.push_back(hash("md5", 16, "md5", "MD5 (RFC 1321)"));
  v.push_back(hash("sha1", 20, "sha1", "SHA-1 (FIPS 180-4)"));
  v.push_back(hash("sha224", 28, "sha2", "SHA-224 (FIPS 180-4)"));
  v.push_back(hash("sha256", 32, "sha2", "SHA-256 (FIPS 180-4)"));
  v.push_back(hash("sha384", 48, "sha2", "SHA-384 (FIPS 180-4)"));
  v.push_back(hash("sha512", 64, "sha2", "SHA-512 (FIPS 180-4)"));
  v.push_back(hash("sha3-256", 32, "sha3", "SHA3-256 (FIPS 202)"));
  v.push_back(hash("sha3-512", 64, "sha3", "SHA3-512 (FIPS 202)"));
  v.push_back(hash("blake2b-512", 64, "blake2b", "BLAKE2b, unkeyed, 512-bit output (RFC 7693)"));
  v.push_back(hash("whirlpool", 64, "whirlpool", "Whirlpool (ISO/IEC 10118-3)"));
  v.push_back(hash("ripemd160", 20, "ripemd160", "RIPEMD-160"));

  v.push_back(mac("hmac-sha256", 32, 32, "hmac", "HMAC-SHA-256, 256-bit key (RFC 2104, 4231)"));
  v.push_back(mac("hmac-sha512", 64, 64, "hmac", "HMAC-SHA-512, 512-bit key (RFC 2104, 4231)"));
  v.push_back(mac("cmac-aes128", 16, 16, "cmac", "AES-128-CMAC (SP 800-38B, RFC 4493)"));
  v.push_back(mac("cmac-aes256", 32, 16, "cmac", "AES-256-CMAC (SP 800-38B)"));
  add_public_key(v);
  return v;
}

}  // namespace

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> all = build();
  return all;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<OpKind> operations_for(const AlgorithmInfo& info) {
  std::vector<OpKind> ops;
  if (!info.key_type.empty() && info.key_type == info.name) ops.push_back(OpKind::Keygen);
  switch (info.kind) {
    case Kind::Cipher:
    case Kind::Aead:
    case Kind::PkEncryption:
      ops.insert(ops.end(), {OpKind::Encrypt, OpKind::Decrypt});
      break;
    case Kind::Hash:
      ops.push_back(OpKind::Hash);
      break;
    case Kind::Mac:
      ops.push_back(OpKind::Mac);
      break;
    case Kind::Signature:
      ops.insert(ops.end(), {OpKind::Sign, OpKind::Verify});
      break;
    case Kind::KeyAgreement:
    case Kind::Kdf:
      ops.push_back(OpKind::Derive);
      break;
    case Kind::KeyPair:
      break;
  }
  return ops;
}

bool is_public_key(Kind kind) {
  return kind == Kind::KeyPair || kind == Kind::Signature || kind == Kind::PkEncryption ||
         kind == Kind::KeyAgreement;
}

const char* to_string(OpKind op) {
  switch (op) {
    case OpKind::Encrypt:
      return "encrypt";
    case OpKind::Decrypt:
      return "decrypt";
    case OpKind::Hash:
      return "hash";
    case OpKind::Mac:
      return "mac";
    case OpKind::Keygen:
      return "keygen";
    case OpKind::Sign:
      return "sign";
    case OpKind::Verify:
      return "verify";
    case OpKind::Derive:
      return "derive";
  }
  return "?";
}

const char* to_string(Kind kind) {
  switch (kind) {
    case Kind::Cipher:
      return "cipher";
    case Kind::Aead:
      return "aead";
    case Kind::Hash:
      return "hash";
    case Kind::Mac:
      return "mac";
    case Kind::KeyPair:
      return "keypair";
    case Kind::Signature:
      return "signature";
    case Kind::PkEncryption:
      return "pk-encryption";
    case Kind::KeyAgreement:
      return "key-agreement";
    case Kind::Kdf:
      return "kdf";
  }
  return "?";
}

OpKind parse_op(const std::string& name) {
  for (OpKind op : {OpKind::Encrypt, OpKind::Decrypt, OpKind::Hash, OpKind::Mac, OpKind::Keygen,
                    OpKind::Sign, OpKind::Verify, OpKind::Derive})
    if (name == to_string(op)) return op;
  throw std::invalid_argument("unknown operation '" + name +
                              "' (encrypt, decrypt, hash, mac, keygen, sign, verify, derive)");
}

}  // namespace cb
