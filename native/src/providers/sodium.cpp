// libsodium adapter. libsodium's API is mostly one-shot (key, nonce and message in one call), so
// prepare() only keeps the parameters; the exceptions are AES-256-GCM, whose key schedule is
// expanded once with the precomputation API, and HMAC, whose keyed state is saved and copied back
// for every message.
//
// libsodium 1.0.18 picks its ChaCha20/Salsa20/BLAKE2b/Poly1305 implementations from CPUID in
// sodium_init() and has no switch to turn that off, so there is only the "default" variant.
// AES-256-GCM exists only where the CPU has AES-NI and PCLMULQDQ; there is no software fallback.
#include <sodium.h>

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
    unsigned long long n = 0;
    if (encrypt_) {
      check(row_.encrypt(out, &n, in, ull(len), aad_.data(), ull(aad_.size()), nullptr,
                         nonce_.data(), key_.data()),
            "AEAD encrypt");
    } else if (row_.decrypt(out, &n, nullptr, in, ull(len), aad_.data(), ull(aad_.size()),
                            nonce_.data(), key_.data()) != 0) {
      throw Error("authentication failed");
    }
    return static_cast<size_t>(n);
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
    unsigned long long n = 0;
    if (encrypt_) {
      check(
          crypto_aead_aes256gcm_encrypt_afternm(out, &n, in, ull(len), aad_.data(),
                                                ull(aad_.size()), nullptr, nonce_.data(), &state_),
          "AES-256-GCM encrypt");
    } else if (crypto_aead_aes256gcm_decrypt_afternm(out, &n, nullptr, in, ull(len), aad_.data(),
                                                     ull(aad_.size()), nonce_.data(),
                                                     &state_) != 0) {
      throw Error("authentication failed");
    }
    return static_cast<size_t>(n);
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
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
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
