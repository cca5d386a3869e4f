// libgcrypt adapter: gcry_cipher for ciphers and AEAD, gcry_md for hashes, gcry_mac for HMAC and
// CMAC. Each prepared operation owns one open libgcrypt handle whose key schedule survives
// gcry_*_reset, so run() only restarts, processes and finishes.
//
// The "soft" variant turns off, through GCRYCTL_DISABLE_HWF, every x86 hardware feature that
// libgcrypt knows. libgcrypt detects features exactly once, inside the first gcry_check_version,
// so this has to happen in init() before that call; it cannot be changed afterwards.
//
// Public key: gcry_pk_* over S-expressions (RSA PKCS#1 v1.5 / PSS / OAEP, ECDSA, EdDSA, ECDH),
// gcry_ecc_mul_point for X25519/X448, gcry_kdf_derive for PBKDF2 and scrypt, gcry_kdf_open for
// Argon2id. libgcrypt 1.10 has no HKDF (GCRY_KDF_HKDF arrived in 1.11) and no finite-field
// Diffie-Hellman API, so hkdf-sha256 and ffdhe* are not offered.
#include <gcrypt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

std::string describe(gcry_error_t err) {
  return std::string(gcry_strsource(err)) + ": " + gcry_strerror(err);
}

void check(gcry_error_t err, const char* what) {
  if (err) throw Error(std::string("libgcrypt ") + what + ": " + describe(err));
}

struct CipherRow {
  const char* ours;
  int algo;
  int mode;
};
// XTS takes the concatenated key pair, so the algorithm names the size of ONE of the two keys.
constexpr CipherRow kCiphers[] = {
    {"aes-128-cbc", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC},
    {"aes-192-cbc", GCRY_CIPHER_AES192, GCRY_CIPHER_MODE_CBC},
    {"aes-256-cbc", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_CBC},
    {"aes-128-cfb", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CFB},
    {"aes-192-cfb", GCRY_CIPHER_AES192, GCRY_CIPHER_MODE_CFB},
    {"aes-256-cfb", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_CFB},
    {"aes-128-ofb", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_OFB},
    {"aes-192-ofb", GCRY_CIPHER_AES192, GCRY_CIPHER_MODE_OFB},
    {"aes-256-ofb", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_OFB},
    {"aes-128-ctr", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CTR},
    {"aes-192-ctr", GCRY_CIPHER_AES192, GCRY_CIPHER_MODE_CTR},
    {"aes-256-ctr", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_CTR},
    {"aes-128-gcm", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_GCM},
    {"aes-192-gcm", GCRY_CIPHER_AES192, GCRY_CIPHER_MODE_GCM},
    {"aes-256-gcm", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_GCM},
    {"aes-128-xts", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_XTS},
    {"aes-256-xts", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_XTS},
    {"des-ede3-cbc", GCRY_CIPHER_3DES, GCRY_CIPHER_MODE_CBC},
    {"chacha20", GCRY_CIPHER_CHACHA20, GCRY_CIPHER_MODE_STREAM},
    {"salsa20", GCRY_CIPHER_SALSA20, GCRY_CIPHER_MODE_STREAM},
    {"chacha20-poly1305", GCRY_CIPHER_CHACHA20, GCRY_CIPHER_MODE_POLY1305},
};

struct AlgoRow {
  const char* ours;
  int algo;
};
constexpr AlgoRow kDigests[] = {
    {"md5", GCRY_MD_MD5},
    {"sha1", GCRY_MD_SHA1},
    {"sha224", GCRY_MD_SHA224},
    {"sha256", GCRY_MD_SHA256},
    {"sha384", GCRY_MD_SHA384},
    {"sha512", GCRY_MD_SHA512},
    {"sha512-256", GCRY_MD_SHA512_256},
    {"sha3-256", GCRY_MD_SHA3_256},
    {"sha3-512", GCRY_MD_SHA3_512},
    {"blake2b-512", GCRY_MD_BLAKE2B_512},
    {"whirlpool", GCRY_MD_WHIRLPOOL},
    {"ripemd160", GCRY_MD_RMD160},
};
// GCRY_MAC_CMAC_AES picks AES-128/192/256 from the length of the key given to gcry_mac_setkey.
constexpr AlgoRow kMacs[] = {
    {"hmac-sha256", GCRY_MAC_HMAC_SHA256},
    {"hmac-sha512", GCRY_MAC_HMAC_SHA512},
    {"cmac-aes128", GCRY_MAC_CMAC_AES},
    {"cmac-aes256", GCRY_MAC_CMAC_AES},
};

// Every x86 feature name in libgcrypt 1.10's hwflist (src/hwfeatures.c, "How to disable hardware
// features" in the manual). intel-avx512 and intel-gfni only exist from 1.11 on; an older library
// answers GPG_ERR_INV_NAME for them, which is recorded rather than treated as a failure.
// intel-rdrand and intel-rdtsc only feed the random pool; they are off too so that "soft" means
// no optional CPU feature at all.
constexpr const char* kX86Features[] = {
    "padlock-rng",     "padlock-aes",  "padlock-sha",        "padlock-mmul", "intel-cpu",
    "intel-fast-shld", "intel-bmi2",   "intel-ssse3",        "intel-sse4.1", "intel-pclmul",
    "intel-aesni",     "intel-rdrand", "intel-avx",          "intel-avx2",   "intel-fast-vpgather",
    "intel-rdtsc",     "intel-shaext", "intel-vaes-vpclmul", "intel-avx512", "intel-gfni",
};

template <typename Row, size_t N>
const Row* lookup(const Row (&table)[N], const std::string& ours) {
  for (const auto& row : table)
    if (ours == row.ours) return &row;
  return nullptr;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ":") + s;
  return out;
}

// GCRYCTL_PRINT_CONFIG is the library's own account of itself ("hwflist:intel-aesni:...:"),
// written to a stdio stream; returns {field -> rest of line without the trailing ':'}.
std::map<std::string, std::string> print_config() {
  char* text = nullptr;
  size_t size = 0;
  FILE* stream = open_memstream(&text, &size);
  if (!stream) throw Error("open_memstream failed");
  gcry_control(GCRYCTL_PRINT_CONFIG, stream);
  std::fclose(stream);
  std::map<std::string, std::string> fields;
  const std::string all(text ? text : "", size);
  std::free(text);
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    std::string line = all.substr(start, end - start);
    start = end + 1;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && value.back() == ':') value.pop_back();
    fields[line.substr(0, colon)] = value;
  }
  return fields;
}

