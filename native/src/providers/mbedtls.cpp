// Mbed TLS 2.28 adapter, through the generic cipher layer (mbedtls_cipher_*), the message-digest
// layer (mbedtls_md_*) and the generic CMAC (mbedtls_cipher_cmac_*). What is offered is asked of
// the library at run time: mbedtls_{cipher,md}_info_from_type() return NULL for anything the
// build left out.
//
// Public key: RSA (PKCS#1 v1.5, PSS, OAEP, key generation), ECDSA and ECDH on the NIST curves,
// X25519/X448 through the same ECDH functions (mbedTLS 2.28 has no EdDSA), FFDH with the RFC 7919
// primes from dhm.h, PBKDF2 and HKDF (no scrypt or Argon2). Randomness comes from one CTR_DRBG.
// keyload: RSA and EC PKCS#8 keys (mbedtls_pk_parse_key) and, with libmbedx509, certificates.
#include <mbedtls/aesni.h>
#include <mbedtls/bignum.h>
#include <mbedtls/cipher.h>
#include <mbedtls/cmac.h>
#if __has_include(<mbedtls/constant_time.h>)
extern "C" {                        // 2.28's header, unlike the others, has no C++ guard
#include <mbedtls/constant_time.h>  // public from 2.28 on
}
#define CB_MBEDTLS_CT_MEMCMP 1
#endif
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/dhm.h>
#include <mbedtls/ecdh.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/hkdf.h>
#include <mbedtls/md.h>
#include <mbedtls/pk.h>
#include <mbedtls/pkcs5.h>
#include <mbedtls/rsa.h>
#include <mbedtls/version.h>
#ifdef CB_MBEDTLS_X509
#include <mbedtls/x509_crt.h>
#endif

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

std::string describe(int ret) {
  char buf[160];
  mbedtls_strerror(ret, buf, sizeof buf);
  char code[16];
  std::snprintf(code, sizeof code, " (-0x%04x)", static_cast<unsigned>(-ret));
  return std::string(buf) + code;
}

void check(int ret, const char* what) {
  if (ret != 0) throw Error(std::string("mbedTLS ") + what + ": " + describe(ret));
}

struct CipherRow {
  const char* ours;
  mbedtls_cipher_type_t type;
};
constexpr CipherRow kCiphers[] = {
    {"aes-128-cbc", MBEDTLS_CIPHER_AES_128_CBC},
    {"aes-192-cbc", MBEDTLS_CIPHER_AES_192_CBC},
    {"aes-256-cbc", MBEDTLS_CIPHER_AES_256_CBC},
    {"aes-128-cfb", MBEDTLS_CIPHER_AES_128_CFB128},
    {"aes-192-cfb", MBEDTLS_CIPHER_AES_192_CFB128},
    {"aes-256-cfb", MBEDTLS_CIPHER_AES_256_CFB128},
    {"aes-128-ofb", MBEDTLS_CIPHER_AES_128_OFB},
    {"aes-192-ofb", MBEDTLS_CIPHER_AES_192_OFB},
    {"aes-256-ofb", MBEDTLS_CIPHER_AES_256_OFB},
    {"aes-128-ctr", MBEDTLS_CIPHER_AES_128_CTR},
    {"aes-192-ctr", MBEDTLS_CIPHER_AES_192_CTR},
    {"aes-256-ctr", MBEDTLS_CIPHER_AES_256_CTR},
    {"aes-128-gcm", MBEDTLS_CIPHER_AES_128_GCM},
    {"aes-192-gcm", MBEDTLS_CIPHER_AES_192_GCM},
    {"aes-256-gcm", MBEDTLS_CIPHER_AES_256_GCM},
    {"aes-128-xts", MBEDTLS_CIPHER_AES_128_XTS},
    {"aes-256-xts", MBEDTLS_CIPHER_AES_256_XTS},
    {"des-ede3-cbc", MBEDTLS_CIPHER_DES_EDE3_CBC},
    {"chacha20", MBEDTLS_CIPHER_CHACHA20},
    {"chacha20-poly1305", MBEDTLS_CIPHER_CHACHA20_POLY1305},
};

struct DigestRow {
  const char* ours;
  mbedtls_md_type_t type;
};
constexpr DigestRow kDigests[] = {
    {"md5", MBEDTLS_MD_MD5},
    {"sha1", MBEDTLS_MD_SHA1},
    {"sha224", MBEDTLS_MD_SHA224},
    {"sha256", MBEDTLS_MD_SHA256},
    {"sha384", MBEDTLS_MD_SHA384},
    {"sha512", MBEDTLS_MD_SHA512},
    {"ripemd160", MBEDTLS_MD_RIPEMD160},
};
constexpr DigestRow kHmacs[] = {
    {"hmac-sha256", MBEDTLS_MD_SHA256},
    {"hmac-sha512", MBEDTLS_MD_SHA512},
};
// CMAC runs on the raw block cipher, which mbedTLS names by its ECB mode.
constexpr CipherRow kCmacs[] = {
    {"cmac-aes128", MBEDTLS_CIPHER_AES_128_ECB},
    {"cmac-aes256", MBEDTLS_CIPHER_AES_256_ECB},
};

template <typename Row, size_t N>
const Row* lookup(const Row (&table)[N], const std::string& ours) {
  for (const auto& row : table)
    if (ours == row.ours) return &row;
  return nullptr;
}

const mbedtls_cipher_info_t* cipher_info(mbedtls_cipher_type_t type, const std::string& alg) {
  const mbedtls_cipher_info_t* info = mbedtls_cipher_info_from_type(type);
  if (!info) throw Unsupported("this mbedTLS build lacks " + alg);
  return info;
}

const mbedtls_md_info_t* md_info(mbedtls_md_type_t type, const std::string& alg) {
  const mbedtls_md_info_t* info = mbedtls_md_info_from_type(type);
  if (!info) throw Unsupported("this mbedTLS build lacks " + alg);
  return info;
}

// A cipher context with its key schedule, shared by the plain-cipher, AEAD and CMAC operations.
class KeyedCipher {
 public:
  KeyedCipher(const mbedtls_cipher_info_t* info, const Bytes& key, mbedtls_operation_t direction,
              const std::string& alg) {
    mbedtls_cipher_init(&ctx_);
    check(mbedtls_cipher_setup(&ctx_, info), "cipher setup");
    if (key.size() * 8 != info->key_bitlen)
      throw Unsupported(alg + " needs a " + std::to_string(info->key_bitlen / 8) + "-byte key");
    check(mbedtls_cipher_setkey(&ctx_, key.data(), static_cast<int>(key.size() * 8), direction),
          "set key");
  }
  ~KeyedCipher() { mbedtls_cipher_free(&ctx_); }
  KeyedCipher(const KeyedCipher&) = delete;
  KeyedCipher& operator=(const KeyedCipher&) = delete;
  mbedtls_cipher_context_t* get() { return &ctx_; }

