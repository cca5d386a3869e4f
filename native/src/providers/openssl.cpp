// OpenSSL 3 adapter, through the EVP API (EVP_CIPHER / EVP_MD / EVP_MAC fetched once per
// prepared operation). Whirlpool lives in OpenSSL 3's legacy provider, loaded beside the default.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstring>

#include "cryptobench/provider.hpp"

namespace cb {
namespace {

std::string last_error(const char* what) {
  unsigned long e = ERR_get_error();
  char buf[256] = "no detail";
  if (e) ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return std::string("OpenSSL ") + what + ": " + buf;
}

void check(int ok, const char* what) {
  if (ok != 1) throw Error(last_error(what));
}

struct CipherName {
  const char* ours;
  const char* evp;
};
constexpr CipherName kCiphers[] = {
    {"aes-128-cbc", "AES-128-CBC"}, {"aes-192-cbc", "AES-192-CBC"},
    {"aes-256-cbc", "AES-256-CBC"}, {"aes-128-cfb", "AES-128-CFB"},
    {"aes-192-cfb", "AES-192-CFB"}, {"aes-256-cfb", "AES-256-CFB"},
    {"aes-128-ofb", "AES-128-OFB"}, {"aes-192-ofb", "AES-192-OFB"},
    {"aes-256-ofb", "AES-256-OFB"}, {"aes-128-ctr", "AES-128-CTR"},
    {"aes-192-ctr", "AES-192-CTR"}, {"aes-256-ctr", "AES-256-CTR"},
    {"aes-128-gcm", "AES-128-GCM"}, {"aes-192-gcm", "AES-192-GCM"},
    {"aes-256-gcm", "AES-256-GCM"}, {"aes-128-xts", "AES-128-XTS"},
    {"aes-256-xts", "AES-256-XTS"}, {"des-ede3-cbc", "DES-EDE3-CBC"},
    {"chacha20", "ChaCha20"},       {"chacha20-poly1305", "ChaCha20-Poly1305"},
};
constexpr CipherName kDigests[] = {
    {"md5", "MD5"},
    {"sha1", "SHA1"},
    {"sha224", "SHA224"},
    {"sha256", "SHA256"},
    {"sha384", "SHA384"},
    {"sha512", "SHA512"},
    {"sha3-256", "SHA3-256"},
    {"sha3-512", "SHA3-512"},
    {"blake2b-512", "BLAKE2B-512"},
    {"whirlpool", "WHIRLPOOL"},
    {"ripemd160", "RIPEMD160"},
};
constexpr CipherName kMacs[] = {
    {"hmac-sha256", "SHA256"},
    {"hmac-sha512", "SHA512"},
    {"cmac-aes128", "AES-128-CBC"},
    {"cmac-aes256", "AES-256-CBC"},
};

template <size_t N>
const char* lookup(const CipherName (&table)[N], const std::string& ours) {
  for (const auto& row : table)
    if (ours == row.ours) return row.evp;
  return nullptr;
}

class CipherOp : public Operation {
 public:
  CipherOp(const AlgorithmInfo& info, const char* evp_name, OpKind op, const Params& p)
      : info_(info), encrypt_(op == OpKind::Encrypt), aad_(p.aad) {
    cipher_ = EVP_CIPHER_fetch(nullptr, evp_name, nullptr);
    if (!cipher_) throw Unsupported(last_error("EVP_CIPHER_fetch"));
    ctx_ = EVP_CIPHER_CTX_new();
    if (!ctx_) throw Error("EVP_CIPHER_CTX_new failed");
    iv_ = p.iv;
    if (info.name == "chacha20") {
      // EVP's ChaCha20 IV is the 32-bit little-endian block counter followed by the nonce.
      iv_.insert(iv_.begin(), 4, 0);
    }
    if (info.kind == Kind::Aead) {
      check(EVP_CipherInit_ex2(ctx_, cipher_, nullptr, nullptr, encrypt_, nullptr), "init");
      check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(iv_.size()),
                                nullptr) == 1
                ? 1
                : 0,
            "set IV length");
    }
    check(EVP_CipherInit_ex2(ctx_, info.kind == Kind::Aead ? nullptr : cipher_, p.key.data(),
                             iv_.data(), encrypt_, nullptr),
          "set key");
    EVP_CIPHER_CTX_set_padding(ctx_, 0);
  }
  ~CipherOp() override {
    EVP_CIPHER_CTX_free(ctx_);
    EVP_CIPHER_free(cipher_);
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const bool aead = info_.kind == Kind::Aead;
    size_t body = len;
    if (aead && !encrypt_) {
      if (len < info_.tag_len) throw Error("ciphertext shorter than the tag");
      body = len - info_.tag_len;
    }
    // Restart with the prepared key schedule and the IV.
    check(EVP_CipherInit_ex2(ctx_, nullptr, nullptr, iv_.data(), encrypt_, nullptr), "set IV");
    int n = 0;
    if (aead && !aad_.empty())
      check(EVP_CipherUpdate(ctx_, nullptr, &n, aad_.data(), static_cast<int>(aad_.size())), "AAD");
    int produced = 0;
    check(EVP_CipherUpdate(ctx_, out, &produced, in, static_cast<int>(body)), "update");
    if (aead && !encrypt_) {
      check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(info_.tag_len),
                                const_cast<uint8_t*>(in + body)),
            "set tag");
    }
    int fin = 0;
    if (EVP_CipherFinal_ex(ctx_, out + produced, &fin) != 1)
      throw Error(aead && !encrypt_ ? "authentication failed" : last_error("final"));
    size_t total = static_cast<size_t>(produced + fin);
    if (aead && encrypt_) {
      check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(info_.tag_len),
                                out + total),
            "get tag");
      total += info_.tag_len;
    }
    return total;
  }

 private:
  const AlgorithmInfo& info_;
  bool encrypt_;
  Bytes iv_, aad_;
  EVP_CIPHER* cipher_ = nullptr;
  EVP_CIPHER_CTX* ctx_ = nullptr;
};