class CipherHandle {
 public:
  CipherHandle(int algo, int mode) { check(gcry_cipher_open(&h_, algo, mode, 0), "cipher open"); }
  ~CipherHandle() { gcry_cipher_close(h_); }  // also wipes the key schedule
  CipherHandle(const CipherHandle&) = delete;
  CipherHandle& operator=(const CipherHandle&) = delete;
  gcry_cipher_hd_t get() const { return h_; }

 private:
  gcry_cipher_hd_t h_ = nullptr;
};

void require_size(const AlgorithmInfo& info, const char* what, size_t got, size_t want) {
  if (got != want)
    throw Unsupported(info.name + " needs a " + std::to_string(want) + "-byte " + what + ", got " +
                      std::to_string(got));
}

// Shared by ciphers and AEAD: one handle, key set once, IV kept for every restart.
class CipherOp : public Operation {
 public:
  CipherOp(const AlgorithmInfo& info, const CipherRow& row, OpKind op, const Params& p)
      : info_(info),
        encrypt_(op == OpKind::Encrypt),
        ctr_(row.mode == GCRY_CIPHER_MODE_CTR),
        aead_(info.kind == Kind::Aead),
        handle_(row.algo, row.mode),
        iv_(p.iv),
        aad_(p.aad) {
    require_size(info, "key", p.key.size(), info.key_len);
    require_size(info, "IV", p.iv.size(), info.iv_len);
    if (row.algo == GCRY_CIPHER_3DES) {
      // libgcrypt refuses DES weak keys unless told otherwise; the other libraries accept every
      // key, and a benchmark key must not be rejected by one provider only.
      check(gcry_cipher_ctl(handle_.get(), GCRYCTL_SET_ALLOW_WEAK_KEY, nullptr, 1),
            "allow weak key");
    }
    check(gcry_cipher_setkey(handle_.get(), p.key.data(), p.key.size()), "setkey");
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  // A wrong AEAD tag is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return aead_ && !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    gcry_cipher_hd_t h = handle_.get();
    size_t body = len;
    if (aead_ && !encrypt_) {
      if (len < info_.tag_len) throw Error("ciphertext shorter than the tag");
      body = len - info_.tag_len;
    }
    // The reset restores the saved key schedule and clears mode state (chaining value, CFB
    // position, GHASH/Poly1305 accumulators) without redoing the key expansion.
    check(gcry_cipher_reset(h), "reset");
    if (ctr_)
      check(gcry_cipher_setctr(h, iv_.data(), iv_.size()), "setctr");
    else
      check(gcry_cipher_setiv(h, iv_.data(), iv_.size()), "setiv");
    if (aead_) {
      if (!aad_.empty()) check(gcry_cipher_authenticate(h, aad_.data(), aad_.size()), "AAD");
      // Marks the next encrypt/decrypt call as the last one, which GCM and Poly1305 need
      // before a partial final block.
      check(gcry_cipher_final(h), "final");
    }
    // outsize == inlen exactly: libgcrypt treats a NULL input as in-place over outsize bytes.
    if (encrypt_)
      check(gcry_cipher_encrypt(h, out, body, in, body), "encrypt");
    else
      check(gcry_cipher_decrypt(h, out, body, in, body), "decrypt");
    out_len = body;
    if (!aead_) return true;
    if (encrypt_) {
      check(gcry_cipher_gettag(h, out + body, info_.tag_len), "gettag");
      out_len = body + info_.tag_len;
      return true;
    }
    const gcry_error_t err = gcry_cipher_checktag(h, in + body, info_.tag_len);
    if (gcry_err_code(err) == GPG_ERR_CHECKSUM) return false;
    check(err, "checktag");
    return true;
  }

 private:
  const AlgorithmInfo& info_;
  bool encrypt_, ctr_, aead_;
  CipherHandle handle_;
  Bytes iv_, aad_;
};

// gcry_md_hash_buffer would be one call, but for most algorithms libgcrypt 1.10 implements it by
// opening and closing a handle (an allocation per message); reset/write/read on a handle opened
// once does the same work without that, uniformly for every digest.
class DigestOp : public Operation {
 public:
  explicit DigestOp(int algo) : algo_(algo), len_(gcry_md_get_algo_dlen(algo)) {
    check(gcry_md_open(&h_, algo, 0), "md open");
  }
  ~DigestOp() override { gcry_md_close(h_); }
  DigestOp(const DigestOp&) = delete;
  DigestOp& operator=(const DigestOp&) = delete;

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    gcry_md_reset(h_);
    gcry_md_write(h_, in, len);
    const unsigned char* digest = gcry_md_read(h_, algo_);  // finalises
    if (!digest) throw Error("libgcrypt md read returned nothing");
    std::memcpy(out, digest, len_);
    return len_;
  }

 private:
  int algo_;
  size_t len_;
  gcry_md_hd_t h_ = nullptr;
};

class MacOp : public Operation {
 public:
  MacOp(const AlgorithmInfo& info, int algo, const Params& p) : len_(info.output_len) {
    // CMAC's key length selects the AES variant, so it must be exact; HMAC takes any length.
    if (algo == GCRY_MAC_CMAC_AES) require_size(info, "key", p.key.size(), info.key_len);
    check(gcry_mac_open(&h_, algo, 0, nullptr), "mac open");
    const gcry_error_t err = gcry_mac_setkey(h_, p.key.data(), p.key.size());
    if (err) {
      gcry_mac_close(h_);
      check(err, "mac setkey");
    }
  }
  ~MacOp() override { gcry_mac_close(h_); }
  MacOp(const MacOp&) = delete;
  MacOp& operator=(const MacOp&) = delete;

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // Reset keeps the keyed state (HMAC's inner/outer pads, CMAC's subkeys).
    check(gcry_mac_reset(h_), "mac reset");
    // CMAC's write rejects a NULL buffer even when the length is 0.
    if (len) check(gcry_mac_write(h_, in, len), "mac write");
    size_t n = len_;
    check(gcry_mac_read(h_, out, &n), "mac read");
    return n;
  }
  // libgcrypt's own verification: gcry_mac_verify compares with buf_eq_const (constant time).
  bool verify(const uint8_t* in, size_t len, const uint8_t* tag) {
    check(gcry_mac_reset(h_), "mac reset");
    if (len) check(gcry_mac_write(h_, in, len), "mac write");
    const gcry_error_t err = gcry_mac_verify(h_, tag, len_);
    if (gcry_err_code(err) == GPG_ERR_CHECKSUM) return false;
    check(err, "mac verify");
    return true;
  }

 private:
  size_t len_;
  gcry_mac_hd_t h_ = nullptr;
};

