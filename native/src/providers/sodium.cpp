// libsodium adapter. libsodium's API is mostly one-shot (key, nonce and message in one call), so
// prepare() only keeps the parameters; the exceptions are AES-256-GCM, whose key schedule is
// expanded once with the precomputation API, and HMAC, whose keyed state is saved and copied back
// for every message.
//
// libsodium 1.0.18 picks its ChaCha20/Salsa20/BLAKE2b/Poly1305 implementations from CPUID in
// sodium_init() and has no switch to turn that off, so there is only the "default" variant.
// AES-256-GCM exists only where the CPU has AES-NI and PCLMULQDQ; there is no software fallback.
//
// Public key and KDFs: Ed25519, X25519, scrypt and Argon2id (one lane only) are all 1.0.18 has of
// the catalogue.
#include <sodium.h>

#include <cstdint>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw Error(std::string("libsodium ") + what + " failed");
}

unsigned long long ull(size_t n) { return static_cast<unsigned long long>(n); }

// ---- stream ciphers: XOR with a keystream that starts at block 0 for every message ------------

using StreamXor = int (*)(unsigned char* c, const unsigned char* m, unsigned long long mlen,
                          const unsigned char* n, const unsigned char* k);

// The RFC 8439 stream with an explicit initial counter of 0.
int chacha20_ietf_xor(unsigned char* c, const unsigned char* m, unsigned long long mlen,
                      const unsigned char* n, const unsigned char* k) {
  return crypto_stream_chacha20_ietf_xor_ic(c, m, mlen, n, 0, k);
}

struct StreamRow {
  const char* name;
  StreamXor xor_fn;
};
const StreamRow kStreams[] = {
    {"chacha20", chacha20_ietf_xor},
    {"xchacha20", crypto_stream_xchacha20_xor},
    {"salsa20", crypto_stream_salsa20_xor},
    {"xsalsa20", crypto_stream_xsalsa20_xor},
};

class StreamOp : public Operation {
 public:
  StreamOp(StreamXor fn, const Params& p) : fn_(fn), key_(p.key), nonce_(p.iv) {}
  ~StreamOp() override { sodium_memzero(key_.data(), key_.size()); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(fn_(out, in, ull(len), nonce_.data(), key_.data()), "stream XOR");
    return len;
  }

 private:
  StreamXor fn_;
  Bytes key_, nonce_;
};

// ---- AEAD: the "combined" functions write ciphertext || 16-byte tag, the layout we use -------

using AeadEncrypt = int (*)(unsigned char* c, unsigned long long* clen, const unsigned char* m,
                            unsigned long long mlen, const unsigned char* ad,
                            unsigned long long adlen, const unsigned char* nsec,
                            const unsigned char* npub, const unsigned char* k);
using AeadDecrypt = int (*)(unsigned char* m, unsigned long long* mlen, unsigned char* nsec,
                            const unsigned char* c, unsigned long long clen,
                            const unsigned char* ad, unsigned long long adlen,
                            const unsigned char* npub, const unsigned char* k);

struct AeadRow {
  const char* name;
  AeadEncrypt encrypt;
  AeadDecrypt decrypt;
};
const AeadRow kAeads[] = {
    {"chacha20-poly1305", crypto_aead_chacha20poly1305_ietf_encrypt,
     crypto_aead_chacha20poly1305_ietf_decrypt},
    {"xchacha20-poly1305", crypto_aead_xchacha20poly1305_ietf_encrypt,
     crypto_aead_xchacha20poly1305_ietf_decrypt},
};

class AeadOp : public Operation {
 public:
  AeadOp(const AeadRow& row, bool encrypt, const Params& p)
      : row_(row), encrypt_(encrypt), key_(p.key), nonce_(p.iv), aad_(p.aad) {}
  ~AeadOp() override { sodium_memzero(key_.data(), key_.size()); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  // A wrong tag is a status (docs/leaks.md, "Valid against invalid").
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    unsigned long long n = 0;
    if (encrypt_) {
      check(row_.encrypt(out, &n, in, ull(len), aad_.data(), ull(aad_.size()), nullptr,
                         nonce_.data(), key_.data()),
            "AEAD encrypt");
    } else if (row_.decrypt(out, &n, nullptr, in, ull(len), aad_.data(), ull(aad_.size()),
                            nonce_.data(), key_.data()) != 0) {
      return false;
    }
    out_len = static_cast<size_t>(n);
    return true;
  }

