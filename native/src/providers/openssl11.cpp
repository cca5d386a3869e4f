// The OpenSSL family's adapter for the 1.1.1-style API: named EVP_CIPHER / EVP_MD tables
// (EVP_get_cipherbyname, no fetch), HMAC_CTX and CMAC_CTX, no providers and no OSSL_PARAM. This
// is the API OpenSSL 1.1.1, BoringSSL and AWS-LC share; openssl.cpp is the OpenSSL 3 one.
// native/cmake/versions.cmake compiles it for a versioned provider (openssl@1.1.1) against the
// static library `make versions` built, with CB_PROVIDER_NAME and CB_BUILD_RECORD defined.
//
// Offered: the symmetric ciphers, AEADs, digests and MACs; keyload (openssl_keyload.hpp, whose
// decoded keys are exported part by part with RSA_get0_key & co.); and signatures -- RSA PKCS#1
// v1.5 and PSS, ECDSA on P-256/384/521, Ed25519, with key generation for the last two -- whose
// keys are imported part by part with RSA_set0_key & co. ("signatures" below); and, where the
// build has libssl, the in-memory TLS 1.3 handshake (openssl_tls.hpp). Public-key encryption,
// key agreement and KDFs are not on this path yet: their cases say so.
//
// AWS-LC (OPENSSL_IS_AWSLC) and BoringSSL (OPENSSL_IS_BORINGSSL) differ from 1.1.1 where it
// shows here in: the ciphers and digests they name (EVP_get_cipherbyname / _digestbyname know
// fewer: no ChaCha20 alone, no AES-128-XTS, no BLAKE2b-512 or Whirlpool; BoringSSL no CFB, XTS,
// ChaCha20-Poly1305 as an EVP_CIPHER, SHA-3 or RIPEMD-160), which are then not offered, the
// unsupported case naming the missing one; CMAC's restart (CMAC_Reset: their CMAC_Init needs the
// cipher every time); BoringSSL's version string ("BoringSSL", no release number); and, in
// openssl_tls.hpp, BoringSSL's TLS 1.3 suite and group calls.
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/cmac.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#ifdef CB_HAS_LIBSSL  // the in-memory handshake (openssl_tls.hpp)
#include <openssl/objects.h>
#include <openssl/ssl.h>

#include "cryptobench/tls_driver.hpp"
#endif

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

#ifndef CB_PROVIDER_NAME
#error "CB_PROVIDER_NAME (e.g. \"openssl@1.1.1\") must be defined by native/cmake/versions.cmake"
#endif