class MacVerify : public MacVerifyOp {
 public:
  MacVerify(const AlgorithmInfo& info, int algo, const Params& p)
      : MacVerifyOp(info.output_len), mac_(info, algo, p) {}

 protected:
  bool verify(const uint8_t* message, size_t n, const uint8_t* tag) override {
    return mac_.verify(message, n, tag);
  }

 private:
  MacOp mac_;
};

// ---- public-key operations --------------------------------------------------------------------
//
// libgcrypt's public-key API speaks S-expressions: keys are parsed into gcry_sexp_t once in
// prepare(); every run() builds the small (data ...) expression for its message and hands both to
// gcry_pk_*, which is how any libgcrypt user has to call it (the library re-reads the key
// parameters from the S-expression on every call; that cost is part of its API).

class Sexp {
 public:
  Sexp() = default;
  explicit Sexp(gcry_sexp_t s) : s_(s) {}
  ~Sexp() { gcry_sexp_release(s_); }
  Sexp(Sexp&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Sexp& operator=(Sexp&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  gcry_sexp_t get() const { return s_; }
  gcry_sexp_t* out() {
    gcry_sexp_release(s_);
    s_ = nullptr;
    return &s_;
  }

 private:
  gcry_sexp_t s_ = nullptr;
};

class Mpi {
 public:
  Mpi() = default;
  ~Mpi() { gcry_mpi_release(m_); }
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;
  gcry_mpi_t get() const { return m_; }
  gcry_mpi_t* out() { return &m_; }

 private:
  gcry_mpi_t m_ = nullptr;
};

template <typename... Args>
Sexp build(const char* what, const char* format, Args... args) {
  Sexp s;
  check(gcry_sexp_build(s.out(), nullptr, format, args...), what);
  return s;
}

// %b wants an int length and a pointer; an empty buffer still needs a valid pointer.
int blen(size_t n) {
  if (n > 0x7fffffff) throw Unsupported("buffer too large for libgcrypt");
  return static_cast<int>(n);
}
const void* bptr(const uint8_t* p) {
  static const uint8_t kEmpty = 0;
  return p ? static_cast<const void*>(p) : &kEmpty;
}

// A big-endian integer written into exactly `width` bytes (leading zeros stripped or added).
void put_fixed(const uint8_t* p, size_t n, uint8_t* out, size_t width) {
  while (n > 0 && *p == 0) ++p, --n;
  if (n > width) throw Error("integer longer than " + std::to_string(width) + " bytes");
  std::memset(out, 0, width - n);
  if (n) std::memcpy(out + width - n, p, n);
}
Bytes fixed(const Bytes& v, size_t width) {
  Bytes out(width);
  put_fixed(v.data(), v.size(), out.data(), width);
  return out;
}

// The data of the first "(name data)" list anywhere in s, copied to out (width 0: as is, else
// as a big-endian integer padded to width). Returns the bytes written.
size_t write_token(gcry_sexp_t s, const char* name, uint8_t* out, size_t width) {
  Sexp t(gcry_sexp_find_token(s, name, 0));
  size_t n = 0;
  const char* d = t.get() ? gcry_sexp_nth_data(t.get(), 1, &n) : nullptr;
  if (!d) throw Error(std::string("libgcrypt result has no '") + name + "'");
  const auto* p = reinterpret_cast<const uint8_t*>(d);
  if (!width) {
    std::memcpy(out, p, n);
    return n;
  }
  put_fixed(p, n, out, width);
  return width;
}
Bytes token_bytes(gcry_sexp_t s, const char* name) {
  Sexp t(gcry_sexp_find_token(s, name, 0));
  size_t n = 0;
  const char* d = t.get() ? gcry_sexp_nth_data(t.get(), 1, &n) : nullptr;
  if (!d) throw Error(std::string("libgcrypt key has no '") + name + "'");
  return Bytes(d, d + n);
}

Bytes mpi_bytes(gcry_mpi_t m) {
  unsigned char* buf = nullptr;
  size_t n = 0;
  check(gcry_mpi_aprint(GCRYMPI_FMT_USG, &buf, &n, m), "mpi print");
  Bytes out(buf, buf + n);
  gcry_free(buf);
  return out;
}

// Byte length of a big-endian integer without its leading zeros.
size_t int_len(const Bytes& v) {
  size_t i = 0;
  while (i < v.size() && v[i] == 0) ++i;
  return v.size() - i;
}

struct EcCurve {
  const char* ours;
  const char* gcry_name;
  size_t field;  // bytes of a coordinate / scalar
  int md;        // ECDSA digest; 0 for ECDH
};
constexpr EcCurve kEcCurves[] = {
    {"ecdsa-p256", "NIST P-256", 32, GCRY_MD_SHA256},
    {"ecdsa-p384", "NIST P-384", 48, GCRY_MD_SHA384},
    {"ecdsa-p521", "NIST P-521", 66, GCRY_MD_SHA512},
    {"ecdh-p256", "NIST P-256", 32, 0},
    {"ecdh-p384", "NIST P-384", 48, 0},
};
const EcCurve* find_curve(const std::string& alg) {
  for (const auto& c : kEcCurves)
    if (alg == c.ours) return &c;
  return nullptr;
}

// SEC 1 uncompressed point, the form libgcrypt's "q" parameter takes for the NIST curves.
Bytes ec_point(const KeyParts& key, size_t field) {
  Bytes q{0x04};
  for (const char* part : {"x", "y"}) {
    const Bytes c = fixed(key_part(key, part), field);
    q.insert(q.end(), c.begin(), c.end());
  }
  return q;
}

Sexp ec_public(const EcCurve& c, const KeyParts& key) {
  const Bytes q = ec_point(key, c.field);
  return build("EC public key", "(public-key (ecc (curve %s)(q %b)))", c.gcry_name, blen(q.size()),
               q.data());
}
Sexp ec_private(const EcCurve& c, const KeyParts& key) {
  const Bytes d = fixed(key_part(key, "d"), c.field);
  if (key.count("x") && key.count("y")) {
    const Bytes q = ec_point(key, c.field);
    return build("EC private key", "(private-key (ecc (curve %s)(q %b)(d %b)))", c.gcry_name,
                 blen(q.size()), q.data(), blen(d.size()), d.data());
  }
  return build("EC private key", "(private-key (ecc (curve %s)(d %b)))", c.gcry_name,
               blen(d.size()), d.data());
}

struct EdCurve {
  const char* ours;
  const char* gcry_name;
  size_t key_len, sig_len;
  const char* data_format;  // message -> (data ...)
};
// Without the eddsa flag on either the key or the data libgcrypt makes an ECDSA signature on the
// Ed25519 curve; Ed448 is EdDSA whatever the flags say. Both carry the flag to be explicit.
constexpr EdCurve kEdCurves[] = {
    {"ed25519", "Ed25519", 32, 64, "(data (flags eddsa)(hash-algo sha512)(value %b))"},
    {"ed448", "Ed448", 57, 114, "(data (flags eddsa)(hash-algo shake256)(value %b))"},
};
const EdCurve* find_ed(const std::string& alg) {
  for (const auto& c : kEdCurves)
    if (alg == c.ours) return &c;
  return nullptr;
}

// libgcrypt prefixes EdDSA public keys with 0x40 ("native" point format) in what it generates.
Bytes strip_native_prefix(Bytes q, size_t len) {
  if (q.size() == len + 1 && q[0] == 0x40) q.erase(q.begin());
  if (q.size() != len) throw Error("EdDSA public key of unexpected length");
  return q;
}

// libgcrypt's private key wants its p < its q and u = p^-1 mod q: its CRT step adds q once to
// make m2 - m1 non-negative, which is not enough when p > q, and then signs and decrypts wrongly
// (for a fraction of messages that grows with p/q). KeyParts give qinv = q^-1 mod p for primes in
// either order (PKCS #1 does not order them; Crypto++ and Nettle generate p < q about half the
// time): when p > q, giving libgcrypt the primes swapped makes u = qinv; otherwise the primes go
// in as they are and u = p^-1 mod q is computed here.
Sexp rsa_private(const KeyParts& key) {
  const Bytes &n = key_part(key, "n"), &e = key_part(key, "e"), &d = key_part(key, "d"),
              &p = key_part(key, "p"), &q = key_part(key, "q"), &qinv = key_part(key, "qinv");
  Mpi mp, mq;
  check(gcry_mpi_scan(mp.out(), GCRYMPI_FMT_USG, p.data(), p.size(), nullptr), "RSA p");
  check(gcry_mpi_scan(mq.out(), GCRYMPI_FMT_USG, q.data(), q.size(), nullptr), "RSA q");
  const char* format = "(private-key (rsa (n %b)(e %b)(d %b)(p %b)(q %b)(u %b)))";
  if (gcry_mpi_cmp(mp.get(), mq.get()) > 0)
    return build("RSA private key", format, blen(n.size()), n.data(), blen(e.size()), e.data(),
                 blen(d.size()), d.data(), blen(q.size()), q.data(), blen(p.size()), p.data(),
                 blen(qinv.size()), qinv.data());
  Mpi u;
  *u.out() = gcry_mpi_new(0);
  if (!gcry_mpi_invm(u.get(), mp.get(), mq.get())) throw Error("RSA key: p has no inverse mod q");
  const Bytes ub = mpi_bytes(u.get());
  return build("RSA private key", format, blen(n.size()), n.data(), blen(e.size()), e.data(),
               blen(d.size()), d.data(), blen(p.size()), p.data(), blen(q.size()), q.data(),
               blen(ub.size()), ub.data());
}
Sexp rsa_public(const KeyParts& key) {
  const Bytes &n = key_part(key, "n"), &e = key_part(key, "e");
  return build("RSA public key", "(public-key (rsa (n %b)(e %b)))", blen(n.size()), n.data(),
               blen(e.size()), e.data());
}

class Digest {
 public:
  explicit Digest(int algo) : algo_(algo), len_(gcry_md_get_algo_dlen(algo)) {
    check(gcry_md_open(&h_, algo, 0), "md open");
  }
  ~Digest() { gcry_md_close(h_); }
  Digest(const Digest&) = delete;
  Digest& operator=(const Digest&) = delete;
  const unsigned char* operator()(const uint8_t* in, size_t len) {
    gcry_md_reset(h_);
    gcry_md_write(h_, in, len);
    const unsigned char* d = gcry_md_read(h_, algo_);
    if (!d) throw Error("libgcrypt md read returned nothing");
    return d;
  }
  int size() const { return static_cast<int>(len_); }

 private:
  int algo_;
  size_t len_;
  gcry_md_hd_t h_ = nullptr;
};

enum class SigScheme { Pkcs1, Pss, Ecdsa, EdDsa };
constexpr unsigned kPssSaltLen = 32;

// Sign and verify for every signature algorithm: only the key, the (data ...) template and the
// signature layout differ.
class SignatureOp : public Operation {
 public:
  SignatureOp(const std::string& alg, OpKind op, const Params& p) : sign_(op == OpKind::Sign) {
    if (const EcCurve* c = find_curve(alg)) {
      scheme_ = SigScheme::Ecdsa;
      digest_ = std::make_unique<Digest>(c->md);
      half_ = c->field;
      sig_len_ = 2 * c->field;
      key_ = sign_ ? ec_private(*c, p.keypair) : ec_public(*c, p.keypair);
      data_format_ = "(data (flags raw)(value %b))";
    } else if (const EdCurve* c = find_ed(alg)) {
      scheme_ = SigScheme::EdDsa;
      half_ = c->sig_len / 2;
      sig_len_ = c->sig_len;
      data_format_ = c->data_format;
      if (sign_) {
        const Bytes d = fixed(key_part(p.keypair, "priv"), c->key_len);
        // Without q libgcrypt recomputes the public key on every signature (about half the
        // cost of signing), so the key's own public part goes in with it.
        auto pub = p.keypair.find("pub");
        if (pub != p.keypair.end() && pub->second.size() == c->key_len)
          key_ = build("EdDSA private key",
                       "(private-key (ecc (curve %s)(flags eddsa)(q %b)(d %b)))", c->gcry_name,
                       blen(pub->second.size()), pub->second.data(), blen(d.size()), d.data());
        else
          key_ = build("EdDSA private key", "(private-key (ecc (curve %s)(flags eddsa)(d %b)))",
                       c->gcry_name, blen(d.size()), d.data());
      } else {
        const Bytes& q = key_part(p.keypair, "pub");
        key_ = build("EdDSA public key", "(public-key (ecc (curve %s)(flags eddsa)(q %b)))",
                     c->gcry_name, blen(q.size()), q.data());
      }
    } else {
      const bool pss = alg.find("-pss-") != std::string::npos;
      scheme_ = pss ? SigScheme::Pss : SigScheme::Pkcs1;
      digest_ = std::make_unique<Digest>(GCRY_MD_SHA256);
      sig_len_ = int_len(key_part(p.keypair, "n"));
      key_ = sign_ ? rsa_private(p.keypair) : rsa_public(p.keypair);
      data_format_ = pss ? "(data (flags pss)(salt-length %u)(hash sha256 %b))"
                         : "(data (flags pkcs1)(hash sha256 %b))";
    }
    if (!sign_) prepare_signature(p.signature);
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    Sexp data;
    if (digest_) {
      const unsigned char* h = (*digest_)(in, len);
      // A number in an S-expression is a string token, so the salt length goes in through %u.
      data = scheme_ == SigScheme::Pss
                 ? build("data", data_format_, kPssSaltLen, digest_->size(), h)
                 : build("data", data_format_, digest_->size(), h);
    } else {
      data = build("data", data_format_, blen(len), bptr(in));
    }
    if (!sign_) {
      if (!sig_.get()) throw Error("signature has the wrong length");
      const gcry_error_t err = gcry_pk_verify(sig_.get(), data.get(), key_.get());
      if (gcry_err_code(err) == GPG_ERR_BAD_SIGNATURE) throw Error("signature invalid");
      check(err, "verify");
      return 0;
    }
    Sexp sig;
    check(gcry_pk_sign(sig.out(), data.get(), key_.get()), "sign");
    switch (scheme_) {
      case SigScheme::Pkcs1:
      case SigScheme::Pss:
        return write_token(sig.get(), "s", out, sig_len_);
      case SigScheme::Ecdsa:
      case SigScheme::EdDsa:
        // ECDSA r and s are integers; EdDSA's are fixed-length little-endian strings, which
        // libgcrypt returns at full length, so the same big-endian padding leaves them intact.
        write_token(sig.get(), "r", out, half_);
        write_token(sig.get(), "s", out + half_, half_);
        return sig_len_;
    }
    return 0;
  }

 private:
  // A signature of the wrong length is left unset, so that every run() rejects it.
  void prepare_signature(const Bytes& s) {
    if (s.size() != sig_len_) return;
    switch (scheme_) {
      case SigScheme::Pkcs1:
      case SigScheme::Pss:
        sig_ = build("signature", "(sig-val (rsa (s %b)))", blen(s.size()), s.data());
        break;
      case SigScheme::Ecdsa:
        sig_ = build("signature", "(sig-val (ecdsa (r %b)(s %b)))", blen(half_), s.data(),
                     blen(half_), s.data() + half_);
        break;
      case SigScheme::EdDsa:
        sig_ = build("signature", "(sig-val (eddsa (r %b)(s %b)))", blen(half_), s.data(),
                     blen(half_), s.data() + half_);
        break;
    }
  }

  bool sign_;
  SigScheme scheme_ = SigScheme::Pkcs1;
  std::unique_ptr<Digest> digest_;  // null for EdDSA, which takes the message itself
  size_t half_ = 0, sig_len_ = 0;
  const char* data_format_ = nullptr;
  Sexp key_, sig_;
};

// RSAES-OAEP with SHA-256 for both the label hash and MGF1 (libgcrypt uses hash-algo for both),
// or RSAES-PKCS1-v1_5 (flags pkcs1).
class RsaEncOp : public Operation {
 public:
  RsaEncOp(OpKind op, const Params& p, bool oaep)
      : encrypt_(op == OpKind::Encrypt),
        oaep_(oaep),
        k_(int_len(key_part(p.keypair, "n"))),
        key_(encrypt_ ? rsa_public(p.keypair) : rsa_private(p.keypair)) {}

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const char* name = oaep_ ? "OAEP" : "PKCS#1 v1.5";
    if (encrypt_) {
      // libgcrypt 1.10 reads an empty (value) as a missing one and fails with "Invalid object".
      if (len == 0) throw Unsupported("libgcrypt cannot encrypt an empty message");
      Sexp data = build("data",
                        oaep_ ? "(data (flags oaep)(hash-algo sha256)(value %b))"
                              : "(data (flags pkcs1)(value %b))",
                        blen(len), bptr(in));
      Sexp enc;
      check(gcry_pk_encrypt(enc.out(), data.get(), key_.get()),
            oaep_ ? "OAEP encrypt" : "PKCS#1 v1.5 encrypt");
      return write_token(enc.get(), "a", out, k_);
    }
    // RFC 8017 7.1.2 / 7.2.2 step 1; libgcrypt itself would read a shorter string as a smaller
    // integer.
    if (len != k_) throw Error(std::string(name) + " ciphertext is not k bytes");
    size_t n = 0;
    if (!try_run(in, len, out, n))
      throw Error(std::string("libgcrypt ") + name + " decrypt: " + describe(refused_));
    return n;
  }
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    if (encrypt_ || len != k_) return Operation::try_run(in, len, out, out_len);
    Sexp enc = build("ciphertext",
                     oaep_ ? "(enc-val (flags oaep)(hash-algo sha256)(rsa (a %b)))"
                           : "(enc-val (flags pkcs1)(rsa (a %b)))",
                     blen(len), bptr(in));
    Sexp plain;
    refused_ = gcry_pk_decrypt(plain.out(), enc.get(), key_.get());
    if (refused_) return false;
    out_len = write_token(plain.get(), "value", out, 0);
    return true;
  }