 private:
  const AeadRow& row_;
  bool encrypt_;
  Bytes key_, nonce_, aad_;
};

// AES-256-GCM with the key expanded once (beforenm) and reused by every message (afternm).
class AesGcmOp : public Operation {
 public:
  AesGcmOp(bool encrypt, const Params& p) : encrypt_(encrypt), nonce_(p.iv), aad_(p.aad) {
    check(crypto_aead_aes256gcm_beforenm(&state_, p.key.data()), "AES-256-GCM key expansion");
  }
  ~AesGcmOp() override { sodium_memzero(&state_, sizeof state_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n)) throw Error("authentication failed");
    return n;
  }
  bool refuses_by_status() const override { return !encrypt_; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    unsigned long long n = 0;
    if (encrypt_) {
      check(
          crypto_aead_aes256gcm_encrypt_afternm(out, &n, in, ull(len), aad_.data(),
                                                ull(aad_.size()), nullptr, nonce_.data(), &state_),
          "AES-256-GCM encrypt");
    } else if (crypto_aead_aes256gcm_decrypt_afternm(out, &n, nullptr, in, ull(len), aad_.data(),
                                                     ull(aad_.size()), nonce_.data(),
                                                     &state_) != 0) {
      return false;
    }
    out_len = static_cast<size_t>(n);
    return true;
  }

 private:
  bool encrypt_;
  Bytes nonce_, aad_;
  crypto_aead_aes256gcm_state state_;  // 16-byte aligned by its declaration
};

// ---- hashes -------------------------------------------------------------------------------------

class HashOp : public Operation {
 public:
  explicit HashOp(const std::string& name)
      : hash_(name == "sha256"   ? Sha256
              : name == "sha512" ? Sha512
                                 : Blake2b) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    switch (hash_) {
      case Sha256:
        check(crypto_hash_sha256(out, in, ull(len)), "SHA-256");
        return crypto_hash_sha256_BYTES;
      case Sha512:
        check(crypto_hash_sha512(out, in, ull(len)), "SHA-512");
        return crypto_hash_sha512_BYTES;
      case Blake2b:
        // Unkeyed BLAKE2b with the full 64-byte output (crypto_generichash_BYTES_MAX).
        check(crypto_generichash(out, crypto_generichash_BYTES_MAX, in, ull(len), nullptr, 0),
              "BLAKE2b");
        return crypto_generichash_BYTES_MAX;
    }
    return 0;
  }

 private:
  enum Which { Sha256, Sha512, Blake2b } hash_;
};

// ---- HMAC: the _init/_update/_final API takes keys of any length and gives the full output
// (crypto_auth_hmacsha512_final writes all 64 bytes, unlike crypto_auth, which is HMAC-SHA-512
// truncated to 256 bits). Final does not rewind the state, so the keyed state is copied back.

template <class State, int (*Init)(State*, const unsigned char*, size_t),
          int (*Update)(State*, const unsigned char*, unsigned long long),
          int (*Final)(State*, unsigned char*), size_t kOutLen>
class HmacOp : public Operation {
 public:
  explicit HmacOp(const Params& p) {
    static const unsigned char kNoKey[1] = {0};
    check(Init(&keyed_, p.key.empty() ? kNoKey : p.key.data(), p.key.size()), "HMAC key");
  }
  ~HmacOp() override {
    sodium_memzero(&keyed_, sizeof keyed_);
    sodium_memzero(&work_, sizeof work_);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    work_ = keyed_;
    check(Update(&work_, in, ull(len)), "HMAC update");
    check(Final(&work_, out), "HMAC final");
    return kOutLen;
  }

 private:
  State keyed_{}, work_{};
};

using HmacSha256 =
    HmacOp<crypto_auth_hmacsha256_state, crypto_auth_hmacsha256_init, crypto_auth_hmacsha256_update,
           crypto_auth_hmacsha256_final, crypto_auth_hmacsha256_BYTES>;
using HmacSha512 =
    HmacOp<crypto_auth_hmacsha512_state, crypto_auth_hmacsha512_init, crypto_auth_hmacsha512_update,
           crypto_auth_hmacsha512_final, crypto_auth_hmacsha512_BYTES>;