namespace cb {
namespace {

std::string last_error(const char* what) {
  unsigned long e = ERR_get_error();
  char buf[256] = "no detail";
  if (e) ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return std::string(CB_PROVIDER_NAME " ") + what + ": " + buf;
}

void check(int ok, const char* what) {
  if (ok != 1) throw Error(last_error(what));
}

struct Name {
  const char* ours;
  const char* evp;  // the object's long name, which EVP_get_*byname takes
};
constexpr Name kCiphers[] = {
    {"aes-128-cbc", "aes-128-cbc"}, {"aes-192-cbc", "aes-192-cbc"},
    {"aes-256-cbc", "aes-256-cbc"}, {"aes-128-cfb", "aes-128-cfb"},
    {"aes-192-cfb", "aes-192-cfb"}, {"aes-256-cfb", "aes-256-cfb"},
    {"aes-128-ofb", "aes-128-ofb"}, {"aes-192-ofb", "aes-192-ofb"},
    {"aes-256-ofb", "aes-256-ofb"}, {"aes-128-ctr", "aes-128-ctr"},
    {"aes-192-ctr", "aes-192-ctr"}, {"aes-256-ctr", "aes-256-ctr"},
    {"aes-128-gcm", "aes-128-gcm"}, {"aes-192-gcm", "aes-192-gcm"},
    {"aes-256-gcm", "aes-256-gcm"}, {"aes-128-xts", "aes-128-xts"},
    {"aes-256-xts", "aes-256-xts"}, {"des-ede3-cbc", "des-ede3-cbc"},
    {"chacha20", "chacha20"},       {"chacha20-poly1305", "chacha20-poly1305"},
};
constexpr Name kDigests[] = {
    {"md5", "md5"},
    {"sha1", "sha1"},
    {"sha224", "sha224"},
    {"sha256", "sha256"},
    {"sha384", "sha384"},
    {"sha512", "sha512"},
    {"sha512-256", "sha512-256"},
    {"sha3-256", "sha3-256"},
    {"sha3-512", "sha3-512"},
    {"blake2b-512", "blake2b512"},
    {"whirlpool", "whirlpool"},
    {"ripemd160", "ripemd160"},
};
constexpr Name kMacs[] = {
    {"hmac-sha256", "sha256"},
    {"hmac-sha512", "sha512"},
    {"cmac-aes128", "aes-128-cbc"},
    {"cmac-aes256", "aes-256-cbc"},
};

template <size_t N>
const char* lookup(const Name (&table)[N], const std::string& ours) {
  for (const auto& row : table)
    if (ours == row.ours) return row.evp;
  return nullptr;
}

// A digest by its name. BoringSSL has SHA3-256 and SHA3-512 (digest.h declares EVP_sha3_256 and
// EVP_sha3_512) but its EVP_get_digestbyname does not know them: those by their functions.
const EVP_MD* digest_named(const char* name) {
#ifdef OPENSSL_IS_BORINGSSL
  if (std::strcmp(name, "sha3-256") == 0) return EVP_sha3_256();
  if (std::strcmp(name, "sha3-512") == 0) return EVP_sha3_512();
#endif
  return EVP_get_digestbyname(name);
}

class CipherOp : public Operation {
 public:
  CipherOp(const AlgorithmInfo& info, const EVP_CIPHER* cipher, OpKind op, const Params& p)
      : info_(info), encrypt_(op == OpKind::Encrypt ? 1 : 0), iv_(p.iv), aad_(p.aad) {
    ctx_ = EVP_CIPHER_CTX_new();
    if (!ctx_) throw Error("EVP_CIPHER_CTX_new failed");
    // EVP's ChaCha20 IV is the 32-bit little-endian block counter followed by the nonce.
    if (info.name == "chacha20") iv_.insert(iv_.begin(), 4, 0);
    check(EVP_CipherInit_ex(ctx_, cipher, nullptr, nullptr, nullptr, encrypt_), "init");
    if (info.kind == Kind::Aead)
      check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(iv_.size()),
                                nullptr) == 1
                ? 1
                : 0,
            "set IV length");
    check(EVP_CipherInit_ex(ctx_, nullptr, nullptr, p.key.data(), iv_.data(), encrypt_), "set key");
    EVP_CIPHER_CTX_set_padding(ctx_, 0);
  }
  ~CipherOp() override { EVP_CIPHER_CTX_free(ctx_); }

  bool rebind(const Bytes& iv, const Bytes& aad) override {
    if (info_.kind != Kind::Aead || iv.size() != iv_.size()) return false;
    iv_ = iv;
    aad_ = aad;
    return true;
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const bool aead = info_.kind == Kind::Aead;
    size_t body = len;
    if (aead && !encrypt_) {
      if (len < info_.tag_len) throw Error("ciphertext shorter than the tag");
      body = len - info_.tag_len;
    }
    // Restart with the prepared key schedule and the IV.
    check(EVP_CipherInit_ex(ctx_, nullptr, nullptr, nullptr, iv_.data(), encrypt_), "set IV");
    int n = 0;
    if (aead && !aad_.empty())
      check(EVP_CipherUpdate(ctx_, nullptr, &n, aad_.data(), static_cast<int>(aad_.size())), "AAD");
    int produced = 0;
    // No update for an empty message: AWS-LC's and BoringSSL's GCM take an update whose input
    // is NULL (an empty vector's data()) for the final call, after which the real final fails.
    if (body > 0)
      check(EVP_CipherUpdate(ctx_, out, &produced, in, static_cast<int>(body)), "update");
    if (aead && !encrypt_)
      check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(info_.tag_len),
                                const_cast<uint8_t*>(in + body)),
            "set tag");
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
  int encrypt_;
  Bytes iv_, aad_;
  EVP_CIPHER_CTX* ctx_ = nullptr;
};

