// wolfSSL adapter, through the wolfCrypt API (wc_*). options.h must come first: it carries the
// configure flags the library was built with, and the struct layouts in every other wolfSSL
// header depend on them. Which algorithms are offered follows from those same flags.
// clang-format off
#include <wolfssl/options.h>
// clang-format on
#include <wolfssl/ssl.h>
#include <wolfssl/version.h>
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/blake2.h>
#include <wolfssl/wolfcrypt/chacha.h>
#include <wolfssl/wolfcrypt/chacha20_poly1305.h>
#include <wolfssl/wolfcrypt/cmac.h>
#include <wolfssl/wolfcrypt/des3.h>
#include <wolfssl/wolfcrypt/error-crypt.h>
#include <wolfssl/wolfcrypt/hash.h>
#include <wolfssl/wolfcrypt/hmac.h>
#include <wolfssl/wolfcrypt/ripemd.h>
#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/wolfcrypt/wc_port.h>

#include <algorithm>
#include <cstdint>

#include "cryptobench/provider.hpp"

namespace cb {
namespace {

void check(int ret, const char* what) {
  if (ret != 0)
    throw Error(std::string("wolfCrypt ") + what + ": " + wc_GetErrorString(ret) + " (" +
                std::to_string(ret) + ")");
}

// wolfCrypt takes 32-bit lengths.
word32 len32(size_t len) {
  if (len > UINT32_MAX) throw Unsupported("wolfCrypt processes at most 4 GiB per call");
  return static_cast<word32>(len);
}

// ---- what this build has ----------------------------------------------------------------------

std::vector<std::string> compiled_algorithms() {
  std::vector<std::string> v;
#ifndef NO_AES
  std::vector<std::string> sizes;
#ifdef WOLFSSL_AES_128
  sizes.push_back("128");
#endif
#ifdef WOLFSSL_AES_192
  sizes.push_back("192");
#endif
#ifdef WOLFSSL_AES_256
  sizes.push_back("256");
#endif
  for (const auto& bits : sizes) {
    const std::string p = "aes-" + bits + "-";
#ifdef HAVE_AES_CBC
    v.push_back(p + "cbc");
#endif
#ifdef WOLFSSL_AES_CFB
    v.push_back(p + "cfb");
#endif
#ifdef WOLFSSL_AES_OFB
    v.push_back(p + "ofb");
#endif
#ifdef WOLFSSL_AES_COUNTER
    v.push_back(p + "ctr");
#endif
#ifdef HAVE_AESGCM
    v.push_back(p + "gcm");
#endif
  }
#ifdef WOLFSSL_AES_XTS
#ifdef WOLFSSL_AES_128
  v.push_back("aes-128-xts");
#endif
#ifdef WOLFSSL_AES_256
  v.push_back("aes-256-xts");
#endif
#endif
#endif  // NO_AES
#ifndef NO_DES3
  v.push_back("des-ede3-cbc");
#endif
#ifdef HAVE_CHACHA
  v.push_back("chacha20");
#ifdef HAVE_XCHACHA
  v.push_back("xchacha20");
#endif
#ifdef HAVE_POLY1305
  v.push_back("chacha20-poly1305");
#ifdef HAVE_XCHACHA
  v.push_back("xchacha20-poly1305");
#endif
#endif
#endif
#ifndef NO_MD5
  v.push_back("md5");
#endif
#ifndef NO_SHA
  v.push_back("sha1");
#endif
#ifdef WOLFSSL_SHA224
  v.push_back("sha224");
#endif
#ifndef NO_SHA256
  v.push_back("sha256");
#endif
#ifdef WOLFSSL_SHA384
  v.push_back("sha384");
#endif
#ifdef WOLFSSL_SHA512
  v.push_back("sha512");
#endif
#ifdef WOLFSSL_SHA3
  v.push_back("sha3-256");
  v.push_back("sha3-512");
#endif
#ifdef HAVE_BLAKE2B
  v.push_back("blake2b-512");
#endif
#ifdef WOLFSSL_RIPEMD
  v.push_back("ripemd160");
#endif
#ifndef NO_HMAC
#ifndef NO_SHA256
  v.push_back("hmac-sha256");
#endif
#ifdef WOLFSSL_SHA512
  v.push_back("hmac-sha512");
#endif
#endif
#if defined(WOLFSSL_CMAC) && !defined(NO_AES)
#ifdef WOLFSSL_AES_128
  v.push_back("cmac-aes128");
#endif
#ifdef WOLFSSL_AES_256
  v.push_back("cmac-aes256");
#endif
#endif
  return v;
}

// Compile-time switches that decide wolfCrypt's code paths on x86-64. A distribution build
// reports here what it chose, so readers know e.g. that AES ran without AES-NI.
std::string build_flags() {
  std::string s;
  auto add = [&s](const char* flag) { s += (s.empty() ? "" : " ") + std::string(flag); };
#ifdef WOLFSSL_AESNI
  add("WOLFSSL_AESNI");
#endif
#ifdef USE_INTEL_SPEEDUP
  add("USE_INTEL_SPEEDUP");
#endif
#ifdef HAVE_INTEL_AVX1
  add("HAVE_INTEL_AVX1");
#endif
#ifdef HAVE_INTEL_AVX2
  add("HAVE_INTEL_AVX2");
#endif
#ifdef WOLFSSL_X86_64_BUILD
  add("WOLFSSL_X86_64_BUILD");
#endif
#ifdef WOLFSSL_SP_X86_64
  add("WOLFSSL_SP_X86_64");
#endif
#ifdef WOLFSSL_ARMASM
  add("WOLFSSL_ARMASM");
#endif
#ifdef GCM_TABLE
  add("GCM_TABLE");
#endif
#ifdef GCM_TABLE_4BIT
  add("GCM_TABLE_4BIT");
#endif
#ifdef GCM_WORD32
  add("GCM_WORD32");
#endif
#ifdef GCM_SMALL
  add("GCM_SMALL");
#endif
#ifdef WOLFSSL_AESGCM_STREAM
  add("WOLFSSL_AESGCM_STREAM");
#endif
#ifdef WOLFSSL_SMALL_STACK
  add("WOLFSSL_SMALL_STACK");
#endif
#ifdef WOLF_CRYPTO_CB
  add("WOLF_CRYPTO_CB");
#endif
#ifdef HAVE_FIPS
  add("HAVE_FIPS");
#endif
  return s;
}

// ---- AES ---------------------------------------------------------------------------------------

class AesContext {
 public:
  AesContext() { check(wc_AesInit(&aes_, nullptr, INVALID_DEVID), "AES init"); }
  ~AesContext() { wc_AesFree(&aes_); }
  AesContext(const AesContext&) = delete;
  AesContext& operator=(const AesContext&) = delete;
  Aes* get() { return &aes_; }

