// GNU Nettle adapter. Nettle is a toolkit of modes over raw block functions: prepare() runs the key
// schedule into a context, run() copies the prepared IV into a working buffer (the mode functions
// advance it in place) and calls the mode. Contexts are sized from Nettle's own meta descriptors.
//
// Nettle 3.8 has no OFB mode, no BLAKE2, no Whirlpool, no XChaCha20/XSalsa20: those names are not
// offered. Debian builds Nettle as a "fat" library that picks AES-NI, PCLMULQDQ (GHASH) and SHA-NI
// code from CPUID in a load-time constructor; NETTLE_FAT_OVERRIDE replaces the CPUID answer with
// a comma-separated feature list, so a list naming no feature selects the portable x86_64 code.
//
// Public key comes from hogweed (RSA PKCS#1 v1.5 and PSS, ECDSA, ECDH, Ed25519/Ed448,
// X25519/X448) and KDFs from Nettle (PBKDF2, HKDF). Nettle 3.8 has no RSA-OAEP (added in 3.10),
// no scrypt, no Argon2 and no Diffie-Hellman: those names are not offered.
#include <dlfcn.h>
#include <link.h>
#include <nettle/aes.h>
#include <nettle/bignum.h>
#include <nettle/cbc.h>
#include <nettle/cfb.h>
#include <nettle/chacha.h>
#include <nettle/cmac.h>
#include <nettle/ctr.h>
#include <nettle/curve25519.h>
#include <nettle/curve448.h>
#include <nettle/des.h>
#include <nettle/dsa.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/eddsa.h>
#include <nettle/hkdf.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/nettle-meta.h>
#include <nettle/pbkdf2.h>
#include <nettle/rsa.h>
#include <nettle/salsa20.h>
#include <nettle/version.h>
#include <nettle/xts.h>
#include <nettle/yarrow.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

constexpr const char* kFatOverride = "NETTLE_FAT_OVERRIDE";

// Suitably aligned storage for a Nettle context whose size is known only at run time; wiped on
// destruction because it holds key schedules.
class Context {
 public:
  explicit Context(size_t bytes)
      : words_((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t)) {}
  ~Context() { std::memset(words_.data(), 0, words_.size() * sizeof(std::max_align_t)); }
  void* get() { return words_.data(); }

 private:
  std::vector<std::max_align_t> words_;
};

// ---- block cipher modes -------------------------------------------------------------------------

// The typed AES-CBC encryptors are fat functions with an AES-NI version that keeps the chaining
// value in a register, faster than cbc_encrypt's block-at-a-time callback.
using CbcFast = void (*)(const void* ctx, uint8_t* iv, size_t len, uint8_t* dst,
                         const uint8_t* src);
void cbc_aes128(const void* c, uint8_t* iv, size_t n, uint8_t* d, const uint8_t* s) {
  cbc_aes128_encrypt(static_cast<const aes128_ctx*>(c), iv, n, d, s);
}
void cbc_aes192(const void* c, uint8_t* iv, size_t n, uint8_t* d, const uint8_t* s) {
  cbc_aes192_encrypt(static_cast<const aes192_ctx*>(c), iv, n, d, s);
}
void cbc_aes256(const void* c, uint8_t* iv, size_t n, uint8_t* d, const uint8_t* s) {
  cbc_aes256_encrypt(static_cast<const aes256_ctx*>(c), iv, n, d, s);
}

// des3_set_key's result only flags weak DES keys; the schedule is installed either way, as other
// libraries do without complaint.
void des3_key(void* ctx, const uint8_t* key) { des3_set_key(static_cast<des3_ctx*>(ctx), key); }

struct BlockCipher {
  size_t context_size, block_size;
  nettle_set_key_func *set_encrypt_key, *set_decrypt_key;
  nettle_cipher_func *encrypt, *decrypt;
  CbcFast cbc_encrypt_fast;  // nullptr: generic cbc_encrypt
};

BlockCipher aes(const nettle_cipher& meta, CbcFast cbc) {
  return {meta.context_size,
          meta.block_size,
          meta.set_encrypt_key,
          meta.set_decrypt_key,
          meta.encrypt,
          meta.decrypt,
          cbc};
}

BlockCipher des3() {
  return {sizeof(des3_ctx),
          DES3_BLOCK_SIZE,
          des3_key,
          des3_key,
          reinterpret_cast<nettle_cipher_func*>(des3_encrypt),
          reinterpret_cast<nettle_cipher_func*>(des3_decrypt),
          nullptr};
}

enum class Mode { Cbc, Cfb, Ctr };

class BlockModeOp : public Operation {
 public:
  BlockModeOp(const BlockCipher& bc, Mode mode, bool encrypt, const Params& p)
      : bc_(bc), mode_(mode), encrypt_(encrypt), ctx_(bc.context_size), iv_(p.iv), work_(p.iv) {
    // CFB and CTR run the block function forwards in both directions.
    const bool inverse = mode == Mode::Cbc && !encrypt;
    (inverse ? bc.set_decrypt_key : bc.set_encrypt_key)(ctx_.get(), p.key.data());
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // Nettle asserts (aborts) on a partial CBC block, so refuse it here instead.
    if (mode_ == Mode::Cbc && len % bc_.block_size)
      throw Error("CBC length is not a whole number of blocks");
    std::memcpy(work_.data(), iv_.data(), iv_.size());
    const void* ctx = ctx_.get();
    switch (mode_) {
      case Mode::Cbc:
        if (!encrypt_)
          cbc_decrypt(ctx, bc_.decrypt, bc_.block_size, work_.data(), len, out, in);
        else if (bc_.cbc_encrypt_fast)
          bc_.cbc_encrypt_fast(ctx, work_.data(), len, out, in);
        else
          cbc_encrypt(ctx, bc_.encrypt, bc_.block_size, work_.data(), len, out, in);
        break;
      case Mode::Cfb:
        (encrypt_ ? cfb_encrypt : cfb_decrypt)(ctx, bc_.encrypt, bc_.block_size, work_.data(), len,
                                               out, in);
        break;
      case Mode::Ctr:
        ctr_crypt(ctx, bc_.encrypt, bc_.block_size, work_.data(), len, out, in);
        break;
    }
    return len;
  }

