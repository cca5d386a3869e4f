// wolfSSL adapter, through the wolfCrypt API (wc_*). options.h must come first: it carries the
// configure flags the library was built with, and the struct layouts in every other wolfSSL
// header depend on them. Which algorithms are offered follows from those same flags.
//
// Public key: RSA (PKCS#1 v1.5, PSS, OAEP, key generation), ECDSA/ECDH on the NIST curves,
// Ed25519, Ed448, X25519, X448, FFDH over the RFC 7919 groups, PBKDF2, scrypt and HKDF (wolfSSL
// 5.5 has no Argon2). One Hash_DRBG (WC_RNG) made in init() serves every operation.
// keyload: PKCS#8 RSA, EC and Ed25519 keys and RSA certificates, PEM or DER (see "keyload").
// handshake: the in-memory TLS 1.3 handshake through wolfSSL's SSL layer (wolfssl_tls.hpp).
// clang-format off
#include <wolfssl/options.h>
// clang-format on
#include <wolfssl/ssl.h>
#include <wolfssl/version.h>
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/asn.h>
#include <wolfssl/wolfcrypt/asn_public.h>
#include <wolfssl/wolfcrypt/blake2.h>
#include <wolfssl/wolfcrypt/chacha.h>
#include <wolfssl/wolfcrypt/chacha20_poly1305.h>
#include <wolfssl/wolfcrypt/cmac.h>
#include <wolfssl/wolfcrypt/curve25519.h>
#include <wolfssl/wolfcrypt/curve448.h>
#include <wolfssl/wolfcrypt/des3.h>
#include <wolfssl/wolfcrypt/dh.h>
#include <wolfssl/wolfcrypt/ecc.h>
#include <wolfssl/wolfcrypt/ed25519.h>
#include <wolfssl/wolfcrypt/ed448.h>
#include <wolfssl/wolfcrypt/error-crypt.h>
#include <wolfssl/wolfcrypt/hash.h>
#include <wolfssl/wolfcrypt/hmac.h>
#include <wolfssl/wolfcrypt/pwdbased.h>
#include <wolfssl/wolfcrypt/random.h>
#include <wolfssl/wolfcrypt/ripemd.h>
#include <wolfssl/wolfcrypt/rsa.h>
#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/wolfcrypt/wc_port.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cryptobench/provider.hpp"
#include "cryptobench/tls_driver.hpp"

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

// ---- public key ---------------------------------------------------------------------------------

const byte* nonnull(const byte* p) {
  static const byte kEmpty[1] = {0};
  return p ? p : kEmpty;
}

// The integer in `in` as exactly `size` big-endian bytes: leading zeros dropped or added.
Bytes fit(const Bytes& in, size_t size, const char* what) {
  size_t skip = 0;
  while (skip < in.size() && in.size() - skip > size && in[skip] == 0) ++skip;
  if (in.size() - skip > size) throw Error(std::string(what) + " is too long");
  Bytes out(size - (in.size() - skip), 0);
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(skip), in.end());
  return out;
}

// A fixed-size key encoding (Ed25519/Ed448/X25519/X448 keys are byte strings, not integers).
const Bytes& exact(const KeyParts& key, const char* name, size_t size) {
  const Bytes& part = key_part(key, name);
  if (part.size() != size)
    throw Error(std::string("key part '") + name + "' must be " + std::to_string(size) + " bytes");
  return part;
}

class Mp {
 public:
  Mp() { check(mp_init(&v_), "integer init"); }
  ~Mp() { mp_forcezero(&v_); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mp_int* get() { return &v_; }

 private:
  mp_int v_;
};

void read_mp(mp_int* v, const Bytes& big_endian) {
  check(mp_read_unsigned_bin(v, nonnull(big_endian.data()), len32(big_endian.size())),
        "read integer");
}

// Big-endian, left-padded to `size` bytes (0: the integer's own length).
Bytes mp_bytes(mp_int* v, size_t size = 0) {
  Bytes out(size ? size : static_cast<size_t>(mp_unsigned_bin_size(v)));
  check(mp_to_unsigned_bin_len(v, out.data(), static_cast<int>(out.size())), "write integer");
  return out;
}

// The digest a signature covers, computed inside run() as part of the operation.
class Digest {
 public:
  explicit Digest(const std::string& name)
      : type_(name == "sha256"   ? WC_HASH_TYPE_SHA256
              : name == "sha384" ? WC_HASH_TYPE_SHA384
                                 : WC_HASH_TYPE_SHA512),
        size_(static_cast<word32>(wc_HashGetDigestSize(type_))) {
    if (name != "sha256" && name != "sha384" && name != "sha512")
      throw Unsupported("wolfssl: no digest '" + name + "' for signatures");
  }
  const byte* operator()(const uint8_t* in, size_t len) {
    check(wc_Hash(type_, nonnull(in), len32(len), buf_, size_), "digest");
    return buf_;
  }
  wc_HashType type() const { return type_; }
  word32 size() const { return size_; }

 private:
  wc_HashType type_;
  word32 size_;
  byte buf_[WC_MAX_DIGEST_SIZE];
};

#if !defined(NO_RSA) && defined(WC_RSA_PSS) && defined(WOLFSSL_KEY_GEN)
// ---- RSA

class RsaKeyHolder {
 public:
  RsaKeyHolder() { check(wc_InitRsaKey(&key_, nullptr), "RSA init"); }
  ~RsaKeyHolder() { wc_FreeRsaKey(&key_); }
  RsaKeyHolder(const RsaKeyHolder&) = delete;
  RsaKeyHolder& operator=(const RsaKeyHolder&) = delete;
  RsaKey* get() { return &key_; }