class DigestOp : public Operation {
 public:
  explicit DigestOp(const char* evp_name) {
    md_ = EVP_MD_fetch(nullptr, evp_name, nullptr);
    if (!md_) throw Unsupported(last_error("EVP_MD_fetch"));
    ctx_ = EVP_MD_CTX_new();
    if (!ctx_) throw Error("EVP_MD_CTX_new failed");
  }
  ~DigestOp() override {
    EVP_MD_CTX_free(ctx_);
    EVP_MD_free(md_);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    unsigned int n = 0;
    check(EVP_DigestInit_ex2(ctx_, md_, nullptr), "digest init");
    check(EVP_DigestUpdate(ctx_, in, len), "digest update");
    check(EVP_DigestFinal_ex(ctx_, out, &n), "digest final");
    return n;
  }

 private:
  EVP_MD* md_ = nullptr;
  EVP_MD_CTX* ctx_ = nullptr;
};

class MacOp : public Operation {
 public:
  MacOp(const std::string& alg, const char* inner, const Params& p) {
    const bool hmac = alg.rfind("hmac-", 0) == 0;
    mac_ = EVP_MAC_fetch(nullptr, hmac ? "HMAC" : "CMAC", nullptr);
    if (!mac_) throw Unsupported(last_error("EVP_MAC_fetch"));
    ctx_ = EVP_MAC_CTX_new(mac_);
    if (!ctx_) throw Error("EVP_MAC_CTX_new failed");
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(
        hmac ? OSSL_MAC_PARAM_DIGEST : OSSL_MAC_PARAM_CIPHER, const_cast<char*>(inner), 0);
    params[1] = OSSL_PARAM_construct_end();
    // EVP_MAC_init reads an empty key as "keep the current key". HMAC zero-pads short keys to
    // the block size, so one zero byte is the same key as the empty one.
    const uint8_t zero = 0;
    const bool empty = p.key.empty();
    check(EVP_MAC_init(ctx_, empty ? &zero : p.key.data(), empty ? 1 : p.key.size(), params),
          "MAC init");
  }
  ~MacOp() override {
    EVP_MAC_CTX_free(ctx_);
    EVP_MAC_free(mac_);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    // A NULL key restarts the MAC with the key schedule from prepare().
    check(EVP_MAC_init(ctx_, nullptr, 0, nullptr), "MAC restart");
    check(EVP_MAC_update(ctx_, in, len), "MAC update");
    check(EVP_MAC_final(ctx_, out, &n, 64), "MAC final");
    return n;
  }