 private:
  BlockCipher bc_;
  Mode mode_;
  bool encrypt_;
  Context ctx_;
  Bytes iv_, work_;
};

// XTS: Nettle's *_message functions take the tweak per call and handle ciphertext stealing.
template <class Key, void (*SetEnc)(Key*, const uint8_t*), void (*SetDec)(Key*, const uint8_t*),
          void (*Enc)(Key*, const uint8_t*, size_t, uint8_t*, const uint8_t*),
          void (*Dec)(Key*, const uint8_t*, size_t, uint8_t*, const uint8_t*)>
class XtsOp : public Operation {
 public:
  XtsOp(bool encrypt, const Params& p) : encrypt_(encrypt), tweak_(p.iv) {
    (encrypt ? SetEnc : SetDec)(&key_, p.key.data());
  }
  ~XtsOp() override { std::memset(&key_, 0, sizeof key_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (len < XTS_BLOCK_SIZE) throw Error("XTS needs at least one 16-byte block");
    (encrypt_ ? Enc : Dec)(&key_, tweak_.data(), len, out, in);
    return len;
  }

 private:
  bool encrypt_;
  Bytes tweak_;
  Key key_{};
};

using XtsAes128 = XtsOp<xts_aes128_key, xts_aes128_set_encrypt_key, xts_aes128_set_decrypt_key,
                        xts_aes128_encrypt_message, xts_aes128_decrypt_message>;
using XtsAes256 = XtsOp<xts_aes256_key, xts_aes256_set_encrypt_key, xts_aes256_set_decrypt_key,
                        xts_aes256_encrypt_message, xts_aes256_decrypt_message>;

// ---- stream ciphers: setting the nonce also rewinds the block counter to 0 -------------------

class ChachaOp : public Operation {
 public:
  explicit ChachaOp(const Params& p) : nonce_(p.iv) { chacha_set_key(&ctx_, p.key.data()); }
  ~ChachaOp() override { std::memset(&ctx_, 0, sizeof ctx_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    // RFC 8439 layout: 32-bit counter, 96-bit nonce.
    chacha_set_nonce96(&ctx_, nonce_.data());
    chacha_crypt32(&ctx_, len, out, in);
    return len;
  }

 private:
  Bytes nonce_;
  chacha_ctx ctx_{};
};

class Salsa20Op : public Operation {
 public:
  explicit Salsa20Op(const Params& p) : nonce_(p.iv) { salsa20_256_set_key(&ctx_, p.key.data()); }
  ~Salsa20Op() override { std::memset(&ctx_, 0, sizeof ctx_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    salsa20_set_nonce(&ctx_, nonce_.data());
    salsa20_crypt(&ctx_, len, out, in);
    return len;
  }

 private:
  Bytes nonce_;
  salsa20_ctx ctx_{};
};

// ---- AEAD through Nettle's nettle_aead descriptors (GCM-AES, ChaCha20-Poly1305) ---------------

class AeadOp : public Operation {
 public:
  AeadOp(const nettle_aead& meta, bool encrypt, const Params& p)
      : meta_(meta), encrypt_(encrypt), ctx_(meta.context_size), nonce_(p.iv), aad_(p.aad) {
    (encrypt ? meta.set_encrypt_key : meta.set_decrypt_key)(ctx_.get(), p.key.data());
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  // A wrong tag is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    constexpr size_t kTag = 16;
    void* ctx = ctx_.get();
    // set_nonce restarts the counter and the authenticator for a new message.
    meta_.set_nonce(ctx, nonce_.data());
    if (!aad_.empty()) meta_.update(ctx, aad_.size(), aad_.data());
    if (encrypt_) {
      meta_.encrypt(ctx, len, out, in);
      meta_.digest(ctx, kTag, out + len);
      out_len = len + kTag;
      return true;
    }
    if (len < kTag) throw Error("ciphertext shorter than the tag");
    const size_t body = len - kTag;
    meta_.decrypt(ctx, body, out, in);
    uint8_t tag[kTag];
    meta_.digest(ctx, kTag, tag);
    if (!memeql_sec(tag, in + body, kTag)) return false;
    out_len = body;
    return true;
  }

 private:
  const nettle_aead& meta_;
  bool encrypt_;
  Context ctx_;
  Bytes nonce_, aad_;
};

// ---- hashes and MACs ---------------------------------------------------------------------------

class HashOp : public Operation {
 public:
  explicit HashOp(const nettle_hash& meta) : meta_(meta), ctx_(meta.context_size) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    meta_.init(ctx_.get());
    meta_.update(ctx_.get(), len, in);
    meta_.digest(ctx_.get(), meta_.digest_size, out);
    return meta_.digest_size;
  }

