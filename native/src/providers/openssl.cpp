// OpenSSL 3 adapter, through the EVP API (EVP_CIPHER / EVP_MD / EVP_MAC / EVP_KDF fetched once per
// process and shared by the operations, as OpenSSL's "Performance" notes advise). Whirlpool lives
// in OpenSSL 3's legacy provider, loaded on the first preparation of a legacy algorithm.
// Public-key keys are imported from their parts with EVP_PKEY_fromdata; KDFs are EVP_KDFs
// (OpenSSL 3.0 has no Argon2).
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <unistd.h>
#ifdef CB_HAS_LIBSSL  // the in-memory handshake (openssl_tls.hpp)
#include <openssl/objects.h>
#include <openssl/ssl.h>

#include "cryptobench/tls_driver.hpp"
#endif

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

// The system library's adapter is "openssl"; native/cmake/versions.cmake compiles this file again
// for other 3.x and 4.x versions as "openssl@3.5", ... with their build recorded.
#ifndef CB_PROVIDER_NAME
#define CB_PROVIDER_NAME "openssl"
#endif

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
    {"sha512-256", "SHA512-256"},
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

// ---- fetched algorithms ------------------------------------------------------------------------
//
// An explicit fetch walks the provider store and builds the method (about 6,600 instructions for
// AES-256-GCM, more than the key schedule): done once per process and name, kept here, and each
// operation takes its own reference. A failed fetch is not kept (the legacy provider may come).
// Function-local statics, created after OpenSSL's initialisation, so destroyed before its
// atexit cleanup.
template <typename T, T* (*Fetch)(OSSL_LIB_CTX*, const char*, const char*), int (*UpRef)(T*),
          void (*Free)(T*)>
class Fetched {
 public:
  ~Fetched() {
    for (auto& [_, t] : cache_) Free(t);
  }
  // A new reference (the caller frees it), or nullptr when OpenSSL has no such algorithm.
  T* get(const char* name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(name);
    if (it == cache_.end()) {
      T* t = Fetch(nullptr, name, nullptr);
      if (!t) return nullptr;
      it = cache_.emplace(name, t).first;
    }
    return UpRef(it->second) == 1 ? it->second : nullptr;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, T*> cache_;
};

EVP_CIPHER* fetch_cipher(const char* name) {
  static Fetched<EVP_CIPHER, EVP_CIPHER_fetch, EVP_CIPHER_up_ref, EVP_CIPHER_free> cache;
  return cache.get(name);
}
EVP_MD* fetch_md(const char* name) {
  static Fetched<EVP_MD, EVP_MD_fetch, EVP_MD_up_ref, EVP_MD_free> cache;
  return cache.get(name);
}
EVP_MAC* fetch_mac(const char* name) {
  static Fetched<EVP_MAC, EVP_MAC_fetch, EVP_MAC_up_ref, EVP_MAC_free> cache;
  return cache.get(name);
}
EVP_KDF* fetch_kdf(const char* name) {
  static Fetched<EVP_KDF, EVP_KDF_fetch, EVP_KDF_up_ref, EVP_KDF_free> cache;
  return cache.get(name);
}

// ---- the legacy provider ------------------------------------------------------------------------
//
// Loading it costs about 6 M instructions, which every process paid at start although only
// Whirlpool needs it: it is loaded on the first preparation of a legacy algorithm. Whether it
// can be is known without loading it: its module file in OPENSSL_MODULES or OpenSSL's module
// directory.
bool is_legacy(const std::string& ours) { return ours == "whirlpool"; }

std::string legacy_module_path() {
  std::string dir;
  if (const char* env = std::getenv("OPENSSL_MODULES"); env && *env) {
    dir = env;
  } else {
    // "MODULESDIR: \"/usr/lib/x86_64-linux-gnu/ossl-modules\""
    const std::string v = OpenSSL_version(OPENSSL_MODULES_DIR);
    const auto a = v.find('"'), b = v.rfind('"');
    if (a == std::string::npos || b <= a) return "";
    dir = v.substr(a + 1, b - a - 1);
  }
  return dir + "/legacy.so";
}

class CipherOp : public Operation {
 public:
  CipherOp(const AlgorithmInfo& info, const char* evp_name, OpKind op, const Params& p)
      : info_(info), encrypt_(op == OpKind::Encrypt), aad_(p.aad) {
    cipher_ = fetch_cipher(evp_name);
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

  // run() restarts with iv_ and aad_ every time, so a new pair is all a rebind needs.
  bool rebind(const Bytes& iv, const Bytes& aad) override {
    if (info_.kind != Kind::Aead || iv.size() != iv_.size()) return false;
    iv_ = iv;
    aad_ = aad;
    return true;
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n))
      throw Error(info_.kind == Kind::Aead && !encrypt_ ? "authentication failed"
                                                        : last_error("final"));
    return n;
  }
  bool refuses_by_status() const override { return info_.kind == Kind::Aead && !encrypt_; }

  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
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
    if (EVP_CipherFinal_ex(ctx_, out + produced, &fin) != 1) return false;
    size_t total = static_cast<size_t>(produced + fin);
    if (aead && encrypt_) {
      check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(info_.tag_len),
                                out + total),
            "get tag");
      total += info_.tag_len;
    }
    out_len = total;
    return true;
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
    md_ = fetch_md(evp_name);
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
    mac_ = fetch_mac(hmac ? "HMAC" : "CMAC");
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