class DigestOp : public Operation {
 public:
  explicit DigestOp(const EVP_MD* md) : md_(md), ctx_(EVP_MD_CTX_new()) {
    if (!ctx_) throw Error("EVP_MD_CTX_new failed");
  }
  ~DigestOp() override { EVP_MD_CTX_free(ctx_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    unsigned int n = 0;
    check(EVP_DigestInit_ex(ctx_, md_, nullptr), "digest init");
    check(EVP_DigestUpdate(ctx_, in, len), "digest update");
    check(EVP_DigestFinal_ex(ctx_, out, &n), "digest final");
    return n;
  }

 private:
  const EVP_MD* md_;
  EVP_MD_CTX* ctx_;
};

// HMAC_Init_ex with a NULL key restarts with the key schedule from prepare(). An empty key is
// passed as one zero byte: HMAC zero-pads short keys, so it is the same key, and NULL would mean
// "keep the current one".
class HmacOp : public Operation {
 public:
  HmacOp(const EVP_MD* md, const Params& p) : ctx_(HMAC_CTX_new()) {
    if (!ctx_) throw Error("HMAC_CTX_new failed");
    const uint8_t zero = 0;
    const bool empty = p.key.empty();
    check(HMAC_Init_ex(ctx_, empty ? &zero : p.key.data(),
                       empty ? 1 : static_cast<int>(p.key.size()), md, nullptr),
          "HMAC init");
  }
  ~HmacOp() override { HMAC_CTX_free(ctx_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    unsigned int n = 0;
    check(HMAC_Init_ex(ctx_, nullptr, 0, nullptr, nullptr), "HMAC restart");
    check(HMAC_Update(ctx_, in, len), "HMAC update");
    check(HMAC_Final(ctx_, out, &n), "HMAC final");
    return n;
  }

 private:
  HMAC_CTX* ctx_;
};

class CmacOp : public Operation {
 public:
  CmacOp(const EVP_CIPHER* cipher, const Params& p) : ctx_(CMAC_CTX_new()) {
    if (!ctx_) throw Error("CMAC_CTX_new failed");
    check(CMAC_Init(ctx_, p.key.data(), p.key.size(), cipher, nullptr), "CMAC init");
  }
  ~CmacOp() override { CMAC_CTX_free(ctx_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
#if defined(OPENSSL_IS_AWSLC) || defined(OPENSSL_IS_BORINGSSL)
    // Their CMAC_Init reads the cipher's block size before anything else (NULL would crash);
    // CMAC_Reset restarts with the key schedule from prepare().
    check(CMAC_Reset(ctx_), "CMAC restart");
#else
    // All-NULL arguments restart with the key schedule from prepare().
    check(CMAC_Init(ctx_, nullptr, 0, nullptr, nullptr), "CMAC restart");
#endif
    check(CMAC_Update(ctx_, in, len), "CMAC update");
    check(CMAC_Final(ctx_, out, &n), "CMAC final");
    return n;
  }

 private:
  CMAC_CTX* ctx_;
};

#include "openssl_keyload.hpp"
#ifdef CB_HAS_LIBSSL
#include "openssl_tls.hpp"
#endif

Bytes bn_bytes(const BIGNUM* bn, size_t width = 0) {
  if (!bn) throw Error(CB_PROVIDER_NAME ": the decoded key lacks a part");
  Bytes out(width ? width : static_cast<size_t>(BN_num_bytes(bn)));
  if (BN_bn2binpad(bn, out.data(), static_cast<int>(out.size())) < 0)
    throw Error(CB_PROVIDER_NAME ": a key part is wider than its field");
  return out;
}

// A decoded key's parts in the catalogue's format (provider.hpp, KeyParts); the public ones only
// for a certificate's key.
KeyParts export_parts(const AlgorithmInfo& info, const EVP_PKEY* cpkey, bool with_private) {
  EVP_PKEY* pkey = const_cast<EVP_PKEY*>(cpkey);  // 1.1.1's getters take a non-const key
  KeyParts out;
  switch (EVP_PKEY_base_id(pkey)) {
    case EVP_PKEY_RSA: {
      const RSA* rsa = EVP_PKEY_get0_RSA(pkey);
      const BIGNUM *n = nullptr, *e = nullptr, *d = nullptr;
      RSA_get0_key(rsa, &n, &e, &d);
      out["n"] = bn_bytes(n);
      out["e"] = bn_bytes(e);
      if (!with_private) break;
      const BIGNUM *p = nullptr, *q = nullptr, *dp = nullptr, *dq = nullptr, *qinv = nullptr;
      RSA_get0_factors(rsa, &p, &q);
      RSA_get0_crt_params(rsa, &dp, &dq, &qinv);
      out["d"] = bn_bytes(d);
      out["p"] = bn_bytes(p);
      out["q"] = bn_bytes(q);
      out["dp"] = bn_bytes(dp);
      out["dq"] = bn_bytes(dq);
      out["qinv"] = bn_bytes(qinv);
      break;
    }
    case EVP_PKEY_EC: {
      const EC_KEY* ec = EVP_PKEY_get0_EC_KEY(pkey);
      const size_t width = (info.bits + 7) / 8;
      BIGNUM* x = BN_new();
      BIGNUM* y = BN_new();
      const int ok = x && y &&
                     EC_POINT_get_affine_coordinates_GFp(EC_KEY_get0_group(ec),
                                                         EC_KEY_get0_public_key(ec), x, y, nullptr);
      if (ok == 1) {
        out["x"] = bn_bytes(x, width);
        out["y"] = bn_bytes(y, width);
      }
      BN_free(x);
      BN_free(y);
      if (ok != 1) throw Error(last_error("EC public point"));
      if (with_private) out["d"] = bn_bytes(EC_KEY_get0_private_key(ec), width);
      break;
    }
    case EVP_PKEY_ED25519: {
      size_t len = 32;
      Bytes pub(len);
      check(EVP_PKEY_get_raw_public_key(pkey, pub.data(), &len), "raw public key");
      out["pub"] = pub;
      if (!with_private) break;
      Bytes priv(len = 32);
      check(EVP_PKEY_get_raw_private_key(pkey, priv.data(), &len), "raw private key");
      out["priv"] = priv;
      break;
    }
    default:
      throw Unsupported(CB_PROVIDER_NAME ": keyload of " + info.key_type + " keys is not offered");
  }
  return out;
}

// ---- signatures ---------------------------------------------------------------------------------
// RSA (PKCS#1 v1.5, PSS) and ECDSA hash the message with EVP_Digest* and sign the digest with
// EVP_PKEY_sign on a context initialised once, as openssl.cpp does; Ed25519 signs the message
// with the one-shot EVP_DigestSign (stateless in 1.1.1, so one initialisation serves every
// run; the gate runs each prepared operation twice). Keys are imported part by part with the
// setters the 1.1.1 API shares with BoringSSL and AWS-LC: RSA_set0_key/_factors/_crt_params,
// EC_KEY_set_public_key_affine_coordinates (which checks the point is on the curve) and
// EC_KEY_set_private_key, EVP_PKEY_new_raw_private_key/public_key.

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;
struct BnFree {
  void operator()(BIGNUM* b) const { BN_clear_free(b); }
};
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

int ec_nid(const AlgorithmInfo& info) {
  if (info.key_type == "ecdsa-p256") return NID_X9_62_prime256v1;
  if (info.key_type == "ecdsa-p384") return NID_secp384r1;
  if (info.key_type == "ecdsa-p521") return NID_secp521r1;
  return NID_undef;
}

// The signature algorithms offered on this path.
bool signature_offered(const AlgorithmInfo& info) {
  if (info.kind != Kind::Signature) return false;
  if (info.family == "rsa-pkcs1" || info.family == "rsa-pss" || info.family == "ecdsa")
    return digest_named(info.digest.c_str()) != nullptr &&
           (info.family != "ecdsa" || ec_nid(info) != NID_undef);
  return info.name == "ed25519";
}

// The ctrl macros of 1.1.1 (EVP_PKEY_CTX_set_rsa_padding & co.) return a positive value on success.
void check_ctrl(int ret, const char* what) {
  if (ret <= 0) throw Error(last_error(what));
}

BnPtr bn(const KeyParts& k, const char* name) {
  const Bytes& b = key_part(k, name);
  BnPtr out(BN_bin2bn(b.data(), static_cast<int>(b.size()), nullptr));
  if (!out) throw Error(last_error("BN_bin2bn"));
  return out;
}

PkeyPtr import_key(const AlgorithmInfo& info, const KeyParts& k, bool with_private) {
  if (info.key_type == "ed25519") {
    const Bytes& part = key_part(k, with_private ? "priv" : "pub");
    EVP_PKEY* p =
        with_private
            ? EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, part.data(), part.size())
            : EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, part.data(), part.size());
    if (!p) throw Error(last_error("Ed25519 key import"));
    return PkeyPtr(p);
  }
  PkeyPtr pkey(EVP_PKEY_new());
  if (!pkey) throw Error(last_error("EVP_PKEY_new"));
  if (starts_with(info.key_type, "rsa-")) {
    RSA* rsa = RSA_new();
    if (!rsa || EVP_PKEY_assign_RSA(pkey.get(), rsa) != 1) {
      RSA_free(rsa);
      throw Error(last_error("RSA key"));
    }
    // Each set0 takes its integers over only when it succeeds.
    BnPtr n = bn(k, "n"), e = bn(k, "e"), d;
    if (with_private) d = bn(k, "d");
    check(RSA_set0_key(rsa, n.get(), e.get(), d.get()), "RSA_set0_key");
    (void)n.release(), (void)e.release(), (void)d.release();
    if (with_private) {
      BnPtr p = bn(k, "p"), q = bn(k, "q");
      check(RSA_set0_factors(rsa, p.get(), q.get()), "RSA_set0_factors");
      (void)p.release(), (void)q.release();
      BnPtr dp = bn(k, "dp"), dq = bn(k, "dq"), qinv = bn(k, "qinv");
      check(RSA_set0_crt_params(rsa, dp.get(), dq.get(), qinv.get()), "RSA_set0_crt_params");
      (void)dp.release(), (void)dq.release(), (void)qinv.release();
    }
    if (static_cast<size_t>(RSA_bits(rsa)) != info.bits)
      throw Error(info.name + " needs a " + std::to_string(info.bits) + "-bit modulus");
    return pkey;
  }
  if (ec_nid(info) != NID_undef) {
    EC_KEY* ec = EC_KEY_new_by_curve_name(ec_nid(info));
    if (!ec || EVP_PKEY_assign_EC_KEY(pkey.get(), ec) != 1) {
      EC_KEY_free(ec);
      throw Error(last_error("EC key"));
    }
    // Signing needs only d; the public point, when given, is checked to lie on the curve.
    if (!with_private || (k.count("x") && k.count("y"))) {
      BnPtr x = bn(k, "x"), y = bn(k, "y");
      check(EC_KEY_set_public_key_affine_coordinates(ec, x.get(), y.get()), "EC public key");
    }
    if (with_private) check(EC_KEY_set_private_key(ec, bn(k, "d").get()), "EC private key");
    return pkey;
  }
  throw Unsupported(CB_PROVIDER_NAME ": cannot import " + info.key_type + " keys");
}

// ECDSA signatures travel as r||s; EVP_PKEY_sign/verify speak DER.
Bytes rs_to_der(const Bytes& rs, size_t width) {
  BnPtr r(BN_bin2bn(rs.data(), static_cast<int>(width), nullptr));
  BnPtr s(BN_bin2bn(rs.data() + width, static_cast<int>(width), nullptr));
  ECDSA_SIG* sig = ECDSA_SIG_new();
  if (!r || !s || !sig || ECDSA_SIG_set0(sig, r.get(), s.get()) != 1) {
    ECDSA_SIG_free(sig);
    throw Error(last_error("ECDSA_SIG_set0"));
  }
  (void)r.release(), (void)s.release();
  unsigned char* der = nullptr;
  const int n = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (n <= 0) throw Error(last_error("i2d_ECDSA_SIG"));
  Bytes out(der, der + n);
  OPENSSL_free(der);
  return out;
}

class HashSignOp : public Operation {
 public:
  HashSignOp(const AlgorithmInfo& info, OpKind op, const Params& p)
      : sign_(op == OpKind::Sign),
        ecdsa_(info.family == "ecdsa"),
        width_((info.bits + 7) / 8),
        md_(digest_named(info.digest.c_str())),
        mdctx_(EVP_MD_CTX_new()) {
    if (!md_) throw Unsupported(CB_PROVIDER_NAME " has no digest " + info.digest);
    if (!mdctx_) throw Error("EVP_MD_CTX_new failed");
    pkey_ = import_key(info, p.keypair, sign_);
    ctx_.reset(EVP_PKEY_CTX_new(pkey_.get(), nullptr));
    if (!ctx_) throw Error(last_error("EVP_PKEY_CTX_new"));
    check(sign_ ? EVP_PKEY_sign_init(ctx_.get()) : EVP_PKEY_verify_init(ctx_.get()),
          "sign/verify init");
    if (!ecdsa_) {
      const bool pss = info.family == "rsa-pss";
      check_ctrl(
          EVP_PKEY_CTX_set_rsa_padding(ctx_.get(), pss ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING),
          "RSA padding");
      if (pss) {
        check_ctrl(EVP_PKEY_CTX_set_rsa_mgf1_md(ctx_.get(), md_), "MGF1 digest");
        check_ctrl(EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx_.get(), 32), "PSS salt length");
      }
    }
    check_ctrl(EVP_PKEY_CTX_set_signature_md(ctx_.get(), md_), "signature digest");
    if (sign_)
      scratch_.resize(static_cast<size_t>(EVP_PKEY_size(pkey_.get())));
    else if (!ecdsa_)
      sig_ = p.signature;
    else if (p.signature.size() == 2 * width_)
      sig_ = rs_to_der(p.signature, width_);
    // else: a malformed r||s; sig_ stays empty and every run() rejects it
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    check(EVP_DigestInit_ex(mdctx_.get(), md_, nullptr), "digest init");
    check(EVP_DigestUpdate(mdctx_.get(), in, len), "digest update");
    check(EVP_DigestFinal_ex(mdctx_.get(), digest, &dlen), "digest final");
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
    const BIGNUM *r = nullptr, *s = nullptr;
    ECDSA_SIG_get0(sig, &r, &s);
    const bool ok = BN_bn2binpad(r, out, static_cast<int>(width_)) >= 0 &&
                    BN_bn2binpad(s, out + width_, static_cast<int>(width_)) >= 0;
    ECDSA_SIG_free(sig);
    if (!ok) throw Error("ECDSA r or s wider than the field");
    return 2 * width_;
  }

