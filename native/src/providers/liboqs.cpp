// liboqs adapter (Open Quantum Safe), built from the source inside the oqs-sys crate by
// `make liboqs` (native/versions/build.py, recipe "liboqs") and compiled as the versioned module
// cryptobench-providers/liboqs.so by native/cmake/versions.cmake, liboqs linked in statically.
//
// ML-KEM-512/768/1024 (FIPS 203, liboqs's "ML-KEM-*": the mlkem-native code, AVX2 where the CPU
// has it). Keys: the FIPS 203 seed d || z is the key, expanded with OQS_KEM_keypair_derand when
// the operation is prepared (else the key's expanded `priv`); generated keys are a fresh 64-byte
// seed from liboqs's source, exported with the public and the expanded private key. Encapsulation
// draws its m from liboqs's (system) source: liboqs 0.13 has no derandomised encapsulation in its
// API, so the gate's known answers are the decapsulation ones (implicit rejection included).
//
// ML-DSA-44/65/87 (FIPS 204, liboqs's "ML-DSA-*": the pqcrystals standard code, AVX2 where the CPU
// has it). Conventions (docs/post-quantum.md): pure, empty context, hedged signing (liboqs builds
// the code with DILITHIUM_RANDOMIZED_SIGNING). Keys: the FIPS 204 seed ξ is the key. liboqs 0.13
// has no key generation from a seed in its API, but its ML-DSA key generation draws exactly ξ
// (32 bytes) from liboqs's random source and nothing else, so a key is derived from its seed by
// pointing that source at ξ for one OQS_SIG_keypair call (OQS_randombytes_custom_algorithm, the
// hook liboqs's own KAT tests use) and back at the system source after. A key without a seed is
// imported as the expanded private key `priv`. The key is derived once, when the operation is
// prepared; liboqs unpacks the expanded key inside every sign/verify call, which is its design.
#include <oqs/oqs.h>

#include <cstdlib>
#include <cstring>

#include "cryptobench/provider.hpp"

#ifndef CB_PROVIDER_NAME
#define CB_PROVIDER_NAME "liboqs"
#endif

namespace cb {
namespace {

struct SigRow {
  const char* name;     // catalogue name
  const char* oqs_alg;  // liboqs's method name
};
const SigRow kSigs[] = {
    {"ml-dsa-44", OQS_SIG_alg_ml_dsa_44},
    {"ml-dsa-65", OQS_SIG_alg_ml_dsa_65},
    {"ml-dsa-87", OQS_SIG_alg_ml_dsa_87},
};

const SigRow* find_sig(const std::string& name) {
  for (const auto& r : kSigs)
    if (name == r.name) return &r;
  return nullptr;
}

// Runs in every timed call, so the message is built only on failure: built on every call, it
// allocated once per encapsulation, decapsulation and key, counted in the heap figures as liboqs's.
void check(OQS_STATUS rc, const char* method, const char* what) {
  if (rc != OQS_SUCCESS) throw Error(std::string("liboqs ") + method + " " + what + " failed");
}

// One OQS_SIG object per operation, freed with it.
struct Sig {
  explicit Sig(const SigRow& row) : p(OQS_SIG_new(row.oqs_alg)) {
    if (!p) throw Unsupported(std::string("liboqs was built without ") + row.oqs_alg);
  }
  ~Sig() { OQS_SIG_free(p); }
  Sig(const Sig&) = delete;
  Sig& operator=(const Sig&) = delete;
  OQS_SIG* p;
};

const Bytes& sized(const KeyParts& key, const char* part, size_t size) {
  const Bytes& b = key_part(key, part);
  if (b.size() != size)
    throw Error(std::string("key part '") + part + "' must be " + std::to_string(size) +
                " bytes, not " + std::to_string(b.size()));
  return b;
}

// ---- keys from the FIPS 204 seed ξ -----------------------------------------------------------

constexpr size_t kSeedLen = 32;  // ξ
const uint8_t* g_seed = nullptr;
size_t g_seed_left = 0;

// liboqs's random source while a key is derived: ξ, once; anything more is a contract breach.
void seed_source(uint8_t* out, size_t n) {
  if (n > g_seed_left) std::abort();  // ML-DSA key generation draws 32 bytes and no more
  std::memcpy(out, g_seed, n);
  g_seed += n;
  g_seed_left -= n;
}

struct KeyPair {
  Bytes pub, priv;
};

KeyPair keypair_from_seed(const Sig& sig, const Bytes& seed) {
  if (seed.size() != kSeedLen)
    throw Error("key part 'seed' must be 32 bytes, not " + std::to_string(seed.size()));
  KeyPair k{Bytes(sig.p->length_public_key), Bytes(sig.p->length_secret_key)};
  g_seed = seed.data();
  g_seed_left = seed.size();
  OQS_randombytes_custom_algorithm(seed_source);
  const OQS_STATUS rc = OQS_SIG_keypair(sig.p, k.pub.data(), k.priv.data());
  const size_t unused = g_seed_left;
  OQS_randombytes_switch_algorithm(OQS_RAND_alg_system);
  g_seed = nullptr, g_seed_left = 0;
  check(rc, sig.p->method_name, "key generation from the seed");
  if (unused != 0) throw Error("liboqs drew less than the 32-byte seed: key generation changed");
  return k;
}

// The expanded private key: derived from `seed` where the key has one, else its `priv`.
Bytes private_key(const Sig& sig, const KeyParts& key) {
  auto seed = key.find("seed");
  if (seed != key.end() && !seed->second.empty()) return keypair_from_seed(sig, seed->second).priv;
  return sized(key, "priv", sig.p->length_secret_key);
}

class SignOp : public Operation {
 public:
  SignOp(const SigRow& row, const Params& p) : sig_(row), sk_(private_key(sig_, p.keypair)) {}
  ~SignOp() override { OQS_MEM_cleanse(sk_.data(), sk_.size()); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    check(OQS_SIG_sign(sig_.p, out, &n, in, len, sk_.data()), sig_.p->method_name, "sign");
    return n;
  }