 private:
  mbedtls_cipher_context_t ctx_;
};

class CipherOp : public Operation {
 public:
  CipherOp(const mbedtls_cipher_info_t* info, const std::string& alg, OpKind op, const Params& p)
      : cipher_(info, p.key, op == OpKind::Encrypt ? MBEDTLS_ENCRYPT : MBEDTLS_DECRYPT, alg),
        iv_(p.iv) {
    if (iv_.size() != info->iv_size) throw Unsupported(alg + ": wrong IV length");
    // Padding is a CBC-only setting in mbedTLS; the catalogue's CBC has none.
    if (info->mode == MBEDTLS_MODE_CBC)
      check(mbedtls_cipher_set_padding_mode(cipher_.get(), MBEDTLS_PADDING_NONE), "padding");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // set_iv + reset also clears the keystream offset CFB, OFB and CTR keep between calls.
    check(mbedtls_cipher_set_iv(cipher_.get(), iv_.data(), iv_.size()), "set IV");
    check(mbedtls_cipher_reset(cipher_.get()), "reset");
    size_t n = 0, fin = 0;
    check(mbedtls_cipher_update(cipher_.get(), in, len, out, &n), "update");
    check(mbedtls_cipher_finish(cipher_.get(), out + n, &fin), "finish");
    return n + fin;
  }

 private:
  KeyedCipher cipher_;
  Bytes iv_;
};

class AeadOp : public Operation {
 public:
  AeadOp(const mbedtls_cipher_info_t* info, const AlgorithmInfo& alg, OpKind op, const Params& p)
      : cipher_(info, p.key, op == OpKind::Encrypt ? MBEDTLS_ENCRYPT : MBEDTLS_DECRYPT, alg.name),
        encrypt_(op == OpKind::Encrypt),
        tag_len_(alg.tag_len),
        iv_(p.iv),
        aad_(p.aad) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  // A wrong tag is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    size_t n = 0;
    if (encrypt_) {
      check(
          mbedtls_cipher_auth_encrypt_ext(cipher_.get(), iv_.data(), iv_.size(), aad_.data(),
                                          aad_.size(), in, len, out, len + tag_len_, &n, tag_len_),
          "AEAD encrypt");
      out_len = n;
      return true;
    }
    if (len < tag_len_) throw Error("ciphertext shorter than the tag");
    int ret =
        mbedtls_cipher_auth_decrypt_ext(cipher_.get(), iv_.data(), iv_.size(), aad_.data(),
                                        aad_.size(), in, len, out, len - tag_len_, &n, tag_len_);
    if (ret == MBEDTLS_ERR_CIPHER_AUTH_FAILED) return false;
    check(ret, "AEAD decrypt");
    out_len = n;
    return true;
  }

 private:
  KeyedCipher cipher_;
  bool encrypt_;
  size_t tag_len_;
  Bytes iv_, aad_;
};

class MdContext {
 public:
  MdContext(const mbedtls_md_info_t* info, bool hmac) {
    mbedtls_md_init(&ctx_);
    check(mbedtls_md_setup(&ctx_, info, hmac ? 1 : 0), "md setup");
  }
  ~MdContext() { mbedtls_md_free(&ctx_); }
  MdContext(const MdContext&) = delete;
  MdContext& operator=(const MdContext&) = delete;
  mbedtls_md_context_t* get() { return &ctx_; }

 private:
  mbedtls_md_context_t ctx_;
};

class DigestOp : public Operation {
 public:
  explicit DigestOp(const mbedtls_md_info_t* info)
      : md_(info, false), size_(mbedtls_md_get_size(info)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(mbedtls_md_starts(md_.get()), "digest start");
    check(mbedtls_md_update(md_.get(), in, len), "digest update");
    check(mbedtls_md_finish(md_.get(), out), "digest finish");
    return size_;
  }

 private:
  MdContext md_;
  size_t size_;
};

class HmacOp : public Operation {
 public:
  HmacOp(const mbedtls_md_info_t* info, const Params& p)
      : md_(info, true), size_(mbedtls_md_get_size(info)) {
    check(mbedtls_md_hmac_starts(md_.get(), p.key.data(), p.key.size()), "HMAC key");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // reset restarts from the inner pad hashed in hmac_starts(): no per-message key work.
    check(mbedtls_md_hmac_reset(md_.get()), "HMAC reset");
    check(mbedtls_md_hmac_update(md_.get(), in, len), "HMAC update");
    check(mbedtls_md_hmac_finish(md_.get(), out), "HMAC finish");
    return size_;
  }

 private:
  MdContext md_;
  size_t size_;
};

class CmacOp : public Operation {
 public:
  CmacOp(const mbedtls_cipher_info_t* info, const std::string& alg, const Params& p)
      : cipher_(info, p.key, MBEDTLS_ENCRYPT, alg) {
    check(mbedtls_cipher_cmac_starts(cipher_.get(), p.key.data(), p.key.size() * 8), "CMAC key");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(mbedtls_cipher_cmac_reset(cipher_.get()), "CMAC reset");
    // cmac_update rejects a NULL input even for an empty message, which needs no update.
    if (len) check(mbedtls_cipher_cmac_update(cipher_.get(), in, len), "CMAC update");
    check(mbedtls_cipher_cmac_finish(cipher_.get(), out), "CMAC finish");
    return 16;
  }

 private:
  KeyedCipher cipher_;
};

// ---- public key ---------------------------------------------------------------------------------

// mbedTLS draws randomness (RSA padding and blinding, ECDSA nonces, key generation) through a
// caller-supplied generator: one CTR_DRBG seeded from the entropy module serves the process.
class Drbg {
 public:
  Drbg() {
    mbedtls_entropy_init(&entropy_);
    mbedtls_ctr_drbg_init(&drbg_);
    static const unsigned char kPersonal[] = "cryptobench";
    check(mbedtls_ctr_drbg_seed(&drbg_, mbedtls_entropy_func, &entropy_, kPersonal,
                                sizeof kPersonal - 1),
          "CTR_DRBG seed");
  }
  ~Drbg() {
    mbedtls_ctr_drbg_free(&drbg_);
    mbedtls_entropy_free(&entropy_);
  }
  Drbg(const Drbg&) = delete;
  Drbg& operator=(const Drbg&) = delete;
  static int random(void* self, unsigned char* out, size_t len) {
    return mbedtls_ctr_drbg_random(&static_cast<Drbg*>(self)->drbg_, out, len);
  }