 private:
  bool encrypt_, oaep_;
  size_t k_;
  Sexp key_;
  gcry_error_t refused_ = 0;  // why the last decryption was refused
};

// X25519 / X448 through gcry_ecc_mul_point, which takes and returns RFC 7748 byte strings
// (little-endian u-coordinates, the scalar clamped inside).
class MontgomeryOp : public Operation {
 public:
  MontgomeryOp(int curve, size_t len, const Params& p)
      : curve_(curve),
        len_(len),
        priv_(key_part(p.keypair, "priv")),
        peer_(key_part(p.peer, "pub")) {
    if (priv_.size() != len || peer_.size() != len)
      throw Error("key of the wrong length for this curve");
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    check(gcry_ecc_mul_point(curve_, out, priv_.data(), peer_.data()), "scalar multiplication");
    return len_;
  }

 private:
  int curve_;
  size_t len_;
  Bytes priv_, peer_;
};

// ECDH on the NIST curves: libgcrypt exposes the raw point multiplication as the "decryption" of
// an ECDH ciphertext whose ephemeral point is the peer's public key; it returns d * peer as an
// uncompressed point, which it checks lies on the curve.
class EcdhOp : public Operation {
 public:
  EcdhOp(const EcCurve& c, const Params& p) : field_(c.field), key_(ec_private(c, p.keypair)) {
    const Bytes e = ec_point(p.peer, c.field);
    peer_ = build("peer point", "(enc-val (ecdh (e %b)))", blen(e.size()), e.data());
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    Sexp shared;
    check(gcry_pk_decrypt(shared.out(), peer_.get(), key_.get()), "ECDH");
    Sexp t(gcry_sexp_find_token(shared.get(), "value", 0));
    size_t n = 0;
    const char* d = t.get() ? gcry_sexp_nth_data(t.get(), 1, &n) : nullptr;
    if (!d || n != 1 + 2 * field_ || d[0] != 0x04) throw Error("unexpected ECDH result");
    std::memcpy(out, d + 1, field_);
    return field_;
  }