// libsodium's own HMAC-SHA-256 verification (crypto_verify_32 inside, constant time); it keys the
// MAC on every call and takes 32-byte keys, the catalogue's. HMAC-SHA-512's verify takes 32-byte
// keys only, so hmac-sha512 is verified by HmacSha512 and crypto_verify_64 (prepare_mac_verify).
class HmacSha256Verify : public MacVerifyOp {
 public:
  explicit HmacSha256Verify(const Params& p)
      : MacVerifyOp(crypto_auth_hmacsha256_BYTES), key_(p.key) {
    if (key_.size() != crypto_auth_hmacsha256_KEYBYTES)
      throw Unsupported("crypto_auth_hmacsha256_verify takes 32-byte keys");
  }
  ~HmacSha256Verify() override { sodium_memzero(key_.data(), key_.size()); }

 protected:
  bool verify(const uint8_t* message, size_t n, const uint8_t* tag) override {
    return crypto_auth_hmacsha256_verify(tag, message, ull(n), key_.data()) == 0;
  }

 private:
  Bytes key_;
};

// ---- public key: Ed25519 and X25519 -----------------------------------------------------------

// libsodium rejects NULL even for empty inputs (its prototypes are marked nonnull).
const uint8_t* nonnull(const uint8_t* p) {
  static const uint8_t kEmpty[1] = {0};
  return p ? p : kEmpty;
}

// A fixed-size key part; the Montgomery/Edwards encodings have no leading zeros to strip.
const Bytes& sized_part(const KeyParts& key, const char* name, size_t size) {
  const Bytes& part = key_part(key, name);
  if (part.size() != size)
    throw Error(std::string("key part '") + name + "' must be " + std::to_string(size) + " bytes");
  return part;
}

// libsodium's secret key is seed || public key; our "priv" is the RFC 8032 seed, so the secret
// key is expanded from it once here rather than on every signature.
class Ed25519SignOp : public Operation {
 public:
  explicit Ed25519SignOp(const Params& p) {
    unsigned char pk[crypto_sign_ed25519_PUBLICKEYBYTES];
    check(crypto_sign_ed25519_seed_keypair(
              pk, sk_, sized_part(p.keypair, "priv", crypto_sign_ed25519_SEEDBYTES).data()),
          "Ed25519 key expansion");
  }
  ~Ed25519SignOp() override { sodium_memzero(sk_, sizeof sk_); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    unsigned long long n = 0;
    check(crypto_sign_ed25519_detached(out, &n, nonnull(in), ull(len), sk_), "Ed25519 sign");
    return static_cast<size_t>(n);
  }

 private:
  unsigned char sk_[crypto_sign_ed25519_SECRETKEYBYTES];
};

class Ed25519VerifyOp : public Operation {
 public:
  explicit Ed25519VerifyOp(const Params& p)
      : pk_(sized_part(p.keypair, "pub", crypto_sign_ed25519_PUBLICKEYBYTES)), sig_(p.signature) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    if (sig_.size() != crypto_sign_ed25519_BYTES ||
        crypto_sign_ed25519_verify_detached(sig_.data(), nonnull(in), ull(len), pk_.data()) != 0)
      throw Error("Ed25519 signature invalid");
    return 0;
  }

 private:
  Bytes pk_, sig_;
};

class X25519Op : public Operation {
 public:
  explicit X25519Op(const Params& p)
      : priv_(sized_part(p.keypair, "priv", crypto_scalarmult_curve25519_SCALARBYTES)),
        peer_(sized_part(p.peer, "pub", crypto_scalarmult_curve25519_BYTES)) {}
  ~X25519Op() override { sodium_memzero(priv_.data(), priv_.size()); }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    // libsodium clamps the scalar and masks the top bit of u itself (RFC 7748 section 5); it
    // returns -1 when the result is all zeros, i.e. the peer sent a small-order point.
    if (crypto_scalarmult_curve25519(out, priv_.data(), peer_.data()) != 0)
      throw Error("X25519: peer public key is a small-order point");
    return crypto_scalarmult_curve25519_BYTES;
  }

 private:
  Bytes priv_, peer_;
};

// ---- password hashing ---------------------------------------------------------------------------

