#include "cryptobench/algorithms.hpp"

#include <stdexcept>

namespace cb {

namespace {

AlgorithmInfo cipher(std::string name, size_t key, size_t iv, size_t block, std::string family,
                     std::string description, size_t min_len = 1) {
  return {std::move(name),   Kind::Cipher,          key, iv, block, min_len, 0, 0,
          std::move(family), std::move(description)};
}
AlgorithmInfo aead(std::string name, size_t key, size_t iv, std::string family,
                   std::string description) {
  return {std::move(name),       Kind::Aead, key, iv, 1, 0, 16, 0, std::move(family),
          std::move(description)};
}
AlgorithmInfo hash(std::string name, size_t out, std::string family, std::string description) {
  return {std::move(name),       Kind::Hash, 0, 0, 1, 0, 0, out, std::move(family),
          std::move(description)};
}
AlgorithmInfo mac(std::string name, size_t key, size_t out, std::string family,
                  std::string description) {
  return {std::move(name),       Kind::Mac, key, 0, 1, 0, 0, out, std::move(family),
          std::move(description)};
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

std::vector<OpKind> operations_for(Kind kind) {
  switch (kind) {
    case Kind::Cipher:
    case Kind::Aead:
      return {OpKind::Encrypt, OpKind::Decrypt};
    case Kind::Hash:
      return {OpKind::Hash};
    case Kind::Mac:
      return {OpKind::Mac};
  }
  return {};
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
  }
  return "?";
}

OpKind parse_op(const std::string& name) {
  for (OpKind op : {OpKind::Encrypt, OpKind::Decrypt, OpKind::Hash, OpKind::Mac})
    if (name == to_string(op)) return op;
  throw std::invalid_argument("unknown operation '" + name + "' (encrypt, decrypt, hash, mac)");
}

}  // namespace cb