 private:
  mbedtls_entropy_context entropy_;
  mbedtls_ctr_drbg_context drbg_;
};

class Mpi {
 public:
  Mpi() { mbedtls_mpi_init(&v_); }
  explicit Mpi(const Bytes& big_endian) : Mpi() { read(big_endian); }
  ~Mpi() { mbedtls_mpi_free(&v_); }
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;
  void read(const Bytes& big_endian) {
    check(mbedtls_mpi_read_binary(&v_, big_endian.data(), big_endian.size()), "read integer");
  }
  mbedtls_mpi* get() { return &v_; }
  const mbedtls_mpi* get() const { return &v_; }

 private:
  mbedtls_mpi v_;
};

// Big-endian, left-padded to `size` bytes (0: the integer's own length).
Bytes to_bytes(const mbedtls_mpi* v, size_t size = 0) {
  Bytes out(size ? size : mbedtls_mpi_size(v));
  check(mbedtls_mpi_write_binary(v, out.data(), out.size()), "write integer");
  return out;
}

const unsigned char* nonnull(const unsigned char* p) {
  static const unsigned char kEmpty[1] = {0};
  return p ? p : kEmpty;
}

mbedtls_md_type_t md_type(const std::string& digest) {
  if (digest == "sha1") return MBEDTLS_MD_SHA1;
  if (digest == "sha256") return MBEDTLS_MD_SHA256;
  if (digest == "sha384") return MBEDTLS_MD_SHA384;
  if (digest == "sha512") return MBEDTLS_MD_SHA512;
  throw Unsupported("mbedtls: no digest '" + digest + "'");
}

// The message digest a signature covers, computed inside run() as part of the operation.
class Digest {
 public:
  explicit Digest(const std::string& digest)
      : type_(md_type(digest)), info_(md_info(type_, digest)), size_(mbedtls_md_get_size(info_)) {}
  const unsigned char* operator()(const uint8_t* in, size_t len) {
    check(mbedtls_md(info_, nonnull(in), len, buf_), "digest");
    return buf_;
  }
  mbedtls_md_type_t type() const { return type_; }
  unsigned size() const { return size_; }

 private:
  mbedtls_md_type_t type_;
  const mbedtls_md_info_t* info_;
  unsigned size_;
  unsigned char buf_[MBEDTLS_MD_MAX_SIZE];
};

// ---- RSA

class RsaKey {
 public:
  // PKCS#1 v1.5 (signatures and encryption) ignores the hash id; PSS and OAEP use it for MGF1
  // (SHA-256 here).
  RsaKey(const AlgorithmInfo& info, const KeyParts& key, bool with_private) {
    const bool v15 = info.family == "rsa-pkcs1" || info.family == "rsa-pkcs1v15-enc";
    mbedtls_rsa_init(&ctx_, v15 ? MBEDTLS_RSA_PKCS_V15 : MBEDTLS_RSA_PKCS_V21,
                     v15 ? MBEDTLS_MD_NONE : md_type(info.digest));
    Mpi n(key_part(key, "n")), e(key_part(key, "e"));
    if (with_private) {
      // mbedTLS takes no CRT values on import; rsa_complete() recomputes dp, dq and qinv.
      Mpi p(key_part(key, "p")), q(key_part(key, "q")), d(key_part(key, "d"));
      check(mbedtls_rsa_import(&ctx_, n.get(), p.get(), q.get(), d.get(), e.get()), "RSA import");
    } else {
      check(mbedtls_rsa_import(&ctx_, n.get(), nullptr, nullptr, nullptr, e.get()), "RSA import");
    }
    check(mbedtls_rsa_complete(&ctx_), "RSA key");
    if (mbedtls_mpi_bitlen(n.get()) != info.bits)
      throw Error(info.name + " needs a " + std::to_string(info.bits) + "-bit modulus");
  }
  ~RsaKey() { mbedtls_rsa_free(&ctx_); }
  RsaKey(const RsaKey&) = delete;
  RsaKey& operator=(const RsaKey&) = delete;
  mbedtls_rsa_context* get() { return &ctx_; }
  size_t size() const { return mbedtls_rsa_get_len(&ctx_); }

 private:
  mbedtls_rsa_context ctx_;
};

class RsaSignOp : public Operation {
 public:
  RsaSignOp(const AlgorithmInfo& info, const Params& p, Drbg* rng)
      : key_(info, p.keypair, true),
        digest_(info.digest),
        pss_(info.family == "rsa-pss"),
        rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const unsigned char* hash = digest_(in, len);
    if (pss_) {
      // The salt is as long as the digest (32 bytes), as the catalogue fixes it.
      check(mbedtls_rsa_rsassa_pss_sign_ext(key_.get(), Drbg::random, rng_, digest_.type(),
                                            digest_.size(), hash, static_cast<int>(digest_.size()),
                                            out),
            "RSA-PSS sign");
    } else {
      check(mbedtls_rsa_rsassa_pkcs1_v15_sign(key_.get(), Drbg::random, rng_, MBEDTLS_RSA_PRIVATE,
                                              digest_.type(), digest_.size(), hash, out),
            "RSA PKCS#1 v1.5 sign");
    }
    return key_.size();
  }

 private:
  RsaKey key_;
  Digest digest_;
  bool pss_;
  Drbg* rng_;
};

class RsaVerifyOp : public Operation {
 public:
  RsaVerifyOp(const AlgorithmInfo& info, const Params& p, Drbg* rng)
      : key_(info, p.keypair, false),
        digest_(info.digest),
        pss_(info.family == "rsa-pss"),
        sig_(p.signature),
        rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    // mbedTLS reads exactly k signature bytes, so a signature of any other length is invalid.
    if (sig_.size() != key_.size()) throw Error("RSA signature has the wrong length");
    const unsigned char* hash = digest_(in, len);
    const int ret = pss_ ? mbedtls_rsa_rsassa_pss_verify_ext(
                               key_.get(), Drbg::random, rng_, MBEDTLS_RSA_PUBLIC, digest_.type(),
                               digest_.size(), hash, digest_.type(),
                               static_cast<int>(digest_.size()), sig_.data())
                         : mbedtls_rsa_rsassa_pkcs1_v15_verify(key_.get(), Drbg::random, rng_,
                                                               MBEDTLS_RSA_PUBLIC, digest_.type(),
                                                               digest_.size(), hash, sig_.data());
    if (ret != 0) throw Error("RSA signature invalid: " + describe(ret));
    return 0;
  }

 private:
  RsaKey key_;
  Digest digest_;
  bool pss_;
  Bytes sig_;
  Drbg* rng_;
};