// Argon2id through crypto_pwhash_argon2id: libsodium fixes the lane count at 1 and has no way to
// pass Argon2's secret K or associated data X, and the salt is always 16 bytes.
class Argon2idOp : public Operation {
 public:
  explicit Argon2idOp(const Params& p)
      : salt_(p.salt),
        out_len_(p.out_len),
        passes_(cost_param(p, "t")),
        mem_bytes_(cost_param(p, "m") * 1024) {
    if (!p.key.empty() || !p.aad.empty())
      throw Unsupported("libsodium's Argon2id takes no secret key or associated data");
    if (cost_param(p, "p") != 1) throw Unsupported("libsodium's Argon2id uses exactly one lane");
    if (salt_.size() != crypto_pwhash_argon2id_SALTBYTES)
      throw Unsupported("libsodium's Argon2id takes a 16-byte salt");
    if (out_len_ < crypto_pwhash_argon2id_BYTES_MIN)
      throw Unsupported("libsodium's Argon2id outputs at least 16 bytes");
    if (passes_ < crypto_pwhash_argon2id_OPSLIMIT_MIN ||
        passes_ > crypto_pwhash_argon2id_OPSLIMIT_MAX)
      throw Unsupported("Argon2id pass count outside libsodium's limits");
    if (mem_bytes_ < crypto_pwhash_argon2id_MEMLIMIT_MIN ||
        mem_bytes_ > crypto_pwhash_argon2id_MEMLIMIT_MAX)
      throw Unsupported("Argon2id memory outside libsodium's limits");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(crypto_pwhash_argon2id(out, ull(out_len_), reinterpret_cast<const char*>(nonnull(in)),
                                 ull(len), salt_.data(), passes_, static_cast<size_t>(mem_bytes_),
                                 crypto_pwhash_argon2id_ALG_ARGON2ID13),
          "Argon2id");
    return out_len_;
  }

 private:
  Bytes salt_;
  size_t out_len_;
  uint64_t passes_, mem_bytes_;
};

// scrypt through the low-level interface, the only one that takes N, r and p as given.
class ScryptOp : public Operation {
 public:
  explicit ScryptOp(const Params& p) : salt_(p.salt), out_len_(p.out_len), n_(cost_param(p, "N")) {
    const uint64_t r = cost_param(p, "r"), par = cost_param(p, "p");
    if (r > UINT32_MAX || par > UINT32_MAX) throw Unsupported("scrypt r and p must fit 32 bits");
    r_ = static_cast<uint32_t>(r);
    p_ = static_cast<uint32_t>(par);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    check(crypto_pwhash_scryptsalsa208sha256_ll(nonnull(in), len, nonnull(salt_.data()),
                                                salt_.size(), n_, r_, p_, out, out_len_),
          "scrypt");
    return out_len_;
  }

 private:
  Bytes salt_;
  size_t out_len_;
  uint64_t n_;
  uint32_t r_ = 0, p_ = 0;
};

template <class Row, size_t N>
const Row* lookup(const Row (&table)[N], const std::string& name) {
  for (const auto& row : table)
    if (name == row.name) return &row;
  return nullptr;
}

std::string yes_no(int b) { return b ? "yes" : "no"; }