 private:
  const nettle_hash& meta_;
  Context ctx_;
};

// Variable-length HMAC keys need the typed set_key functions (the nettle_mac descriptor's takes a
// fixed-size key); update and digest come from the descriptor. Nettle's HMAC and CMAC digest
// functions leave the context keyed and ready for the next message.
using MacSetKey = void (*)(void* ctx, size_t len, const uint8_t* key);
void hmac_sha256_key(void* c, size_t n, const uint8_t* k) {
  hmac_sha256_set_key(static_cast<hmac_sha256_ctx*>(c), n, k);
}
void hmac_sha512_key(void* c, size_t n, const uint8_t* k) {
  hmac_sha512_set_key(static_cast<hmac_sha512_ctx*>(c), n, k);
}

class MacOp : public Operation {
 public:
  MacOp(const nettle_mac& meta, MacSetKey set_key, const Params& p)
      : meta_(meta), ctx_(meta.context_size) {
    if (set_key)
      set_key(ctx_.get(), p.key.size(), p.key.data());
    else
      meta.set_key(ctx_.get(), p.key.data());
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    meta_.update(ctx_.get(), len, in);
    meta_.digest(ctx_.get(), meta_.digest_size, out);
    return meta_.digest_size;
  }

 private:
  const nettle_mac& meta_;
  Context ctx_;
};

// ---- catalogue ---------------------------------------------------------------------------------

struct HashRow {
  const char* name;
  const nettle_hash* meta;
};
const HashRow kHashes[] = {
    {"md5", &nettle_md5},
    {"sha1", &nettle_sha1},
    {"sha224", &nettle_sha224},
    {"sha256", &nettle_sha256},
    {"sha384", &nettle_sha384},
    {"sha512", &nettle_sha512},
    {"sha512-256", &nettle_sha512_256},
    {"sha3-256", &nettle_sha3_256},
    {"sha3-512", &nettle_sha3_512},
    {"ripemd160", &nettle_ripemd160},
};

struct AeadRow {
  const char* name;
  const nettle_aead* meta;
};
const AeadRow kAeads[] = {
    {"aes-128-gcm", &nettle_gcm_aes128},
    {"aes-192-gcm", &nettle_gcm_aes192},
    {"aes-256-gcm", &nettle_gcm_aes256},
    {"chacha20-poly1305", &nettle_chacha_poly1305},
};

struct MacRow {
  const char* name;
  const nettle_mac* meta;
  MacSetKey set_key;
};
const MacRow kMacs[] = {
    {"hmac-sha256", &nettle_hmac_sha256, hmac_sha256_key},
    {"hmac-sha512", &nettle_hmac_sha512, hmac_sha512_key},
    {"cmac-aes128", &nettle_cmac_aes128, nullptr},
    {"cmac-aes256", &nettle_cmac_aes256, nullptr},
};

const char* const kModeCiphers[] = {
    "aes-128-cbc", "aes-192-cbc",  "aes-256-cbc", "aes-128-cfb", "aes-192-cfb",
    "aes-256-cfb", "aes-128-ctr",  "aes-192-ctr", "aes-256-ctr", "aes-128-xts",
    "aes-256-xts", "des-ede3-cbc", "chacha20",    "salsa20",
};

template <class Row, size_t N>
const Row* lookup(const Row (&table)[N], const std::string& name) {
  for (const auto& row : table)
    if (name == row.name) return &row;
  return nullptr;
}

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::unique_ptr<Operation> prepare_cipher(const std::string& alg, bool encrypt, const Params& p) {
  if (alg == "chacha20") return std::make_unique<ChachaOp>(p);
  if (alg == "salsa20") return std::make_unique<Salsa20Op>(p);
  if (alg == "aes-128-xts") return std::make_unique<XtsAes128>(encrypt, p);
  if (alg == "aes-256-xts") return std::make_unique<XtsAes256>(encrypt, p);
  BlockCipher bc;
  if (alg == "des-ede3-cbc")
    bc = des3();
  else if (alg.rfind("aes-128-", 0) == 0)
    bc = aes(nettle_aes128, cbc_aes128);
  else if (alg.rfind("aes-192-", 0) == 0)
    bc = aes(nettle_aes192, cbc_aes192);
  else if (alg.rfind("aes-256-", 0) == 0)
    bc = aes(nettle_aes256, cbc_aes256);
  else
    return nullptr;
  if (ends_with(alg, "-cbc")) return std::make_unique<BlockModeOp>(bc, Mode::Cbc, encrypt, p);
  if (ends_with(alg, "-cfb")) return std::make_unique<BlockModeOp>(bc, Mode::Cfb, encrypt, p);
  if (ends_with(alg, "-ctr")) return std::make_unique<BlockModeOp>(bc, Mode::Ctr, encrypt, p);
  return nullptr;  // OFB: Nettle 3.8 has no OFB mode
}

// ---- public key (hogweed) -----------------------------------------------------------------------
//
// Keys are converted to GMP integers and Nettle's key structures once in prepare(); run() hashes
// the message and calls one hogweed function. Randomised operations (RSA blinding, PSS salts,
// ECDSA nonces) draw from a Yarrow-256 generator seeded from the kernel (getrandom) in prepare().

class Rng {
 public:
  Rng() {
    uint8_t seed[YARROW256_SEED_FILE_SIZE];
    fill_from_kernel(seed, sizeof seed);
    yarrow256_init(&ctx_, 0, nullptr);
    yarrow256_seed(&ctx_, sizeof seed, seed);
    std::memset(seed, 0, sizeof seed);
  }
  ~Rng() { std::memset(&ctx_, 0, sizeof ctx_); }
  Rng(const Rng&) = delete;
  Rng& operator=(const Rng&) = delete;
  void* ctx() { return &ctx_; }
  static void random(void* ctx, size_t len, uint8_t* dst) {
    yarrow256_random(static_cast<yarrow256_ctx*>(ctx), len, dst);
  }
  void fill(uint8_t* dst, size_t len) { yarrow256_random(&ctx_, len, dst); }