 private:
  size_t field_;
  Sexp key_, peer_;
};

// ---- key derivation --------------------------------------------------------------------------

struct PbkdfRow {
  const char* ours;
  int md;
};
constexpr PbkdfRow kPbkdf2[] = {
    {"pbkdf2-sha1", GCRY_MD_SHA1},
    {"pbkdf2-sha256", GCRY_MD_SHA256},
    {"pbkdf2-sha512", GCRY_MD_SHA512},
};

// gcry_kdf_derive: PBKDF2 (subalgo = digest, iterations) and scrypt (subalgo = N, iterations = p;
// libgcrypt fixes r = 8).
class KdfDeriveOp : public Operation {
 public:
  KdfDeriveOp(int algo, int subalgo, unsigned long iterations, const Params& p)
      : algo_(algo),
        subalgo_(subalgo),
        iterations_(iterations),
        salt_(p.salt),
        out_len_(p.out_len) {
    if (!out_len_) throw Unsupported("output length 0");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(gcry_kdf_derive(bptr(in), len, algo_, subalgo_, bptr(salt_.data()), salt_.size(),
                          iterations_, out_len_, out),
          "kdf derive");
    return out_len_;
  }

 private:
  int algo_, subalgo_;
  unsigned long iterations_;
  Bytes salt_;
  size_t out_len_;
};