 private:
  Aes aes_;
};

enum class AesMode { Cbc, Cfb, Ofb, Ctr };

class AesOp : public Operation {
 public:
  AesOp(AesMode mode, OpKind op, const Params& p)
      : mode_(mode), encrypt_(op == OpKind::Encrypt), iv_(p.iv) {
    if (iv_.size() != AES_BLOCK_SIZE) throw Unsupported("AES modes take a 16-byte IV");
    // CFB, OFB and CTR decrypt with the forward cipher, so only CBC decryption inverts the key.
    const int dir = (mode == AesMode::Cbc && !encrypt_) ? AES_DECRYPTION : AES_ENCRYPTION;
    check(wc_AesSetKey(aes_.get(), p.key.data(), len32(p.key.size()), iv_.data(), dir), "set key");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const word32 n = len32(len);
    // SetIV also clears the count of unused keystream bytes CFB, OFB and CTR carry over.
    check(wc_AesSetIV(aes_.get(), iv_.data()), "set IV");
    int ret = 0;
    switch (mode_) {
      case AesMode::Cbc:
#ifdef HAVE_AES_CBC
        ret = encrypt_ ? wc_AesCbcEncrypt(aes_.get(), out, in, n)
                       : wc_AesCbcDecrypt(aes_.get(), out, in, n);
#endif
        break;
      case AesMode::Cfb:
#ifdef WOLFSSL_AES_CFB
        ret = encrypt_ ? wc_AesCfbEncrypt(aes_.get(), out, in, n)
                       : wc_AesCfbDecrypt(aes_.get(), out, in, n);
#endif
        break;
      case AesMode::Ofb:
#ifdef WOLFSSL_AES_OFB
        ret = encrypt_ ? wc_AesOfbEncrypt(aes_.get(), out, in, n)
                       : wc_AesOfbDecrypt(aes_.get(), out, in, n);
#endif
        break;
      case AesMode::Ctr:
#ifdef WOLFSSL_AES_COUNTER
        ret = wc_AesCtrEncrypt(aes_.get(), out, in, n);
#endif
        break;
    }
    check(ret, "AES");
    return len;
  }