// RSAES-OAEP (family rsa-oaep) or RSAES-PKCS1-v1_5 (rsa-pkcs1v15-enc), through the explicit
// functions, whatever padding the key context was set to.
class RsaEncOp : public Operation {
 public:
  RsaEncOp(const AlgorithmInfo& info, OpKind op, const Params& p, Drbg* rng)
      : key_(info, p.keypair, op == OpKind::Decrypt),
        encrypt_(op == OpKind::Encrypt),
        oaep_(info.family == "rsa-oaep"),
        rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n))
      throw Error(std::string("mbedTLS ") + (oaep_ ? "RSA-OAEP" : "RSA PKCS#1 v1.5") +
                  " decrypt: " + describe(refused_));
    return n;
  }
  // A refused ciphertext is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    if (encrypt_) {
      check(oaep_
                ? mbedtls_rsa_rsaes_oaep_encrypt(key_.get(), Drbg::random, rng_, MBEDTLS_RSA_PUBLIC,
                                                 nullptr, 0, len, nonnull(in), out)
                : mbedtls_rsa_rsaes_pkcs1_v15_encrypt(key_.get(), Drbg::random, rng_,
                                                      MBEDTLS_RSA_PUBLIC, len, nonnull(in), out),
            oaep_ ? "RSA-OAEP encrypt" : "RSA PKCS#1 v1.5 encrypt");
      out_len = key_.size();
      return true;
    }
    if (len != key_.size()) throw Error("RSA ciphertext has the wrong length");
    size_t n = 0;
    refused_ =
        oaep_ ? mbedtls_rsa_rsaes_oaep_decrypt(key_.get(), Drbg::random, rng_, MBEDTLS_RSA_PRIVATE,
                                               nullptr, 0, &n, in, out, key_.size())
              : mbedtls_rsa_rsaes_pkcs1_v15_decrypt(key_.get(), Drbg::random, rng_,
                                                    MBEDTLS_RSA_PRIVATE, &n, in, scratch_.data(),
                                                    scratch_.size());
    if (refused_ != 0) return false;
    // The constant-time PKCS#1 v1.5 decoding writes its whole output buffer (k - 11 bytes), not
    // only the message: it decrypts into scratch_, and the message is copied out.
    if (!oaep_) std::copy(scratch_.begin(), scratch_.begin() + static_cast<long>(n), out);
    out_len = n;
    return true;
  }

 private:
  RsaKey key_;
  bool encrypt_, oaep_;
  Drbg* rng_;
  Bytes scratch_ = Bytes(key_.size());
  int refused_ = 0;  // the last decryption's error code
};

KeyParts generate_rsa(const AlgorithmInfo& info, Drbg* rng) {
  mbedtls_rsa_context ctx;
  mbedtls_rsa_init(&ctx, MBEDTLS_RSA_PKCS_V15, MBEDTLS_MD_NONE);
  struct Free {
    mbedtls_rsa_context* c;
    ~Free() { mbedtls_rsa_free(c); }
  } free_ctx{&ctx};
  check(mbedtls_rsa_gen_key(&ctx, Drbg::random, rng, static_cast<unsigned>(info.bits), 65537),
        "RSA key generation");
  Mpi n, p, q, d, e, dp, dq, qinv;
  check(mbedtls_rsa_export(&ctx, n.get(), p.get(), q.get(), d.get(), e.get()), "RSA export");
  check(mbedtls_rsa_export_crt(&ctx, dp.get(), dq.get(), qinv.get()), "RSA CRT export");
  return {{"n", to_bytes(n.get())},   {"e", to_bytes(e.get())},      {"d", to_bytes(d.get())},
          {"p", to_bytes(p.get())},   {"q", to_bytes(q.get())},      {"dp", to_bytes(dp.get())},
          {"dq", to_bytes(dq.get())}, {"qinv", to_bytes(qinv.get())}};
}

// ---- elliptic curves: ECDSA, ECDH and X25519/X448 share one key representation

mbedtls_ecp_group_id curve_of(const std::string& alg) {
  if (alg == "ecdsa-p256" || alg == "ecdh-p256") return MBEDTLS_ECP_DP_SECP256R1;
  if (alg == "ecdsa-p384" || alg == "ecdh-p384") return MBEDTLS_ECP_DP_SECP384R1;
  if (alg == "ecdsa-p521") return MBEDTLS_ECP_DP_SECP521R1;
  if (alg == "x25519") return MBEDTLS_ECP_DP_CURVE25519;
  if (alg == "x448") return MBEDTLS_ECP_DP_CURVE448;
  return MBEDTLS_ECP_DP_NONE;
}

bool curve_available(mbedtls_ecp_group_id id) {
  return id != MBEDTLS_ECP_DP_NONE && mbedtls_ecp_curve_info_from_grp_id(id) != nullptr;
}

// A group with an optional private scalar d and public point Q. Weierstrass keys are our
// big-endian d, x, y; Montgomery keys (X25519, X448) are RFC 7748 little-endian byte strings,
// which mbedtls_ecp_read_key() and mbedtls_ecp_point_read_binary() take as they are (the first
// clamps the scalar, the second masks the top bit of an X25519 u-coordinate).
class EcKey {
 public:
  explicit EcKey(mbedtls_ecp_group_id id) {
    mbedtls_ecp_keypair_init(&kp_);
    check(mbedtls_ecp_group_load(&kp_.grp, id), "load curve");
  }
  ~EcKey() { mbedtls_ecp_keypair_free(&kp_); }
  EcKey(const EcKey&) = delete;
  EcKey& operator=(const EcKey&) = delete;

  bool montgomery() const { return mbedtls_ecp_get_type(&kp_.grp) == MBEDTLS_ECP_TYPE_MONTGOMERY; }
  size_t field_size() const { return (kp_.grp.pbits + 7) / 8; }

