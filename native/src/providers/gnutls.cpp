// GnuTLS 3.7 adapter, through its crypto API (gnutls_cipher_*, gnutls_aead_cipher_*,
// gnutls_hash_*, gnutls_hmac_*). GnuTLS registers its own assembly (AES-NI, PCLMUL, SSSE3,
// SHA-NI; OpenSSL's CRYPTOGAMS code) in front of Nettle, which does everything else and makes
// its own run-time CPU selection. The variants switch these two layers off one after the other.
// Public-key operations go through the abstract key API (gnutls_privkey_* / gnutls_pubkey_*);
// keyload decodes PKCS#8 keys into it and certificates into a gnutls_x509_crt_t. The handshake
// kind is a client and a server session over in-memory transport functions.
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"
#include "cryptobench/tls_driver.hpp"

namespace cb {
namespace {

void check(int ret, const char* what) {
  if (ret < 0) throw Error(std::string("GnuTLS ") + what + ": " + gnutls_strerror(ret));
}

struct Row {
  const char* ours;
  int algo;  // gnutls_cipher_algorithm_t, gnutls_digest_algorithm_t or gnutls_mac_algorithm_t
};
// GnuTLS has no AES-CFB128 (only CFB8), OFB or CTR.
constexpr Row kCiphers[] = {
    {"aes-128-cbc", GNUTLS_CIPHER_AES_128_CBC},
    {"aes-192-cbc", GNUTLS_CIPHER_AES_192_CBC},
    {"aes-256-cbc", GNUTLS_CIPHER_AES_256_CBC},
    {"aes-128-xts", GNUTLS_CIPHER_AES_128_XTS},
    {"aes-256-xts", GNUTLS_CIPHER_AES_256_XTS},
    {"des-ede3-cbc", GNUTLS_CIPHER_3DES_CBC},
    // The 32-bit-counter variant is RFC 8439's; its IV is the counter followed by the nonce.
    {"chacha20", GNUTLS_CIPHER_CHACHA20_32},
    // "SALSA20-256" is Salsa20/20; GnuTLS's "ESTREAM-SALSA20-256" is the 12-round Salsa20/12.
    {"salsa20", GNUTLS_CIPHER_SALSA20_256},
};
constexpr Row kAeads[] = {
    {"aes-128-gcm", GNUTLS_CIPHER_AES_128_GCM},
    {"aes-192-gcm", GNUTLS_CIPHER_AES_192_GCM},
    {"aes-256-gcm", GNUTLS_CIPHER_AES_256_GCM},
    {"chacha20-poly1305", GNUTLS_CIPHER_CHACHA20_POLY1305},
};
constexpr Row kDigests[] = {
    {"md5", GNUTLS_DIG_MD5},           {"sha1", GNUTLS_DIG_SHA1},
    {"sha224", GNUTLS_DIG_SHA224},     {"sha256", GNUTLS_DIG_SHA256},
    {"sha384", GNUTLS_DIG_SHA384},     {"sha512", GNUTLS_DIG_SHA512},
    {"sha3-256", GNUTLS_DIG_SHA3_256}, {"sha3-512", GNUTLS_DIG_SHA3_512},
    {"ripemd160", GNUTLS_DIG_RMD160},
};
constexpr Row kMacs[] = {
    {"hmac-sha256", GNUTLS_MAC_SHA256},
    {"hmac-sha512", GNUTLS_MAC_SHA512},
    {"cmac-aes128", GNUTLS_MAC_AES_CMAC_128},
    {"cmac-aes256", GNUTLS_MAC_AES_CMAC_256},
};

template <size_t N>
const Row* lookup(const Row (&table)[N], const std::string& ours) {
  for (const auto& row : table)
    if (ours == row.ours) return &row;
  return nullptr;
}

gnutls_datum_t datum(const Bytes& b) {
  return {const_cast<unsigned char*>(b.data()), static_cast<unsigned int>(b.size())};
}

// GnuTLS's IV for the catalogue's IV: the RFC 8439 ChaCha20 IV carries the block counter.
Bytes gnutls_iv(gnutls_cipher_algorithm_t algo, const Bytes& iv) {
  Bytes out = iv;
  if (algo == GNUTLS_CIPHER_CHACHA20_32) out.insert(out.begin(), 4, 0);  // counter 0, LE
  return out;
}

class CipherOp : public Operation {
 public:
  CipherOp(const std::string& alg, gnutls_cipher_algorithm_t algo, OpKind op, const Params& p)
      : encrypt_(op == OpKind::Encrypt), iv_(gnutls_iv(algo, p.iv)) {
    if (iv_.size() != gnutls_cipher_get_iv_size(algo))
      throw Unsupported(alg + ": wrong IV length for GnuTLS");
    gnutls_datum_t key = datum(p.key), iv = datum(iv_);
    check(gnutls_cipher_init(&h_, algo, &key, &iv), "cipher init");
  }
  ~CipherOp() override { gnutls_cipher_deinit(h_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    gnutls_cipher_set_iv(h_, iv_.data(), iv_.size());
    check(encrypt_ ? gnutls_cipher_encrypt2(h_, in, len, out, len)
                   : gnutls_cipher_decrypt2(h_, in, len, out, len),
          encrypt_ ? "encrypt" : "decrypt");
    return len;
  }

 private:
  bool encrypt_;
  Bytes iv_;
  gnutls_cipher_hd_t h_ = nullptr;
};

class AeadOp : public Operation {
 public:
  AeadOp(const AlgorithmInfo& info, gnutls_cipher_algorithm_t algo, OpKind op, const Params& p)
      : encrypt_(op == OpKind::Encrypt), tag_len_(info.tag_len), iv_(p.iv), aad_(p.aad) {
    gnutls_datum_t key = datum(p.key);
    check(gnutls_aead_cipher_init(&h_, algo, &key), "AEAD init");
  }
  ~AeadOp() override { gnutls_aead_cipher_deinit(h_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  // A wrong tag is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    if (encrypt_) {
      size_t n = len + tag_len_;  // room in out; GnuTLS writes ciphertext || tag
      check(gnutls_aead_cipher_encrypt(h_, iv_.data(), iv_.size(), aad_.data(), aad_.size(),
                                       tag_len_, in, len, out, &n),
            "AEAD encrypt");
      out_len = n;
      return true;
    }
    if (len < tag_len_) throw Error("ciphertext shorter than the tag");
    size_t n = len - tag_len_;
    const int ret = gnutls_aead_cipher_decrypt(h_, iv_.data(), iv_.size(), aad_.data(), aad_.size(),
                                               tag_len_, in, len, out, &n);
    if (ret == GNUTLS_E_DECRYPTION_FAILED) return false;
    check(ret, "AEAD decrypt");
    out_len = n;
    return true;
  }