 private:
  AesContext aes_;
  AesMode mode_;
  bool encrypt_;
  Bytes iv_;
};

#ifdef HAVE_AESGCM
class GcmOp : public Operation {
 public:
  GcmOp(const AlgorithmInfo& info, OpKind op, const Params& p)
      : encrypt_(op == OpKind::Encrypt), tag_len_(info.tag_len), iv_(p.iv), aad_(p.aad) {
    check(wc_AesGcmSetKey(aes_.get(), p.key.data(), len32(p.key.size())), "GCM set key");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (encrypt_) {
      const word32 n = len32(len);
      check(wc_AesGcmEncrypt(aes_.get(), out, in, n, iv_.data(), len32(iv_.size()), out + n,
                             len32(tag_len_), aad_.data(), len32(aad_.size())),
            "GCM encrypt");
      return len + tag_len_;
    }
    if (len < tag_len_) throw Error("ciphertext shorter than the tag");
    const word32 body = len32(len - tag_len_);
    const int ret = wc_AesGcmDecrypt(aes_.get(), out, in, body, iv_.data(), len32(iv_.size()),
                                     in + body, len32(tag_len_), aad_.data(), len32(aad_.size()));
    if (ret == AES_GCM_AUTH_E) throw Error("authentication failed");
    check(ret, "GCM decrypt");
    return body;
  }

 private:
  AesContext aes_;
  bool encrypt_;
  size_t tag_len_;
  Bytes iv_, aad_;
};
#endif

#ifdef WOLFSSL_AES_XTS
class XtsOp : public Operation {
 public:
  XtsOp(OpKind op, const Params& p) : encrypt_(op == OpKind::Encrypt), tweak_(p.iv) {
    check(wc_AesXtsSetKey(&xts_, p.key.data(), len32(p.key.size()),
                          encrypt_ ? AES_ENCRYPTION : AES_DECRYPTION, nullptr, INVALID_DEVID),
          "XTS set key");
  }
  ~XtsOp() override { wc_AesXtsFree(&xts_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const word32 n = len32(len);
    const word32 t = len32(tweak_.size());
    check(encrypt_ ? wc_AesXtsEncrypt(&xts_, out, in, n, tweak_.data(), t)
                   : wc_AesXtsDecrypt(&xts_, out, in, n, tweak_.data(), t),
          "XTS");
    return len;
  }

 private:
  XtsAes xts_;
  bool encrypt_;
  Bytes tweak_;
};
#endif

// ---- other ciphers -----------------------------------------------------------------------------

#ifndef NO_DES3
class Des3Op : public Operation {
 public:
  Des3Op(OpKind op, const Params& p) : encrypt_(op == OpKind::Encrypt), iv_(p.iv) {
    if (p.key.size() != DES3_KEYLEN || iv_.size() != DES_BLOCK_SIZE)
      throw Unsupported("des-ede3-cbc takes a 24-byte key and an 8-byte IV");
    check(wc_Des3Init(&des_, nullptr, INVALID_DEVID), "3DES init");
    check(
        wc_Des3_SetKey(&des_, p.key.data(), iv_.data(), encrypt_ ? DES_ENCRYPTION : DES_DECRYPTION),
        "3DES set key");
  }
  ~Des3Op() override { wc_Des3Free(&des_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const word32 n = len32(len);
    check(wc_Des3_SetIV(&des_, iv_.data()), "3DES set IV");
    check(encrypt_ ? wc_Des3_CbcEncrypt(&des_, out, in, n) : wc_Des3_CbcDecrypt(&des_, out, in, n),
          "3DES");
    return len;
  }

 private:
  Des3 des_;
  bool encrypt_;
  Bytes iv_;
};
#endif

#ifdef HAVE_CHACHA
class ChachaOp : public Operation {
 public:
  explicit ChachaOp(const Params& p) : iv_(p.iv) {
    check(wc_Chacha_SetKey(&ctx_, p.key.data(), len32(p.key.size())), "ChaCha20 set key");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // Counter 0, as RFC 8439 section 2.4 uses it for encryption; SetIV also drops leftover
    // keystream from the previous message.
    check(wc_Chacha_SetIV(&ctx_, iv_.data(), 0), "ChaCha20 set IV");
    check(wc_Chacha_Process(&ctx_, out, in, len32(len)), "ChaCha20");
    return len;
  }