// ---- public-key operations ----------------------------------------------------------------------

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct BnFree {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

enum class KeyFamily { Rsa, Ec, Ffdh, Raw };

KeyFamily key_family(const AlgorithmInfo& info) {
  const std::string& t = info.key_type;
  if (starts_with(t, "rsa-")) return KeyFamily::Rsa;
  if (starts_with(t, "ecdsa-") || starts_with(t, "ecdh-")) return KeyFamily::Ec;
  if (starts_with(t, "ffdhe")) return KeyFamily::Ffdh;
  return KeyFamily::Raw;  // ed25519, ed448, x25519, x448
}

// Field (EC) or group (FFDH) size in bytes: 32, 48, 66; 256, 384, 512.
size_t width_of(const AlgorithmInfo& info) { return (info.bits + 7) / 8; }

const char* ec_group(const AlgorithmInfo& info) {
  switch (info.bits) {
    case 256:
      return "P-256";
    case 384:
      return "P-384";
    case 521:
      return "P-521";
  }
  throw Unsupported("openssl: no curve for " + info.name);
}

const char* raw_type(const AlgorithmInfo& info) {
  if (info.key_type == "ed25519") return "ED25519";
  if (info.key_type == "ed448") return "ED448";
  if (info.key_type == "x25519") return "X25519";
  if (info.key_type == "x448") return "X448";
  throw Unsupported("openssl: unknown key type " + info.key_type);
}

// Key parts may carry leading zero bytes or be shorter than the field; an EC point encoding
// needs each coordinate at exactly the field size.
Bytes fixed_width(const Bytes& v, size_t width) {
  size_t skip = 0;
  while (skip < v.size() && v[skip] == 0) ++skip;
  if (v.size() - skip > width)
    throw Error("key part longer than " + std::to_string(width) + " bytes");
  Bytes out(width - (v.size() - skip), 0);
  out.insert(out.end(), v.begin() + static_cast<std::ptrdiff_t>(skip), v.end());
  return out;
}

// Builds the OSSL_PARAM list EVP_PKEY_fromdata reads. OSSL_PARAM_BLD keeps pointers to BIGNUMs
// and octet strings until OSSL_PARAM_BLD_to_param, so the builder owns copies until then.
class KeyBuilder {
 public:
  KeyBuilder() : bld_(OSSL_PARAM_BLD_new()) {
    if (!bld_) throw Error("OSSL_PARAM_BLD_new failed");
  }
  ~KeyBuilder() { OSSL_PARAM_BLD_free(bld_); }
  KeyBuilder(const KeyBuilder&) = delete;
  KeyBuilder& operator=(const KeyBuilder&) = delete;

  void bn(const char* key, const Bytes& value) {
    bns_.emplace_back(BN_bin2bn(value.data(), static_cast<int>(value.size()), nullptr));
    if (!bns_.back()) throw Error(last_error("BN_bin2bn"));
    check(OSSL_PARAM_BLD_push_BN(bld_, key, bns_.back().get()), "push BN");
  }
  void utf8(const char* key, const char* value) {
    check(OSSL_PARAM_BLD_push_utf8_string(bld_, key, value, 0), "push string");
  }
  void octets(const char* key, Bytes value) {
    octets_.push_back(std::move(value));
    check(OSSL_PARAM_BLD_push_octet_string(bld_, key, octets_.back().data(), octets_.back().size()),
          "push octets");
  }
  PkeyPtr build(const char* type, int selection) {
    OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld_);
    PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
    EVP_PKEY* pkey = nullptr;
    const bool ok = params && ctx && EVP_PKEY_fromdata_init(ctx.get()) == 1 &&
                    EVP_PKEY_fromdata(ctx.get(), &pkey, selection, params) == 1;
    OSSL_PARAM_free(params);
    if (!ok) throw Error(last_error("EVP_PKEY_fromdata"));
    return PkeyPtr(pkey);
  }

 private:
  OSSL_PARAM_BLD* bld_;
  std::vector<BnPtr> bns_;
  std::list<Bytes> octets_;  // stable addresses
};