 private:
  bool encrypt_;
  size_t tag_len_;
  Bytes iv_, aad_;
  gnutls_aead_cipher_hd_t h_ = nullptr;
};

class DigestOp : public Operation {
 public:
  explicit DigestOp(gnutls_digest_algorithm_t algo) : size_(gnutls_hash_get_len(algo)) {
    check(gnutls_hash_init(&h_, algo), "hash init");
  }
  ~DigestOp() override { gnutls_hash_deinit(h_, nullptr); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // gnutls_hash_output also resets the state, which makes it the init of the next message.
    check(gnutls_hash(h_, in, len), "hash");
    gnutls_hash_output(h_, out);
    return size_;
  }

 private:
  size_t size_;
  gnutls_hash_hd_t h_ = nullptr;
};

class MacOp : public Operation {
 public:
  MacOp(gnutls_mac_algorithm_t algo, const Params& p) : size_(gnutls_hmac_get_len(algo)) {
    check(gnutls_hmac_init(&h_, algo, p.key.data(), p.key.size()), "MAC init");
  }
  ~MacOp() override { gnutls_hmac_deinit(h_, nullptr); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // gnutls_hmac_output resets to the keyed initial state: the restart for the next message.
    check(gnutls_hmac(h_, in, len), "MAC");
    gnutls_hmac_output(h_, out);
    return size_;
  }