 private:
  RsaKey key_;
};

// wolfSSL 5.5 has no raw private-key import (wc_RsaPrivateKeyDecodeRaw came later), so the
// components go straight into the key's integers, as its DER decoder would put them. The CRT
// values are used as given: u is wolfSSL's name for qinv = q^-1 mod p.
class RsaOp : public Operation {
 public:
  RsaOp(const AlgorithmInfo& info, OpKind op, const Params& p, WC_RNG* rng)
      : op_(op),
        family_(info.family),
        oaep_(family_ == "rsa-oaep"),
        decrypt_(op == OpKind::Decrypt && (oaep_ || family_ == "rsa-pkcs1v15-enc")),
        // PKCS#1 v1.5 encryption hashes nothing; the digest is then an unused SHA-256.
        digest_(info.digest.empty() ? "sha256" : info.digest),
        sig_(p.signature),
        rng_(rng) {
    RsaKey* key = key_.get();
    const bool with_private = op == OpKind::Sign || op == OpKind::Decrypt;
    const Bytes& n = key_part(p.keypair, "n");
    const Bytes& e = key_part(p.keypair, "e");
    check(wc_RsaPublicKeyDecodeRaw(n.data(), len32(n.size()), e.data(), len32(e.size()), key),
          "RSA public key");
    if (with_private) {
      read_mp(&key->d, key_part(p.keypair, "d"));
      read_mp(&key->p, key_part(p.keypair, "p"));
      read_mp(&key->q, key_part(p.keypair, "q"));
      read_mp(&key->dP, key_part(p.keypair, "dp"));
      read_mp(&key->dQ, key_part(p.keypair, "dq"));
      read_mp(&key->u, key_part(p.keypair, "qinv"));
      key->type = RSA_PRIVATE;
    }
    // Private operations are blinded, which needs the generator.
    check(wc_RsaSetRNG(key, rng_), "RSA RNG");
    if (static_cast<size_t>(mp_count_bits(&key->n)) != info.bits)
      throw Error(info.name + " needs a " + std::to_string(info.bits) + "-bit modulus");
    k_ = static_cast<word32>(wc_RsaEncryptSize(key));
    hash_oid_ = wc_GetCTC_HashOID(WC_SHA256);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    RsaKey* key = key_.get();
    if (decrypt_) {
      size_t n = 0;
      if (!try_run(in, len, out, n))
        check(refused_, oaep_ ? "RSA-OAEP decrypt" : "RSA PKCS#1 v1.5 decrypt");
      return n;
    }
    if (oaep_) {
      // wolfCrypt rejects an empty message (BAD_FUNC_ARG), and without WOLFSSL_RSA_DECRYPT_TO_0_LEN
      // (not in Debian's build) it also cannot decrypt to one: that case fails with the same
      // RSA_BUFFER_E as every invalid ciphertext, so only the encryption side can be told apart.
      if (len == 0) throw Unsupported("wolfSSL 5.5 cannot OAEP-encrypt an empty message");
      const int ret =
          wc_RsaPublicEncrypt_ex(nonnull(in), len32(len), out, k_, key, rng_, WC_RSA_OAEP_PAD,
                                 WC_HASH_TYPE_SHA256, WC_MGF1SHA256, nullptr, 0);
      if (ret < 0) check(ret, "RSA-OAEP encrypt");
      return static_cast<size_t>(ret);
    }
    if (family_ == "rsa-pkcs1v15-enc") {
      if (len == 0) throw Unsupported("wolfSSL 5.5 cannot encrypt an empty message");
      const int ret = wc_RsaPublicEncrypt(nonnull(in), len32(len), out, k_, key, rng_);
      if (ret < 0) check(ret, "RSA PKCS#1 v1.5 encrypt");
      return static_cast<size_t>(ret);
    }
    const byte* hash = digest_(in, len);
    if (family_ == "rsa-pss") return op_ == OpKind::Sign ? pss_sign(hash, out) : pss_verify(hash);
    // PKCS#1 v1.5 signs the DER DigestInfo, which wolfCrypt leaves to the caller.
    byte info[MAX_DER_DIGEST_SZ];
    const word32 info_len = wc_EncodeSignature(info, hash, digest_.size(), hash_oid_);
    if (op_ == OpKind::Sign) {
      const int ret = wc_RsaSSL_Sign(info, info_len, out, k_, key, rng_);
      if (ret < 0) check(ret, "RSA PKCS#1 v1.5 sign");
      return static_cast<size_t>(ret);
    }
    if (sig_.size() != k_) throw Error("RSA signature has the wrong length");
    byte decoded[MAX_DER_DIGEST_SZ];
    const int ret = wc_RsaSSL_Verify(sig_.data(), k_, decoded, sizeof decoded, key);
    if (ret < 0 || static_cast<word32>(ret) != info_len || std::memcmp(decoded, info, info_len))
      throw Error("RSA PKCS#1 v1.5 signature invalid");
    return 0;
  }

  // RSA decryption: wc_RsaPrivateDecrypt(_ex) refuses a ciphertext with a negative return code,
  // a status (docs/leaks.md, "Valid against invalid"); run() throws it in the library's words.
  bool refuses_by_status() const override { return decrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    if (!decrypt_) return Operation::try_run(in, len, out, out_len);
    if (len != k_)
      throw Error(oaep_ ? "RSA-OAEP ciphertext has the wrong length"
                        : "RSA PKCS#1 v1.5 ciphertext has the wrong length");
    const int ret = oaep_ ? wc_RsaPrivateDecrypt_ex(in, k_, out, k_, key_.get(), WC_RSA_OAEP_PAD,
                                                    WC_HASH_TYPE_SHA256, WC_MGF1SHA256, nullptr, 0)
                          : wc_RsaPrivateDecrypt(in, k_, out, k_, key_.get());
    if (ret < 0) {
      refused_ = ret;
      return false;
    }
    out_len = static_cast<size_t>(ret);
    return true;
  }

 private:
  size_t pss_sign(const byte* hash, uint8_t* out) {
    const int ret = wc_RsaPSS_Sign_ex(hash, digest_.size(), out, k_, digest_.type(), WC_MGF1SHA256,
                                      static_cast<int>(digest_.size()), key_.get(), rng_);
    if (ret < 0) check(ret, "RSA-PSS sign");
    return static_cast<size_t>(ret);
  }
  size_t pss_verify(const byte* hash) {
    if (sig_.size() != k_) throw Error("RSA signature has the wrong length");
    // Verify_ex returns the encoded message's tail; CheckPadding then compares the hash with
    // an explicit salt length of 32 (the digest length).
    byte decoded[RSA_MAX_SIZE / 8];
    const int n = wc_RsaPSS_Verify_ex(sig_.data(), k_, decoded, sizeof decoded, digest_.type(),
                                      WC_MGF1SHA256, static_cast<int>(digest_.size()), key_.get());
    if (n < 0 || wc_RsaPSS_CheckPadding_ex(hash, digest_.size(), decoded, static_cast<word32>(n),
                                           digest_.type(), static_cast<int>(digest_.size()),
                                           mp_count_bits(&key_.get()->n)) != 0)
      throw Error("RSA-PSS signature invalid");
    return 0;
  }

  RsaKeyHolder key_;
  OpKind op_;
  std::string family_;
  bool oaep_, decrypt_;  // RSA-OAEP; a decryption (OAEP or PKCS#1 v1.5)
  int refused_ = 0;      // the last refused decryption's code
  Digest digest_;
  Bytes sig_;
  WC_RNG* rng_;
  word32 k_ = 0;
  int hash_oid_ = 0;
};

// A private key's parts; wolfSSL's u is PKCS#1's qInv.
KeyParts rsa_parts(RsaKey* key) {
  return {{"n", mp_bytes(&key->n)},   {"e", mp_bytes(&key->e)},   {"d", mp_bytes(&key->d)},
          {"p", mp_bytes(&key->p)},   {"q", mp_bytes(&key->q)},   {"dp", mp_bytes(&key->dP)},
          {"dq", mp_bytes(&key->dQ)}, {"qinv", mp_bytes(&key->u)}};
}

KeyParts generate_rsa(const AlgorithmInfo& info, WC_RNG* rng) {
  RsaKeyHolder holder;
  RsaKey* key = holder.get();
  check(wc_MakeRsaKey(key, static_cast<int>(info.bits), WC_RSA_EXPONENT, rng),
        "RSA key generation");
  return rsa_parts(key);
}

#endif

#if defined(HAVE_ECC)
// ---- NIST curves: ECDSA and ECDH

int ecc_curve(const std::string& alg) {
  if (alg == "ecdsa-p256" || alg == "ecdh-p256") return ECC_SECP256R1;
  if (alg == "ecdsa-p384" || alg == "ecdh-p384") return ECC_SECP384R1;
  if (alg == "ecdsa-p521") return ECC_SECP521R1;
  return ECC_CURVE_INVALID;
}

bool ecc_curve_available(int curve) {
  return curve != ECC_CURVE_INVALID && wc_ecc_get_curve_size_from_id(curve) > 0;
}

class EccKey {
 public:
  explicit EccKey(int curve) : curve_(curve) {
    check(wc_ecc_init_ex(&key_, nullptr, INVALID_DEVID), "ECC init");
    const int size = wc_ecc_get_curve_size_from_id(curve);
    if (size <= 0) throw Unsupported("curve not compiled into this wolfSSL build");
    size_ = static_cast<size_t>(size);
  }
  ~EccKey() { wc_ecc_free(&key_); }
  EccKey(const EccKey&) = delete;
  EccKey& operator=(const EccKey&) = delete;