bool has_part(const KeyParts& k, const char* name) {
  auto it = k.find(name);
  return it != k.end() && !it->second.empty();
}

// Imports a key of the algorithm's key type: private (all parts the operation needs) or public.
PkeyPtr import_key(const AlgorithmInfo& info, const KeyParts& k, bool with_private) {
  const int selection = with_private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
  switch (key_family(info)) {
    case KeyFamily::Rsa: {
      KeyBuilder b;
      b.bn(OSSL_PKEY_PARAM_RSA_N, key_part(k, "n"));
      b.bn(OSSL_PKEY_PARAM_RSA_E, key_part(k, "e"));
      if (with_private) {
        b.bn(OSSL_PKEY_PARAM_RSA_D, key_part(k, "d"));
        b.bn(OSSL_PKEY_PARAM_RSA_FACTOR1, key_part(k, "p"));
        b.bn(OSSL_PKEY_PARAM_RSA_FACTOR2, key_part(k, "q"));
        b.bn(OSSL_PKEY_PARAM_RSA_EXPONENT1, key_part(k, "dp"));
        b.bn(OSSL_PKEY_PARAM_RSA_EXPONENT2, key_part(k, "dq"));
        b.bn(OSSL_PKEY_PARAM_RSA_COEFFICIENT1, key_part(k, "qinv"));
      }
      return b.build("RSA", selection);
    }
    case KeyFamily::Ec: {
      KeyBuilder b;
      b.utf8(OSSL_PKEY_PARAM_GROUP_NAME, ec_group(info));
      // The private operations never need the public point, so it is optional there; when
      // present OpenSSL's import checks that it lies on the curve.
      if (!with_private || (has_part(k, "x") && has_part(k, "y"))) {
        const size_t w = width_of(info);
        Bytes point{0x04};
        const Bytes x = fixed_width(key_part(k, "x"), w), y = fixed_width(key_part(k, "y"), w);
        point.insert(point.end(), x.begin(), x.end());
        point.insert(point.end(), y.begin(), y.end());
        b.octets(OSSL_PKEY_PARAM_PUB_KEY, std::move(point));
      }
      if (with_private) b.bn(OSSL_PKEY_PARAM_PRIV_KEY, key_part(k, "d"));
      return b.build("EC", selection);
    }
    case KeyFamily::Ffdh: {
      KeyBuilder b;
      b.utf8(OSSL_PKEY_PARAM_GROUP_NAME, info.key_type.c_str());  // "ffdhe2048", ...
      if (!with_private || has_part(k, "y")) b.bn(OSSL_PKEY_PARAM_PUB_KEY, key_part(k, "y"));
      if (with_private) b.bn(OSSL_PKEY_PARAM_PRIV_KEY, key_part(k, "x"));
      return b.build("DH", selection);
    }
    case KeyFamily::Raw: {
      const Bytes& part = key_part(k, with_private ? "priv" : "pub");
      EVP_PKEY* p = with_private ? EVP_PKEY_new_raw_private_key_ex(nullptr, raw_type(info), nullptr,
                                                                   part.data(), part.size())
                                 : EVP_PKEY_new_raw_public_key_ex(nullptr, raw_type(info), nullptr,
                                                                  part.data(), part.size());
      if (!p) throw Error(last_error("raw key import"));
      return PkeyPtr(p);
    }
  }
  throw Unsupported("openssl: cannot import " + info.key_type);
}

// A BIGNUM parameter as big-endian bytes; width 0 means minimal length.
Bytes bn_param(const EVP_PKEY* pkey, const char* name, size_t width = 0) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &raw) != 1) throw Error(last_error(name));
  BnPtr bn(raw);
  Bytes out(width ? width : static_cast<size_t>(BN_num_bytes(raw)));
  if (BN_bn2binpad(raw, out.data(), static_cast<int>(out.size())) < 0)
    throw Error(std::string("OpenSSL: ") + name + " wider than " + std::to_string(width));
  return out;
}