 private:
  Sig sig_;
  Bytes sk_;
};

class VerifyOp : public Operation {
 public:
  VerifyOp(const SigRow& row, const Params& p)
      : sig_(row), pk_(sized(p.keypair, "pub", sig_.p->length_public_key)), s_(p.signature) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    if (OQS_SIG_verify(sig_.p, in, len, s_.data(), s_.size(), pk_.data()) != OQS_SUCCESS)
      throw Error(std::string(sig_.p->method_name) + " signature does not verify");
    return 0;
  }

 private:
  Sig sig_;
  Bytes pk_, s_;
};

// ---- ML-KEM ----------------------------------------------------------------------------------

const SigRow kKems[] = {
    {"ml-kem-512", OQS_KEM_alg_ml_kem_512},
    {"ml-kem-768", OQS_KEM_alg_ml_kem_768},
    {"ml-kem-1024", OQS_KEM_alg_ml_kem_1024},
};

const SigRow* find_kem(const std::string& name) {
  for (const auto& r : kKems)
    if (name == r.name) return &r;
  return nullptr;
}

struct Kem {
  explicit Kem(const SigRow& row) : p(OQS_KEM_new(row.oqs_alg)) {
    if (!p) throw Unsupported(std::string("liboqs was built without ") + row.oqs_alg);
  }
  ~Kem() { OQS_KEM_free(p); }
  Kem(const Kem&) = delete;
  Kem& operator=(const Kem&) = delete;
  OQS_KEM* p;
};

KeyPair kem_keypair_from_seed(const Kem& kem, const Bytes& seed) {
  if (seed.size() != kem.p->length_keypair_seed)
    throw Error("key part 'seed' must be " + std::to_string(kem.p->length_keypair_seed) +
                " bytes (d || z), not " + std::to_string(seed.size()));
  KeyPair k{Bytes(kem.p->length_public_key), Bytes(kem.p->length_secret_key)};
  check(OQS_KEM_keypair_derand(kem.p, k.pub.data(), k.priv.data(), seed.data()), kem.p->method_name,
        "key generation from the seed");
  return k;
}

// The expanded decapsulation key: from `seed` where the key has one, else its `priv`.
Bytes kem_private_key(const Kem& kem, const KeyParts& key) {
  auto seed = key.find("seed");
  if (seed != key.end() && !seed->second.empty())
    return kem_keypair_from_seed(kem, seed->second).priv;
  return sized(key, "priv", kem.p->length_secret_key);
}

class EncapsOp : public Operation {
 public:
  EncapsOp(const SigRow& row, const Params& p)
      : kem_(row), pk_(sized(p.keypair, "pub", kem_.p->length_public_key)) {}
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    check(OQS_KEM_encaps(kem_.p, out, out + kem_.p->length_ciphertext, pk_.data()),
          kem_.p->method_name, "encapsulation");
    return kem_.p->length_ciphertext + kem_.p->length_shared_secret;
  }