 private:
  static void fill_from_kernel(uint8_t* dst, size_t len) {
    while (len > 0) {
      const ssize_t got = getrandom(dst, len, 0);
      if (got < 0) {
        if (errno == EINTR) continue;
        throw Error("getrandom failed");
      }
      dst += got;
      len -= static_cast<size_t>(got);
    }
  }
  yarrow256_ctx ctx_{};
};

class Mpz {
 public:
  Mpz() { mpz_init(v_); }
  explicit Mpz(const Bytes& b) {
    mpz_init(v_);
    set(b);
  }
  ~Mpz() { mpz_clear(v_); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
  void set(const Bytes& b) { nettle_mpz_set_str_256_u(v_, b.size(), b.data()); }
  mpz_t& get() { return v_; }
  const mpz_t& get() const { return v_; }

 private:
  mpz_t v_;
};

// Unsigned big-endian, exactly `width` bytes.
void put_mpz(const mpz_t v, uint8_t* out, size_t width) {
  if (nettle_mpz_sizeinbase_256_u(v) > width) throw Error("integer longer than expected");
  nettle_mpz_get_str_256(width, out, v);
}
Bytes mpz_bytes(const mpz_t v, size_t width = 0) {
  Bytes out(width ? width : nettle_mpz_sizeinbase_256_u(v));
  put_mpz(v, out.data(), out.size());
  return out;
}

// Nettle's hash updates memcpy their input, and memcpy from NULL is undefined even for 0 bytes.
const uint8_t* nonnull(const uint8_t* p) {
  static const uint8_t kEmpty = 0;
  return p ? p : &kEmpty;
}

class RsaPublic {
 public:
  explicit RsaPublic(const KeyParts& key) {
    rsa_public_key_init(&pub_);
    nettle_mpz_set_str_256_u(pub_.n, key_part(key, "n").size(), key_part(key, "n").data());
    nettle_mpz_set_str_256_u(pub_.e, key_part(key, "e").size(), key_part(key, "e").data());
    if (!rsa_public_key_prepare(&pub_)) {
      rsa_public_key_clear(&pub_);
      throw Error("nettle rejected the RSA public key");
    }
  }
  ~RsaPublic() { rsa_public_key_clear(&pub_); }
  RsaPublic(const RsaPublic&) = delete;
  RsaPublic& operator=(const RsaPublic&) = delete;
  const rsa_public_key* get() const { return &pub_; }
  size_t size() const { return pub_.size; }

 private:
  rsa_public_key pub_;
};

// Nettle's private key is the CRT form: a = dp, b = dq, c = qinv (q^-1 mod p), as in the
// common key format.
class RsaPrivate {
 public:
  explicit RsaPrivate(const KeyParts& key) {
    rsa_private_key_init(&key_);
    const std::pair<mpz_t*, const char*> parts[] = {{&key_.d, "d"},  {&key_.p, "p"},
                                                    {&key_.q, "q"},  {&key_.a, "dp"},
                                                    {&key_.b, "dq"}, {&key_.c, "qinv"}};
    try {
      for (const auto& [field, name] : parts) {
        const Bytes& v = key_part(key, name);
        nettle_mpz_set_str_256_u(*field, v.size(), v.data());
      }
    } catch (...) {
      rsa_private_key_clear(&key_);
      throw;
    }
    if (!rsa_private_key_prepare(&key_)) {
      rsa_private_key_clear(&key_);
      throw Error("nettle rejected the RSA private key");
    }
  }
  ~RsaPrivate() { rsa_private_key_clear(&key_); }
  RsaPrivate(const RsaPrivate&) = delete;
  RsaPrivate& operator=(const RsaPrivate&) = delete;
  const rsa_private_key* get() const { return &key_; }

 private:
  rsa_private_key key_;
};

// RSASSA-PKCS1-v1_5 and RSASSA-PSS (MGF1 and message hash SHA-256, 32-byte salt). Signing uses
// the _tr functions: blinded, and checked against the public key before the result is returned.
class RsaSignatureOp : public Operation {
 public:
  RsaSignatureOp(bool pss, OpKind op, const Params& p)
      : pss_(pss), sign_(op == OpKind::Sign), pub_(p.keypair) {
    if (sign_) {
      priv_ = std::make_unique<RsaPrivate>(p.keypair);
      rng_ = std::make_unique<Rng>();
    } else {
      // RFC 8017 requires a k-byte signature; anything else is invalid, not merely reduced.
      length_ok_ = p.signature.size() == pub_.size();
      sig_.set(p.signature);
    }
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_init(&hash_);
    sha256_update(&hash_, len, nonnull(in));
    sha256_digest(&hash_, sizeof digest, digest);
    if (sign_) {
      int ok;
      if (pss_) {
        uint8_t salt[kSaltLen];
        rng_->fill(salt, sizeof salt);
        ok = rsa_pss_sha256_sign_digest_tr(pub_.get(), priv_->get(), rng_->ctx(), Rng::random,
                                           kSaltLen, salt, digest, sig_.get());
      } else {
        ok = rsa_sha256_sign_digest_tr(pub_.get(), priv_->get(), rng_->ctx(), Rng::random, digest,
                                       sig_.get());
      }
      if (!ok) throw Error("nettle RSA signing failed");
      put_mpz(sig_.get(), out, pub_.size());
      return pub_.size();
    }
    const int ok =
        length_ok_ && (pss_ ? rsa_pss_sha256_verify_digest(pub_.get(), kSaltLen, digest, sig_.get())
                            : rsa_sha256_verify_digest(pub_.get(), digest, sig_.get()));
    if (!ok) throw Error("signature invalid");
    return 0;
  }