  // wc_ecc_import_unsigned() takes field-size coordinates and does not validate them, so the
  // point is checked (on the curve, of the right order) by wc_ecc_check_key() afterwards.
  void import(const KeyParts& key, bool with_private) {
    const Bytes x = fit(key_part(key, "x"), size_, "EC x");
    const Bytes y = fit(key_part(key, "y"), size_, "EC y");
    Bytes d;
    if (with_private) d = fit(key_part(key, "d"), size_, "EC d");
    check(wc_ecc_import_unsigned(&key_, x.data(), y.data(), with_private ? d.data() : nullptr,
                                 curve_),
          "EC key import");
    check(wc_ecc_check_key(&key_), "EC key check");
  }
  KeyParts generate(WC_RNG* rng) {
    check(wc_ecc_make_key_ex(rng, static_cast<int>(size_), &key_, curve_), "EC key generation");
    return parts();
  }
  // The private key's parts, each padded to the field size.
  KeyParts parts() {
    Bytes x(size_), y(size_), d(size_);
    word32 xl = len32(size_), yl = len32(size_), dl = len32(size_);
    check(wc_ecc_export_private_raw(&key_, x.data(), &xl, y.data(), &yl, d.data(), &dl),
          "EC key export");
    return {{"d", fit(Bytes(d.begin(), d.begin() + dl), size_, "EC d")},
            {"x", fit(Bytes(x.begin(), x.begin() + xl), size_, "EC x")},
            {"y", fit(Bytes(y.begin(), y.begin() + yl), size_, "EC y")}};
  }
  ecc_key* get() { return &key_; }
  size_t size() const { return size_; }

 private:
  ecc_key key_;
  int curve_;
  size_t size_ = 0;
};

class EcdsaOp : public Operation {
 public:
  EcdsaOp(const AlgorithmInfo& info, OpKind op, const Params& p, WC_RNG* rng)
      : key_(ecc_curve(info.name)), sign_(op == OpKind::Sign), digest_(info.digest), rng_(rng) {
    key_.import(p.keypair, sign_);
    if (!sign_) {
      const size_t f = key_.size();
      well_formed_ = p.signature.size() == 2 * f;
      if (well_formed_) {
        read_mp(r_.get(), Bytes(p.signature.begin(), p.signature.begin() + f));
        read_mp(s_.get(), Bytes(p.signature.begin() + f, p.signature.end()));
      }
    }
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const size_t f = key_.size();
    if (!sign_ && !well_formed_) throw Error("ECDSA signature has the wrong length");
    const byte* hash = digest_(in, len);
    if (sign_) {
      check(wc_ecc_sign_hash_ex(hash, digest_.size(), rng_, key_.get(), r_.get(), s_.get()),
            "ECDSA sign");
      check(mp_to_unsigned_bin_len(r_.get(), out, static_cast<int>(f)), "write r");
      check(mp_to_unsigned_bin_len(s_.get(), out + f, static_cast<int>(f)), "write s");
      return 2 * f;
    }
    int valid = 0;
    const int ret =
        wc_ecc_verify_hash_ex(r_.get(), s_.get(), hash, digest_.size(), &valid, key_.get());
    if (ret != 0 || valid != 1) throw Error("ECDSA signature invalid");
    return 0;
  }

 private:
  EccKey key_;
  bool sign_;
  Digest digest_;
  WC_RNG* rng_;
  Mp r_, s_;
  bool well_formed_ = false;
};

class EcdhOp : public Operation {
 public:
  EcdhOp(const AlgorithmInfo& info, const Params& p, WC_RNG* rng)
      : own_(ecc_curve(info.name)), peer_(ecc_curve(info.name)) {
    own_.import(p.keypair, true);
    peer_.import(p.peer, false);
    // The timing-resistant build blinds the scalar multiplication with this generator.
    check(wc_ecc_set_rng(own_.get(), rng), "ECC RNG");
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    word32 n = len32(own_.size());
    check(wc_ecc_shared_secret(own_.get(), peer_.get(), out, &n), "ECDH");
    return n;
  }

 private:
  EccKey own_, peer_;
};

#endif

// ---- EdDSA

#if defined(HAVE_ED25519)
class Ed25519Op : public Operation {
 public:
  Ed25519Op(OpKind op, const Params& p) : sign_(op == OpKind::Sign), sig_(p.signature) {
    check(wc_ed25519_init(&key_), "Ed25519 init");
    if (sign_) {
      // Signing needs the public key too; it is derived from the seed rather than trusted.
      const Bytes& priv = exact(p.keypair, "priv", ED25519_KEY_SIZE);
      byte pub[ED25519_PUB_KEY_SIZE];
      check(wc_ed25519_import_private_only(priv.data(), ED25519_KEY_SIZE, &key_), "Ed25519 key");
      check(wc_ed25519_make_public(&key_, pub, sizeof pub), "Ed25519 public key");
      check(wc_ed25519_import_private_key(priv.data(), ED25519_KEY_SIZE, pub, sizeof pub, &key_),
            "Ed25519 key");
    } else {
      const Bytes& pub = exact(p.keypair, "pub", ED25519_PUB_KEY_SIZE);
      check(wc_ed25519_import_public(pub.data(), ED25519_PUB_KEY_SIZE, &key_), "Ed25519 key");
    }
  }
  ~Ed25519Op() override { wc_ed25519_free(&key_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (sign_) {
      word32 n = ED25519_SIG_SIZE;
      check(wc_ed25519_sign_msg(nonnull(in), len32(len), out, &n, &key_), "Ed25519 sign");
      return n;
    }
    int valid = 0;
    const int ret = wc_ed25519_verify_msg(nonnull(sig_.data()), len32(sig_.size()), nonnull(in),
                                          len32(len), &valid, &key_);
    if (ret != 0 || valid != 1) throw Error("Ed25519 signature invalid");
    return 0;
  }

 private:
  ed25519_key key_;
  bool sign_;
  Bytes sig_;
};

#endif

#if defined(HAVE_ED448)
class Ed448Op : public Operation {
 public:
  Ed448Op(OpKind op, const Params& p) : sign_(op == OpKind::Sign), sig_(p.signature) {
    check(wc_ed448_init(&key_), "Ed448 init");
    if (sign_) {
      const Bytes& priv = exact(p.keypair, "priv", ED448_KEY_SIZE);
      byte pub[ED448_PUB_KEY_SIZE];
      check(wc_ed448_import_private_only(priv.data(), ED448_KEY_SIZE, &key_), "Ed448 key");
      check(wc_ed448_make_public(&key_, pub, sizeof pub), "Ed448 public key");
      check(wc_ed448_import_private_key(priv.data(), ED448_KEY_SIZE, pub, sizeof pub, &key_),
            "Ed448 key");
    } else {
      const Bytes& pub = exact(p.keypair, "pub", ED448_PUB_KEY_SIZE);
      check(wc_ed448_import_public(pub.data(), ED448_PUB_KEY_SIZE, &key_), "Ed448 key");
    }
  }
  ~Ed448Op() override { wc_ed448_free(&key_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // Pure Ed448 is Ed448 with an empty context (RFC 8032 section 5.2).
    if (sign_) {
      word32 n = ED448_SIG_SIZE;
      check(wc_ed448_sign_msg(nonnull(in), len32(len), out, &n, &key_, nullptr, 0), "Ed448 sign");
      return n;
    }
    int valid = 0;
    const int ret = wc_ed448_verify_msg(nonnull(sig_.data()), len32(sig_.size()), nonnull(in),
                                        len32(len), &valid, &key_, nullptr, 0);
    if (ret != 0 || valid != 1) throw Error("Ed448 signature invalid");
    return 0;
  }

 private:
  ed448_key key_;
  bool sign_;
  Bytes sig_;
};

#endif

// ---- X25519 and X448, with RFC 7748's little-endian byte strings (EC*_LITTLE_ENDIAN)

#if defined(HAVE_CURVE25519)
class X25519Op : public Operation {
 public:
  explicit X25519Op(const Params& p) {
    check(wc_curve25519_init(&own_), "X25519 init");
    check(wc_curve25519_init(&peer_), "X25519 init");
    const Bytes& priv = exact(p.keypair, "priv", CURVE25519_KEYSIZE);
    check(wc_curve25519_import_private_ex(priv.data(), CURVE25519_KEYSIZE, &own_,
                                          EC25519_LITTLE_ENDIAN),
          "X25519 private key");
    // RFC 7748 section 5 has receivers ignore the top bit of u; wolfCrypt refuses such keys
    // instead, so it is cleared here, as the RFC's own test vectors expect.
    Bytes pub = exact(p.peer, "pub", CURVE25519_KEYSIZE);
    pub.back() &= 0x7f;
    check(wc_curve25519_import_public_ex(pub.data(), CURVE25519_KEYSIZE, &peer_,
                                         EC25519_LITTLE_ENDIAN),
          "X25519 peer key");
  }
  ~X25519Op() override {
    wc_curve25519_free(&own_);
    wc_curve25519_free(&peer_);
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    word32 n = CURVE25519_KEYSIZE;
    check(wc_curve25519_shared_secret_ex(&own_, &peer_, out, &n, EC25519_LITTLE_ENDIAN), "X25519");
    return n;
  }