 private:
  bool sign_, ecdsa_;
  size_t width_;
  const EVP_MD* md_;
  MdCtxPtr mdctx_;
  PkeyPtr pkey_;
  PkeyCtxPtr ctx_;
  Bytes sig_, scratch_;
};

class EddsaOp : public Operation {
 public:
  EddsaOp(const AlgorithmInfo& info, OpKind op, const Params& p)
      : sign_(op == OpKind::Sign),
        sig_len_(info.output_len),
        sig_(p.signature),
        pkey_(import_key(info, p.keypair, sign_)),
        mdctx_(EVP_MD_CTX_new()) {
    if (!mdctx_) throw Error("EVP_MD_CTX_new failed");
    check(sign_ ? EVP_DigestSignInit(mdctx_.get(), nullptr, nullptr, nullptr, pkey_.get())
                : EVP_DigestVerifyInit(mdctx_.get(), nullptr, nullptr, nullptr, pkey_.get()),
          "EdDSA init");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (sign_) {
      size_t n = sig_len_;
      check(EVP_DigestSign(mdctx_.get(), out, &n, in, len), "EdDSA sign");
      return n;
    }
    if (EVP_DigestVerify(mdctx_.get(), sig_.data(), sig_.size(), in, len) != 1) {
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
  MdCtxPtr mdctx_;
};

class Openssl11Provider : public Provider {
 public:
  std::string name() const override { return CB_PROVIDER_NAME; }
  std::string version() const override {
#ifdef OPENSSL_IS_BORINGSSL
    // BoringSSL has no releases: OpenSSL_version says "BoringSSL"; its API version dates it.
    return std::string(OpenSSL_version(OPENSSL_VERSION)) + " (API version " +
           std::to_string(BORINGSSL_API_VERSION) + ")";
#else
    return OpenSSL_version(OPENSSL_VERSION);  // AWS-LC: "AWS-LC 5.12.0"
#endif
  }
  std::vector<Variant> variants() const override {
    // The same OPENSSL_ia32cap switch as OpenSSL 3 (openssl.cpp): 1.1.1, AWS-LC and BoringSSL
    // read it at start too, in the same format.
    return {
        {"default", "all CPU features OpenSSL detects", {}},
        {"soft",
         "no AES-NI, PCLMULQDQ, SHA-NI, AVX2/AVX-512 or VAES (OPENSSL_ia32cap=~0x200000200000000)",
         {{"OPENSSL_ia32cap", "~0x200000200000000"}}},
    };
  }
  void init(const std::string&) override {
    check(OPENSSL_init_crypto(OPENSSL_INIT_ADD_ALL_CIPHERS | OPENSSL_INIT_ADD_ALL_DIGESTS, nullptr),
          "init");
  }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& r : kCiphers)
      if (EVP_get_cipherbyname(r.evp)) out.push_back(r.ours);
    for (const auto& r : kDigests)
      if (digest_named(r.evp)) out.push_back(r.ours);
    for (const auto& r : kMacs) out.push_back(r.ours);
    for (const auto& a : cb::algorithms())
      if (a.kind == Kind::Keyload || signature_offered(a)) out.push_back(a.name);
#ifdef CB_HAS_LIBSSL
    for (const auto& c : kTlsCases) out.push_back(c.ours);
#endif
    return out;
  }
  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    if (!signature_offered(info))
      throw Unsupported(std::string(CB_PROVIDER_NAME " cannot generate ") + algorithm + " keys");
    EVP_PKEY* raw = nullptr;
    check(EVP_PKEY_keygen(keygen_ctx(info), &raw), "key generation");
    PkeyPtr pkey(raw);
    return export_parts(info, pkey.get(), true);
  }
  KeyParts decode_key(const std::string& algorithm, const Bytes& encoded) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keyload);
    Decoded decoded;
    decode_encoded(encoding_of(algorithm), encoded.data(), encoded.size(), decoded);
    return export_parts(info, decoded.key(), decoded.cert == nullptr);
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = find_algorithm(algorithm);
    if (!info) throw Unsupported("unknown algorithm " + algorithm);
    if (const char* name = lookup(kCiphers, algorithm)) {
      const EVP_CIPHER* cipher = EVP_get_cipherbyname(name);
      if (!cipher) throw Unsupported(std::string(CB_PROVIDER_NAME " has no cipher ") + name);
      return std::make_unique<CipherOp>(*info, cipher, op, params);
    }
    if (const char* name = lookup(kDigests, algorithm)) {
      const EVP_MD* md = digest_named(name);
      if (!md) throw Unsupported(std::string(CB_PROVIDER_NAME " has no digest ") + name);
      return std::make_unique<DigestOp>(md);
    }
    if (const char* inner = lookup(kMacs, algorithm)) {
      if (algorithm.rfind("hmac-", 0) == 0)
        return std::make_unique<HmacOp>(digest_named(inner), params);
      return std::make_unique<CmacOp>(EVP_get_cipherbyname(inner), params);
    }
    if (info->kind == Kind::Keyload)
      return std::make_unique<KeyloadOp>(checked_algorithm(algorithm, op).name);
    if (info->kind == Kind::Handshake) return prepare_handshake(algorithm, params);
    if (signature_offered(*info)) {
      checked_algorithm(algorithm, op);
      if (info->name == "ed25519") return std::make_unique<EddsaOp>(*info, op, params);
      return std::make_unique<HashSignOp>(*info, op, params);
    }
    if (is_public_key(info->kind) || info->kind == Kind::Kdf)
      throw Unsupported(std::string(CB_PROVIDER_NAME) +
                        ": public-key encryption, key agreement and KDFs are not on the "
                        "1.1.1-API path yet");
    throw Unsupported(std::string(CB_PROVIDER_NAME " does not offer ") + algorithm);
  }