  void import_private(const KeyParts& key) {
    if (montgomery()) {
      const Bytes& priv = key_part(key, "priv");
      const int ret = mbedtls_ecp_read_key(kp_.grp.id, &kp_, priv.data(), priv.size());
      if (ret != MBEDTLS_ERR_ECP_FEATURE_UNAVAILABLE) {
        check(ret, "private key");
        return;
      }
      // mbedtls_ecp_read_key() in 2.28 knows only Curve25519, so X448 scalars are decoded here
      // as RFC 7748 section 5 does: little-endian, the two low bits cleared, bit 447 set.
      if (priv.size() != field_size()) throw Error("X448 private key must be 56 bytes");
      check(mbedtls_mpi_read_binary_le(&kp_.d, priv.data(), priv.size()), "private key");
      check(mbedtls_mpi_set_bit(&kp_.d, 0, 0), "private key");
      check(mbedtls_mpi_set_bit(&kp_.d, 1, 0), "private key");
      check(mbedtls_mpi_set_bit(&kp_.d, kp_.grp.nbits, 1), "private key");
      check(mbedtls_ecp_check_privkey(&kp_.grp, &kp_.d), "private key");
    } else {
      check(mbedtls_mpi_read_binary(&kp_.d, key_part(key, "d").data(), key_part(key, "d").size()),
            "private key");
      check(mbedtls_ecp_check_privkey(&kp_.grp, &kp_.d), "private key");
    }
  }
  // Checks that the point is on the curve (and, for Montgomery curves, not of small order).
  void import_public(const KeyParts& key) {
    if (montgomery()) {
      const Bytes& pub = key_part(key, "pub");
      check(mbedtls_ecp_point_read_binary(&kp_.grp, &kp_.Q, pub.data(), pub.size()), "public key");
    } else {
      check(mbedtls_mpi_read_binary(&kp_.Q.X, key_part(key, "x").data(), key_part(key, "x").size()),
            "public key x");
      check(mbedtls_mpi_read_binary(&kp_.Q.Y, key_part(key, "y").data(), key_part(key, "y").size()),
            "public key y");
      check(mbedtls_mpi_lset(&kp_.Q.Z, 1), "public key z");
    }
    check(mbedtls_ecp_check_pubkey(&kp_.grp, &kp_.Q), "public key");
  }

  KeyParts generate(Drbg* rng) {
    check(mbedtls_ecp_gen_keypair(&kp_.grp, &kp_.d, &kp_.Q, Drbg::random, rng),
          "EC key generation");
    const size_t f = field_size();
    if (montgomery()) {
      Bytes priv(f), pub(f);
      size_t n = 0;
      // mbedtls_ecp_write_key() in 2.28 knows only Curve25519; the encoding is little-endian.
      const int ret = mbedtls_ecp_write_key(&kp_, priv.data(), priv.size());
      if (ret == MBEDTLS_ERR_ECP_FEATURE_UNAVAILABLE)
        check(mbedtls_mpi_write_binary_le(&kp_.d, priv.data(), priv.size()), "export private key");
      else
        check(ret, "export private key");
      check(mbedtls_ecp_point_write_binary(&kp_.grp, &kp_.Q, MBEDTLS_ECP_PF_UNCOMPRESSED, &n,
                                           pub.data(), pub.size()),
            "export public key");
      return {{"priv", std::move(priv)}, {"pub", std::move(pub)}};
    }
    return {{"d", to_bytes(&kp_.d, f)}, {"x", to_bytes(&kp_.Q.X, f)}, {"y", to_bytes(&kp_.Q.Y, f)}};
  }

  mbedtls_ecp_keypair kp_;
};

class EcdsaSignOp : public Operation {
 public:
  EcdsaSignOp(const AlgorithmInfo& info, const Params& p, Drbg* rng)
      : key_(curve_of(info.name)), digest_(info.digest), rng_(rng) {
    key_.import_private(p.keypair);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const unsigned char* hash = digest_(in, len);
    check(mbedtls_ecdsa_sign(&key_.kp_.grp, r_.get(), s_.get(), &key_.kp_.d, hash, digest_.size(),
                             Drbg::random, rng_),
          "ECDSA sign");
    const size_t f = key_.field_size();
    check(mbedtls_mpi_write_binary(r_.get(), out, f), "write r");
    check(mbedtls_mpi_write_binary(s_.get(), out + f, f), "write s");
    return 2 * f;
  }

 private:
  EcKey key_;
  Digest digest_;
  Drbg* rng_;
  Mpi r_, s_;
};

class EcdsaVerifyOp : public Operation {
 public:
  EcdsaVerifyOp(const AlgorithmInfo& info, const Params& p)
      : key_(curve_of(info.name)), digest_(info.digest) {
    key_.import_public(p.keypair);
    const size_t f = key_.field_size();
    well_formed_ = p.signature.size() == 2 * f;
    if (well_formed_) {
      check(mbedtls_mpi_read_binary(r_.get(), p.signature.data(), f), "read r");
      check(mbedtls_mpi_read_binary(s_.get(), p.signature.data() + f, f), "read s");
    }
  }
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    if (!well_formed_) throw Error("ECDSA signature has the wrong length");
    const unsigned char* hash = digest_(in, len);
    const int ret =
        mbedtls_ecdsa_verify(&key_.kp_.grp, hash, digest_.size(), &key_.kp_.Q, r_.get(), s_.get());
    if (ret != 0) throw Error("ECDSA signature invalid: " + describe(ret));
    return 0;
  }

 private:
  EcKey key_;
  Digest digest_;
  Mpi r_, s_;
  bool well_formed_ = false;
};

class EcdhOp : public Operation {
 public:
  EcdhOp(const AlgorithmInfo& info, const Params& p, Drbg* rng)
      : own_(curve_of(info.name)), peer_(curve_of(info.name)), rng_(rng) {
    own_.import_private(p.keypair);
    peer_.import_public(p.peer);
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    check(mbedtls_ecdh_compute_shared(&own_.kp_.grp, z_.get(), &peer_.kp_.Q, &own_.kp_.d,
                                      Drbg::random, rng_),
          "ECDH");
    const size_t f = own_.field_size();
    // RFC 7748 shared secrets are little-endian u-coordinates, SP 800-56A's big-endian x.
    if (own_.montgomery())
      check(mbedtls_mpi_write_binary_le(z_.get(), out, f), "write shared secret");
    else
      check(mbedtls_mpi_write_binary(z_.get(), out, f), "write shared secret");
    return f;
  }

 private:
  EcKey own_, peer_;
  Drbg* rng_;
  Mpi z_;
};

// ---- finite-field Diffie-Hellman over the RFC 7919 groups mbedTLS ships

struct FfdheGroup {
  const char* name;
  const unsigned char* p;
  size_t p_len;
  // Private exponent length for key generation: RFC 7919 section 5.2's suggested minimum
  // (225, 275, 325 bits) rounded up to bytes. mbedTLS leaves the length to the caller.
  int x_bytes;
};
const unsigned char kFfdhe2048[] = MBEDTLS_DHM_RFC7919_FFDHE2048_P_BIN;
const unsigned char kFfdhe3072[] = MBEDTLS_DHM_RFC7919_FFDHE3072_P_BIN;
const unsigned char kFfdhe4096[] = MBEDTLS_DHM_RFC7919_FFDHE4096_P_BIN;
const FfdheGroup kFfdhe[] = {
    {"ffdhe2048", kFfdhe2048, sizeof kFfdhe2048, 29},
    {"ffdhe3072", kFfdhe3072, sizeof kFfdhe3072, 35},
    {"ffdhe4096", kFfdhe4096, sizeof kFfdhe4096, 41},
};