 private:
  ChaCha ctx_;
  Bytes iv_;
};
#endif

#if defined(HAVE_CHACHA) && defined(HAVE_XCHACHA)
class XChachaOp : public Operation {
 public:
  explicit XChachaOp(const Params& p) : key_(p.key), iv_(p.iv) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // The XChaCha20 subkey depends on the nonce, so deriving it (HChaCha20) is per message.
    check(
        wc_XChacha_SetKey(&ctx_, key_.data(), len32(key_.size()), iv_.data(), len32(iv_.size()), 0),
        "XChaCha20 set key");
    check(wc_Chacha_Process(&ctx_, out, in, len32(len)), "XChaCha20");
    return len;
  }

 private:
  ChaCha ctx_;
  Bytes key_, iv_;
};
#endif

#if defined(HAVE_CHACHA) && defined(HAVE_POLY1305)
// wolfCrypt's ChaCha20-Poly1305 takes the raw key on every call: there is no key schedule to
// keep, so the one-shot functions are the natural per-message unit.
class ChachaPolyOp : public Operation {
 public:
  ChachaPolyOp(bool extended, OpKind op, const Params& p)
      : extended_(extended), encrypt_(op == OpKind::Encrypt), key_(p.key), iv_(p.iv), aad_(p.aad) {
    if (key_.size() != CHACHA20_POLY1305_AEAD_KEYSIZE)
      throw Unsupported("ChaCha20-Poly1305 takes a 32-byte key");
    if (!extended && iv_.size() != CHACHA20_POLY1305_AEAD_IV_SIZE)
      throw Unsupported("chacha20-poly1305 takes a 12-byte nonce");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    constexpr size_t kTag = CHACHA20_POLY1305_AEAD_AUTHTAG_SIZE;
    if (!encrypt_ && len < kTag) throw Error("ciphertext shorter than the tag");
    const size_t body = encrypt_ ? len : len - kTag;
    // Both APIs reject NULL data pointers even for zero lengths.
    static const byte kNone = 0;
    const byte* ad = aad_.empty() ? &kNone : aad_.data();
    if (!in) in = &kNone;
    int ret;
    if (extended_) {
#ifdef HAVE_XCHACHA
      ret = encrypt_
                ? wc_XChaCha20Poly1305_Encrypt(out, len + kTag, in, len, ad, aad_.size(),
                                               iv_.data(), iv_.size(), key_.data(), key_.size())
                : wc_XChaCha20Poly1305_Decrypt(out, body, in, len, ad, aad_.size(), iv_.data(),
                                               iv_.size(), key_.data(), key_.size());
#else
      ret = NOT_COMPILED_IN;
#endif
    } else {
      ret = encrypt_ ? wc_ChaCha20Poly1305_Encrypt(key_.data(), iv_.data(), ad, len32(aad_.size()),
                                                   in, len32(len), out, out + len)
                     : wc_ChaCha20Poly1305_Decrypt(key_.data(), iv_.data(), ad, len32(aad_.size()),
                                                   in, len32(body), in + body, out);
    }
    if (!encrypt_ && ret == MAC_CMP_FAILED_E) throw Error("authentication failed");
    check(ret, "ChaCha20-Poly1305");
    return encrypt_ ? len + kTag : body;
  }