class SodiumProvider : public Provider {
 public:
  std::string name() const override { return "sodium"; }
  std::string version() const override { return sodium_version_string(); }
  std::vector<Variant> variants() const override {
    return {{"default", "CPU features libsodium detects (no switch exists to disable them)", {}}};
  }
  void init(const std::string&) override {
    // 1 means already initialised, which is fine; only -1 is a failure.
    if (sodium_init() < 0) throw Error("sodium_init failed");
    aes_gcm_ = crypto_aead_aes256gcm_is_available() != 0;
  }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& r : kStreams) out.push_back(r.name);
    if (aes_gcm_) out.push_back("aes-256-gcm");
    for (const auto& r : kAeads) out.push_back(r.name);
    for (const char* h : {"blake2b-512", "sha256", "sha512", "hmac-sha256", "hmac-sha512"})
      out.push_back(h);
    // No RSA, ECDSA, ECDH, FFDH, Ed448/X448, PBKDF2 or HKDF in libsodium 1.0.18 (its HKDF
    // arrived in 1.0.19).
    for (const char* a : {"ed25519", "x25519", "scrypt", "argon2id"}) out.push_back(a);
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (algorithm == "ed25519") {
      if (op == OpKind::Sign) return std::make_unique<Ed25519SignOp>(params);
      return std::make_unique<Ed25519VerifyOp>(params);
    }
    if (algorithm == "x25519") return std::make_unique<X25519Op>(params);
    if (algorithm == "argon2id") return std::make_unique<Argon2idOp>(params);
    if (algorithm == "scrypt") return std::make_unique<ScryptOp>(params);
    if (info->kind == Kind::Kdf || is_public_key(info->kind))
      throw Unsupported("sodium does not offer " + algorithm);
    check_param_sizes(*info, params);
    const bool encrypt = op == OpKind::Encrypt;
    if (const auto* row = lookup(kStreams, algorithm))
      return std::make_unique<StreamOp>(row->xor_fn, params);
    if (const auto* row = lookup(kAeads, algorithm))
      return std::make_unique<AeadOp>(*row, encrypt, params);
    if (algorithm == "aes-256-gcm") {
      if (!aes_gcm_) throw Unsupported("libsodium's AES-256-GCM needs AES-NI and PCLMULQDQ");
      return std::make_unique<AesGcmOp>(encrypt, params);
    }
    if (algorithm == "sha256" || algorithm == "sha512" || algorithm == "blake2b-512")
      return std::make_unique<HashOp>(algorithm);
    if (algorithm == "hmac-sha256") return std::make_unique<HmacSha256>(params);
    if (algorithm == "hmac-sha512") return std::make_unique<HmacSha512>(params);
    throw Unsupported("sodium does not offer " + algorithm);
  }
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    check_param_sizes(checked_algorithm(algorithm, OpKind::Mac), params);
    if (algorithm == "hmac-sha256") return std::make_unique<HmacSha256Verify>(params);
    if (algorithm == "hmac-sha512")
      return std::make_unique<MacCompareOp>(
          std::make_unique<HmacSha512>(params), crypto_auth_hmacsha512_BYTES,
          [](const uint8_t* a, const uint8_t* b, size_t) { return crypto_verify_64(a, b) == 0; });
    throw Unsupported("sodium does not offer " + algorithm);
  }
  KeyParts generate_key(const std::string& algorithm) override {
    if (algorithm == "ed25519") {
      Bytes pub(crypto_sign_ed25519_PUBLICKEYBYTES), seed(crypto_sign_ed25519_SEEDBYTES);
      unsigned char sk[crypto_sign_ed25519_SECRETKEYBYTES];
      check(crypto_sign_ed25519_keypair(pub.data(), sk), "Ed25519 key generation");
      check(crypto_sign_ed25519_sk_to_seed(seed.data(), sk), "Ed25519 seed export");
      sodium_memzero(sk, sizeof sk);
      return {{"priv", std::move(seed)}, {"pub", std::move(pub)}};
    }
    if (algorithm == "x25519") {
      // An X25519 private key is 32 random bytes (RFC 7748 section 6.1); clamping happens inside
      // every scalar multiplication, so the bytes are kept as drawn.
      Bytes priv(crypto_scalarmult_curve25519_SCALARBYTES), pub(crypto_scalarmult_curve25519_BYTES);
      randombytes_buf(priv.data(), priv.size());
      check(crypto_scalarmult_curve25519_base(pub.data(), priv.data()), "X25519 public key");
      return {{"priv", std::move(priv)}, {"pub", std::move(pub)}};
    }
    throw Unsupported("sodium cannot generate " + algorithm + " keys");
  }
  std::map<std::string, std::string> code_path() const override {
    return {
        {"version", sodium_version_string()},
        {"has_aesni", yes_no(sodium_runtime_has_aesni())},
        {"has_pclmul", yes_no(sodium_runtime_has_pclmul())},
        {"has_sse41", yes_no(sodium_runtime_has_sse41())},
        {"has_ssse3", yes_no(sodium_runtime_has_ssse3())},
        {"has_avx", yes_no(sodium_runtime_has_avx())},
        {"has_avx2", yes_no(sodium_runtime_has_avx2())},
        {"has_avx512f", yes_no(sodium_runtime_has_avx512f())},
        {"aes256gcm_available", yes_no(crypto_aead_aes256gcm_is_available())},
    };
  }

 private:
  bool aes_gcm_ = false;
};

}  // namespace

CB_REGISTER_PROVIDER("sodium", SodiumProvider);

}  // namespace cb