KeyParts export_key(const AlgorithmInfo& info, const EVP_PKEY* pkey) {
  KeyParts out;
  switch (key_family(info)) {
    case KeyFamily::Rsa:
      out["n"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_N);
      out["e"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_E);
      out["d"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_D);
      out["p"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_FACTOR1);
      out["q"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_FACTOR2);
      out["dp"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_EXPONENT1);
      out["dq"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_EXPONENT2);
      out["qinv"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_COEFFICIENT1);
      break;
    case KeyFamily::Ec: {
      const size_t w = width_of(info);
      out["d"] = bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, w);
      out["x"] = bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, w);
      out["y"] = bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, w);
      break;
    }
    case KeyFamily::Ffdh:
      out["x"] = bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY);
      out["y"] = bn_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, width_of(info));
      break;
    case KeyFamily::Raw: {
      size_t priv = 0, pub = 0;
      check(EVP_PKEY_get_raw_private_key(pkey, nullptr, &priv), "raw private key length");
      check(EVP_PKEY_get_raw_public_key(pkey, nullptr, &pub), "raw public key length");
      Bytes a(priv), b(pub);
      check(EVP_PKEY_get_raw_private_key(pkey, a.data(), &priv), "raw private key");
      check(EVP_PKEY_get_raw_public_key(pkey, b.data(), &pub), "raw public key");
      out["priv"] = std::move(a);
      out["pub"] = std::move(b);
      break;
    }
  }
  return out;
}

// The public parts of a key (a certificate's): RSA n, e; EC x, y; raw pub.
KeyParts export_public(const AlgorithmInfo& info, const EVP_PKEY* pkey) {
  KeyParts out;
  switch (key_family(info)) {
    case KeyFamily::Rsa:
      out["n"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_N);
      out["e"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_E);
      break;
    case KeyFamily::Ec:
      out["x"] = bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, width_of(info));
      out["y"] = bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, width_of(info));
      break;
    case KeyFamily::Ffdh:
      out["y"] = bn_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, width_of(info));
      break;
    case KeyFamily::Raw: {
      size_t pub = 0;
      check(EVP_PKEY_get_raw_public_key(pkey, nullptr, &pub), "raw public key length");
      Bytes b(pub);
      check(EVP_PKEY_get_raw_public_key(pkey, b.data(), &pub), "raw public key");
      out["pub"] = std::move(b);
      break;
    }
  }
  return out;
}

#include "openssl_keyload.hpp"
#ifdef CB_HAS_LIBSSL
#include "openssl_tls.hpp"
#endif

PkeyCtxPtr ctx_for(EVP_PKEY* pkey) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  if (!ctx) throw Error(last_error("EVP_PKEY_CTX_new_from_pkey"));
  return ctx;
}

EVP_MD* fetch_digest(const std::string& ours) {
  const char* name = lookup(kDigests, ours);
  EVP_MD* md = name ? fetch_md(name) : nullptr;
  if (!md) throw Unsupported("openssl: no digest " + ours);
  return md;
}

// ECDSA signatures travel as r||s; OpenSSL's EVP_PKEY_sign/verify speak DER.
Bytes rs_to_der(const Bytes& rs, size_t width) {
  BIGNUM* r = BN_bin2bn(rs.data(), static_cast<int>(width), nullptr);
  BIGNUM* s = BN_bin2bn(rs.data() + width, static_cast<int>(width), nullptr);
  ECDSA_SIG* sig = ECDSA_SIG_new();
  if (!r || !s || !sig || ECDSA_SIG_set0(sig, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    throw Error(last_error("ECDSA_SIG_set0"));
  }
  unsigned char* der = nullptr;
  const int n = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (n <= 0) throw Error(last_error("i2d_ECDSA_SIG"));
  Bytes out(der, der + n);
  OPENSSL_free(der);
  return out;
}

// RSA (PKCS#1 v1.5, PSS) and ECDSA: the message is hashed here and the digest signed with
// EVP_PKEY_sign/verify on a context initialised once, which may be reused for every message.
class HashSignOp : public Operation {
 public:
  HashSignOp(const AlgorithmInfo& info, OpKind op, const Params& p)
      : sign_(op == OpKind::Sign), ecdsa_(key_family(info) == KeyFamily::Ec) {
    md_ = fetch_digest(info.digest);
    mdctx_ = EVP_MD_CTX_new();
    if (!mdctx_) throw Error("EVP_MD_CTX_new failed");
    pkey_ = import_key(info, p.keypair, sign_);
    ctx_ = ctx_for(pkey_.get());
    check(sign_ ? EVP_PKEY_sign_init(ctx_.get()) : EVP_PKEY_verify_init(ctx_.get()),
          "sign/verify init");
    if (!ecdsa_) {
      const bool pss = info.family == "rsa-pss";
      check(
          EVP_PKEY_CTX_set_rsa_padding(ctx_.get(), pss ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING),
          "RSA padding");
      if (pss) {
        check(EVP_PKEY_CTX_set_rsa_mgf1_md(ctx_.get(), md_), "MGF1 digest");
        check(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx_.get(), 32), "PSS salt length");
      }
    }
    check(EVP_PKEY_CTX_set_signature_md(ctx_.get(), md_), "signature digest");
    width_ = width_of(info);
    if (sign_) {
      scratch_.resize(static_cast<size_t>(EVP_PKEY_get_size(pkey_.get())));
    } else if (!ecdsa_) {
      sig_ = p.signature;
    } else if (p.signature.size() == 2 * width_) {
      sig_ = rs_to_der(p.signature, width_);
    }  // else: malformed r||s, sig_ stays empty and every run() rejects it
  }
  ~HashSignOp() override {
    EVP_MD_CTX_free(mdctx_);
    EVP_MD_free(md_);
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    check(EVP_DigestInit_ex2(mdctx_, md_, nullptr), "digest init");
    check(EVP_DigestUpdate(mdctx_, in, len), "digest update");
    check(EVP_DigestFinal_ex(mdctx_, digest, &dlen), "digest final");
    if (!sign_) {
      if (sig_.empty() ||
          EVP_PKEY_verify(ctx_.get(), sig_.data(), sig_.size(), digest, dlen) != 1) {
        ERR_clear_error();
        throw Error("signature is not valid");
      }
      return 0;
    }
    size_t n = scratch_.size();
    if (!ecdsa_) {
      check(EVP_PKEY_sign(ctx_.get(), out, &n, digest, dlen), "sign");
      return n;
    }
    check(EVP_PKEY_sign(ctx_.get(), scratch_.data(), &n, digest, dlen), "sign");
    const unsigned char* der = scratch_.data();
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(n));
    if (!sig) throw Error(last_error("d2i_ECDSA_SIG"));
    const bool ok =
        BN_bn2binpad(ECDSA_SIG_get0_r(sig), out, static_cast<int>(width_)) >= 0 &&
        BN_bn2binpad(ECDSA_SIG_get0_s(sig), out + width_, static_cast<int>(width_)) >= 0;
    ECDSA_SIG_free(sig);
    if (!ok) throw Error("ECDSA r or s wider than the field");
    return 2 * width_;
  }

 private:
  bool sign_, ecdsa_;
  size_t width_ = 0;
  EVP_MD* md_ = nullptr;
  EVP_MD_CTX* mdctx_ = nullptr;
  PkeyPtr pkey_;
  PkeyCtxPtr ctx_;
  Bytes sig_, scratch_;
};