 private:
  static constexpr size_t kSaltLen = 32;
  bool pss_, sign_, length_ok_ = true;
  RsaPublic pub_;
  std::unique_ptr<RsaPrivate> priv_;
  std::unique_ptr<Rng> rng_;
  Mpz sig_;  // sign: the result (its limbs are allocated once and reused); verify: the input
  sha256_ctx hash_{};
};

struct NistCurve {
  const char* name;
  const ecc_curve* (*curve)();
  size_t field;               // bytes per coordinate / scalar
  const nettle_hash* digest;  // ECDSA only
};
const NistCurve kNistCurves[] = {
    {"ecdsa-p256", nettle_get_secp_256r1, 32, &nettle_sha256},
    {"ecdsa-p384", nettle_get_secp_384r1, 48, &nettle_sha384},
    {"ecdsa-p521", nettle_get_secp_521r1, 66, &nettle_sha512},
    {"ecdh-p256", nettle_get_secp_256r1, 32, nullptr},
    {"ecdh-p384", nettle_get_secp_384r1, 48, nullptr},
};

class EcPoint {
 public:
  explicit EcPoint(const ecc_curve* c) { ecc_point_init(&p_, c); }
  ~EcPoint() { ecc_point_clear(&p_); }
  EcPoint(const EcPoint&) = delete;
  EcPoint& operator=(const EcPoint&) = delete;
  // ecc_point_set refuses coordinates that are not a point on the curve.
  void set(const KeyParts& key) {
    const Mpz x(key_part(key, "x")), y(key_part(key, "y"));
    if (!ecc_point_set(&p_, x.get(), y.get())) throw Error("public key is not on the curve");
  }
  ecc_point* get() { return &p_; }

 private:
  ecc_point p_;
};

class EcScalar {
 public:
  explicit EcScalar(const ecc_curve* c) { ecc_scalar_init(&s_, c); }
  ~EcScalar() { ecc_scalar_clear(&s_); }
  EcScalar(const EcScalar&) = delete;
  EcScalar& operator=(const EcScalar&) = delete;
  // ecc_scalar_set refuses 0 and values not below the group order.
  void set(const Bytes& d) {
    const Mpz z(d);
    if (!ecc_scalar_set(&s_, z.get())) throw Error("private scalar out of range");
  }
  ecc_scalar* get() { return &s_; }

 private:
  ecc_scalar s_;
};

class Signature {
 public:
  Signature() { dsa_signature_init(&s_); }
  ~Signature() { dsa_signature_clear(&s_); }
  Signature(const Signature&) = delete;
  Signature& operator=(const Signature&) = delete;
  dsa_signature* get() { return &s_; }

 private:
  dsa_signature s_;
};

class EcdsaOp : public Operation {
 public:
  EcdsaOp(const NistCurve& c, OpKind op, const Params& p)
      : c_(c),
        sign_(op == OpKind::Sign),
        hash_(c.digest->context_size),
        pub_(c.curve()),
        key_(c.curve()) {
    if (sign_) {
      key_.set(key_part(p.keypair, "d"));
      rng_ = std::make_unique<Rng>();
    } else {
      // A public key off the curve, like a signature of the wrong length, makes every run()
      // reject rather than prepare() fail: verification's answer is "invalid" either way.
      try {
        pub_.set(p.keypair);
        valid_input_ = p.signature.size() == 2 * c.field;
      } catch (const Error&) {
        valid_input_ = false;
      }
      if (valid_input_) {
        nettle_mpz_set_str_256_u(sig_.get()->r, c.field, p.signature.data());
        nettle_mpz_set_str_256_u(sig_.get()->s, c.field, p.signature.data() + c.field);
      }
    }
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    uint8_t digest[SHA512_DIGEST_SIZE];  // the largest of the three
    const nettle_hash& h = *c_.digest;
    h.init(hash_.get());
    h.update(hash_.get(), len, nonnull(in));
    h.digest(hash_.get(), h.digest_size, digest);
    if (sign_) {
      ecdsa_sign(key_.get(), rng_->ctx(), Rng::random, h.digest_size, digest, sig_.get());
      put_mpz(sig_.get()->r, out, c_.field);
      put_mpz(sig_.get()->s, out + c_.field, c_.field);
      return 2 * c_.field;
    }
    if (!valid_input_ || !ecdsa_verify(pub_.get(), h.digest_size, digest, sig_.get()))
      throw Error("signature invalid");
    return 0;
  }

 private:
  const NistCurve& c_;
  bool sign_, valid_input_ = true;
  Context hash_;
  EcPoint pub_;
  EcScalar key_;
  Signature sig_;
  std::unique_ptr<Rng> rng_;
};

// ECDH: the peer point is validated when it is imported (ecc_point_set); the shared secret is the
// x-coordinate of d * peer.
class EcdhOp : public Operation {
 public:
  EcdhOp(const NistCurve& c, const Params& p)
      : field_(c.field), key_(c.curve()), peer_(c.curve()), shared_(c.curve()) {
    key_.set(key_part(p.keypair, "d"));
    peer_.set(p.peer);
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    ecc_point_mul(shared_.get(), key_.get(), peer_.get());
    ecc_point_get(shared_.get(), x_.get(), y_.get());
    put_mpz(x_.get(), out, field_);
    return field_;
  }