const FfdheGroup* ffdhe_group(const std::string& alg) {
  for (const auto& g : kFfdhe)
    if (alg == g.name) return &g;
  return nullptr;
}

class Dhm {
 public:
  explicit Dhm(const FfdheGroup& group) {
    mbedtls_dhm_init(&ctx_);
    static const unsigned char kGenerator[] = MBEDTLS_DHM_RFC7919_FFDHE2048_G_BIN;
    Mpi p, g;
    check(mbedtls_mpi_read_binary(p.get(), group.p, group.p_len), "DH prime");
    check(mbedtls_mpi_read_binary(g.get(), kGenerator, sizeof kGenerator), "DH generator");
    check(mbedtls_dhm_set_group(&ctx_, p.get(), g.get()), "DH group");
  }
  ~Dhm() { mbedtls_dhm_free(&ctx_); }
  Dhm(const Dhm&) = delete;
  Dhm& operator=(const Dhm&) = delete;
  mbedtls_dhm_context ctx_;
};

class FfdhOp : public Operation {
 public:
  FfdhOp(const FfdheGroup& group, const Params& p, Drbg* rng) : dhm_(group), rng_(rng) {
    // mbedTLS has no setter for a given private exponent; the context's X is the documented
    // field mbedtls_dhm_make_public() would fill.
    const Bytes& x = key_part(p.keypair, "x");
    check(mbedtls_mpi_read_binary(&dhm_.ctx_.X, x.data(), x.size()), "DH private key");
    // read_public() refuses inputs longer than the prime, so drop any extra leading zeros.
    const Bytes& y = key_part(p.peer, "y");
    size_t skip = 0;
    while (y.size() - skip > dhm_.ctx_.len && y[skip] == 0) ++skip;
    check(mbedtls_dhm_read_public(&dhm_.ctx_, y.data() + skip, y.size() - skip), "DH peer key");
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    const size_t k = dhm_.ctx_.len;
    size_t n = 0;
    // Checks 2 <= y <= p - 2 and blinds the exponentiation with the DRBG.
    check(mbedtls_dhm_calc_secret(&dhm_.ctx_, out, k, &n, Drbg::random, rng_), "DH");
    if (n < k) {  // some versions write the secret without leading zeros
      std::memmove(out + (k - n), out, n);
      std::memset(out, 0, k - n);
    }
    return k;
  }

 private:
  Dhm dhm_;
  Drbg* rng_;
};

KeyParts generate_ffdh(const FfdheGroup& group, Drbg* rng) {
  Dhm dhm(group);
  Bytes y(dhm.ctx_.len);
  check(mbedtls_dhm_make_public(&dhm.ctx_, group.x_bytes, y.data(), y.size(), Drbg::random, rng),
        "DH key generation");
  return {{"x", to_bytes(&dhm.ctx_.X)}, {"y", std::move(y)}};
}

// ---- key derivation

class Pbkdf2Op : public Operation {
 public:
  Pbkdf2Op(const AlgorithmInfo& info, const Params& p)
      : md_(md_info(md_type(info.digest), info.name), true), salt_(p.salt), out_len_(p.out_len) {
    const uint64_t iterations = cost_param(p, "iterations");
    if (iterations == 0 || iterations > UINT_MAX)
      throw Unsupported("mbedTLS PBKDF2 takes 1 to UINT_MAX iterations");
    if (out_len_ > UINT32_MAX) throw Unsupported("PBKDF2 output too long");
    iterations_ = static_cast<unsigned>(iterations);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(
        mbedtls_pkcs5_pbkdf2_hmac(md_.get(), nonnull(in), len, nonnull(salt_.data()), salt_.size(),
                                  iterations_, static_cast<uint32_t>(out_len_), out),
        "PBKDF2");
    return out_len_;
  }

 private:
  MdContext md_;
  Bytes salt_;
  size_t out_len_;
  unsigned iterations_ = 0;
};

class HkdfOp : public Operation {
 public:
  HkdfOp(const AlgorithmInfo& info, const Params& p)
      : md_(md_info(md_type(info.digest), info.name)),
        salt_(p.salt),
        info_(p.info),
        out_len_(p.out_len) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // An empty salt is HMAC with an empty key, which RFC 5869 defines to equal a zero salt.
    check(mbedtls_hkdf(md_, nonnull(salt_.data()), salt_.size(), nonnull(in), len,
                       nonnull(info_.data()), info_.size(), out, out_len_),
          "HKDF");
    return out_len_;
  }

 private:
  const mbedtls_md_info_t* md_;
  Bytes salt_, info_;
  size_t out_len_;
};

// ---- keyload: PKCS#8 private keys (mbedtls_pk_parse_key) and X.509 certificates
// (mbedtls_x509_crt_parse, in libmbedx509: offered when the build found it), PEM or DER.
// mbedTLS 2.28 has no Ed25519. Its PEM parsers take a NUL-terminated string (the input's last
// byte must be the NUL, which mbedtls_pk_parse_keyfile appends after reading a file), so a PEM
// run copies the encoding into a buffer with one, as an application holding the bytes must.

bool is_certificate(const AlgorithmInfo& info) { return info.name.rfind("x509-", 0) == 0; }
bool is_pem(const AlgorithmInfo& info) {
  const std::string& n = info.name;
  return n.size() > 4 && n.compare(n.size() - 4, 4, "-pem") == 0;
}

bool keyload_offered(const AlgorithmInfo& info) {
#ifndef CB_MBEDTLS_X509
  if (is_certificate(info)) return false;
#endif
  if (info.key_type.rfind("rsa-", 0) == 0) return true;
  return info.key_type.rfind("ecdsa-", 0) == 0 && curve_available(curve_of(info.key_type));
}

// The bytes a parser takes: PEM with its terminating NUL (copied into `scratch`), DER as is.
std::pair<const unsigned char*, size_t> parser_input(bool pem, const uint8_t* in, size_t len,
                                                     Bytes& scratch) {
  if (!pem) return {in, len};
  scratch.assign(in, in + len);
  scratch.push_back('\0');
  return {scratch.data(), scratch.size()};
}

class PkContext {
 public:
  PkContext() { mbedtls_pk_init(&ctx_); }
  ~PkContext() { mbedtls_pk_free(&ctx_); }
  PkContext(const PkContext&) = delete;
  PkContext& operator=(const PkContext&) = delete;
  mbedtls_pk_context* get() { return &ctx_; }

 private:
  mbedtls_pk_context ctx_;
};

void parse_key(PkContext& pk, bool pem, const uint8_t* in, size_t len, Bytes& scratch) {
  const auto [data, n] = parser_input(pem, in, len, scratch);
  check(mbedtls_pk_parse_key(pk.get(), data, n, nullptr, 0), "decode private key");
}