// Pure EdDSA signs the message itself, so it goes through the one-shot EVP_DigestSign/Verify.
// In OpenSSL 3.0 and 3.1 the EdDSA signature context keeps no per-message state, so one
// initialisation serves every run(); from 3.2 a one-shot call finalises the context (a second
// one fails: "operation not supported for this keytype", found by the gate of openssl@3.5), so
// there every run() initialises it again, as an application on those versions must.
class EddsaOp : public Operation {
 public:
  EddsaOp(const AlgorithmInfo& info, OpKind op, const Params& p)
      : sign_(op == OpKind::Sign), sig_len_(info.output_len), sig_(p.signature) {
    pkey_ = import_key(info, p.keypair, sign_);
    mdctx_ = EVP_MD_CTX_new();
    if (!mdctx_) throw Error("EVP_MD_CTX_new failed");
    init();
  }
  ~EddsaOp() override { EVP_MD_CTX_free(mdctx_); }

  void init() {
    check(sign_ ? EVP_DigestSignInit_ex(mdctx_, nullptr, nullptr, nullptr, nullptr, pkey_.get(),
                                        nullptr)
                : EVP_DigestVerifyInit_ex(mdctx_, nullptr, nullptr, nullptr, nullptr, pkey_.get(),
                                          nullptr),
          "EdDSA init");
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
#if OPENSSL_VERSION_NUMBER >= 0x30200000L
    init();
#endif
    if (sign_) {
      size_t n = sig_len_;
      check(EVP_DigestSign(mdctx_, out, &n, in, len), "EdDSA sign");
      return n;
    }
    if (EVP_DigestVerify(mdctx_, sig_.data(), sig_.size(), in, len) != 1) {
      ERR_clear_error();
      throw Error("signature is not valid");
    }
    return 0;
  }

 private:
  bool sign_;
  size_t sig_len_;
  Bytes sig_;
  PkeyPtr pkey_;
  EVP_MD_CTX* mdctx_ = nullptr;
};