 private:
  size_t size_;
  gnutls_hmac_hd_t h_ = nullptr;
};

// ---- public-key operations ----------------------------------------------------------------------
// GnuTLS 3.7 has signatures, RSA key generation and PKCS#1 v1.5 encryption in its public API, but
// no RSA-OAEP (3.8.4) and no raw key agreement (gnutls_privkey_derive_secret, 3.8.2): its ECDH and
// FFDH run only inside a TLS handshake. So it offers signatures and key pairs, no OAEP, no key
// agreement.

struct SigRow {
  const char* ours;
  int pk;     // gnutls_pk_algorithm_t
  int curve;  // gnutls_ecc_curve_t, GNUTLS_ECC_CURVE_INVALID for RSA
  int sign;   // gnutls_sign_algorithm_t, GNUTLS_SIGN_UNKNOWN for a key pair only
};
// PSS on an rsaEncryption key is GnuTLS's "RSAE" flavour; GNUTLS_SIGN_RSA_PSS_SHA256 would need
// an RSA-PSS-restricted key. Salt length = digest length (32), as the catalogue says.
// Known library behaviour, measured as it is: GnuTLS 3.7.9 (Nettle) accepts an Ed448 signature
// whose last octet -- the top byte of S, zero in every valid signature -- is not zero.
constexpr SigRow kSignatures[] = {
    {"rsa-1024", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_UNKNOWN},
    {"rsa-2048", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_UNKNOWN},
    {"rsa-3072", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_UNKNOWN},
    {"rsa-4096", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_UNKNOWN},
    {"rsa-1024-pkcs1-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_SHA256},
    {"rsa-2048-pkcs1-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_SHA256},
    {"rsa-3072-pkcs1-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_SHA256},
    {"rsa-4096-pkcs1-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID, GNUTLS_SIGN_RSA_SHA256},
    {"rsa-1024-pss-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID,
     GNUTLS_SIGN_RSA_PSS_RSAE_SHA256},
    {"rsa-2048-pss-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID,
     GNUTLS_SIGN_RSA_PSS_RSAE_SHA256},
    {"rsa-3072-pss-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID,
     GNUTLS_SIGN_RSA_PSS_RSAE_SHA256},
    {"rsa-4096-pss-sha256", GNUTLS_PK_RSA, GNUTLS_ECC_CURVE_INVALID,
     GNUTLS_SIGN_RSA_PSS_RSAE_SHA256},
    {"ecdsa-p256", GNUTLS_PK_ECDSA, GNUTLS_ECC_CURVE_SECP256R1, GNUTLS_SIGN_ECDSA_SHA256},
    {"ecdsa-p384", GNUTLS_PK_ECDSA, GNUTLS_ECC_CURVE_SECP384R1, GNUTLS_SIGN_ECDSA_SHA384},
    {"ecdsa-p521", GNUTLS_PK_ECDSA, GNUTLS_ECC_CURVE_SECP521R1, GNUTLS_SIGN_ECDSA_SHA512},
    {"ed25519", GNUTLS_PK_EDDSA_ED25519, GNUTLS_ECC_CURVE_ED25519, GNUTLS_SIGN_EDDSA_ED25519},
    {"ed448", GNUTLS_PK_EDDSA_ED448, GNUTLS_ECC_CURVE_ED448, GNUTLS_SIGN_EDDSA_ED448},
};

const SigRow* lookup_sig(const std::string& ours) {
  for (const auto& row : kSignatures)
    if (ours == row.ours) return &row;
  return nullptr;
}

// A datum GnuTLS allocated.
struct OwnedDatum {
  gnutls_datum_t d{nullptr, 0};
  OwnedDatum() = default;
  OwnedDatum(const OwnedDatum&) = delete;
  OwnedDatum& operator=(const OwnedDatum&) = delete;
  ~OwnedDatum() { gnutls_free(d.data); }
  Bytes bytes() const { return Bytes(d.data, d.data + d.size); }
};

// Some GnuTLS functions read a datum's data pointer even when its size is 0.
gnutls_datum_t view(const uint8_t* p, size_t n) {
  static uint8_t dummy = 0;
  return {const_cast<unsigned char*>(n ? p : &dummy), static_cast<unsigned int>(n)};
}
gnutls_datum_t view(const Bytes& b) { return view(b.data(), b.size()); }

// Key parts may have leading zeros or be short; the r||s and x/y encodings are fixed-width.
Bytes fixed_width(const uint8_t* p, size_t n, size_t width) {
  size_t skip = 0;
  while (skip < n && p[skip] == 0) ++skip;
  if (n - skip > width) throw Error("integer longer than " + std::to_string(width) + " bytes");
  Bytes out(width - (n - skip), 0);
  out.insert(out.end(), p + skip, p + n);
  return out;
}
Bytes fixed_width(const gnutls_datum_t& d, size_t width) {
  return fixed_width(d.data, d.size, width);
}

// Minimal big-endian form (at least one byte): DER integers must not carry extra zeros.
Bytes minimal(const uint8_t* p, size_t n) {
  size_t skip = 0;
  while (skip + 1 < n && p[skip] == 0) ++skip;
  return Bytes(p + skip, p + n);
}

bool is_eddsa(const SigRow& row) {
  return row.pk == GNUTLS_PK_EDDSA_ED25519 || row.pk == GNUTLS_PK_EDDSA_ED448;
}

size_t width_of(const AlgorithmInfo& info) { return (info.bits + 7) / 8; }

class PrivKey {
 public:
  PrivKey() { check(gnutls_privkey_init(&k_), "privkey init"); }
  ~PrivKey() { gnutls_privkey_deinit(k_); }
  PrivKey(const PrivKey&) = delete;
  PrivKey& operator=(const PrivKey&) = delete;
  gnutls_privkey_t get() const { return k_; }

 private:
  gnutls_privkey_t k_ = nullptr;
};

class PubKey {
 public:
  PubKey() { check(gnutls_pubkey_init(&k_), "pubkey init"); }
  ~PubKey() { gnutls_pubkey_deinit(k_); }
  PubKey(const PubKey&) = delete;
  PubKey& operator=(const PubKey&) = delete;
  gnutls_pubkey_t get() const { return k_; }

 private:
  gnutls_pubkey_t k_ = nullptr;
};

void import_private(const SigRow& row, const KeyParts& k, gnutls_privkey_t key) {
  if (row.pk == GNUTLS_PK_RSA) {
    // GnuTLS's coefficient u is q^-1 mod p (Nettle's c), i.e. PKCS#1's qInv; e1, e2 = dp, dq.
    const gnutls_datum_t n = view(key_part(k, "n")), e = view(key_part(k, "e")),
                         d = view(key_part(k, "d")), p = view(key_part(k, "p")),
                         q = view(key_part(k, "q")), u = view(key_part(k, "qinv")),
                         e1 = view(key_part(k, "dp")), e2 = view(key_part(k, "dq"));
    check(gnutls_privkey_import_rsa_raw(key, &n, &e, &d, &p, &q, &u, &e1, &e2), "RSA key import");
    return;
  }
  const auto curve = static_cast<gnutls_ecc_curve_t>(row.curve);
  if (is_eddsa(row)) {
    const gnutls_datum_t pub = view(key_part(k, "pub")), priv = view(key_part(k, "priv"));
    check(gnutls_privkey_import_ecc_raw(key, curve, &pub, nullptr, &priv), "EdDSA key import");
    return;
  }
  const gnutls_datum_t x = view(key_part(k, "x")), y = view(key_part(k, "y")),
                       d = view(key_part(k, "d"));
  check(gnutls_privkey_import_ecc_raw(key, curve, &x, &y, &d), "EC key import");
}

void import_public(const SigRow& row, const KeyParts& k, gnutls_pubkey_t key) {
  if (row.pk == GNUTLS_PK_RSA) {
    const gnutls_datum_t n = view(key_part(k, "n")), e = view(key_part(k, "e"));
    check(gnutls_pubkey_import_rsa_raw(key, &n, &e), "RSA public key import");
    return;
  }
  const auto curve = static_cast<gnutls_ecc_curve_t>(row.curve);
  if (is_eddsa(row)) {
    const gnutls_datum_t pub = view(key_part(k, "pub"));
    check(gnutls_pubkey_import_ecc_raw(key, curve, &pub, nullptr), "EdDSA public key import");
    return;
  }
  const gnutls_datum_t x = view(key_part(k, "x")), y = view(key_part(k, "y"));
  check(gnutls_pubkey_import_ecc_raw(key, curve, &x, &y), "EC public key import");
}

// gnutls_privkey_sign_data2 hashes the message itself (or signs it as is, for EdDSA) and returns
// a freshly allocated signature, ECDSA's as DER.
class SignOp : public Operation {
 public:
  SignOp(const SigRow& row, const AlgorithmInfo& info, const Params& p)
      : algo_(static_cast<gnutls_sign_algorithm_t>(row.sign)),
        ecdsa_(row.pk == GNUTLS_PK_ECDSA),
        width_(width_of(info)) {
    import_private(row, p.keypair, key_.get());
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const gnutls_datum_t msg = view(in, len);
    OwnedDatum sig;
    check(gnutls_privkey_sign_data2(key_.get(), algo_, 0, &msg, &sig.d), "sign");
    if (!ecdsa_) {
      std::copy(sig.d.data, sig.d.data + sig.d.size, out);
      return sig.d.size;
    }
    OwnedDatum r, s;
    check(gnutls_decode_rs_value(&sig.d, &r.d, &s.d), "decode ECDSA signature");
    const Bytes rr = fixed_width(r.d, width_), ss = fixed_width(s.d, width_);
    std::copy(rr.begin(), rr.end(), out);
    std::copy(ss.begin(), ss.end(), out + width_);
    return 2 * width_;
  }

 private:
  gnutls_sign_algorithm_t algo_;
  bool ecdsa_;
  size_t width_;
  PrivKey key_;
};

class VerifyOp : public Operation {
 public:
  VerifyOp(const SigRow& row, const AlgorithmInfo& info, const Params& p)
      : algo_(static_cast<gnutls_sign_algorithm_t>(row.sign)) {
    import_public(row, p.keypair, key_.get());
    if (row.pk != GNUTLS_PK_ECDSA) {
      sig_ = p.signature;
      return;
    }
    const size_t w = width_of(info);
    if (p.signature.size() != 2 * w) return;  // malformed: sig_ stays empty, run() rejects it
    const Bytes r = minimal(p.signature.data(), w), s = minimal(p.signature.data() + w, w);
    const gnutls_datum_t rd = view(r), sd = view(s);
    OwnedDatum der;
    check(gnutls_encode_rs_value(&der.d, &rd, &sd), "encode ECDSA signature");
    sig_ = der.bytes();
  }
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    const gnutls_datum_t msg = view(in, len), sig = view(sig_);
    if (sig_.empty() || gnutls_pubkey_verify_data2(key_.get(), algo_, 0, &msg, &sig) < 0)
      throw Error("signature is not valid");
    return 0;
  }

 private:
  gnutls_sign_algorithm_t algo_;
  Bytes sig_;
  PubKey key_;
};

// A private key's parts in the catalogue's format; the key must be of `row`'s type and curve
// (`info` gives the field width of EC keys).
KeyParts exported(gnutls_privkey_t key, const SigRow& row, const AlgorithmInfo& info) {
  if (gnutls_privkey_get_pk_algorithm(key, nullptr) != row.pk)
    throw Error(std::string("GnuTLS: the key is not a ") + row.ours + " key");
  KeyParts out;
  if (row.pk == GNUTLS_PK_RSA) {
    OwnedDatum n, e, d, p, q, u, e1, e2;
    check(gnutls_privkey_export_rsa_raw2(key, &n.d, &e.d, &d.d, &p.d, &q.d, &u.d, &e1.d, &e2.d,
                                         GNUTLS_EXPORT_FLAG_NO_LZ),
          "RSA key export");
    out = {{"n", n.bytes()}, {"e", e.bytes()},   {"d", d.bytes()},   {"p", p.bytes()},
           {"q", q.bytes()}, {"dp", e1.bytes()}, {"dq", e2.bytes()}, {"qinv", u.bytes()}};
    return out;
  }
  gnutls_ecc_curve_t curve;
  OwnedDatum x, y, k;
  check(gnutls_privkey_export_ecc_raw2(key, &curve, &x.d, &y.d, &k.d, GNUTLS_EXPORT_FLAG_NO_LZ),
        "EC key export");
  if (static_cast<int>(curve) != row.curve)
    throw Error(std::string("GnuTLS: the key is not on ") + row.ours + "'s curve");
  if (is_eddsa(row)) {
    out["priv"] = k.bytes();
    out["pub"] = x.bytes();
  } else {
    const size_t w = width_of(info);
    out["d"] = fixed_width(k.d, w);
    out["x"] = fixed_width(x.d, w);
    out["y"] = fixed_width(y.d, w);
  }
  return out;
}

KeyParts generate(const SigRow& row, const AlgorithmInfo& info) {
  PrivKey key;
  const unsigned bits = row.pk == GNUTLS_PK_RSA
                            ? static_cast<unsigned>(info.bits)
                            : GNUTLS_CURVE_TO_BITS(static_cast<gnutls_ecc_curve_t>(row.curve));
  check(gnutls_privkey_generate2(key.get(), static_cast<gnutls_pk_algorithm_t>(row.pk), bits, 0,
                                 nullptr, 0),
        "key generation");
  return exported(key.get(), row, info);
}

// ---- keyload ------------------------------------------------------------------------------------
// A PKCS#8 private key into the abstract key (gnutls_privkey_import_x509_raw, which tries PKCS#8
// among the private-key formats GnuTLS reads), a certificate into a gnutls_x509_crt_t
// (gnutls_x509_crt_import, which decodes it without verifying it, as OpenSSL's d2i_X509);
// PEM or DER, as the algorithm names.

class Certificate {
 public:
  Certificate() { check(gnutls_x509_crt_init(&crt_), "certificate init"); }
  ~Certificate() { gnutls_x509_crt_deinit(crt_); }
  Certificate(const Certificate&) = delete;
  Certificate& operator=(const Certificate&) = delete;
  gnutls_x509_crt_t get() const { return crt_; }

 private:
  gnutls_x509_crt_t crt_ = nullptr;
};

bool is_certificate(const AlgorithmInfo& info) { return info.name.rfind("x509-", 0) == 0; }

gnutls_x509_crt_fmt_t format_of(const AlgorithmInfo& info) {
  const std::string& n = info.name;
  const bool pem = n.size() > 4 && n.compare(n.size() - 4, 4, "-pem") == 0;
  return pem ? GNUTLS_X509_FMT_PEM : GNUTLS_X509_FMT_DER;
}

// The row of the key type a keyload algorithm decodes (certificates: RSA ones only).
const SigRow* keyload_row(const AlgorithmInfo& info) {
  if (info.kind != Kind::Keyload) return nullptr;
  const SigRow* row = lookup_sig(info.key_type);
  if (row && is_certificate(info) && row->pk != GNUTLS_PK_RSA) return nullptr;
  return row;
}

void import_encoded(const PrivKey& key, gnutls_x509_crt_fmt_t format, const uint8_t* in,
                    size_t len) {
  const gnutls_datum_t data = view(in, len);
  check(gnutls_privkey_import_x509_raw(key.get(), &data, format, nullptr, 0), "decode private key");
}

void import_encoded(const Certificate& crt, gnutls_x509_crt_fmt_t format, const uint8_t* in,
                    size_t len) {
  const gnutls_datum_t data = view(in, len);
  check(gnutls_x509_crt_import(crt.get(), &data, format), "decode certificate");
}

class KeyloadOp : public Operation {
 public:
  explicit KeyloadOp(const AlgorithmInfo& info)
      : certificate_(is_certificate(info)), format_(format_of(info)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    if (certificate_) {
      Certificate crt;
      import_encoded(crt, format_, in, len);
    } else {
      PrivKey key;
      import_encoded(key, format_, in, len);
    }
    return 0;
  }

 private:
  bool certificate_;
  gnutls_x509_crt_fmt_t format_;
};

KeyParts decoded_parts(const AlgorithmInfo& info, const SigRow& row, const Bytes& encoded) {
  if (is_certificate(info)) {
    Certificate crt;
    import_encoded(crt, format_of(info), encoded.data(), encoded.size());
    OwnedDatum n, e;
    check(gnutls_x509_crt_get_pk_rsa_raw(crt.get(), &n.d, &e.d), "certificate RSA key");
    return {{"n", n.bytes()}, {"e", e.bytes()}};
  }
  PrivKey key;
  import_encoded(key, format_of(info), encoded.data(), encoded.size());
  return exported(key.get(), row, info);
}

// ---- key derivation -----------------------------------------------------------------------------
// gnutls_pbkdf2 and gnutls_hkdf_extract/expand; GnuTLS has no scrypt or Argon2.

struct KdfRow {
  const char* ours;
  int mac;  // gnutls_mac_algorithm_t
};
constexpr KdfRow kKdfs[] = {
    {"pbkdf2-sha1", GNUTLS_MAC_SHA1},
    {"pbkdf2-sha256", GNUTLS_MAC_SHA256},
    {"pbkdf2-sha512", GNUTLS_MAC_SHA512},
    {"hkdf-sha256", GNUTLS_MAC_SHA256},
};

const KdfRow* lookup_kdf(const std::string& ours) {
  for (const auto& row : kKdfs)
    if (ours == row.ours) return &row;
  return nullptr;
}

class KdfOp : public Operation {
 public:
  KdfOp(const KdfRow& row, const AlgorithmInfo& info, const Params& p)
      : mac_(static_cast<gnutls_mac_algorithm_t>(row.mac)),
        hkdf_(info.family == "hkdf"),
        out_len_(p.out_len),
        salt_(p.salt),
        info_(p.info) {
    if (out_len_ == 0) throw Unsupported(info.name + ": output length 0");
    if (!hkdf_) {
      const uint64_t it = cost_param(p, "iterations");
      if (it == 0 || it > UINT_MAX) throw Unsupported(info.name + ": iteration count out of range");
      iterations_ = static_cast<unsigned>(it);
    }
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const gnutls_datum_t secret = view(in, len), salt = view(salt_);
    if (!hkdf_) {
      check(gnutls_pbkdf2(mac_, &secret, &salt, iterations_, out, out_len_), "PBKDF2");
      return out_len_;
    }
    uint8_t prk[64];
    check(gnutls_hkdf_extract(mac_, &secret, &salt, prk), "HKDF extract");
    const gnutls_datum_t prk_d = view(prk, gnutls_hmac_get_len(mac_)), info = view(info_);
    check(gnutls_hkdf_expand(mac_, &prk_d, &info, out, out_len_), "HKDF expand");
    return out_len_;
  }

 private:
  gnutls_mac_algorithm_t mac_;
  bool hkdf_;
  size_t out_len_;
  unsigned iterations_ = 0;
  Bytes salt_, info_;
};

// ---- what the library says about itself --------------------------------------------------------

// GnuTLS logs which accelerators it registers ("Intel AES accelerator was detected") while it
// initialises; the log function is the only place it says so.
std::vector<std::string>* g_log_sink = nullptr;

void capture_log(int, const char* message) {
  if (!g_log_sink) return;
  std::string line(message);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  g_log_sink->push_back(line);
}

std::string accelerators_from(const std::vector<std::string>& log) {
  const std::string suffix = " was detected";
  std::string out;
  for (const auto& line : log) {
    const auto pos = line.rfind(suffix);
    if (pos == std::string::npos || pos + suffix.size() != line.size()) continue;
    out += (out.empty() ? "" : "; ") + line.substr(0, pos);
  }
  return out.empty() ? "none" : out;
}

// The IV must select the keystream and gnutls_cipher_set_iv() must restart it, or run() could
// not repeat a message. GnuTLS 3.7 fails both for Salsa20: it never hands the nonce to Nettle,
// so every Salsa20 message is encrypted under the all-zero nonce, continuing the keystream.
bool iv_is_honoured(gnutls_cipher_algorithm_t algo, const AlgorithmInfo& info, const Bytes& key) {
  const Bytes iv_a = gnutls_iv(algo, Bytes(info.iv_len, 0x11));
  const Bytes iv_b = gnutls_iv(algo, Bytes(info.iv_len, 0x22));
  gnutls_datum_t k = datum(key), iv = datum(iv_a);
  gnutls_cipher_hd_t h;
  if (gnutls_cipher_init(&h, algo, &k, &iv) < 0) return false;
  const Bytes zeros(64);
  Bytes first(64), again(64), other(64);
  bool ok = gnutls_cipher_encrypt2(h, zeros.data(), 64, first.data(), 64) == 0;
  gnutls_cipher_set_iv(h, const_cast<uint8_t*>(iv_a.data()), iv_a.size());
  ok = ok && gnutls_cipher_encrypt2(h, zeros.data(), 64, again.data(), 64) == 0 && again == first;
  gnutls_cipher_set_iv(h, const_cast<uint8_t*>(iv_b.data()), iv_b.size());
  ok = ok && gnutls_cipher_encrypt2(h, zeros.data(), 64, other.data(), 64) == 0 && other != first;
  gnutls_cipher_deinit(h);
  return ok;
}

// Whether the library really runs an algorithm: gnutls_*_list() leaves out SHA-3 although it
// works, and GnuTLS 3.7 refuses RIPEMD-160 although the enum has it. A throwaway init is exact.
// Plain ciphers must also pass iv_is_honoured().
bool usable(const std::string& ours) {
  if (const Row* r = lookup(kDigests, ours)) {
    // hash_fast rather than hash_init: a refused gnutls_hash_init() leaks its handle.
    uint8_t digest[64];
    return gnutls_hash_fast(static_cast<gnutls_digest_algorithm_t>(r->algo), "", 0, digest) == 0;
  }
  const AlgorithmInfo* info = find_algorithm(ours);
  if (!info) return false;
  // Distinct bytes: XTS rejects a key whose two halves are equal.
  Bytes key(info->key_len);
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(i + 1);
  gnutls_datum_t k = datum(key);
  if (const Row* r = lookup(kMacs, ours)) {
    gnutls_hmac_hd_t h;
    if (gnutls_hmac_init(&h, static_cast<gnutls_mac_algorithm_t>(r->algo), key.data(), key.size()) <
        0)
      return false;
    gnutls_hmac_deinit(h, nullptr);
    return true;
  }
  if (const Row* r = lookup(kAeads, ours)) {
    gnutls_aead_cipher_hd_t h;
    if (gnutls_aead_cipher_init(&h, static_cast<gnutls_cipher_algorithm_t>(r->algo), &k) < 0)
      return false;
    gnutls_aead_cipher_deinit(h);
    return true;
  }
  if (const Row* r = lookup(kCiphers, ours))
    return iv_is_honoured(static_cast<gnutls_cipher_algorithm_t>(r->algo), *info, key);
  return false;
}

// ---- the in-memory TLS 1.3 handshake (catalogue kind `handshake`) -------------------------------
//
// A client and a server session in one thread, stepped by the shared driver
// (cryptobench/tls_driver.hpp); each writes, through its transport push function, into a byte
// queue the other's pull function reads, and a pull from an empty queue says EAGAIN, as a
// non-blocking socket would. One run is one full handshake. The priority strings allow exactly
// the case's suite, group and signature scheme; no session tickets (no resumption).
struct TlsRow {
  const char* ours;
  const char* priority;
};
constexpr TlsRow kTls[] = {
    {"tls13-x25519-ecdsa-p256",
     "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:-GROUP-ALL:+GROUP-X25519:-SIGN-ALL:"
     "+SIGN-ECDSA-SECP256R1-SHA256"},
    {"tls13-x25519-rsa-2048",
     "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:-GROUP-ALL:+GROUP-X25519:-SIGN-ALL:"
     "+SIGN-RSA-PSS-RSAE-SHA256"},
};

const TlsRow* lookup_tls(const std::string& ours) {
  for (const auto& r : kTls)
    if (ours == r.ours) return &r;
  return nullptr;
}

// What a session's transport functions see: the queue it reads, the one it writes.
struct Endpoint {
  gnutls_session_t session = nullptr;
  ByteQueue* in = nullptr;
  ByteQueue* out = nullptr;
};

ssize_t queue_push(gnutls_transport_ptr_t ptr, const void* data, size_t len) {
  static_cast<Endpoint*>(ptr)->out->write(data, len);
  return static_cast<ssize_t>(len);
}

ssize_t queue_pull(gnutls_transport_ptr_t ptr, void* data, size_t len) {
  auto* e = static_cast<Endpoint*>(ptr);
  const size_t n = e->in->read(data, len);
  if (n == 0) {
    gnutls_transport_set_errno(e->session, EAGAIN);
    return -1;
  }
  return static_cast<ssize_t>(n);
}

// Polled, never waited on: data now, or none (the handshake has no timeout, so GnuTLS asks only
// when it may).
int queue_pull_timeout(gnutls_transport_ptr_t ptr, unsigned int) {
  return static_cast<Endpoint*>(ptr)->in->pending() > 0 ? 1 : 0;
}

// Why a handshake of the catalogue is not in the table (the runner's `list` gives it as
// not_offered): the hybrid post-quantum group is not in this GnuTLS (gnutls_group_t in
// gnutls/gnutls.h ends at GNUTLS_GROUP_FFDHE6144 in 3.7.9: no ML-KEM, no hybrid).
std::string tls_not_offered(const std::string& ours) {
  if (ours == "tls13-x25519mlkem768-ecdsa-p256")
    return ": GnuTLS " GNUTLS_VERSION
           " has no X25519MLKEM768 group (gnutls_group_t has no ML-KEM or hybrid group)";
  return "";
}

class TlsHandshakeOp : public TlsHandshakeDriver {
 public:
  TlsHandshakeOp(const TlsRow& row, const Params& p) : TlsHandshakeDriver(p.server_name) {
    const gnutls_datum_t cert = datum(p.certificate), key = datum(p.private_key);
    check(gnutls_certificate_allocate_credentials(&server_cred_), "server credentials");
    check(gnutls_certificate_set_x509_key_mem2(server_cred_, &cert, &key, GNUTLS_X509_FMT_DER,
                                               nullptr, 0),
          "server certificate and key");
    check(gnutls_certificate_allocate_credentials(&client_cred_), "client credentials");
    check(gnutls_certificate_set_x509_trust_mem(client_cred_, &cert, GNUTLS_X509_FMT_DER),
          "trust anchor");
    const char* err = nullptr;
    check(gnutls_priority_init(&priority_, row.priority, &err), "priority string");
  }
  ~TlsHandshakeOp() override {
    release();
    gnutls_priority_deinit(priority_);
    gnutls_certificate_free_credentials(client_cred_);
    gnutls_certificate_free_credentials(server_cred_);
  }

 private:
  gnutls_session_t session(TlsSide side) const {
    return side == TlsSide::Client ? client_.session : server_.session;
  }

  // A session on `cred`, its transport the two queues; no handshake timeout: nothing blocks.
  void open_session(Endpoint& e, unsigned flags, gnutls_certificate_credentials_t cred,
                    ByteQueue* in, ByteQueue* out) {
    check(gnutls_init(&e.session, flags | GNUTLS_NO_TICKETS), "session");
    e.in = in;
    e.out = out;
    check(gnutls_priority_set(e.session, priority_), "priority");
    check(gnutls_credentials_set(e.session, GNUTLS_CRD_CERTIFICATE, cred), "credentials");
    gnutls_transport_set_ptr(e.session, &e);
    gnutls_transport_set_push_function(e.session, queue_push);
    gnutls_transport_set_pull_function(e.session, queue_pull);
    gnutls_transport_set_pull_timeout_function(e.session, queue_pull_timeout);
    gnutls_handshake_set_timeout(e.session, 0);
  }

  void open_client() override {
    c2s_ = ByteQueue{};  // new buffers per handshake, as a new connection's would be
    s2c_ = ByteQueue{};
    open_session(client_, GNUTLS_CLIENT, client_cred_, &s2c_, &c2s_);
    check(gnutls_server_name_set(client_.session, GNUTLS_NAME_DNS, server_name_.data(),
                                 server_name_.size()),
          "server name");
    gnutls_session_set_verify_cert(client_.session, server_name_.c_str(), 0);
  }
  void open_server() override { open_session(server_, GNUTLS_SERVER, server_cred_, &c2s_, &s2c_); }

  bool step(TlsSide side) override {
    const int ret = gnutls_handshake(session(side));
    if (ret == GNUTLS_E_SUCCESS) return true;
    if (ret == GNUTLS_E_AGAIN || ret == GNUTLS_E_INTERRUPTED) return false;
    throw Error(std::string(side_name(side)) + ": GnuTLS handshake: " + gnutls_strerror(ret));
  }

  size_t client_output_bytes() override { return c2s_.pending(); }

  uint8_t* server_output(size_t* len) override {
    *len = s2c_.pending();
    return *len > 0 ? s2c_.unread() : nullptr;
  }

  void free_client() override {
    if (client_.session) gnutls_deinit(client_.session);
    client_.session = nullptr;
  }
  bool server_open() const override { return server_.session != nullptr; }
  void free_server() override {
    gnutls_deinit(server_.session);
    server_.session = nullptr;
  }

  std::string version(TlsSide side) override {
    const gnutls_protocol_t v = gnutls_protocol_get_version(session(side));
    if (v == GNUTLS_TLS1_3) return "TLSv1.3";
    const char* name = gnutls_protocol_get_name(v);
    return name ? name : "?";
  }
  std::string suite(TlsSide side) override {
    const char* name = gnutls_ciphersuite_get(session(side));
    return name ? name : "(none)";
  }
  std::string group() override {
    const char* name = gnutls_group_get_name(gnutls_group_get(client_.session));
    return name ? name : "";
  }
  std::string verified() override {
    if (gnutls_session_get_verify_cert_status(client_.session) != 0) return "";
    return "gnutls_session_set_verify_cert: the test certificate as the only trust anchor, "
           "host name " +
           server_name_;
  }
  Bytes exporter(TlsSide side) override {
    Bytes out(kExporterBytes);
    check(gnutls_prf_rfc5705(session(side), std::strlen(kExporterLabel), kExporterLabel, 0, nullptr,
                             out.size(), reinterpret_cast<char*>(out.data())),
          "exporter");
    return out;
  }

  gnutls_certificate_credentials_t server_cred_ = nullptr, client_cred_ = nullptr;
  gnutls_priority_t priority_ = nullptr;
  ByteQueue c2s_, s2c_;
  Endpoint client_, server_;
};

class GnutlsProvider : public Provider {
 public:
  std::string name() const override { return "gnutls"; }
  std::string version() const override { return gnutls_check_version(nullptr); }
  std::vector<Variant> variants() const override {
    return {
        {"default", "GnuTLS's AES-NI/PCLMUL/SSSE3/SHA-NI code, Nettle's CPU selection", {}},
        // 0x1 is GnuTLS's "disable all run-time detected optimizations"; Nettle enables only
        // the features named in its override list, so a list naming none turns all of them off.
        {"soft",
         "no hardware acceleration in GnuTLS or Nettle "
         "(GNUTLS_CPUID_OVERRIDE=0x1, NETTLE_FAT_OVERRIDE=none)",
         {{"GNUTLS_CPUID_OVERRIDE", "0x1"}, {"NETTLE_FAT_OVERRIDE", "none"}}},
        {"nettle",
         "GnuTLS's own accelerated code off, Nettle's AES-NI/PCLMUL/SHA-NI selection kept "
         "(GNUTLS_CPUID_OVERRIDE=0x1)",
         {{"GNUTLS_CPUID_OVERRIDE", "0x1"}}},
    };
  }
  void init(const std::string&) override {
    // The library constructor has already initialised GnuTLS, before any log function could be
    // installed. Dropping that initialisation and repeating it with logging on makes GnuTLS
    // detect and register its accelerators again -- under the variant's GNUTLS_CPUID_OVERRIDE,
    // which the process had from the start -- and lets us keep what it says.
    std::vector<std::string> log;
    g_log_sink = &log;
    gnutls_global_set_log_function(capture_log);
    gnutls_global_set_log_level(2);
    gnutls_global_deinit();
    const int ret = gnutls_global_init();
    gnutls_global_set_log_level(0);
    g_log_sink = nullptr;
    check(ret, "global init");
    // Nothing logged at all means the deinit only dropped a reference someone else holds, so
    // GnuTLS did not detect anything again: say so rather than claim "none".
    accelerators_ = log.empty() ? "(not captured: GnuTLS was initialised elsewhere in the process)"
                                : accelerators_from(log);
    for (const auto& a : cb::algorithms())
      if (usable(a.name) || lookup_sig(a.name) || lookup_kdf(a.name) || keyload_row(a) ||
          lookup_tls(a.name))
        offered_.push_back(a.name);
  }
  std::vector<std::string> algorithms() const override { return offered_; }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (std::find(offered_.begin(), offered_.end(), algorithm) == offered_.end())
      throw Unsupported("gnutls does not offer " + algorithm);
    if (keyload_row(*info)) return std::make_unique<KeyloadOp>(*info);
    if (info->kind == Kind::Handshake) return prepare_handshake(algorithm, params);
    check_param_sizes(*info, params);

    if (const Row* r = lookup(kCiphers, algorithm))
      return std::make_unique<CipherOp>(algorithm, static_cast<gnutls_cipher_algorithm_t>(r->algo),
                                        op, params);
    if (const Row* r = lookup(kAeads, algorithm))
      return std::make_unique<AeadOp>(*info, static_cast<gnutls_cipher_algorithm_t>(r->algo), op,
                                      params);
    if (const Row* r = lookup(kDigests, algorithm))
      return std::make_unique<DigestOp>(static_cast<gnutls_digest_algorithm_t>(r->algo));
    if (const Row* r = lookup(kMacs, algorithm))
      return std::make_unique<MacOp>(static_cast<gnutls_mac_algorithm_t>(r->algo), params);
    if (const SigRow* r = lookup_sig(algorithm)) {
      if (op == OpKind::Sign) return std::make_unique<SignOp>(*r, *info, params);
      if (op == OpKind::Verify) return std::make_unique<VerifyOp>(*r, *info, params);
    }
    if (const KdfRow* r = lookup_kdf(algorithm)) return std::make_unique<KdfOp>(*r, *info, params);
    throw Unsupported("gnutls does not offer " + algorithm + " " + to_string(op));
  }
  std::unique_ptr<HandshakeOperation> prepare_handshake(const std::string& algorithm,
                                                        const Params& params) override {
    const TlsRow* row = lookup_tls(algorithm);
    if (!row) throw Unsupported("gnutls does not offer " + algorithm + tls_not_offered(algorithm));
    check_handshake_params(algorithm, params);
    return std::make_unique<TlsHandshakeOp>(*row, params);
  }
  // GnuTLS has no MAC verification function; gnutls_memcmp is its constant-time comparison.
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Mac);
    if (!lookup(kMacs, algorithm)) throw Unsupported("gnutls does not offer " + algorithm);
    return std::make_unique<MacCompareOp>(
        prepare(algorithm, OpKind::Mac, params), info.output_len,
        [](const uint8_t* a, const uint8_t* b, size_t n) { return gnutls_memcmp(a, b, n) == 0; });
  }
  KeyParts decode_key(const std::string& algorithm, const Bytes& encoded) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keyload);
    const SigRow* row = keyload_row(info);
    if (!row) throw Unsupported("gnutls does not decode " + algorithm);
    return decoded_parts(info, *row, encoded);
  }
  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    const SigRow* row = lookup_sig(algorithm);
    if (!row) throw Unsupported("gnutls cannot generate " + algorithm + " keys");
    return generate(*row, info);
  }
  std::map<std::string, std::string> code_path() const override {
    const char* cpuid = std::getenv("GNUTLS_CPUID_OVERRIDE");
    const char* fat = std::getenv("NETTLE_FAT_OVERRIDE");
    return {
        {"version", gnutls_check_version(nullptr)},
        {"accelerators", accelerators_},
        {"gnutls_cpuid_override", cpuid ? cpuid : "(unset)"},
        {"nettle_fat_override", fat ? fat : "(unset)"},
    };
  }

 private:
  std::string accelerators_ = "(not initialised)";
  std::vector<std::string> offered_;
};

}  // namespace

CB_REGISTER_PROVIDER("gnutls", GnutlsProvider);

}  // namespace cb