#ifdef CB_MBEDTLS_X509
class Certificate {
 public:
  Certificate() { mbedtls_x509_crt_init(&crt_); }
  ~Certificate() { mbedtls_x509_crt_free(&crt_); }
  Certificate(const Certificate&) = delete;
  Certificate& operator=(const Certificate&) = delete;
  mbedtls_x509_crt* get() { return &crt_; }

 private:
  mbedtls_x509_crt crt_;
};

// A positive return counts the certificates of a PEM chain that failed: a failure too.
void parse_certificate(Certificate& crt, bool pem, const uint8_t* in, size_t len, Bytes& scratch) {
  const auto [data, n] = parser_input(pem, in, len, scratch);
  check(mbedtls_x509_crt_parse(crt.get(), data, n), "decode certificate");
}
#endif

class KeyloadOp : public Operation {
 public:
  explicit KeyloadOp(const AlgorithmInfo& info)
      : certificate_(is_certificate(info)), pem_(is_pem(info)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
#ifdef CB_MBEDTLS_X509
    if (certificate_) {
      Certificate crt;
      parse_certificate(crt, pem_, in, len, scratch_);
      return 0;
    }
#endif
    PkContext pk;
    parse_key(pk, pem_, in, len, scratch_);
    return 0;
  }

 private:
  bool certificate_, pem_;
  Bytes scratch_;  // the NUL-terminated PEM; its capacity is kept from run to run
};

// A decoded key's parts in the catalogue's format; the public ones only for a certificate's key.
KeyParts key_parts(const AlgorithmInfo& info, mbedtls_pk_context* pk, bool with_private) {
  switch (mbedtls_pk_get_type(pk)) {
    case MBEDTLS_PK_RSA: {
      mbedtls_rsa_context* rsa = mbedtls_pk_rsa(*pk);
      Mpi n, p, q, d, e, dp, dq, qinv;
      if (!with_private) {
        check(mbedtls_rsa_export(rsa, n.get(), nullptr, nullptr, nullptr, e.get()), "RSA export");
        return {{"n", to_bytes(n.get())}, {"e", to_bytes(e.get())}};
      }
      check(mbedtls_rsa_export(rsa, n.get(), p.get(), q.get(), d.get(), e.get()), "RSA export");
      check(mbedtls_rsa_export_crt(rsa, dp.get(), dq.get(), qinv.get()), "RSA CRT export");
      return {{"n", to_bytes(n.get())},   {"e", to_bytes(e.get())},      {"d", to_bytes(d.get())},
              {"p", to_bytes(p.get())},   {"q", to_bytes(q.get())},      {"dp", to_bytes(dp.get())},
              {"dq", to_bytes(dq.get())}, {"qinv", to_bytes(qinv.get())}};
    }
    case MBEDTLS_PK_ECKEY:
    case MBEDTLS_PK_ECDSA: {
      const mbedtls_ecp_keypair* ec = mbedtls_pk_ec(*pk);
      if (ec->grp.id != curve_of(info.key_type))
        throw Error("mbedtls keyload: " + info.name + " decoded to a key on another curve");
      const size_t f = (ec->grp.pbits + 7) / 8;
      KeyParts out = {{"x", to_bytes(&ec->Q.X, f)}, {"y", to_bytes(&ec->Q.Y, f)}};
      if (with_private) out["d"] = to_bytes(&ec->d, f);
      return out;
    }
    default:
      break;
  }
  throw Error("mbedtls keyload: " + info.name + " decoded to a key of another type");
}

KeyParts decoded_parts(const AlgorithmInfo& info, const Bytes& encoded) {
  Bytes scratch;
#ifdef CB_MBEDTLS_X509
  if (is_certificate(info)) {
    Certificate crt;
    parse_certificate(crt, is_pem(info), encoded.data(), encoded.size(), scratch);
    return key_parts(info, &crt.get()->pk, false);
  }
#endif
  PkContext pk;
  parse_key(pk, is_pem(info), encoded.data(), encoded.size(), scratch);
  return key_parts(info, pk.get(), true);
}

class MbedtlsProvider : public Provider {
 public:
  std::string name() const override { return "mbedtls"; }
  std::string version() const override {
    char buf[32] = {};  // the library writes at most 18 bytes
    mbedtls_version_get_string(buf);
    return buf;
  }
  std::vector<Variant> variants() const override {
    // mbedTLS 2.28 picks AES-NI/PCLMULQDQ by CPUID on every call and offers no switch.
    return {{"default", "AES-NI and PCLMULQDQ when the CPU has them (no switch in mbedTLS)", {}}};
  }
  void init(const std::string&) override { rng_ = std::make_unique<Drbg>(); }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& r : kCiphers)
      if (mbedtls_cipher_info_from_type(r.type)) out.push_back(r.ours);
    for (const auto& r : kDigests)
      if (mbedtls_md_info_from_type(r.type)) out.push_back(r.ours);
    for (const auto& r : kHmacs)
      if (mbedtls_md_info_from_type(r.type)) out.push_back(r.ours);
    for (const auto& r : kCmacs)
      if (mbedtls_cipher_info_from_type(r.type)) out.push_back(r.ours);
    for (const char* bits : {"1024", "2048", "3072", "4096"}) {
      const std::string type = std::string("rsa-") + bits;
      for (const char* suffix : {"", "-pkcs1-sha256", "-pss-sha256", "-oaep-sha256"})
        out.push_back(type + suffix);
    }
    out.push_back("rsa-2048-pkcs1v15-enc");
    for (const char* alg :
         {"ecdsa-p256", "ecdsa-p384", "ecdsa-p521", "x25519", "x448", "ecdh-p256", "ecdh-p384"})
      if (curve_available(curve_of(alg))) out.push_back(alg);
    for (const auto& g : kFfdhe) out.push_back(g.name);
    for (const char* kdf : {"pbkdf2-sha1", "pbkdf2-sha256", "pbkdf2-sha512", "hkdf-sha256"})
      out.push_back(kdf);
    for (const auto& a : cb::algorithms())
      if (a.kind == Kind::Keyload && keyload_offered(a)) out.push_back(a.name);
    return out;
  }
  KeyParts decode_key(const std::string& algorithm, const Bytes& encoded) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keyload);
    if (!keyload_offered(info)) throw Unsupported("mbedtls does not decode " + algorithm);
    return decoded_parts(info, encoded);
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (info->kind == Kind::Keyload) {
      if (!keyload_offered(*info)) throw Unsupported("mbedtls does not decode " + algorithm);
      return std::make_unique<KeyloadOp>(*info);
    }
    if (info->kind == Kind::Handshake) return prepare_handshake(algorithm, params);
    if (is_public_key(info->kind) || info->kind == Kind::Kdf) return prepare_pk(*info, op, params);
    if (const CipherRow* row = lookup(kCiphers, algorithm)) {
      const mbedtls_cipher_info_t* ci = cipher_info(row->type, algorithm);
      if (info->kind == Kind::Aead) return std::make_unique<AeadOp>(ci, *info, op, params);
      return std::make_unique<CipherOp>(ci, algorithm, op, params);
    }
    if (const DigestRow* row = lookup(kDigests, algorithm))
      return std::make_unique<DigestOp>(md_info(row->type, algorithm));
    if (const DigestRow* row = lookup(kHmacs, algorithm))
      return std::make_unique<HmacOp>(md_info(row->type, algorithm), params);
    if (const CipherRow* row = lookup(kCmacs, algorithm))
      return std::make_unique<CmacOp>(cipher_info(row->type, algorithm), algorithm, params);
    throw Unsupported("mbedtls does not offer " + algorithm);
  }
  // The handshake kind is TLS 1.3. In mbedTLS 2.28 that is an experimental prototype behind
  // MBEDTLS_SSL_PROTO_TLS1_3_EXPERIMENTAL ("no feature exposed through this macro is part of
  // the public API"), which Debian's build leaves out (mbedtls/config.h:
  // "//#define MBEDTLS_SSL_PROTO_TLS1_3_EXPERIMENTAL"). Not offered, with that reason.
  std::unique_ptr<HandshakeOperation> prepare_handshake(const std::string& algorithm,
                                                        const Params&) override {
    checked_algorithm(algorithm, OpKind::Handshake);
#ifdef MBEDTLS_SSL_PROTO_TLS1_3_EXPERIMENTAL
    throw Unsupported("mbedtls does not offer " + algorithm +
                      ": mbedTLS " MBEDTLS_VERSION_STRING
                      " has its experimental TLS 1.3 compiled in, but this adapter has no TLS "
                      "code (it links libmbedcrypto and libmbedx509 only)");
#else
    throw Unsupported("mbedtls does not offer " + algorithm +
                      ": mbedTLS " MBEDTLS_VERSION_STRING
                      " is built without TLS 1.3 (mbedtls/config.h: "
                      "//#define MBEDTLS_SSL_PROTO_TLS1_3_EXPERIMENTAL; in 2.28 it is an "
                      "experimental prototype, not part of the public API)");
#endif
  }