// RSAES-OAEP (family rsa-oaep) or RSAES-PKCS1-v1_5 (rsa-pkcs1v15-enc). OpenSSL >= 3.2 decrypts
// PKCS#1 v1.5 with implicit rejection by default (a synthetic message, no error); 3.0 refuses.
class RsaEncOp : public Operation {
 public:
  RsaEncOp(const AlgorithmInfo& info, OpKind op, const Params& p)
      : encrypt_(op == OpKind::Encrypt), oaep_(info.family == "rsa-oaep") {
    pkey_ = import_key(info, p.keypair, !encrypt_);
    ctx_ = ctx_for(pkey_.get());
    k_ = static_cast<size_t>(EVP_PKEY_get_size(pkey_.get()));
    check(encrypt_ ? EVP_PKEY_encrypt_init(ctx_.get()) : EVP_PKEY_decrypt_init(ctx_.get()),
          "RSA encryption init");
    if (!oaep_) {
      check(EVP_PKEY_CTX_set_rsa_padding(ctx_.get(), RSA_PKCS1_PADDING), "PKCS#1 v1.5 padding");
      return;
    }
    md_ = fetch_digest(info.digest);
    check(EVP_PKEY_CTX_set_rsa_padding(ctx_.get(), RSA_PKCS1_OAEP_PADDING), "OAEP padding");
    check(EVP_PKEY_CTX_set_rsa_oaep_md(ctx_.get(), md_), "OAEP digest");
    check(EVP_PKEY_CTX_set_rsa_mgf1_md(ctx_.get(), md_), "MGF1 digest");
  }
  ~RsaEncOp() override { EVP_MD_free(md_); }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = k_;
    if (encrypt_) {
      check(EVP_PKEY_encrypt(ctx_.get(), out, &n, in, len), "RSA encrypt");
      return n;
    }
    if (!try_run(in, len, out, n))
      throw Error(oaep_ ? "OAEP decryption failed" : "PKCS#1 v1.5 decryption failed");
    return n;
  }
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    if (encrypt_) return Operation::try_run(in, len, out, out_len);
    out_len = k_;
    if (EVP_PKEY_decrypt(ctx_.get(), out, &out_len, in, len) == 1) return true;
    ERR_clear_error();
    return false;
  }

 private:
  bool encrypt_, oaep_;
  size_t k_ = 0;
  EVP_MD* md_ = nullptr;
  PkeyPtr pkey_;
  PkeyCtxPtr ctx_;
};

class AgreeOp : public Operation {
 public:
  AgreeOp(const AlgorithmInfo& info, const Params& p) : out_len_(info.output_len) {
    own_ = import_key(info, p.keypair, true);
    peer_ = import_key(info, p.peer, false);
    ctx_ = ctx_for(own_.get());
    check(EVP_PKEY_derive_init(ctx_.get()), "derive init");
    // Without padding OpenSSL strips the leading zero bytes of g^xy, as DH_compute_key does.
    if (key_family(info) == KeyFamily::Ffdh)
      check(EVP_PKEY_CTX_set_dh_pad(ctx_.get(), 1), "DH padding");
    // validate_peer = 1: a full public-key check (point on the curve, y in the subgroup).
    check(EVP_PKEY_derive_set_peer_ex(ctx_.get(), peer_.get(), 1), "peer key");
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    size_t n = out_len_;
    check(EVP_PKEY_derive(ctx_.get(), out, &n), "derive");
    return n;
  }

 private:
  size_t out_len_;
  PkeyPtr own_, peer_;
  PkeyCtxPtr ctx_;
};

// ---- key derivation -----------------------------------------------------------------------------