 private:
  size_t field_;
  EcScalar key_;
  EcPoint peer_, shared_;
  Mpz x_, y_;
};

struct EdCurve {
  const char* name;
  size_t key_len, sig_len;
  void (*public_key)(uint8_t* pub, const uint8_t* priv);
  void (*sign)(const uint8_t* pub, const uint8_t* priv, size_t len, const uint8_t* msg,
               uint8_t* sig);
  int (*verify)(const uint8_t* pub, size_t len, const uint8_t* msg, const uint8_t* sig);
};
const EdCurve kEdCurves[] = {
    {"ed25519", ED25519_KEY_SIZE, ED25519_SIGNATURE_SIZE, ed25519_sha512_public_key,
     ed25519_sha512_sign, ed25519_sha512_verify},
    {"ed448", ED448_KEY_SIZE, ED448_SIGNATURE_SIZE, ed448_shake256_public_key, ed448_shake256_sign,
     ed448_shake256_verify},
};

class EddsaOp : public Operation {
 public:
  EddsaOp(const EdCurve& c, OpKind op, const Params& p) : c_(c), sign_(op == OpKind::Sign) {
    if (sign_) {
      priv_ = key_part(p.keypair, "priv");
      if (priv_.size() != c.key_len) throw Error("EdDSA private key of the wrong length");
      // Nettle's sign trusts the public key it is handed; deriving it here keeps a key whose
      // "pub" does not match "priv" from producing a wrong signature.
      pub_.resize(c.key_len);
      c.public_key(pub_.data(), priv_.data());
    } else {
      pub_ = key_part(p.keypair, "pub");
      if (pub_.size() != c.key_len) throw Error("EdDSA public key of the wrong length");
      sig_ = p.signature;
    }
  }
  ~EddsaOp() override { std::memset(priv_.data(), 0, priv_.size()); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (sign_) {
      c_.sign(pub_.data(), priv_.data(), len, nonnull(in), out);
      return c_.sig_len;
    }
    if (sig_.size() != c_.sig_len || !c_.verify(pub_.data(), len, nonnull(in), sig_.data()))
      throw Error("signature invalid");
    return 0;
  }

 private:
  const EdCurve& c_;
  bool sign_;
  Bytes priv_, pub_, sig_;
};

// X25519 / X448: curve25519_mul and curve448_mul take RFC 7748 byte strings (little-endian
// u-coordinate, scalar clamped inside).
class MontgomeryOp : public Operation {
 public:
  MontgomeryOp(void (*mul)(uint8_t*, const uint8_t*, const uint8_t*), size_t len, const Params& p)
      : mul_(mul), len_(len), priv_(key_part(p.keypair, "priv")), peer_(key_part(p.peer, "pub")) {
    if (priv_.size() != len || peer_.size() != len)
      throw Error("key of the wrong length for this curve");
  }
  ~MontgomeryOp() override { std::memset(priv_.data(), 0, priv_.size()); }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    mul_(out, priv_.data(), peer_.data());
    return len_;
  }

 private:
  void (*mul_)(uint8_t*, const uint8_t*, const uint8_t*);
  size_t len_;
  Bytes priv_, peer_;
};

// ---- key derivation ----------------------------------------------------------------------------

using Pbkdf2Fn = void (*)(size_t key_len, const uint8_t* key, unsigned iterations, size_t salt_len,
                          const uint8_t* salt, size_t len, uint8_t* dst);
struct Pbkdf2Row {
  const char* name;
  Pbkdf2Fn fn;
};
const Pbkdf2Row kPbkdf2[] = {
    {"pbkdf2-sha1", pbkdf2_hmac_sha1},
    {"pbkdf2-sha256", pbkdf2_hmac_sha256},
    {"pbkdf2-sha512", pbkdf2_hmac_sha512},
};

class Pbkdf2Op : public Operation {
 public:
  Pbkdf2Op(Pbkdf2Fn fn, const Params& p) : fn_(fn), salt_(p.salt), out_len_(p.out_len) {
    const uint64_t iterations = cost_param(p, "iterations");
    // Nettle asserts on zero iterations and zero output length.
    if (iterations == 0 || iterations > 0xffffffffu)
      throw Unsupported("PBKDF2 iteration count out of range");
    if (!out_len_) throw Unsupported("output length 0");
    iterations_ = static_cast<unsigned>(iterations);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    fn_(len, nonnull(in), iterations_, salt_.size(), nonnull(salt_.data()), out_len_, out);
    return out_len_;
  }

 private:
  Pbkdf2Fn fn_;
  unsigned iterations_ = 0;
  Bytes salt_;
  size_t out_len_;
};

// HKDF-SHA-256: the HMAC keyed with the salt is set up once (Nettle's HMAC digest returns the
// context to its keyed state); expand needs a second HMAC keyed with each run's PRK.
class HkdfOp : public Operation {
 public:
  explicit HkdfOp(const Params& p) : info_(p.info), out_len_(p.out_len) {
    if (!out_len_ || out_len_ > 255 * SHA256_DIGEST_SIZE)
      throw Unsupported("HKDF-SHA-256 output length must be 1..8160 bytes");
    hmac_sha256_set_key(&salted_, p.salt.size(), nonnull(p.salt.data()));
  }
  ~HkdfOp() override {
    std::memset(&salted_, 0, sizeof salted_);
    std::memset(&prk_, 0, sizeof prk_);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    uint8_t prk[SHA256_DIGEST_SIZE];
    hkdf_extract(&salted_, reinterpret_cast<nettle_hash_update_func*>(hmac_sha256_update),
                 reinterpret_cast<nettle_hash_digest_func*>(hmac_sha256_digest), SHA256_DIGEST_SIZE,
                 len, nonnull(in), prk);
    hmac_sha256_set_key(&prk_, sizeof prk, prk);
    hkdf_expand(&prk_, reinterpret_cast<nettle_hash_update_func*>(hmac_sha256_update),
                reinterpret_cast<nettle_hash_digest_func*>(hmac_sha256_digest), SHA256_DIGEST_SIZE,
                info_.size(), nonnull(info_.data()), out_len_, out);
    return out_len_;
  }