 private:
  curve25519_key own_, peer_;
};

#endif

#if defined(HAVE_CURVE448)
class X448Op : public Operation {
 public:
  explicit X448Op(const Params& p) {
    check(wc_curve448_init(&own_), "X448 init");
    check(wc_curve448_init(&peer_), "X448 init");
    const Bytes& priv = exact(p.keypair, "priv", CURVE448_KEY_SIZE);
    check(wc_curve448_import_private_ex(priv.data(), CURVE448_KEY_SIZE, &own_, EC448_LITTLE_ENDIAN),
          "X448 private key");
    const Bytes& pub = exact(p.peer, "pub", CURVE448_PUB_KEY_SIZE);
    check(wc_curve448_import_public_ex(pub.data(), CURVE448_PUB_KEY_SIZE, &peer_,
                                       EC448_LITTLE_ENDIAN),
          "X448 peer key");
  }
  ~X448Op() override {
    wc_curve448_free(&own_);
    wc_curve448_free(&peer_);
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    word32 n = CURVE448_KEY_SIZE;
    check(wc_curve448_shared_secret_ex(&own_, &peer_, out, &n, EC448_LITTLE_ENDIAN), "X448");
    return n;
  }

 private:
  curve448_key own_, peer_;
};

#endif

// ---- finite-field Diffie-Hellman

#if !defined(NO_DH)
// The ffdhe4096 prime of RFC 7919 appendix A.3 (transcribed from OpenSSL's copy of the RFC
// groups), for builds without HAVE_FFDHE_4096: Debian's has only the 2048- and 3072-bit groups.
const byte kFfdhe4096Prime[] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xad, 0xf8, 0x54, 0x58, 0xa2, 0xbb, 0x4a, 0x9a,
    0xaf, 0xdc, 0x56, 0x20, 0x27, 0x3d, 0x3c, 0xf1, 0xd8, 0xb9, 0xc5, 0x83, 0xce, 0x2d, 0x36, 0x95,
    0xa9, 0xe1, 0x36, 0x41, 0x14, 0x64, 0x33, 0xfb, 0xcc, 0x93, 0x9d, 0xce, 0x24, 0x9b, 0x3e, 0xf9,
    0x7d, 0x2f, 0xe3, 0x63, 0x63, 0x0c, 0x75, 0xd8, 0xf6, 0x81, 0xb2, 0x02, 0xae, 0xc4, 0x61, 0x7a,
    0xd3, 0xdf, 0x1e, 0xd5, 0xd5, 0xfd, 0x65, 0x61, 0x24, 0x33, 0xf5, 0x1f, 0x5f, 0x06, 0x6e, 0xd0,
    0x85, 0x63, 0x65, 0x55, 0x3d, 0xed, 0x1a, 0xf3, 0xb5, 0x57, 0x13, 0x5e, 0x7f, 0x57, 0xc9, 0x35,
    0x98, 0x4f, 0x0c, 0x70, 0xe0, 0xe6, 0x8b, 0x77, 0xe2, 0xa6, 0x89, 0xda, 0xf3, 0xef, 0xe8, 0x72,
    0x1d, 0xf1, 0x58, 0xa1, 0x36, 0xad, 0xe7, 0x35, 0x30, 0xac, 0xca, 0x4f, 0x48, 0x3a, 0x79, 0x7a,
    0xbc, 0x0a, 0xb1, 0x82, 0xb3, 0x24, 0xfb, 0x61, 0xd1, 0x08, 0xa9, 0x4b, 0xb2, 0xc8, 0xe3, 0xfb,
    0xb9, 0x6a, 0xda, 0xb7, 0x60, 0xd7, 0xf4, 0x68, 0x1d, 0x4f, 0x42, 0xa3, 0xde, 0x39, 0x4d, 0xf4,
    0xae, 0x56, 0xed, 0xe7, 0x63, 0x72, 0xbb, 0x19, 0x0b, 0x07, 0xa7, 0xc8, 0xee, 0x0a, 0x6d, 0x70,
    0x9e, 0x02, 0xfc, 0xe1, 0xcd, 0xf7, 0xe2, 0xec, 0xc0, 0x34, 0x04, 0xcd, 0x28, 0x34, 0x2f, 0x61,
    0x91, 0x72, 0xfe, 0x9c, 0xe9, 0x85, 0x83, 0xff, 0x8e, 0x4f, 0x12, 0x32, 0xee, 0xf2, 0x81, 0x83,
    0xc3, 0xfe, 0x3b, 0x1b, 0x4c, 0x6f, 0xad, 0x73, 0x3b, 0xb5, 0xfc, 0xbc, 0x2e, 0xc2, 0x20, 0x05,
    0xc5, 0x8e, 0xf1, 0x83, 0x7d, 0x16, 0x83, 0xb2, 0xc6, 0xf3, 0x4a, 0x26, 0xc1, 0xb2, 0xef, 0xfa,
    0x88, 0x6b, 0x42, 0x38, 0x61, 0x1f, 0xcf, 0xdc, 0xde, 0x35, 0x5b, 0x3b, 0x65, 0x19, 0x03, 0x5b,
    0xbc, 0x34, 0xf4, 0xde, 0xf9, 0x9c, 0x02, 0x38, 0x61, 0xb4, 0x6f, 0xc9, 0xd6, 0xe6, 0xc9, 0x07,
    0x7a, 0xd9, 0x1d, 0x26, 0x91, 0xf7, 0xf7, 0xee, 0x59, 0x8c, 0xb0, 0xfa, 0xc1, 0x86, 0xd9, 0x1c,
    0xae, 0xfe, 0x13, 0x09, 0x85, 0x13, 0x92, 0x70, 0xb4, 0x13, 0x0c, 0x93, 0xbc, 0x43, 0x79, 0x44,
    0xf4, 0xfd, 0x44, 0x52, 0xe2, 0xd7, 0x4d, 0xd3, 0x64, 0xf2, 0xe2, 0x1e, 0x71, 0xf5, 0x4b, 0xff,
    0x5c, 0xae, 0x82, 0xab, 0x9c, 0x9d, 0xf6, 0x9e, 0xe8, 0x6d, 0x2b, 0xc5, 0x22, 0x36, 0x3a, 0x0d,
    0xab, 0xc5, 0x21, 0x97, 0x9b, 0x0d, 0xea, 0xda, 0x1d, 0xbf, 0x9a, 0x42, 0xd5, 0xc4, 0x48, 0x4e,
    0x0a, 0xbc, 0xd0, 0x6b, 0xfa, 0x53, 0xdd, 0xef, 0x3c, 0x1b, 0x20, 0xee, 0x3f, 0xd5, 0x9d, 0x7c,
    0x25, 0xe4, 0x1d, 0x2b, 0x66, 0x9e, 0x1e, 0xf1, 0x6e, 0x6f, 0x52, 0xc3, 0x16, 0x4d, 0xf4, 0xfb,
    0x79, 0x30, 0xe9, 0xe4, 0xe5, 0x88, 0x57, 0xb6, 0xac, 0x7d, 0x5f, 0x42, 0xd6, 0x9f, 0x6d, 0x18,
    0x77, 0x63, 0xcf, 0x1d, 0x55, 0x03, 0x40, 0x04, 0x87, 0xf5, 0x5b, 0xa5, 0x7e, 0x31, 0xcc, 0x7a,
    0x71, 0x35, 0xc8, 0x86, 0xef, 0xb4, 0x31, 0x8a, 0xed, 0x6a, 0x1e, 0x01, 0x2d, 0x9e, 0x68, 0x32,
    0xa9, 0x07, 0x60, 0x0a, 0x91, 0x81, 0x30, 0xc4, 0x6d, 0xc7, 0x78, 0xf9, 0x71, 0xad, 0x00, 0x38,
    0x09, 0x29, 0x99, 0xa3, 0x33, 0xcb, 0x8b, 0x7a, 0x1a, 0x1d, 0xb9, 0x3d, 0x71, 0x40, 0x00, 0x3c,
    0x2a, 0x4e, 0xce, 0xa9, 0xf9, 0x8d, 0x0a, 0xcc, 0x0a, 0x82, 0x91, 0xcd, 0xce, 0xc9, 0x7d, 0xcf,
    0x8e, 0xc9, 0xb5, 0x5a, 0x7f, 0x88, 0xa4, 0x6b, 0x4d, 0xb5, 0xa8, 0x51, 0xf4, 0x41, 0x82, 0xe1,
    0xc6, 0x8a, 0x00, 0x7e, 0x5e, 0x65, 0x5f, 0x6a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

struct FfdheGroup {
  const char* name;
  int named;          // WC_FFDHE_*, or 0 when this build does not ship the group
  const byte* prime;  // used when named is 0
  word32 prime_len;
};
const FfdheGroup kFfdhe[] = {
#ifdef HAVE_FFDHE_2048
    {"ffdhe2048", WC_FFDHE_2048, nullptr, 0},
#endif
#ifdef HAVE_FFDHE_3072
    {"ffdhe3072", WC_FFDHE_3072, nullptr, 0},
#endif
#ifdef HAVE_FFDHE_4096
    {"ffdhe4096", WC_FFDHE_4096, nullptr, 0},
#else
    {"ffdhe4096", 0, kFfdhe4096Prime, sizeof kFfdhe4096Prime},
#endif
};

const FfdheGroup* ffdhe_group(const std::string& alg) {
  for (const auto& g : kFfdhe)
    if (alg == g.name) return &g;
  return nullptr;
}

class DhGroup {
 public:
  explicit DhGroup(const FfdheGroup& group) {
    check(wc_InitDhKey(&key_), "DH init");
    if (group.named) {
      check(wc_DhSetNamedKey(&key_, group.named), "DH named group");
    } else {
      // Trusted: the RFC prime needs no primality test.
      static const byte kGenerator[] = {2};
      check(wc_DhSetCheckKey(&key_, group.prime, group.prime_len, kGenerator, sizeof kGenerator,
                             nullptr, 0, 1, nullptr),
            "DH group");
    }
    size_ = static_cast<size_t>(mp_unsigned_bin_size(&key_.p));
  }
  ~DhGroup() { wc_FreeDhKey(&key_); }
  DhGroup(const DhGroup&) = delete;
  DhGroup& operator=(const DhGroup&) = delete;
  DhKey* get() { return &key_; }
  size_t size() const { return size_; }