 private:
  EVP_MAC* mac_ = nullptr;
  EVP_MAC_CTX* ctx_ = nullptr;
};

class OpensslProvider : public Provider {
 public:
  std::string name() const override { return "openssl"; }
  std::string version() const override { return OpenSSL_version(OPENSSL_VERSION); }
  std::vector<Variant> variants() const override {
    return {
        {"default", "all CPU features OpenSSL detects", {}},
        // Clearing bits 57 (AES-NI) and 33 (PCLMULQDQ) of the first capability word; with no
        // ':' part OpenSSL also zeroes the extended word (SHA-NI, AVX2, AVX-512, VAES, ADX).
        {"soft",
         "no AES-NI, PCLMULQDQ, SHA-NI, AVX2/AVX-512 or VAES (OPENSSL_ia32cap=~0x200000200000000)",
         {{"OPENSSL_ia32cap", "~0x200000200000000"}}},
        // ':~0' keeps the extended word, so SHA-NI and the vector extensions stay on.
        {"noaesni",
         "no AES-NI or PCLMULQDQ, SHA-NI and AVX kept (OPENSSL_ia32cap=~0x200000200000000:~0)",
         {{"OPENSSL_ia32cap", "~0x200000200000000:~0"}}},
    };
  }
  void init(const std::string&) override {
    // The variant's OPENSSL_ia32cap was placed in the environment before the process started.
    if (!OSSL_PROVIDER_load(nullptr, "default")) throw Error(last_error("load default provider"));
    legacy_ = OSSL_PROVIDER_load(nullptr, "legacy") != nullptr;
    ERR_clear_error();
  }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& r : kCiphers) out.push_back(r.ours);
    for (const auto& r : kDigests)
      if (legacy_ || std::strcmp(r.ours, "whirlpool") != 0) out.push_back(r.ours);
    for (const auto& r : kMacs) out.push_back(r.ours);
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = find_algorithm(algorithm);
    if (!info) throw Unsupported("unknown algorithm " + algorithm);
    if (const char* evp = lookup(kCiphers, algorithm))
      return std::make_unique<CipherOp>(*info, evp, op, params);
    if (const char* evp = lookup(kDigests, algorithm)) return std::make_unique<DigestOp>(evp);
    if (const char* inner = lookup(kMacs, algorithm))
      return std::make_unique<MacOp>(algorithm, inner, params);
    throw Unsupported("openssl does not offer " + algorithm);
  }
  std::map<std::string, std::string> code_path() const override {
    // "CPUINFO: OPENSSL_ia32cap=0x...:0x..." -- the capability vector after the env mask.
    std::string info = OpenSSL_version(OPENSSL_CPU_INFO);
    const std::string key = "OPENSSL_ia32cap=";
    auto pos = info.find(key);
    std::map<std::string, std::string> out;
    std::string cap = pos == std::string::npos ? info : info.substr(pos + key.size());
    out["ia32cap"] = cap.substr(0, cap.find(' '));  // drop the " env:..." echo
    const char* env = std::getenv("OPENSSL_ia32cap");
    out["ia32cap_env"] = env ? env : "";
    out["legacy_provider"] = legacy_ ? "loaded" : "unavailable";
    return out;
  }

 private:
  bool legacy_ = false;
};

}  // namespace

CB_REGISTER_PROVIDER("openssl", OpensslProvider);

}  // namespace cb