 private:
  bool extended_, encrypt_;
  Bytes key_, iv_, aad_;
};
#endif

// ---- hashes and MACs ---------------------------------------------------------------------------

class HashOp : public Operation {
 public:
  explicit HashOp(wc_HashType type) : type_(type), size_(wc_HashGetDigestSize(type)) {
    if (size_ <= 0) throw Unsupported("hash not compiled into this wolfSSL build");
    check(wc_HashInit(&hash_, type_), "hash init");
  }
  ~HashOp() override { wc_HashFree(&hash_, type_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(wc_HashInit(&hash_, type_), "hash init");
    check(wc_HashUpdate(&hash_, type_, in, len32(len)), "hash update");
    check(wc_HashFinal(&hash_, type_, out), "hash final");
    return static_cast<size_t>(size_);
  }

 private:
  wc_HashAlg hash_;
  wc_HashType type_;
  int size_;
};

#ifdef HAVE_BLAKE2B
// BLAKE2b is not behind wolfCrypt's generic wc_Hash* interface.
class Blake2bOp : public Operation {
 public:
  explicit Blake2bOp(size_t out_len) : out_len_(out_len) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(wc_InitBlake2b(&b2b_, len32(out_len_)), "BLAKE2b init");
    check(wc_Blake2bUpdate(&b2b_, in, len32(len)), "BLAKE2b update");
    check(wc_Blake2bFinal(&b2b_, out, len32(out_len_)), "BLAKE2b final");
    return out_len_;
  }

 private:
  Blake2b b2b_;
  size_t out_len_;
};
#endif

#ifdef WOLFSSL_RIPEMD
class RipemdOp : public Operation {
 public:
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(wc_InitRipeMd(&md_), "RIPEMD-160 init");
    check(wc_RipeMdUpdate(&md_, in, len32(len)), "RIPEMD-160 update");
    check(wc_RipeMdFinal(&md_, out), "RIPEMD-160 final");
    return RIPEMD_DIGEST_SIZE;
  }

 private:
  RipeMd md_;
};
#endif

#ifndef NO_HMAC
class HmacOp : public Operation {
 public:
  HmacOp(int type, const Params& p) : size_(wc_HmacSizeByType(type)) {
    check(wc_HmacInit(&hmac_, nullptr, INVALID_DEVID), "HMAC init");
    check(wc_HmacSetKey(&hmac_, type, p.key.data(), len32(p.key.size())), "HMAC key");
  }
  ~HmacOp() override { wc_HmacFree(&hmac_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // wc_HmacFinal leaves the context keyed: the next update restarts from the stored inner pad.
    check(wc_HmacUpdate(&hmac_, in, len32(len)), "HMAC update");
    check(wc_HmacFinal(&hmac_, out), "HMAC final");
    return static_cast<size_t>(size_);
  }

 private:
  Hmac hmac_;
  int size_;
};
#endif

#if defined(WOLFSSL_CMAC) && !defined(NO_AES)
class CmacOp : public Operation {
 public:
  explicit CmacOp(const Params& p) {
    check(wc_InitCmac(&keyed_, p.key.data(), len32(p.key.size()), WC_CMAC_AES, nullptr),
          "CMAC key");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // wc_CmacFinal wipes its context and 5.5 has no reset, so each message starts from a copy
    // of the keyed context (a plain C struct) instead of redoing the key schedule.
    work_ = keyed_;
    word32 n = WC_CMAC_TAG_MAX_SZ;
    check(wc_CmacUpdate(&work_, in, len32(len)), "CMAC update");
    check(wc_CmacFinal(&work_, out, &n), "CMAC final");
    return n;
  }