// Argon2id through the handle API: the password is an argument of gcry_kdf_open, so each run()
// opens, computes, reads and closes. A null thread-ops table makes libgcrypt fill the lanes one
// after the other in the calling thread.
class Argon2Op : public Operation {
 public:
  explicit Argon2Op(const Params& p)
      : param_{static_cast<unsigned long>(p.out_len), to_ulong(cost_param(p, "t")),
               to_ulong(cost_param(p, "m")), to_ulong(cost_param(p, "p"))},
        salt_(p.salt),
        secret_(p.key),
        ad_(p.aad),
        out_len_(p.out_len) {
    if (!out_len_) throw Unsupported("output length 0");
    // gcry_kdf_open refuses an empty salt and an empty password ("Invalid value"), although
    // RFC 9106 allows a password of any length.
    if (salt_.empty()) throw Unsupported("libgcrypt's Argon2 refuses an empty salt");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (len == 0) throw Unsupported("libgcrypt's Argon2 refuses an empty password");
    gcry_kdf_hd_t h = nullptr;
    check(
        gcry_kdf_open(&h, GCRY_KDF_ARGON2, GCRY_KDF_ARGON2ID, param_, 4, bptr(in), len,
                      bptr(salt_.data()), salt_.size(), secret_.empty() ? nullptr : secret_.data(),
                      secret_.size(), ad_.empty() ? nullptr : ad_.data(), ad_.size()),
        "argon2 open");
    gcry_error_t err = gcry_kdf_compute(h, nullptr);
    if (!err) err = gcry_kdf_final(h, out_len_, out);
    gcry_kdf_close(h);
    check(err, "argon2");
    return out_len_;
  }

 private:
  static unsigned long to_ulong(uint64_t v) {
    if (v > 0xffffffffu) throw Unsupported("argon2 cost parameter out of range");
    return static_cast<unsigned long>(v);
  }
  unsigned long param_[4];
  Bytes salt_, secret_, ad_;
  size_t out_len_;
};