 private:
  Kem kem_;
  Bytes pk_;
};

class DecapsOp : public Operation {
 public:
  DecapsOp(const SigRow& row, const Params& p) : kem_(row), sk_(kem_private_key(kem_, p.keypair)) {}
  ~DecapsOp() override { OQS_MEM_cleanse(sk_.data(), sk_.size()); }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (len != kem_.p->length_ciphertext)
      throw Error("ciphertext must be " + std::to_string(kem_.p->length_ciphertext) +
                  " bytes, not " + std::to_string(len));
    check(OQS_KEM_decaps(kem_.p, out, in, sk_.data()), kem_.p->method_name, "decapsulation");
    return kem_.p->length_shared_secret;
  }

 private:
  Kem kem_;
  Bytes sk_;
};

class LiboqsProvider : public Provider {
 public:
  std::string name() const override { return CB_PROVIDER_NAME; }
  std::string version() const override { return OQS_version(); }
  std::vector<Variant> variants() const override {
    return {{"default", "liboqs's run-time choice of AVX2 or portable code (OQS_DIST_BUILD)", {}}};
  }
  void init(const std::string&) override { OQS_init(); }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& r : kKems)
      if (find_algorithm(r.name) && OQS_KEM_alg_is_enabled(r.oqs_alg)) out.push_back(r.name);
    for (const auto& r : kSigs)
      if (find_algorithm(r.name) && OQS_SIG_alg_is_enabled(r.oqs_alg)) out.push_back(r.name);
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    checked_algorithm(algorithm, op);
    if (const SigRow* row = find_kem(algorithm)) {
      if (op == OpKind::Encaps) return std::make_unique<EncapsOp>(*row, params);
      if (op == OpKind::Decaps) return std::make_unique<DecapsOp>(*row, params);
    }
    if (const SigRow* row = find_sig(algorithm)) {
      if (op == OpKind::Sign) return std::make_unique<SignOp>(*row, params);
      if (op == OpKind::Verify) return std::make_unique<VerifyOp>(*row, params);
    }
    throw Unsupported(std::string(CB_PROVIDER_NAME) + " does not offer " + algorithm + " " +
                      to_string(op));
  }
  KeyParts generate_key(const std::string& algorithm) override {
    if (const SigRow* kem_row = find_kem(algorithm)) {
      Kem kem(*kem_row);
      Bytes seed(kem.p->length_keypair_seed);  // d || z
      OQS_randombytes(seed.data(), seed.size());
      KeyPair k = kem_keypair_from_seed(kem, seed);
      return {{"seed", std::move(seed)}, {"pub", std::move(k.pub)}, {"priv", std::move(k.priv)}};
    }
    const SigRow* row = find_sig(algorithm);
    if (!row) throw Unsupported(std::string(CB_PROVIDER_NAME) + " cannot generate " + algorithm);
    Sig sig(*row);
    // A fresh seed from liboqs's (system) source, then the key pair it gives: the seed is the
    // key, exported with the public and the expanded private key.
    Bytes seed(kSeedLen);
    OQS_randombytes(seed.data(), seed.size());
    KeyPair k = keypair_from_seed(sig, seed);
    return {{"seed", std::move(seed)}, {"pub", std::move(k.pub)}, {"priv", std::move(k.priv)}};
  }
  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out = {
        {"version", OQS_version()},
        {"avx2", OQS_CPU_has_extension(OQS_CPU_EXT_AVX2) ? "yes" : "no"},
        {"pq_key", "seed"},
        {"pq_signing", "hedged"},
    };
#ifdef CB_BUILD_RECORD
    out["build"] = CB_BUILD_RECORD;  // the crate, flags and build time (native/versions/build.py)
#endif
    return out;
  }
};

}  // namespace

CB_REGISTER_PROVIDER(CB_PROVIDER_NAME, LiboqsProvider);

}  // namespace cb