 private:
  Bytes info_;
  size_t out_len_;
  hmac_sha256_ctx salted_{}, prk_{};
};

const char* const kPublicKeyAlgorithms[] = {
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
    "hkdf-sha256",
};

std::unique_ptr<Operation> prepare_public_key(const AlgorithmInfo& info, OpKind op,
                                              const Params& p) {
  const std::string& alg = info.name;
  if (std::find(std::begin(kPublicKeyAlgorithms), std::end(kPublicKeyAlgorithms), alg) ==
      std::end(kPublicKeyAlgorithms))
    return nullptr;
  if (info.kind == Kind::Signature && alg.rfind("rsa-", 0) == 0)
    return std::make_unique<RsaSignatureOp>(alg.find("-pss-") != std::string::npos, op, p);
  if (const auto* c = lookup(kNistCurves, alg)) {
    if (info.kind == Kind::Signature) return std::make_unique<EcdsaOp>(*c, op, p);
    return std::make_unique<EcdhOp>(*c, p);
  }
  if (const auto* c = lookup(kEdCurves, alg)) return std::make_unique<EddsaOp>(*c, op, p);
  if (alg == "x25519") return std::make_unique<MontgomeryOp>(curve25519_mul, CURVE25519_SIZE, p);
  if (alg == "x448") return std::make_unique<MontgomeryOp>(curve448_mul, CURVE448_SIZE, p);
  if (const auto* row = lookup(kPbkdf2, alg)) return std::make_unique<Pbkdf2Op>(row->fn, p);
  if (alg == "hkdf-sha256") return std::make_unique<HkdfOp>(p);
  return nullptr;
}

// ---- key generation ----------------------------------------------------------------------------

KeyParts generate_rsa(Rng& rng, unsigned bits) {
  rsa_public_key pub;
  rsa_private_key key;
  rsa_public_key_init(&pub);
  rsa_private_key_init(&key);
  // e_size 0: use the exponent already in pub.e.
  mpz_set_ui(pub.e, 65537);
  const int ok =
      rsa_generate_keypair(&pub, &key, rng.ctx(), Rng::random, nullptr, nullptr, bits, 0);
  KeyParts out;
  if (ok) {
    out = {{"n", mpz_bytes(pub.n)},  {"e", mpz_bytes(pub.e)},   {"d", mpz_bytes(key.d)},
           {"p", mpz_bytes(key.p)},  {"q", mpz_bytes(key.q)},   {"dp", mpz_bytes(key.a)},
           {"dq", mpz_bytes(key.b)}, {"qinv", mpz_bytes(key.c)}};
  }
  rsa_private_key_clear(&key);
  rsa_public_key_clear(&pub);
  if (!ok) throw Error("nettle RSA key generation failed");
  return out;
}

KeyParts generate_nist(Rng& rng, const NistCurve& c) {
  EcPoint pub(c.curve());
  EcScalar key(c.curve());
  ecdsa_generate_keypair(pub.get(), key.get(), rng.ctx(), Rng::random);
  Mpz x, y, d;
  ecc_point_get(pub.get(), x.get(), y.get());
  ecc_scalar_get(key.get(), d.get());
  return {{"d", mpz_bytes(d.get(), c.field)},
          {"x", mpz_bytes(x.get(), c.field)},
          {"y", mpz_bytes(y.get(), c.field)}};
}

// EdDSA and X25519/X448 private keys are uniformly random strings; the public key follows.
KeyParts generate_ed(Rng& rng, const EdCurve& c) {
  Bytes priv(c.key_len), pub(c.key_len);
  rng.fill(priv.data(), priv.size());
  c.public_key(pub.data(), priv.data());
  return {{"priv", priv}, {"pub", pub}};
}
KeyParts generate_montgomery(Rng& rng, void (*mul_g)(uint8_t*, const uint8_t*), size_t len) {
  Bytes priv(len), pub(len);
  rng.fill(priv.data(), priv.size());
  mul_g(pub.data(), priv.data());
  return {{"priv", priv}, {"pub", pub}};
}

// ---- which implementation the fat library chose -------------------------------------------------

#if defined(__x86_64__)
int find_nettle(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name && std::strstr(info->dlpi_name, "/libnettle.so")) {
    *static_cast<std::string*>(data) = info->dlpi_name;
    return 1;
  }
  return 0;
}

// Each fat entry point of Nettle 3.8 on x86_64 is a single `jmp *slot(%rip)` (ff 25 disp32)
// through a pointer its load-time constructor set from CPUID or NETTLE_FAT_OVERRIDE. Following
// the pointer and asking the dynamic linker for the target's name shows the implementation in
// use, e.g. "_nettle_aes128_encrypt_aesni" -> "aesni". Anything that does not look exactly like
// that is reported as unknown rather than guessed.
std::string fat_choice(void* lib, const char* entry, const std::string& impl_prefix) {
  const auto* code = static_cast<const unsigned char*>(dlsym(lib, entry));
  if (!code || code[0] != 0xff || code[1] != 0x25) return "unknown (not a fat dispatcher)";
  int32_t disp;
  std::memcpy(&disp, code + 2, sizeof disp);
  const auto* slot = reinterpret_cast<void* const*>(code + 6 + disp);
  Dl_info entry_info{}, slot_info{}, target_info{};
  if (!dladdr(code, &entry_info) || !dladdr(slot, &slot_info) ||
      slot_info.dli_fbase != entry_info.dli_fbase)
    return "unknown (pointer outside libnettle)";
  void* target = *slot;
  if (!dladdr(target, &target_info) || !target_info.dli_sname || target_info.dli_saddr != target)
    return "unknown (unnamed target)";
  const std::string name = target_info.dli_sname;
  if (name.rfind(impl_prefix, 0) != 0) return "unknown (" + name + ")";
  return name.substr(impl_prefix.size());
}

void add_fat_choices(std::map<std::string, std::string>& out) {
  std::string path;
  dl_iterate_phdr(find_nettle, &path);
  void* lib = path.empty() ? nullptr : dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!lib) {
    out["fat_impl"] = "unknown (libnettle not found among loaded objects)";
    return;
  }
  out["impl_aes128_encrypt"] = fat_choice(lib, "nettle_aes128_encrypt", "_nettle_aes128_encrypt_");
  out["impl_aes128_decrypt"] = fat_choice(lib, "nettle_aes128_decrypt", "_nettle_aes128_decrypt_");
  out["impl_cbc_aes128_encrypt"] =
      fat_choice(lib, "nettle_cbc_aes128_encrypt", "_nettle_cbc_aes128_encrypt_");
  out["impl_ghash_update"] = fat_choice(lib, "_nettle_ghash_update", "_nettle_ghash_update_");
  out["impl_sha1_compress"] = fat_choice(lib, "nettle_sha1_compress", "_nettle_sha1_compress_");
  out["impl_sha256_compress"] =
      fat_choice(lib, "_nettle_sha256_compress", "_nettle_sha256_compress_");
  out["impl_memxor"] = fat_choice(lib, "nettle_memxor", "_nettle_memxor_");
  dlclose(lib);
}
#else
void add_fat_choices(std::map<std::string, std::string>& out) {
  out["fat_impl"] = "unknown (only inspected on x86_64)";
}
#endif