 private:
  DhKey key_;
  size_t size_ = 0;
};

class FfdhOp : public Operation {
 public:
  FfdhOp(const FfdheGroup& group, const Params& p)
      : dh_(group),
        x_(key_part(p.keypair, "x")),
        y_(fit(key_part(p.peer, "y"), dh_.size(), "DH y")) {}
  ~FfdhOp() override { std::fill(x_.begin(), x_.end(), 0); }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    const size_t k = dh_.size();
    word32 n = len32(k);
    // wc_DhAgree checks 1 < y < p - 1 and writes g^xy without leading zeros.
    check(wc_DhAgree(dh_.get(), out, &n, x_.data(), len32(x_.size()), y_.data(), len32(y_.size())),
          "DH");
    if (n < k) {
      std::memmove(out + (k - n), out, n);
      std::memset(out, 0, k - n);
    }
    return k;
  }

 private:
  DhGroup dh_;
  Bytes x_, y_;
};

KeyParts generate_ffdh(const FfdheGroup& group, WC_RNG* rng) {
  DhGroup dh(group);
  Bytes x(dh.size()), y(dh.size());
  word32 xl = len32(x.size()), yl = len32(y.size());
  // wolfCrypt picks the private exponent length itself (from the group's security level).
  check(wc_DhGenerateKeyPair(dh.get(), rng, x.data(), &xl, y.data(), &yl), "DH key generation");
  x.resize(xl);
  y.resize(yl);
  return {{"x", std::move(x)}, {"y", fit(y, dh.size(), "DH y")}};
}

#endif

// ---- key derivation

int hmac_type(const std::string& digest) {
  if (digest == "sha1") return WC_SHA;
  if (digest == "sha256") return WC_SHA256;
  if (digest == "sha512") return WC_SHA512;
  throw Unsupported("wolfssl: no HMAC digest '" + digest + "'");
}

int int_len(uint64_t n, const char* what) {
  if (n > INT32_MAX) throw Unsupported(std::string(what) + " too large for wolfCrypt");
  return static_cast<int>(n);
}

class KdfOp : public Operation {
 public:
  KdfOp(const AlgorithmInfo& info, const Params& p)
      : family_(info.family), salt_(p.salt), info_(p.info), out_len_(p.out_len) {
    if (family_ == "pbkdf2") {
      type_ = hmac_type(info.digest);
      iterations_ = int_len(cost_param(p, "iterations"), "PBKDF2 iteration count");
    } else if (family_ == "hkdf") {
      type_ = hmac_type(info.digest);
    } else {
      n_ = cost_param(p, "N");
      if (n_ > UINT32_MAX) throw Unsupported("scrypt N too large for wolfCrypt");
      r_ = int_len(cost_param(p, "r"), "scrypt r");
      p_ = int_len(cost_param(p, "p"), "scrypt p");
    }
    int_len(out_len_, "output length");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const int n = int_len(len, "input");
    const int out_len = static_cast<int>(out_len_);
    int ret = NOT_COMPILED_IN;
    if (family_ == "pbkdf2") {
#ifndef NO_PWDBASED
      ret = wc_PBKDF2(out, nonnull(in), n, nonnull(salt_.data()), static_cast<int>(salt_.size()),
                      iterations_, out_len, type_);
#endif
    } else if (family_ == "hkdf") {
#ifdef HAVE_HKDF
      // An empty salt goes in as NULL, which wc_HKDF turns into RFC 5869's zero salt.
      ret = wc_HKDF(type_, nonnull(in), len32(len), salt_.empty() ? nullptr : salt_.data(),
                    len32(salt_.size()), nonnull(info_.data()), len32(info_.size()), out,
                    len32(out_len_));
#endif
    } else {
#ifdef HAVE_SCRYPT
      ret = wc_scrypt_ex(out, nonnull(in), n, nonnull(salt_.data()), static_cast<int>(salt_.size()),
                         static_cast<word32>(n_), r_, p_, out_len);
#endif
    }
    check(ret, family_.c_str());
    return out_len_;
  }