std::unique_ptr<Operation> prepare_kdf(const std::string& alg, const Params& p) {
  for (const auto& row : kPbkdf2)
    if (alg == row.ours) {
      const uint64_t iterations = cost_param(p, "iterations");
      if (iterations == 0 || iterations > 0xffffffffu)
        throw Unsupported("PBKDF2 iteration count out of range");
      // gcry_kdf_derive answers "Invalid value" for an empty PBKDF2 salt (RFC 8018 allows one).
      if (p.salt.empty()) throw Unsupported("libgcrypt's PBKDF2 refuses an empty salt");
      return std::make_unique<KdfDeriveOp>(GCRY_KDF_PBKDF2, row.md, iterations, p);
    }
  if (alg == "scrypt") {
    const uint64_t n = cost_param(p, "N"), r = cost_param(p, "r"), par = cost_param(p, "p");
    // gcry_kdf_derive's GCRY_KDF_SCRYPT has r = 8 built in and no way to choose another.
    if (r != 8) throw Unsupported("libgcrypt's scrypt has r fixed to 8");
    if (n < 2 || n > 0x7fffffff || par == 0 || par > 0xffffffffu)
      throw Unsupported("scrypt parameters out of range");
    return std::make_unique<KdfDeriveOp>(GCRY_KDF_SCRYPT, static_cast<int>(n), par, p);
  }
  if (alg == "argon2id") return std::make_unique<Argon2Op>(p);
  return nullptr;
}

// ---- key generation --------------------------------------------------------------------------

Sexp genkey(const char* what, const Sexp& spec) {
  Sexp key;
  check(gcry_pk_genkey(key.out(), spec.get()), what);
  return key;
}

KeyParts generate_rsa(unsigned bits) {
  const Sexp key =
      genkey("RSA keygen",
             build("RSA parameters", "(genkey (rsa (nbits %u)(rsa-use-e %u)))", bits, 65537u));
  Sexp priv(gcry_sexp_find_token(key.get(), "private-key", 0));
  if (!priv.get()) throw Error("libgcrypt RSA key has no private part");
  Mpi n, e, d, p, q, u;
  check(gcry_sexp_extract_param(priv.get(), nullptr, "nedpqu", n.out(), e.out(), d.out(), p.out(),
                                q.out(), u.out(), nullptr),
        "RSA key parts");
  // libgcrypt's p < q and u = p^-1 mod q: named the other way round, its q is the conventional
  // (larger) p and u is qinv = q^-1 mod p.
  Mpi dp, dq;
  *dp.out() = gcry_mpi_new(0);
  *dq.out() = gcry_mpi_new(0);
  Mpi pm1, qm1;
  *pm1.out() = gcry_mpi_new(0);
  *qm1.out() = gcry_mpi_new(0);
  gcry_mpi_sub_ui(pm1.get(), q.get(), 1);
  gcry_mpi_sub_ui(qm1.get(), p.get(), 1);
  gcry_mpi_mod(dp.get(), d.get(), pm1.get());
  gcry_mpi_mod(dq.get(), d.get(), qm1.get());
  return {{"n", mpi_bytes(n.get())},   {"e", mpi_bytes(e.get())},   {"d", mpi_bytes(d.get())},
          {"p", mpi_bytes(q.get())},   {"q", mpi_bytes(p.get())},   {"dp", mpi_bytes(dp.get())},
          {"dq", mpi_bytes(dq.get())}, {"qinv", mpi_bytes(u.get())}};
}

KeyParts generate_ec(const EcCurve& c) {
  const Sexp key =
      genkey("EC keygen", build("EC parameters", "(genkey (ecc (curve %s)))", c.gcry_name));
  const Bytes q = token_bytes(key.get(), "q");
  if (q.size() != 1 + 2 * c.field || q[0] != 0x04) throw Error("unexpected EC public key form");
  return {{"d", fixed(token_bytes(key.get(), "d"), c.field)},
          {"x", Bytes(q.begin() + 1, q.begin() + 1 + c.field)},
          {"y", Bytes(q.begin() + 1 + c.field, q.end())}};
}

KeyParts generate_ed(const EdCurve& c) {
  const Sexp key =
      genkey("EdDSA keygen",
             build("EdDSA parameters", "(genkey (ecc (curve %s)(flags eddsa)))", c.gcry_name));
  return {{"priv", fixed(token_bytes(key.get(), "d"), c.key_len)},
          {"pub", strip_native_prefix(token_bytes(key.get(), "q"), c.key_len)}};
}

// An X25519/X448 private key is any random string (clamping happens in every multiplication);
// the public key is the scalar times the base point, which gcry_ecc_mul_point computes when
// given no point.
KeyParts generate_montgomery(int curve, size_t len) {
  Bytes priv(len), pub(len);
  gcry_randomize(priv.data(), len, GCRY_VERY_STRONG_RANDOM);
  check(gcry_ecc_mul_point(curve, pub.data(), priv.data(), nullptr), "public key");
  return {{"priv", priv}, {"pub", pub}};
}

constexpr const char* kPublicKeyAlgorithms[] = {
    "rsa-1024",
    "rsa-2048",
    "rsa-3072",
    "rsa-4096",
    "rsa-1024-pkcs1-sha256",
    "rsa-2048-pkcs1-sha256",
    "rsa-3072-pkcs1-sha256",
    "rsa-4096-pkcs1-sha256",
    "rsa-1024-pss-sha256",
    "rsa-2048-pss-sha256",
    "rsa-3072-pss-sha256",
    "rsa-4096-pss-sha256",
    "rsa-1024-oaep-sha256",
    "rsa-2048-oaep-sha256",
    "rsa-2048-pkcs1v15-enc",
    "rsa-3072-oaep-sha256",
    "rsa-4096-oaep-sha256",
    "ecdsa-p256",
    "ecdsa-p384",
    "ecdsa-p521",
    "ed25519",
    "ed448",
    "x25519",
    "x448",
    "ecdh-p256",
    "ecdh-p384",
    "pbkdf2-sha1",
    "pbkdf2-sha256",
    "pbkdf2-sha512",
    "scrypt",
    "argon2id",
};

std::unique_ptr<Operation> prepare_public_key(const AlgorithmInfo& info, OpKind op,
                                              const Params& p) {
  const std::string& alg = info.name;
  switch (info.kind) {
    case Kind::Signature:
      return std::make_unique<SignatureOp>(alg, op, p);
    case Kind::PkEncryption:
      return std::make_unique<RsaEncOp>(op, p, info.family == "rsa-oaep");
    case Kind::KeyAgreement:
      if (alg == "x25519") return std::make_unique<MontgomeryOp>(GCRY_ECC_CURVE25519, 32, p);
      if (alg == "x448") return std::make_unique<MontgomeryOp>(GCRY_ECC_CURVE448, 56, p);
      if (const EcCurve* c = find_curve(alg)) return std::make_unique<EcdhOp>(*c, p);
      break;
    case Kind::Kdf:
      if (auto kdf = prepare_kdf(alg, p)) return kdf;
      break;
    default:
      break;
  }
  throw Unsupported("gcrypt does not offer " + alg + " " + to_string(op));
}