#ifdef CB_MBEDTLS_CT_MEMCMP
  // mbedTLS has no MAC verification function; mbedtls_ct_memcmp is its constant-time comparison.
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Mac);
    return std::make_unique<MacCompareOp>(prepare(algorithm, OpKind::Mac, params), info.output_len,
                                          [](const uint8_t* a, const uint8_t* b, size_t n) {
                                            return mbedtls_ct_memcmp(a, b, n) == 0;
                                          });
  }
#endif
  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    if (info.kind == Kind::KeyPair) return generate_rsa(info, rng_.get());
    if (const FfdheGroup* group = ffdhe_group(algorithm)) return generate_ffdh(*group, rng_.get());
    const mbedtls_ecp_group_id curve = curve_of(algorithm);
    if (curve_available(curve)) return EcKey(curve).generate(rng_.get());
    throw Unsupported("mbedtls cannot generate " + algorithm + " keys");
  }
  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    char full[32] = {};
    mbedtls_version_get_string_full(full);
    out["version"] = full;
    // Asked of the library binary, not of the headers we compiled against.
    const bool aesni_built = mbedtls_version_check_feature("MBEDTLS_AESNI_C") == 0;
    out["aesni_c"] = aesni_built ? "compiled in" : "not compiled in";
#if defined(MBEDTLS_AESNI_HAVE_CODE)
    // mbedtls_aesni_has_support() is the very CPUID test the AES and GCM code consult on each
    // call; it is marked internal, but 2.28 has no public way to ask which path is taken.
    if (aesni_built) {
      out["aesni_aes"] = mbedtls_aesni_has_support(MBEDTLS_AESNI_AES) ? "used" : "not available";
      out["aesni_clmul"] =
          mbedtls_aesni_has_support(MBEDTLS_AESNI_CLMUL) ? "used for GCM" : "not available";
    }
#endif
    // Public-key code paths the build may take: NIST-curve fast reduction and whether any
    // bignum/ECP/RSA work is handed to an alternative (hardware) implementation.
    for (const char* feature :
         {"MBEDTLS_ECP_NIST_OPTIM", "MBEDTLS_ECP_FIXED_POINT_OPTIM", "MBEDTLS_HAVE_ASM",
          "MBEDTLS_ECP_ALT", "MBEDTLS_RSA_ALT", "MBEDTLS_BIGNUM_ALT"})
      if (mbedtls_version_check_feature(feature) == 0)
        out["pk_features"] += std::string(out["pk_features"].empty() ? "" : " ") + feature;
    out["padlock_c"] = mbedtls_version_check_feature("MBEDTLS_PADLOCK_C") == 0
                           ? "compiled in (VIA CPUs only)"
                           : "not compiled in";
    return out;
  }

 private:
  std::unique_ptr<Operation> prepare_pk(const AlgorithmInfo& info, OpKind op, const Params& p) {
    Drbg* rng = rng_.get();
    if (info.family == "rsa-pkcs1" || info.family == "rsa-pss") {
      if (op == OpKind::Sign) return std::make_unique<RsaSignOp>(info, p, rng);
      return std::make_unique<RsaVerifyOp>(info, p, rng);
    }
    if (info.family == "rsa-oaep" || info.family == "rsa-pkcs1v15-enc")
      return std::make_unique<RsaEncOp>(info, op, p, rng);
    if (const FfdheGroup* group = ffdhe_group(info.name))
      return std::make_unique<FfdhOp>(*group, p, rng);
    if (info.family == "pbkdf2") return std::make_unique<Pbkdf2Op>(info, p);
    if (info.family == "hkdf") return std::make_unique<HkdfOp>(info, p);
    if (curve_available(curve_of(info.name))) {
      if (info.family == "ecdsa") {
        if (op == OpKind::Sign) return std::make_unique<EcdsaSignOp>(info, p, rng);
        return std::make_unique<EcdsaVerifyOp>(info, p);
      }
      return std::make_unique<EcdhOp>(info, p, rng);
    }
    throw Unsupported("mbedtls does not offer " + info.name);
  }

  std::unique_ptr<Drbg> rng_;
};

}  // namespace

CB_REGISTER_PROVIDER("mbedtls", MbedtlsProvider);

}  // namespace cb