 private:
  Cmac keyed_, work_;
};
#endif

// ---- the provider -------------------------------------------------------------------------------

class WolfsslProvider : public Provider {
 public:
  std::string name() const override { return "wolfssl"; }
  std::string version() const override { return wolfSSL_lib_version(); }
  std::vector<Variant> variants() const override {
    return {{"default", "wolfCrypt as built (code path fixed at compile time; see code_path)", {}}};
  }
  void init(const std::string&) override { check(wolfCrypt_Init(), "wolfCrypt_Init"); }
  std::vector<std::string> algorithms() const override { return compiled_algorithms(); }

  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    const auto offered = compiled_algorithms();
    if (std::find(offered.begin(), offered.end(), algorithm) == offered.end())
      throw Unsupported("wolfssl does not offer " + algorithm);
    check_param_sizes(*info, params);
    return make(*info, op, params);
  }

  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    out["version"] = wolfSSL_lib_version();
    out["header_version"] = LIBWOLFSSL_VERSION_STRING;
#ifdef WOLFSSL_AESNI
    out["aesni"] = "compiled in (WOLFSSL_AESNI): used when the CPU has AES-NI";
#else
    out["aesni"] = "not compiled in (built without WOLFSSL_AESNI): AES and GHASH run in C";
#endif
#ifdef USE_INTEL_SPEEDUP
    out["intel_speedup"] = "compiled in (USE_INTEL_SPEEDUP): AVX SHA-2/ChaCha/Poly1305";
#else
    out["intel_speedup"] =
        "not compiled in (built without USE_INTEL_SPEEDUP): SHA-2, ChaCha20 "
        "and Poly1305 run in C";
#endif
    out["build_flags"] = build_flags();
    return out;
  }

 private:
  static std::unique_ptr<Operation> make(const AlgorithmInfo& info, OpKind op, const Params& p) {
    const std::string& a = info.name;
    if (info.family == "aes-cbc") return std::make_unique<AesOp>(AesMode::Cbc, op, p);
    if (info.family == "aes-cfb") return std::make_unique<AesOp>(AesMode::Cfb, op, p);
    if (info.family == "aes-ofb") return std::make_unique<AesOp>(AesMode::Ofb, op, p);
    if (info.family == "aes-ctr") return std::make_unique<AesOp>(AesMode::Ctr, op, p);
#ifdef HAVE_AESGCM
    if (info.family == "aes-gcm") return std::make_unique<GcmOp>(info, op, p);
#endif
#ifdef WOLFSSL_AES_XTS
    if (info.family == "aes-xts") return std::make_unique<XtsOp>(op, p);
#endif
#ifndef NO_DES3
    if (a == "des-ede3-cbc") return std::make_unique<Des3Op>(op, p);
#endif
#ifdef HAVE_CHACHA
    if (a == "chacha20") return std::make_unique<ChachaOp>(p);
#ifdef HAVE_XCHACHA
    if (a == "xchacha20") return std::make_unique<XChachaOp>(p);
#endif
#ifdef HAVE_POLY1305
    if (a == "chacha20-poly1305") return std::make_unique<ChachaPolyOp>(false, op, p);
    if (a == "xchacha20-poly1305") return std::make_unique<ChachaPolyOp>(true, op, p);
#endif
#endif
    if (a == "md5") return std::make_unique<HashOp>(WC_HASH_TYPE_MD5);
    if (a == "sha1") return std::make_unique<HashOp>(WC_HASH_TYPE_SHA);
    if (a == "sha224") return std::make_unique<HashOp>(WC_HASH_TYPE_SHA224);
    if (a == "sha256") return std::make_unique<HashOp>(WC_HASH_TYPE_SHA256);
    if (a == "sha384") return std::make_unique<HashOp>(WC_HASH_TYPE_SHA384);
    if (a == "sha512") return std::make_unique<HashOp>(WC_HASH_TYPE_SHA512);
    if (a == "sha3-256") return std::make_unique<HashOp>(WC_HASH_TYPE_SHA3_256);
    if (a == "sha3-512") return std::make_unique<HashOp>(WC_HASH_TYPE_SHA3_512);
#ifdef HAVE_BLAKE2B
    if (a == "blake2b-512") return std::make_unique<Blake2bOp>(info.output_len);
#endif
#ifdef WOLFSSL_RIPEMD
    if (a == "ripemd160") return std::make_unique<RipemdOp>();
#endif
#ifndef NO_HMAC
    if (a == "hmac-sha256") return std::make_unique<HmacOp>(WC_SHA256, p);
    if (a == "hmac-sha512") return std::make_unique<HmacOp>(WC_SHA512, p);
#endif
#if defined(WOLFSSL_CMAC) && !defined(NO_AES)
    if (info.family == "cmac") return std::make_unique<CmacOp>(p);
#endif
    throw Unsupported("wolfssl does not offer " + a);
  }
};

}  // namespace

CB_REGISTER_PROVIDER("wolfssl", WolfsslProvider);

}  // namespace cb