bool cipher_available(const CipherRow& row) {
  if (gcry_cipher_test_algo(row.algo)) return false;
  // Opening a handle is the only runtime test for a mode (XTS, Poly1305) with an algorithm.
  gcry_cipher_hd_t h = nullptr;
  if (gcry_cipher_open(&h, row.algo, row.mode, 0)) return false;
  gcry_cipher_close(h);
  return true;
}

class GcryptProvider : public Provider {
 public:
  std::string name() const override { return "gcrypt"; }
  std::string version() const override {
    // gcry_check_version(NULL) would initialise the library, which must wait for init() (the
    // soft variant's switches have to come first); until then only the header version is known.
    return initialised_ ? gcry_check_version(nullptr) : GCRYPT_VERSION;
  }
  std::vector<Variant> variants() const override {
    return {
        {"default", "all CPU features libgcrypt detects", {}},
        {"soft",
         "GCRYCTL_DISABLE_HWF for every x86 feature libgcrypt knows (AES-NI, PCLMUL, SHA-NI, "
         "VAES, SSSE3/SSE4.1/AVX/AVX2, BMI2, ...): baseline x86-64 code only",
         {}},
    };
  }

  void init(const std::string& variant) override {
    const bool soft = variant == "soft";
    if (!soft && variant != "default") throw Unsupported("gcrypt has no variant '" + variant + "'");
    // Another library in this process may already have brought libgcrypt up.
    const bool finished = gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P) != 0;
    const bool started = gcry_control(GCRYCTL_ANY_INITIALIZATION_P) != 0;
    if (soft) {
      if (started)
        throw Error("libgcrypt was initialised before its hardware features could be disabled");
      for (const char* feature : kX86Features) {
        // One name per call: lists are accepted by 1.10, but unknown names fail the whole call.
        const gcry_error_t err = gcry_control(GCRYCTL_DISABLE_HWF, feature, nullptr);
        if (gcry_err_code(err) == GPG_ERR_INV_NAME)
          unknown_.push_back(feature);
        else if (err)
          check(err, "disable hardware feature");
        else
          disabled_.push_back(feature);
      }
    }
    if (!gcry_check_version(GCRYPT_VERSION))
      throw Error(std::string("libgcrypt is older than the headers (") + GCRYPT_VERSION + ")");
    if (!finished) {
      // Benchmarks must not depend on the size of the locked secure-memory pool.
      gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
      check(gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0), "initialisation");
    }
    initialised_ = true;
    if (soft) {
      const std::string left = print_config()["hwflist"];
      if (!left.empty())
        throw Error("libgcrypt still uses hardware features after disabling them: " + left);
    }
    for (const auto& row : kCiphers)
      if (cipher_available(row)) available_.push_back(row.ours);
    for (const auto& row : kDigests)
      if (!gcry_md_test_algo(row.algo)) available_.push_back(row.ours);
    for (const auto& row : kMacs)
      if (!gcry_mac_test_algo(row.algo)) available_.push_back(row.ours);
    if (!gcry_pk_test_algo(GCRY_PK_RSA) && !gcry_pk_test_algo(GCRY_PK_ECC))
      available_.insert(available_.end(), std::begin(kPublicKeyAlgorithms),
                        std::end(kPublicKeyAlgorithms));
  }

  std::vector<std::string> algorithms() const override { return available_; }

  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (std::find(available_.begin(), available_.end(), algorithm) == available_.end())
      throw Unsupported("gcrypt does not offer " + algorithm);
    if (const CipherRow* row = lookup(kCiphers, algorithm))
      return std::make_unique<CipherOp>(*info, *row, op, params);
    if (const AlgoRow* row = lookup(kDigests, algorithm))
      return std::make_unique<DigestOp>(row->algo);
    if (const AlgoRow* row = lookup(kMacs, algorithm))
      return std::make_unique<MacOp>(*info, row->algo, params);
    return prepare_public_key(*info, op, params);
  }

  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Mac);
    const AlgoRow* row = lookup(kMacs, algorithm);
    if (!row || std::find(available_.begin(), available_.end(), algorithm) == available_.end())
      throw Unsupported("gcrypt does not offer " + algorithm);
    return std::make_unique<MacVerify>(info, row->algo, params);
  }

  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    if (std::find(available_.begin(), available_.end(), algorithm) == available_.end())
      throw Unsupported("gcrypt does not offer " + algorithm);
    if (info.kind == Kind::KeyPair) return generate_rsa(static_cast<unsigned>(info.bits));
    if (const EcCurve* c = find_curve(algorithm)) return generate_ec(*c);
    if (const EdCurve* c = find_ed(algorithm)) return generate_ed(*c);
    if (algorithm == "x25519") return generate_montgomery(GCRY_ECC_CURVE25519, 32);
    if (algorithm == "x448") return generate_montgomery(GCRY_ECC_CURVE448, 56);
    throw Unsupported("gcrypt cannot generate " + algorithm + " keys");
  }

  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    if (!initialised_) return out;
    auto config = print_config();
    out["hwflist"] = config["hwflist"];
    out["hwf_disabled"] = join(disabled_);
    if (!unknown_.empty()) out["hwf_unknown_to_library"] = join(unknown_);
    out["cpu_arch"] = config["cpu-arch"];
    out["fips_mode"] = config["fips-mode"];
    // Public key: the multi-precision assembly in use, and the generator behind key generation
    // (secret keys are drawn at GCRY_VERY_STRONG_RANDOM, which dominates ECC key generation).
    out["mpi_asm"] = config["mpi-asm"];
    out["rng_type"] = config["rng-type"];
    return out;
  }

 private:
  bool initialised_ = false;
  std::vector<std::string> available_, disabled_, unknown_;
};

}  // namespace

CB_REGISTER_PROVIDER("gcrypt", GcryptProvider);

}  // namespace cb