 private:
  std::string family_;
  Bytes salt_, info_;
  size_t out_len_;
  int type_ = 0, iterations_ = 0, r_ = 0, p_ = 0;
  uint64_t n_ = 0;
};

// ---- keyload ------------------------------------------------------------------------------------
// Decoding a PKCS#8 private key or an X.509 certificate with wolfCrypt's calls, as a wolfCrypt
// application makes them: wc_KeyPemToDer / wc_CertPemToDer from PEM, then the decoder of the key
// type, which the application knows (here: the algorithm's): wc_RsaPrivateKeyDecode (it skips a
// PKCS#8 header itself); wc_EccPrivateKeyDecode after wc_GetPkcs8TraditionalOffset, as it reads
// only the SEC 1 key inside (the curve then follows from the key's size, as when wolfSSL loads a
// PKCS#8 key itself); wc_Ed25519PrivateKeyDecode (RFC 8410's PKCS#8); wc_ParseCert without
// verification (OpenSSL's d2i_X509 does not verify either). A PKCS#8 Ed25519 key holds only the
// seed: its public key is derived on load, as the other libraries' decoders do, since wolfCrypt
// signs only with both halves.

enum class Encoded { Rsa, Ec, Ed25519, Certificate };

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool pem_encoded(const AlgorithmInfo& info) {
  const std::string& n = info.name;
  return n.size() > 4 && n.compare(n.size() - 4, 4, "-pem") == 0;
}

bool keyload_offered(const AlgorithmInfo& info) {
  if (info.kind != Kind::Keyload) return false;
#ifndef WOLFSSL_PEM_TO_DER
  if (pem_encoded(info)) return false;
#endif
  const std::string& type = info.key_type;
#if !defined(NO_RSA) && defined(WC_RSA_PSS) && defined(WOLFSSL_KEY_GEN) && !defined(NO_CERTS)
  if (starts_with(type, "rsa-")) return true;  // the key, or a certificate of it
#endif
#ifdef HAVE_ECC
  if (starts_with(type, "ecdsa-") && !starts_with(info.name, "x509-"))
    return ecc_curve_available(ecc_curve(type));
#endif
#if defined(HAVE_ED25519) && defined(HAVE_ED25519_KEY_IMPORT)
  if (type == "ed25519" && !starts_with(info.name, "x509-")) return true;
#endif
  return false;
}

#if defined(HAVE_ED25519) && defined(HAVE_ED25519_KEY_IMPORT)
class Ed25519Key {
 public:
  Ed25519Key() { check(wc_ed25519_init(&key_), "Ed25519 init"); }
  ~Ed25519Key() { wc_ed25519_free(&key_); }
  Ed25519Key(const Ed25519Key&) = delete;
  Ed25519Key& operator=(const Ed25519Key&) = delete;
  ed25519_key* get() { return &key_; }

 private:
  ed25519_key key_;
};
#endif

#ifndef NO_CERTS
class ParsedCert {
 public:
  ParsedCert(const byte* der, word32 len) { wc_InitDecodedCert(&cert_, der, len, nullptr); }
  ~ParsedCert() { wc_FreeDecodedCert(&cert_); }
  ParsedCert(const ParsedCert&) = delete;
  ParsedCert& operator=(const ParsedCert&) = delete;
  DecodedCert* get() { return &cert_; }

 private:
  DecodedCert cert_;
};
#endif

class KeyloadOp : public Operation {
 public:
  explicit KeyloadOp(const AlgorithmInfo& info)
      : key_type_(info.key_type),
        type_(starts_with(info.name, "x509-")        ? Encoded::Certificate
              : starts_with(info.key_type, "rsa-")   ? Encoded::Rsa
              : starts_with(info.key_type, "ecdsa-") ? Encoded::Ec
                                                     : Encoded::Ed25519),
        pem_(pem_encoded(info)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    decode(in, len, nullptr);
    return 0;
  }
  // Decodes `in`; with `parts`, also reads the decoded key's parts out (Provider::decode_key): all
  // of a private key's, the public ones of a certificate's key.
  void decode(const uint8_t* in, size_t len, KeyParts* parts) {
    const byte* der = nonnull(in);
    word32 der_len = len32(len);
#ifdef WOLFSSL_PEM_TO_DER
    if (pem_) {
      der_.resize(len + 1);  // the DER is shorter than its PEM armour
      const int size = static_cast<int>(der_len);
      const int n = type_ == Encoded::Certificate
                        ? wc_CertPemToDer(der, size, der_.data(), size, CERT_TYPE)
                        : wc_KeyPemToDer(der, size, der_.data(), size, nullptr);
      if (n < 0) check(n, "PEM to DER");
      der = der_.data();
      der_len = static_cast<word32>(n);
    }
#endif
    switch (type_) {
#if !defined(NO_RSA) && defined(WC_RSA_PSS) && defined(WOLFSSL_KEY_GEN)
      case Encoded::Rsa: {
        RsaKeyHolder key;
        word32 idx = 0;
        check(wc_RsaPrivateKeyDecode(der, &idx, key.get(), der_len), "decode RSA private key");
        if (parts) *parts = rsa_parts(key.get());
        return;
      }
#ifndef NO_CERTS
      case Encoded::Certificate: {
        ParsedCert cert(der, der_len);
        check(wc_ParseCert(cert.get(), CERT_TYPE, NO_VERIFY, nullptr), "decode certificate");
        if (parts) *parts = certificate_rsa_key(cert.get());
        return;
      }
#endif
#endif
#ifdef HAVE_ECC
      case Encoded::Ec: {
        EccKey key(ecc_curve(key_type_));
        word32 idx = 0;
        // A PKCS#8 header is skipped if there is one (wc_KeyPemToDer may have removed it already).
        // The function only reads its input; its parameter is not const.
        if (wc_GetPkcs8TraditionalOffset(const_cast<byte*>(der), &idx, der_len) < 0) idx = 0;
        check(wc_EccPrivateKeyDecode(der, &idx, key.get(), der_len), "decode EC private key");
        if (!parts) return;
        if (!key.get()->dp || key.get()->dp->id != ecc_curve(key_type_))
          throw Error("wolfssl keyload: the " + key_type_ + " key decoded on another curve");
        *parts = key.parts();
        return;
      }
#endif
#if defined(HAVE_ED25519) && defined(HAVE_ED25519_KEY_IMPORT)
      case Encoded::Ed25519: {
        Ed25519Key key;
        word32 idx = 0;
        check(wc_Ed25519PrivateKeyDecode(der, &idx, key.get(), der_len),
              "decode Ed25519 private key");
        byte seed[ED25519_KEY_SIZE], pub[ED25519_PUB_KEY_SIZE];
        word32 seed_len = sizeof seed, pub_len = sizeof pub;
        check(wc_ed25519_export_private_only(key.get(), seed, &seed_len), "Ed25519 seed");
        if (!key.get()->pubKeySet) {
          check(wc_ed25519_make_public(key.get(), pub, sizeof pub), "Ed25519 public key");
          check(wc_ed25519_import_private_key(seed, seed_len, pub, sizeof pub, key.get()),
                "Ed25519 key");
        }
        if (parts) {
          check(wc_ed25519_export_public(key.get(), pub, &pub_len), "Ed25519 public key");
          *parts = {{"priv", Bytes(seed, seed + seed_len)}, { "pub", Bytes(pub, pub + pub_len) }};
        }
        std::memset(seed, 0, sizeof seed);
        return;
      }
#endif
      default:
        break;
    }
    throw Unsupported("wolfssl does not decode " + key_type_ + " keys in this build");
  }