class KdfOp : public Operation {
 public:
  KdfOp(const AlgorithmInfo& info, const Params& p) : out_len_(p.out_len) {
    const char* name = info.family == "pbkdf2"   ? "PBKDF2"
                       : info.family == "scrypt" ? "SCRYPT"
                       : info.family == "hkdf"   ? "HKDF"
                                                 : nullptr;
    if (!name) throw Unsupported("openssl 3.0 has no " + info.name);
    if (out_len_ == 0) throw Unsupported(info.name + ": output length 0");
    kdf_ = fetch_kdf(name);
    if (!kdf_) throw Unsupported(last_error("EVP_KDF_fetch"));
    ctx_ = EVP_KDF_CTX_new(kdf_);
    if (!ctx_) throw Error(last_error("EVP_KDF_CTX_new"));
    salt_ = p.salt;
    info_ = p.info;
    std::vector<OSSL_PARAM> params;
    if (!info.digest.empty()) {
      digest_ = lookup(kDigests, info.digest);
      params.push_back(
          OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest_), 0));
    }
    // An empty HKDF salt is the same as none (RFC 5869: HashLen zero bytes); PBKDF2 and scrypt
    // take an empty one as given.
    if (!salt_.empty() || info.family != "hkdf")
      params.push_back(OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, data_or_dummy(salt_),
                                                         salt_.size()));
    if (info.family == "pbkdf2") {
      iterations_ = cost_param(p, "iterations");
      params.push_back(OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_ITER, &iterations_));
      // pkcs5 = 1 is plain PKCS #5, without the SP 800-132 lower bounds OpenSSL 3.0 otherwise
      // enforces (RFC 6070 uses 1 iteration and a 4-byte salt).
      params.push_back(OSSL_PARAM_construct_int(OSSL_KDF_PARAM_PKCS5, &pkcs5_));
    } else if (info.family == "scrypt") {
      n_ = cost_param(p, "N");
      const uint64_t r = cost_param(p, "r"), par = cost_param(p, "p");
      if (r > UINT32_MAX || par > UINT32_MAX) throw Unsupported("scrypt: r or p above 2^32 - 1");
      r_ = static_cast<uint32_t>(r);
      p_ = static_cast<uint32_t>(par);
      params.push_back(OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n_));
      params.push_back(OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r_));
      params.push_back(OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p_));
      // The default 1025 MiB ceiling is a safety limit, not part of scrypt; the cost is the
      // caller's choice here.
      params.push_back(OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem_));
    } else {
      params.push_back(OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, data_or_dummy(info_),
                                                         info_.size()));
    }
    params.push_back(OSSL_PARAM_construct_end());
    check(EVP_KDF_CTX_set_params(ctx_, params.data()), "KDF parameters");
    secret_name_ = info.family == "hkdf" ? OSSL_KDF_PARAM_KEY : OSSL_KDF_PARAM_PASSWORD;
  }
  ~KdfOp() override {
    EVP_KDF_CTX_free(ctx_);
    EVP_KDF_free(kdf_);
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    static uint8_t empty = 0;
    OSSL_PARAM params[2] = {OSSL_PARAM_construct_octet_string(
                                secret_name_, len ? const_cast<uint8_t*>(in) : &empty, len),
                            OSSL_PARAM_construct_end()};
    check(EVP_KDF_derive(ctx_, out, out_len_, params), "KDF derive");
    return out_len_;
  }

 private:
  static void* data_or_dummy(Bytes& b) {
    static uint8_t dummy = 0;
    return b.empty() ? &dummy : b.data();
  }
  size_t out_len_;
  EVP_KDF* kdf_ = nullptr;
  EVP_KDF_CTX* ctx_ = nullptr;
  Bytes salt_, info_;
  const char* digest_ = nullptr;
  const char* secret_name_ = nullptr;
  uint64_t iterations_ = 0, n_ = 0, maxmem_ = UINT64_MAX;
  uint32_t r_ = 0, p_ = 0;
  int pkcs5_ = 1;
};

std::unique_ptr<Operation> prepare_public_key(const AlgorithmInfo& info, OpKind op,
                                              const Params& p) {
  switch (info.kind) {
    case Kind::Signature:
      if (key_family(info) == KeyFamily::Raw) return std::make_unique<EddsaOp>(info, op, p);
      return std::make_unique<HashSignOp>(info, op, p);
    case Kind::PkEncryption:
      return std::make_unique<RsaEncOp>(info, op, p);
    case Kind::KeyAgreement:
      return std::make_unique<AgreeOp>(info, p);
    case Kind::Kdf:
      return std::make_unique<KdfOp>(info, p);
    default:
      break;
  }
  throw Unsupported(info.name + ": key generation is generate_key(), not an operation");
}

class OpensslProvider : public Provider {
 public:
  std::string name() const override { return CB_PROVIDER_NAME; }
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
    legacy_available_ = access(legacy_module_path().c_str(), R_OK) == 0;
    ERR_clear_error();
  }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& r : kCiphers) out.push_back(r.ours);
    for (const auto& r : kDigests)
      if (legacy_available_ || !is_legacy(r.ours)) out.push_back(r.ours);
    for (const auto& r : kMacs) out.push_back(r.ours);
    // Every classical public-key algorithm; the post-quantum ones (KEMs, ML-DSA, SLH-DSA) came
    // with OpenSSL 3.5, and this adapter has no code for them.
    for (const auto& a : cb::algorithms())
      if ((is_public_key(a.kind) && !is_post_quantum(a)) ||
          (a.kind == Kind::Kdf && a.name != "argon2id") || a.kind == Kind::Keyload)
        out.push_back(a.name);
#ifdef CB_HAS_LIBSSL
    for (const auto& c : kTlsCases) out.push_back(c.ours);