#ifdef CB_HAS_LIBSSL
  std::unique_ptr<HandshakeOperation> prepare_handshake(const std::string& algorithm,
                                                        const Params& params) override {
    return prepare_tls_handshake(algorithm, params);
  }
#endif
  // No MAC verification function; CRYPTO_memcmp is OpenSSL's constant-time comparison.
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Mac);
    if (!lookup(kMacs, algorithm))
      throw Unsupported(std::string(CB_PROVIDER_NAME " does not offer ") + algorithm);
    return std::make_unique<MacCompareOp>(
        prepare(algorithm, OpKind::Mac, params), info.output_len,
        [](const uint8_t* a, const uint8_t* b, size_t n) { return CRYPTO_memcmp(a, b, n) == 0; });
  }
  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    const char* env = std::getenv("OPENSSL_ia32cap");
    out["ia32cap_env"] = env ? env : "";
    out["api"] = "1.1.1";
#ifdef CB_BUILD_RECORD
    out["build"] = CB_BUILD_RECORD;
#endif
    return out;
  }

 private:
  // One key-generation context per key type, kept so that each timed generate_key() is only
  // EVP_PKEY_keygen and the export.
  EVP_PKEY_CTX* keygen_ctx(const AlgorithmInfo& info) {
    auto it = keygen_.find(info.name);
    if (it != keygen_.end()) return it->second.get();
    const bool ec = ec_nid(info) != NID_undef;
    PkeyCtxPtr ctx(EVP_PKEY_CTX_new_id(ec ? EVP_PKEY_EC : EVP_PKEY_ED25519, nullptr));
    if (!ctx) throw Error(last_error("EVP_PKEY_CTX_new_id"));
    check(EVP_PKEY_keygen_init(ctx.get()), "keygen init");
    if (ec) check_ctrl(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx.get(), ec_nid(info)), "EC curve");
    return keygen_.emplace(info.name, std::move(ctx)).first->second.get();
  }

  std::map<std::string, PkeyCtxPtr> keygen_;
};

}  // namespace

CB_REGISTER_PROVIDER(CB_PROVIDER_NAME, Openssl11Provider);

}  // namespace cb