class NettleProvider : public Provider {
 public:
  std::string name() const override { return "nettle"; }
  std::string version() const override {
    return std::to_string(nettle_version_major()) + "." + std::to_string(nettle_version_minor());
  }
  std::vector<Variant> variants() const override {
    return {
        {"default", "CPU features Nettle's fat build detects (AES-NI, PCLMULQDQ, SHA-NI)", {}},
        // Any value replaces CPUID; one naming no feature leaves only the portable x86_64 code.
        {"soft",
         "no AES-NI, PCLMULQDQ or SHA-NI (NETTLE_FAT_OVERRIDE=none)",
         {{kFatOverride, "none"}}},
    };
  }
  void init(const std::string& variant) override {
    // Nettle reads the override in a constructor when the library is loaded, long before this
    // call; all that can be done here is refuse to label the default code path "soft".
    const char* env = std::getenv(kFatOverride);
    if (variant == "soft" && (!env || std::strcmp(env, "none") != 0))
      throw Error(
          "nettle variant soft needs NETTLE_FAT_OVERRIDE=none set before the process starts");
  }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out(std::begin(kModeCiphers), std::end(kModeCiphers));
    for (const auto& r : kAeads) out.push_back(r.name);
    for (const auto& r : kHashes) out.push_back(r.name);
    for (const auto& r : kMacs) out.push_back(r.name);
    out.insert(out.end(), std::begin(kPublicKeyAlgorithms), std::end(kPublicKeyAlgorithms));
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (is_public_key(info->kind) || info->kind == Kind::Kdf) {
      if (auto op_ptr = prepare_public_key(*info, op, params)) return op_ptr;
      throw Unsupported("nettle does not offer " + algorithm);
    }
    check_param_sizes(*info, params);
    const bool encrypt = op == OpKind::Encrypt;
    if (info->kind == Kind::Cipher) {
      if (auto op_ptr = prepare_cipher(algorithm, encrypt, params)) return op_ptr;
    } else if (const auto* row = lookup(kAeads, algorithm)) {
      return std::make_unique<AeadOp>(*row->meta, encrypt, params);
    } else if (const auto* row = lookup(kHashes, algorithm)) {
      return std::make_unique<HashOp>(*row->meta);
    } else if (const auto* row = lookup(kMacs, algorithm)) {
      return std::make_unique<MacOp>(*row->meta, row->set_key, params);
    }
    throw Unsupported("nettle does not offer " + algorithm);
  }
  // Nettle has no MAC verification function; memeql_sec is its constant-time comparison (the one
  // its own AEAD decryption uses).
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Mac);
    check_param_sizes(info, params);
    const auto* row = lookup(kMacs, algorithm);
    if (!row) throw Unsupported("nettle does not offer " + algorithm);
    return std::make_unique<MacCompareOp>(
        std::make_unique<MacOp>(*row->meta, row->set_key, params), info.output_len,
        [](const uint8_t* a, const uint8_t* b, size_t n) { return memeql_sec(a, b, n) != 0; });
  }
  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    if (!rng_) rng_ = std::make_unique<Rng>();
    if (info.kind == Kind::KeyPair) return generate_rsa(*rng_, static_cast<unsigned>(info.bits));
    if (const auto* c = lookup(kNistCurves, algorithm)) return generate_nist(*rng_, *c);
    if (const auto* c = lookup(kEdCurves, algorithm)) return generate_ed(*rng_, *c);
    if (algorithm == "x25519") return generate_montgomery(*rng_, curve25519_mul_g, CURVE25519_SIZE);
    if (algorithm == "x448") return generate_montgomery(*rng_, curve448_mul_g, CURVE448_SIZE);
    throw Unsupported("nettle cannot generate " + algorithm + " keys");
  }
  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    out["version"] = version();
    const char* env = std::getenv(kFatOverride);
    out["fat_override"] = env ? env : "(unset: CPUID decides)";
    add_fat_choices(out);
    return out;
  }

 private:
  // Seeding Yarrow (about 0.6 ms: its reseed iterates SHA-256) costs far more than generating an
  // X25519 key, so key generation shares one generator seeded on first use.
  std::unique_ptr<Rng> rng_;
};

}  // namespace

CB_REGISTER_PROVIDER("nettle", NettleProvider);

}  // namespace cb