#endif
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = find_algorithm(algorithm);
    if (!info) throw Unsupported("unknown algorithm " + algorithm);
    if (info->kind == Kind::Keyload)
      return std::make_unique<KeyloadOp>(checked_algorithm(algorithm, op).name);
    if (info->kind == Kind::Handshake) return prepare_handshake(algorithm, params);
    if (is_legacy(algorithm)) load_legacy();
    if (const char* evp = lookup(kCiphers, algorithm))
      return std::make_unique<CipherOp>(*info, evp, op, params);
    if (const char* evp = lookup(kDigests, algorithm)) return std::make_unique<DigestOp>(evp);
    if (const char* inner = lookup(kMacs, algorithm))
      return std::make_unique<MacOp>(algorithm, inner, params);
    if (is_public_key(info->kind) || info->kind == Kind::Kdf)
      return prepare_public_key(checked_algorithm(algorithm, op), op, params);
    throw Unsupported("openssl does not offer " + algorithm);
  }
  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    EVP_PKEY* raw = nullptr;
    check(EVP_PKEY_generate(keygen_ctx(info), &raw), "key generation");
    PkeyPtr pkey(raw);
    return export_key(info, pkey.get());
  }
  KeyParts decode_key(const std::string& algorithm, const Bytes& encoded) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keyload);
    Decoded decoded;
    decode_encoded(encoding_of(algorithm), encoded.data(), encoded.size(), decoded);
    return decoded.cert ? export_public(info, decoded.key()) : export_key(info, decoded.key());
  }
#ifdef CB_HAS_LIBSSL
  std::unique_ptr<HandshakeOperation> prepare_handshake(const std::string& algorithm,
                                                        const Params& params) override {
    return prepare_tls_handshake(algorithm, params);
  }
#endif
  // OpenSSL has no MAC verification function; CRYPTO_memcmp is its constant-time comparison.
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    const char* inner = lookup(kMacs, algorithm);
    if (!inner) throw Unsupported(std::string(CB_PROVIDER_NAME) + " does not offer " + algorithm);
    return std::make_unique<MacCompareOp>(
        std::make_unique<MacOp>(algorithm, inner, params),
        checked_algorithm(algorithm, OpKind::Mac).output_len,
        [](const uint8_t* a, const uint8_t* b, size_t n) { return CRYPTO_memcmp(a, b, n) == 0; });
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
#ifdef CB_BUILD_RECORD
    out["build"] = CB_BUILD_RECORD;  // a versioned provider: its crate, flags and build time
#endif
    // The same before and after the first legacy algorithm (runs compare their code paths).
    std::lock_guard<std::mutex> lock(legacy_mutex_);
    out["legacy_provider"] = !legacy_available_      ? "unavailable"
                             : legacy_error_.empty() ? "loaded on first use"
                                                     : legacy_error_;
    return out;
  }

 private:
  // One key-generation context per key type, kept so that each timed generate_key() is only
  // EVP_PKEY_generate and the export.
  EVP_PKEY_CTX* keygen_ctx(const AlgorithmInfo& info) {
    auto it = keygen_.find(info.name);
    if (it != keygen_.end()) return it->second.get();
    const KeyFamily family = key_family(info);
    const char* type = family == KeyFamily::Rsa    ? "RSA"
                       : family == KeyFamily::Ec   ? "EC"
                       : family == KeyFamily::Ffdh ? "DH"
                                                   : raw_type(info);
    PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
    if (!ctx) throw Error(last_error("EVP_PKEY_CTX_new_from_name"));
    check(EVP_PKEY_keygen_init(ctx.get()), "keygen init");
    if (family == KeyFamily::Rsa)  // the public exponent defaults to 65537
      check(EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), static_cast<int>(info.bits)), "RSA bits");
    else if (family == KeyFamily::Ec)
      check(EVP_PKEY_CTX_set_group_name(ctx.get(), ec_group(info)), "EC group");
    else if (family == KeyFamily::Ffdh)  // the RFC 7919 named group, e.g. "ffdhe2048"
      check(EVP_PKEY_CTX_set_group_name(ctx.get(), info.name.c_str()), "DH group");
    return keygen_.emplace(info.name, std::move(ctx)).first->second.get();
  }

  // Loads the legacy provider once; Unsupported when it cannot be (and on every later call).
  void load_legacy() {
    std::lock_guard<std::mutex> lock(legacy_mutex_);
    if (legacy_) return;
    if (legacy_error_.empty() && !OSSL_PROVIDER_load(nullptr, "legacy"))
      legacy_error_ = last_error("load legacy provider");
    if (!legacy_error_.empty()) throw Unsupported(legacy_error_);
    legacy_ = true;
  }

  bool legacy_available_ = false;  // its module exists
  mutable std::mutex legacy_mutex_;
  bool legacy_ = false;       // loaded
  std::string legacy_error_;  // why loading it failed
  std::map<std::string, PkeyCtxPtr> keygen_;
};

}  // namespace

CB_REGISTER_PROVIDER(CB_PROVIDER_NAME, OpensslProvider);

}  // namespace cb