 private:
#if !defined(NO_RSA) && defined(WC_RSA_PSS) && defined(WOLFSSL_KEY_GEN) && !defined(NO_CERTS)
  // The certificate's subject key, from its SubjectPublicKeyInfo.
  static KeyParts certificate_rsa_key(DecodedCert* cert) {
    byte spki[2 * RSA_MAX_SIZE / 8 + 64];
    word32 spki_len = sizeof spki;
    check(wc_GetPubKeyDerFromCert(cert, spki, &spki_len), "certificate public key");
    RsaKeyHolder key;
    word32 idx = 0;
    check(wc_RsaPublicKeyDecode(spki, &idx, key.get(), spki_len), "certificate RSA key");
    return {{"n", mp_bytes(&key.get()->n)}, { "e", mp_bytes(&key.get()->e) }};
  }
#endif

  std::string key_type_;
  Encoded type_;
  bool pem_;
  Bytes der_;  // the DER decoded from PEM; its capacity is kept from run to run
};

// ---- what this build has ----------------------------------------------------------------------

void add_public_key(std::vector<std::string>& v) {
#if !defined(NO_RSA) && defined(WC_RSA_PSS) && defined(WOLFSSL_KEY_GEN)
  for (const char* bits : {"1024", "2048", "3072", "4096"}) {
    const std::string type = std::string("rsa-") + bits;
    if (std::stoi(bits) > RSA_MAX_SIZE) continue;
    for (const char* suffix : {"", "-pkcs1-sha256", "-pss-sha256", "-oaep-sha256"})
      v.push_back(type + suffix);
  }
  v.push_back("rsa-2048-pkcs1v15-enc");
#endif
#ifdef HAVE_ECC
  for (const char* alg : {"ecdsa-p256", "ecdsa-p384", "ecdsa-p521", "ecdh-p256", "ecdh-p384"})
    if (ecc_curve_available(ecc_curve(alg))) v.push_back(alg);
#endif
#ifdef HAVE_ED25519
  v.push_back("ed25519");
#endif
#ifdef HAVE_ED448
  v.push_back("ed448");
#endif
#ifdef HAVE_CURVE25519
  v.push_back("x25519");
#endif
#ifdef HAVE_CURVE448
  v.push_back("x448");
#endif
#ifndef NO_DH
  for (const auto& g : kFfdhe) v.push_back(g.name);
#endif
#if !defined(NO_PWDBASED) && !defined(NO_HMAC)
#ifndef NO_SHA
  v.push_back("pbkdf2-sha1");
#endif
  v.push_back("pbkdf2-sha256");
#ifdef WOLFSSL_SHA512
  v.push_back("pbkdf2-sha512");
#endif
#endif
#ifdef HAVE_SCRYPT
  v.push_back("scrypt");
#endif
#ifdef HAVE_HKDF
  v.push_back("hkdf-sha256");
#endif
}

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
  add_public_key(v);
  for (const auto& a : cb::algorithms())
    if (keyload_offered(a)) v.push_back(a.name);
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
  // Public-key arithmetic: which big-integer library, and whether the specialised (and, on
  // x86-64, assembly) single-precision code for fixed RSA/ECC/DH sizes is in.
#ifdef WOLFSSL_SP_MATH_ALL
  add("WOLFSSL_SP_MATH_ALL");
#endif
#ifdef WOLFSSL_SP_MATH
  add("WOLFSSL_SP_MATH");
#endif
#ifdef USE_FAST_MATH
  add("USE_FAST_MATH");
#endif
#ifdef WOLFSSL_HAVE_SP_RSA
  add("WOLFSSL_HAVE_SP_RSA");
#endif
#ifdef WOLFSSL_HAVE_SP_ECC
  add("WOLFSSL_HAVE_SP_ECC");
#endif
#ifdef WOLFSSL_HAVE_SP_DH
  add("WOLFSSL_HAVE_SP_DH");
#endif
#ifdef WOLFSSL_SP_ASM
  add("WOLFSSL_SP_ASM");
#endif
#ifdef FP_ECC
  add("FP_ECC");
#endif
#ifdef ECC_TIMING_RESISTANT
  add("ECC_TIMING_RESISTANT");
#endif
#ifdef WC_RSA_BLINDING
  add("WC_RSA_BLINDING");
#endif
#ifdef CURVED25519_X64
  add("CURVED25519_X64");
#endif
#ifdef CURVE25519_SMALL
  add("CURVE25519_SMALL");
#endif
#ifdef ED25519_SMALL
  add("ED25519_SMALL");
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
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  // A wrong tag is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    if (encrypt_) {
      const word32 n = len32(len);
      check(wc_AesGcmEncrypt(aes_.get(), out, in, n, iv_.data(), len32(iv_.size()), out + n,
                             len32(tag_len_), aad_.data(), len32(aad_.size())),
            "GCM encrypt");
      out_len = len + tag_len_;
      return true;
    }
    if (len < tag_len_) throw Error("ciphertext shorter than the tag");
    const word32 body = len32(len - tag_len_);
    const int ret = wc_AesGcmDecrypt(aes_.get(), out, in, body, iv_.data(), len32(iv_.size()),
                                     in + body, len32(tag_len_), aad_.data(), len32(aad_.size()));
    if (ret == AES_GCM_AUTH_E) return false;
    check(ret, "GCM decrypt");
    out_len = body;
    return true;
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
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  // A wrong tag is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
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
    if (!encrypt_ && ret == MAC_CMP_FAILED_E) return false;
    check(ret, "ChaCha20-Poly1305");
    out_len = encrypt_ ? len + kTag : body;
    return true;
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

// The in-memory TLS 1.3 handshake (catalogue kind `handshake`).
#include "wolfssl_tls.hpp"

class WolfsslProvider : public Provider {
 public:
  std::string name() const override { return "wolfssl"; }
  std::string version() const override { return wolfSSL_lib_version(); }
  std::vector<Variant> variants() const override {
    return {{"default", "wolfCrypt as built (code path fixed at compile time; see code_path)", {}}};
  }
  ~WolfsslProvider() override {
    if (rng_ready_) wc_FreeRng(&rng_);
  }
  void init(const std::string&) override {
    check(wolfCrypt_Init(), "wolfCrypt_Init");
    check(wc_InitRng(&rng_), "RNG init");
    rng_ready_ = true;
  }
  std::vector<std::string> algorithms() const override {
    auto out = compiled_algorithms();
    for (auto& name : wolf_tls_algorithms()) out.push_back(std::move(name));
    return out;
  }

  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (info->kind == Kind::Handshake) return prepare_handshake(algorithm, params);
    const auto offered = compiled_algorithms();
    if (std::find(offered.begin(), offered.end(), algorithm) == offered.end())
      throw Unsupported("wolfssl does not offer " + algorithm);
    if (info->kind == Kind::Keyload) return std::make_unique<KeyloadOp>(*info);
    if (is_public_key(info->kind) || info->kind == Kind::Kdf)
      return make_pk(*info, op, params, &rng_);
    check_param_sizes(*info, params);
    return make(*info, op, params);
  }

