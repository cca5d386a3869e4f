// Mbed TLS 2.28 adapter, through the generic cipher layer (mbedtls_cipher_*), the message-digest
// layer (mbedtls_md_*) and the generic CMAC (mbedtls_cipher_cmac_*). What is offered is asked of
// the library at run time: mbedtls_{cipher,md}_info_from_type() return NULL for anything the
// build left out.
#include <mbedtls/aesni.h>
#include <mbedtls/cipher.h>
#include <mbedtls/cmac.h>
#include <mbedtls/error.h>
#include <mbedtls/md.h>
#include <mbedtls/version.h>

#include <algorithm>
#include <cstdio>

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
    if (encrypt_) {
      check(
          mbedtls_cipher_auth_encrypt_ext(cipher_.get(), iv_.data(), iv_.size(), aad_.data(),
                                          aad_.size(), in, len, out, len + tag_len_, &n, tag_len_),
          "AEAD encrypt");
      return n;
    }
    if (len < tag_len_) throw Error("ciphertext shorter than the tag");
    int ret =
        mbedtls_cipher_auth_decrypt_ext(cipher_.get(), iv_.data(), iv_.size(), aad_.data(),
                                        aad_.size(), in, len, out, len - tag_len_, &n, tag_len_);
    if (ret == MBEDTLS_ERR_CIPHER_AUTH_FAILED) throw Error("authentication failed");
    check(ret, "AEAD decrypt");
    return n;
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
  void init(const std::string&) override {}
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
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
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
    out["padlock_c"] = mbedtls_version_check_feature("MBEDTLS_PADLOCK_C") == 0
                           ? "compiled in (VIA CPUs only)"
                           : "not compiled in";
    return out;
  }
};

}  // namespace

CB_REGISTER_PROVIDER("mbedtls", MbedtlsProvider);

}  // namespace cb