  std::unique_ptr<HandshakeOperation> prepare_handshake(const std::string& algorithm,
                                                        const Params& params) override {
    return prepare_wolf_tls_handshake(algorithm, params);
  }

  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params&) override {
    throw Unsupported("wolfssl has no MAC verification of " + algorithm +
                      " and no public constant-time comparison (its ConstantCompare is internal)");
  }
  KeyParts decode_key(const std::string& algorithm, const Bytes& encoded) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keyload);
    if (!keyload_offered(info)) throw Unsupported("wolfssl does not decode " + algorithm);
    KeyParts parts;
    KeyloadOp(info).decode(encoded.data(), encoded.size(), &parts);
    return parts;
  }

  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    const auto offered = compiled_algorithms();
    if (std::find(offered.begin(), offered.end(), algorithm) == offered.end())
      throw Unsupported("wolfssl cannot generate " + algorithm + " keys");
#if !defined(NO_RSA) && defined(WC_RSA_PSS) && defined(WOLFSSL_KEY_GEN)
    if (info.kind == Kind::KeyPair) return generate_rsa(info, &rng_);
#endif
#ifdef HAVE_ECC
    if (ecc_curve_available(ecc_curve(algorithm)))
      return EccKey(ecc_curve(algorithm)).generate(&rng_);
#endif
#ifndef NO_DH
    if (const FfdheGroup* group = ffdhe_group(algorithm)) return generate_ffdh(*group, &rng_);
#endif
    return generate_curve_key(algorithm);
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
#if defined(WOLFSSL_HAVE_SP_RSA) || defined(WOLFSSL_HAVE_SP_ECC) || defined(WOLFSSL_HAVE_SP_DH)
    out["pk_math"] = "SP code for fixed key sizes compiled in (see build_flags)";
#else
    out["pk_math"] = "generic multi-precision integers only: no SP RSA/ECC/DH code in this build";
#endif
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

  static std::unique_ptr<Operation> make_pk(const AlgorithmInfo& info, OpKind op, const Params& p,
                                            WC_RNG* rng) {
    const std::string& a = info.name;
#if !defined(NO_RSA) && defined(WC_RSA_PSS) && defined(WOLFSSL_KEY_GEN)
    if (info.family == "rsa-pkcs1" || info.family == "rsa-pss" || info.family == "rsa-oaep" ||
        info.family == "rsa-pkcs1v15-enc")
      return std::make_unique<RsaOp>(info, op, p, rng);
#endif
#ifdef HAVE_ECC
    if (info.family == "ecdsa") return std::make_unique<EcdsaOp>(info, op, p, rng);
    if (info.family == "ecdh") return std::make_unique<EcdhOp>(info, p, rng);
#endif
#ifdef HAVE_ED25519
    if (a == "ed25519") return std::make_unique<Ed25519Op>(op, p);
#endif
#ifdef HAVE_ED448
    if (a == "ed448") return std::make_unique<Ed448Op>(op, p);
#endif
#ifdef HAVE_CURVE25519
    if (a == "x25519") return std::make_unique<X25519Op>(p);
#endif
#ifdef HAVE_CURVE448
    if (a == "x448") return std::make_unique<X448Op>(p);
#endif
#ifndef NO_DH
    if (const FfdheGroup* group = ffdhe_group(a)) return std::make_unique<FfdhOp>(*group, p);
#endif
    if (info.kind == Kind::Kdf) return std::make_unique<KdfOp>(info, p);
    throw Unsupported("wolfssl does not offer " + a);
  }

  // Ed25519, Ed448, X25519 and X448 key pairs, exported in their RFC 8032 / RFC 7748 encodings.
  KeyParts generate_curve_key(const std::string& a) {
#ifdef HAVE_ED25519
    if (a == "ed25519") {
      ed25519_key key;
      check(wc_ed25519_init(&key), "Ed25519 init");
      Bytes priv(ED25519_KEY_SIZE), pub(ED25519_PUB_KEY_SIZE);
      word32 pl = ED25519_KEY_SIZE, ul = ED25519_PUB_KEY_SIZE;
      int ret = wc_ed25519_make_key(&rng_, ED25519_KEY_SIZE, &key);
      if (ret == 0) ret = wc_ed25519_export_private_only(&key, priv.data(), &pl);
      if (ret == 0) ret = wc_ed25519_export_public(&key, pub.data(), &ul);
      wc_ed25519_free(&key);
      check(ret, "Ed25519 key generation");
      return {{"priv", std::move(priv)}, { "pub", std::move(pub) }};
    }
#endif
#ifdef HAVE_ED448
    if (a == "ed448") {
      ed448_key key;
      check(wc_ed448_init(&key), "Ed448 init");
      Bytes priv(ED448_KEY_SIZE), pub(ED448_PUB_KEY_SIZE);
      word32 pl = ED448_KEY_SIZE, ul = ED448_PUB_KEY_SIZE;
      int ret = wc_ed448_make_key(&rng_, ED448_KEY_SIZE, &key);
      if (ret == 0) ret = wc_ed448_export_private_only(&key, priv.data(), &pl);
      if (ret == 0) ret = wc_ed448_export_public(&key, pub.data(), &ul);
      wc_ed448_free(&key);
      check(ret, "Ed448 key generation");
      return {{"priv", std::move(priv)}, { "pub", std::move(pub) }};
    }
#endif
#ifdef HAVE_CURVE25519
    if (a == "x25519") {
      curve25519_key key;
      check(wc_curve25519_init(&key), "X25519 init");
      Bytes priv(CURVE25519_KEYSIZE), pub(CURVE25519_KEYSIZE);
      word32 pl = CURVE25519_KEYSIZE, ul = CURVE25519_KEYSIZE;
      int ret = wc_curve25519_make_key(&rng_, CURVE25519_KEYSIZE, &key);
      if (ret == 0)
        ret = wc_curve25519_export_key_raw_ex(&key, priv.data(), &pl, pub.data(), &ul,
                                              EC25519_LITTLE_ENDIAN);
      wc_curve25519_free(&key);
      check(ret, "X25519 key generation");
      return {{"priv", std::move(priv)}, { "pub", std::move(pub) }};
    }
#endif
#ifdef HAVE_CURVE448
    if (a == "x448") {
      curve448_key key;
      check(wc_curve448_init(&key), "X448 init");
      Bytes priv(CURVE448_KEY_SIZE), pub(CURVE448_PUB_KEY_SIZE);
      word32 pl = CURVE448_KEY_SIZE, ul = CURVE448_PUB_KEY_SIZE;
      int ret = wc_curve448_make_key(&rng_, CURVE448_KEY_SIZE, &key);
      if (ret == 0)
        ret = wc_curve448_export_key_raw_ex(&key, priv.data(), &pl, pub.data(), &ul,
                                            EC448_LITTLE_ENDIAN);
      wc_curve448_free(&key);
      check(ret, "X448 key generation");
      return {{"priv", std::move(priv)}, { "pub", std::move(pub) }};
    }
#endif
    throw Unsupported("wolfssl cannot generate " + a + " keys");
  }

  WC_RNG rng_{};
  bool rng_ready_ = false;
};

}  // namespace

CB_REGISTER_PROVIDER("wolfssl", WolfsslProvider);

}  // namespace cb
