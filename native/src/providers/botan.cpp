// Botan adapter, through the high-level factories: Cipher_Mode for block-cipher modes and AEADs,
// StreamCipher for CTR, OFB and the (X)ChaCha20/(X)Salsa20 family, HashFunction and
// MessageAuthenticationCode; PK_Signer, PK_Verifier, PK_Encryptor_EME, PK_Decryptor_EME and
// PK_Key_Agreement for public-key algorithms; PasswordHash, argon2() and KDF for key derivation.
// Botan picks AES-NI, vperm, SHA-NI, AVX2, ... inside each object from its CPUID state, which the
// "soft" variant clears before any object exists.
//
// One file for both major versions: the system's Botan 2.19 (provider "botan", C++17) and Botan 3
// built by `make versions` (provider "botan@3", compiled as C++20 by native/cmake/versions.cmake
// with CB_PROVIDER_NAME). Where Botan 3 removed or replaced an API the two spellings sit under
// `#if BOTAN_VERSION_MAJOR >= 3`, in the small helpers below ("Botan 2 and 3"), so the operations
// themselves are the same code for both.
//
// cpuid.h and locking_allocator.h are public headers in Botan 2 but marked "will be made
// internal", which makes every include emit a compiler warning; Botan 3 made them internal
// (botan/internal/, which the botan@3 recipe installs from its own pinned build). CPUID is the
// only hardware switch Botan 2 has (the BOTAN_CLEAR_CPUID environment variable arrived in Botan
// 3; 2.19 reads no such variable), so the warning is silenced here. The Botan 3 path uses no
// deprecated API of 3.13 (it compiles without a warning when this define is taken away).
#define BOTAN_NO_DEPRECATED_WARNINGS
#include <botan/aead.h>
#include <botan/block_cipher.h>
#include <botan/cipher_mode.h>
#include <botan/data_src.h>
#include <botan/dh.h>
#include <botan/dl_group.h>
#include <botan/ec_group.h>
#include <botan/ecdh.h>
#include <botan/ecdsa.h>
#include <botan/ed25519.h>
#include <botan/exceptn.h>
#include <botan/hash.h>
#include <botan/kdf.h>
#include <botan/mac.h>
#include <botan/pk_ops.h>
#include <botan/pkcs8.h>
#include <botan/pubkey.h>
#include <botan/pwdhash.h>
#include <botan/rsa.h>
#include <botan/stream_cipher.h>
#include <botan/system_rng.h>
#include <botan/version.h>
#include <botan/x509cert.h>
#if BOTAN_VERSION_MAJOR >= 3
#include <botan/ec_apoint.h>
#include <botan/ec_scalar.h>
#include <botan/internal/cpuid.h>
#include <botan/internal/locking_allocator.h>
#include <botan/x25519.h>
#else
#include <botan/argon2.h>
#include <botan/cpuid.h>
#include <botan/curve25519.h>
#include <botan/locking_allocator.h>
#endif

#include <algorithm>
#include <cstring>
#include <map>

#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

// The system library's adapter is "botan"; native/cmake/versions.cmake compiles this file again
// for Botan 3 as "botan@3" with its build recorded.
#ifndef CB_PROVIDER_NAME
#define CB_PROVIDER_NAME "botan"
#endif

namespace cb {
namespace {

enum class Api { Mode, Stream, Hash, Mac };

struct Binding {
  const char* ours;
  Api api;
  const char* spec;  // Botan's algorithm specification string
};

// Notes on the specs:
//  * "AES-n/CFB(128)" states the feedback size; Botan's default is also the full block.
//  * OFB and CTR are StreamCipher objects: they encrypt from `in` to `out` directly, where a
//    Cipher_Mode would need an in-place copy. CTR-BE's default counter is the full 16-byte block.
//  * XTS keys are two AES keys (key1 || key2), so "AES-128/XTS" takes 32 bytes, as ours does.
//  * ChaCha(20) and Salsa20 choose the variant from the nonce length: 12 bytes = RFC 8439 ChaCha20,
//    8 = original Salsa20, 24 = XChaCha20 / XSalsa20. ChaCha20Poly1305 likewise becomes
//    XChaCha20-Poly1305 with a 24-byte nonce.
constexpr Binding kBindings[] = {
    {"aes-128-cbc", Api::Mode, "AES-128/CBC/NoPadding"},
    {"aes-192-cbc", Api::Mode, "AES-192/CBC/NoPadding"},
    {"aes-256-cbc", Api::Mode, "AES-256/CBC/NoPadding"},
    {"aes-128-cfb", Api::Mode, "AES-128/CFB(128)"},
    {"aes-192-cfb", Api::Mode, "AES-192/CFB(128)"},
    {"aes-256-cfb", Api::Mode, "AES-256/CFB(128)"},
    {"aes-128-ofb", Api::Stream, "OFB(AES-128)"},
    {"aes-192-ofb", Api::Stream, "OFB(AES-192)"},
    {"aes-256-ofb", Api::Stream, "OFB(AES-256)"},
    {"aes-128-ctr", Api::Stream, "CTR-BE(AES-128)"},
    {"aes-192-ctr", Api::Stream, "CTR-BE(AES-192)"},
    {"aes-256-ctr", Api::Stream, "CTR-BE(AES-256)"},
    {"aes-128-gcm", Api::Mode, "AES-128/GCM"},
    {"aes-192-gcm", Api::Mode, "AES-192/GCM"},
    {"aes-256-gcm", Api::Mode, "AES-256/GCM"},
    {"aes-128-xts", Api::Mode, "AES-128/XTS"},
    {"aes-256-xts", Api::Mode, "AES-256/XTS"},
    {"des-ede3-cbc", Api::Mode, "TripleDES/CBC/NoPadding"},
    {"chacha20", Api::Stream, "ChaCha(20)"},
    {"xchacha20", Api::Stream, "ChaCha(20)"},
    {"salsa20", Api::Stream, "Salsa20"},
    {"xsalsa20", Api::Stream, "Salsa20"},
    {"chacha20-poly1305", Api::Mode, "ChaCha20Poly1305"},
    {"xchacha20-poly1305", Api::Mode, "ChaCha20Poly1305"},
    {"md5", Api::Hash, "MD5"},
    {"sha1", Api::Hash, "SHA-1"},
    {"sha224", Api::Hash, "SHA-224"},
    {"sha256", Api::Hash, "SHA-256"},
    {"sha384", Api::Hash, "SHA-384"},
    {"sha512", Api::Hash, "SHA-512"},
    {"sha512-256", Api::Hash, "SHA-512-256"},
    {"sha3-256", Api::Hash, "SHA-3(256)"},
    {"sha3-512", Api::Hash, "SHA-3(512)"},
    {"blake2b-512", Api::Hash, "BLAKE2b(512)"},
    {"whirlpool", Api::Hash, "Whirlpool"},
    {"ripemd160", Api::Hash, "RIPEMD-160"},
    {"hmac-sha256", Api::Mac, "HMAC(SHA-256)"},
    {"hmac-sha512", Api::Mac, "HMAC(SHA-512)"},
    {"cmac-aes128", Api::Mac, "CMAC(AES-128)"},
    {"cmac-aes256", Api::Mac, "CMAC(AES-256)"},
};

const Binding* find_binding(const std::string& ours) {
  for (const auto& b : kBindings)
    if (ours == b.ours) return &b;
  return nullptr;
}

// ---- Botan 2 and 3
// ------------------------------------------------------------------------------- The spellings
// that differ between the major versions; everything else is written once.

#if BOTAN_VERSION_MAJOR >= 3
using CpuBit = Botan::CPUFeature::Bit;
// Everything x86 Botan 3 dispatches on for symmetric primitives (it folds SSE4.x into SSSE3 and
// the AVX-512 subsets into one bit, and adds GFNI, SHA-512, SM3/SM4 and the VAES/VPCLMULQDQ forms).
constexpr CpuBit kSoftClearedBits[] = {
    CpuBit::SSE2,   CpuBit::SSSE3,    CpuBit::AVX2,       CpuBit::AVX512,     CpuBit::ADX,
    CpuBit::BMI,    CpuBit::GFNI,     CpuBit::AESNI,      CpuBit::CLMUL,      CpuBit::SHA,
    CpuBit::SHA512, CpuBit::AVX2_AES, CpuBit::AVX512_AES, CpuBit::AVX2_CLMUL, CpuBit::AVX512_CLMUL,
    CpuBit::SM3,    CpuBit::SM4,
};
// AES-NI and carry-less multiplication in every width: Botan 3's VAES AES and VPCLMULQDQ GHASH
// would otherwise take over from the AES-NI code this variant turns off.
constexpr CpuBit kNoAesniClearedBits[] = {CpuBit::AESNI,      CpuBit::CLMUL,
                                          CpuBit::AVX2_AES,   CpuBit::AVX512_AES,
                                          CpuBit::AVX2_CLMUL, CpuBit::AVX512_CLMUL};
constexpr const char* kNoAesniDescription =
    "AES-NI and PCLMULQDQ cleared, their VAES and VPCLMULQDQ forms too; SSSE3 vperm AES, SHA-NI "
    "and AVX kept";
constexpr auto kEncryption = Botan::Cipher_Dir::Encryption;
constexpr auto kDecryption = Botan::Cipher_Dir::Decryption;
// r || s for ECDSA, the bare signature for RSA: what Botan 2 called IEEE_1363.
constexpr auto kSignatureFormat = Botan::Signature_Format::Standard;
using X25519PrivateKey = Botan::X25519_PrivateKey;
#else
using CpuBit = Botan::CPUID::CPUID_bits;
// Everything x86 Botan 2.19 dispatches on for symmetric primitives.
constexpr CpuBit kSoftClearedBits[] = {
    Botan::CPUID::CPUID_SSE2_BIT,       Botan::CPUID::CPUID_SSSE3_BIT,
    Botan::CPUID::CPUID_SSE41_BIT,      Botan::CPUID::CPUID_SSE42_BIT,
    Botan::CPUID::CPUID_AVX2_BIT,       Botan::CPUID::CPUID_AVX512F_BIT,
    Botan::CPUID::CPUID_AVX512DQ_BIT,   Botan::CPUID::CPUID_AVX512BW_BIT,
    Botan::CPUID::CPUID_AVX512_ICL_BIT, Botan::CPUID::CPUID_AESNI_BIT,
    Botan::CPUID::CPUID_CLMUL_BIT,      Botan::CPUID::CPUID_SHA_BIT,
    Botan::CPUID::CPUID_AVX512_AES_BIT, Botan::CPUID::CPUID_AVX512_CLMUL_BIT,
    Botan::CPUID::CPUID_BMI1_BIT,       Botan::CPUID::CPUID_BMI2_BIT,
    Botan::CPUID::CPUID_ADX_BIT,
};
constexpr CpuBit kNoAesniClearedBits[] = {Botan::CPUID::CPUID_AESNI_BIT,
                                          Botan::CPUID::CPUID_CLMUL_BIT};
constexpr const char* kNoAesniDescription =
    "AES-NI and PCLMULQDQ cleared; SSSE3 vperm AES, SHA-NI and AVX kept";
constexpr auto kEncryption = Botan::ENCRYPTION;
constexpr auto kDecryption = Botan::DECRYPTION;
constexpr auto kSignatureFormat = Botan::IEEE_1363;
using X25519PrivateKey = Botan::Curve25519_PrivateKey;
#endif
// (RDTSC, RDRAND and RDSEED stay set in both: they only feed Botan's entropy sources, which the
// System_RNG of the public-key operations, the kernel's random device, does not use.)

// Runs a Botan call from prepare(): a key or nonce Botan rejects is something this library cannot
// do; anything else Botan throws is a library failure.
template <typename F>
auto guarded_setup(const std::string& alg, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Botan::Invalid_Key_Length& e) {
    throw Unsupported("botan " + alg + ": " + e.what());
  } catch (const Botan::Invalid_IV_Length& e) {
    throw Unsupported("botan " + alg + ": " + e.what());
  } catch (const Botan::Exception& e) {
    throw Error("botan " + alg + ": " + e.what());
  }
}

// Block-cipher modes and AEADs.
//
// Cipher_Mode::finish() only accepts a secure_vector, so the obvious run() -- copy the message into
// a secure_vector, finish() it, copy it out -- moves every byte twice. Instead the message is
// copied once into `out` and process()ed there in place, up to the last whole multiple of
// update_granularity() that leaves minimum_final_size() bytes over (CBC decryption wants its last
// block, XTS the block it steals from, AEAD decryption the tag); only that short tail goes through
// finish() in a secure_vector kept across runs, so its capacity is reused and run() adds no
// allocation of its own (Botan's XTS still allocates its stolen block, 17..31 bytes, for a message
// that is not a whole number of blocks). A failed tag check throws after the plaintext before the
// tail has been written to `out`, which the caller must then ignore. Measured on this machine (GCM,
// CBC, CFB, XTS, ChaCha20Poly1305; 16 B .. 64 KiB): neither way allocates; in place is level within
// noise below 1 KiB and up to ~5% faster above it where the cipher is fastest (CBC decryption),
// which is the copy it saves.
class ModeOp : public Operation {
 public:
  ModeOp(const AlgorithmInfo& info, const char* spec, OpKind op, const Params& p)
      : info_(info), iv_(p.iv), aad_(p.aad) {
    const auto dir = op == OpKind::Encrypt ? kEncryption : kDecryption;
    mode_ = Botan::Cipher_Mode::create(spec, dir);
    if (!mode_) throw Unsupported(std::string("botan has no cipher mode ") + spec);
    guarded_setup(info.name, [&] { mode_->set_key(p.key.data(), p.key.size()); });
    if (!mode_->valid_nonce_length(iv_.size()))
      throw Unsupported("botan " + info.name + ": nonce of " + std::to_string(iv_.size()) +
                        " bytes not accepted");
    aead_ = dynamic_cast<Botan::AEAD_Mode*>(mode_.get());
    granularity_ = mode_->update_granularity();
    min_final_ = mode_->minimum_final_size();
    tail_.reserve(granularity_ + min_final_ + mode_->tag_size());
  }

  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    try {
      return run_message(in, len, out);
    } catch (const Botan::Invalid_Authentication_Tag&) {
      mode_->reset();
      throw Error("authentication failed");
    } catch (const Botan::Exception& e) {
      // reset() so a failed message cannot leave the mode mid-message for the next run().
      mode_->reset();
      throw Error("botan " + info_.name + ": " + e.what());
    }
  }

 private:
  size_t run_message(const uint8_t* in, size_t len, uint8_t* out) {
    // Botan hashes the AD when it is set (GCM) or keeps it until start() (ChaCha20Poly1305);
    // setting it per message keeps that work inside the timed message, as for other libraries.
    if (aead_) aead_->set_associated_data(aad_.data(), aad_.size());
    mode_->start(iv_.data(), iv_.size());
    // An empty CBC message is valid for us but Botan's decrypting finish() rejects it.
    if (len == 0 && !aead_ && min_final_ > 0) return 0;
    const size_t head = len > min_final_ ? (len - min_final_) / granularity_ * granularity_ : 0;
    if (head > 0) {
      if (out != in) std::memcpy(out, in, head);
      if (mode_->process(out, head) != head) throw Error("botan " + info_.name + ": short process");
    }
    tail_.assign(in + head, in + len);
    mode_->finish(tail_);
    std::memcpy(out + head, tail_.data(), tail_.size());
    return head + tail_.size();
  }

  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::Cipher_Mode> mode_;
  Bytes iv_, aad_;
  Botan::AEAD_Mode* aead_ = nullptr;  // mode_ itself when it is an AEAD
  size_t granularity_ = 1, min_final_ = 0;
  Botan::secure_vector<uint8_t> tail_;
};

// CTR, OFB, ChaCha20, Salsa20 and their extended-nonce forms: set_iv() rewinds to the prepared
// nonce with the counter at 0, then one cipher() call goes from `in` to `out`. For a 24-byte nonce
// set_iv() derives the subkey (HChaCha20 / HSalsa20) into a 32-byte secure_vector it allocates per
// message, from the mlock pool while that is active.
class StreamOp : public Operation {
 public:
  StreamOp(const AlgorithmInfo& info, const char* spec, const Params& p) : iv_(p.iv) {
    cipher_ = Botan::StreamCipher::create(spec);
    if (!cipher_) throw Unsupported(std::string("botan has no stream cipher ") + spec);
    guarded_setup(info.name, [&] { cipher_->set_key(p.key.data(), p.key.size()); });
    if (!cipher_->valid_iv_length(iv_.size()))
      throw Unsupported("botan " + info.name + ": nonce of " + std::to_string(iv_.size()) +
                        " bytes not accepted");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    cipher_->set_iv(iv_.data(), iv_.size());
    cipher_->cipher(in, out, len);
    return len;
  }

 private:
  std::unique_ptr<Botan::StreamCipher> cipher_;
  Bytes iv_;
};

class HashOp : public Operation {
 public:
  explicit HashOp(const char* spec) : hash_(Botan::HashFunction::create(spec)) {
    if (!hash_) throw Unsupported(std::string("botan has no hash ") + spec);
  }
  // final() also resets the object, so the next update() starts a new message.
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    hash_->update(in, len);
    hash_->final(out);
    return hash_->output_length();
  }

 private:
  std::unique_ptr<Botan::HashFunction> hash_;
};

class MacOp : public Operation {
 public:
  MacOp(const AlgorithmInfo& info, const char* spec, const Params& p)
      : mac_(Botan::MessageAuthenticationCode::create(spec)) {
    if (!mac_) throw Unsupported(std::string("botan has no MAC ") + spec);
    guarded_setup(info.name, [&] { mac_->set_key(p.key.data(), p.key.size()); });
  }
  // HMAC and CMAC final() return to the keyed initial state, so nothing needs restarting.
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    mac_->update(in, len);
    mac_->final(out);
    return mac_->output_length();
  }
  // Botan's own verification: verify_mac compares with constant_time_compare.
  bool verify(const uint8_t* in, size_t len, const uint8_t* tag, size_t tag_len) {
    mac_->update(in, len);
    return mac_->verify_mac(tag, tag_len);
  }

 private:
  std::unique_ptr<Botan::MessageAuthenticationCode> mac_;
};

class MacVerify : public MacVerifyOp {
 public:
  MacVerify(const AlgorithmInfo& info, const char* spec, const Params& p)
      : MacVerifyOp(info.output_len), mac_(info, spec, p) {}

 protected:
  bool verify(const uint8_t* message, size_t n, const uint8_t* tag) override {
    return mac_.verify(message, n, tag, tag_len_);
  }

 private:
  MacOp mac_;
};

// ---- public-key operations and KDFs ------------------------------------------------------------
//
// Keys are imported and PK_Signer / PK_Verifier / PK_Encryptor_EME / PK_Key_Agreement built in
// prepare(), and for decryption the operation a PK_Decryptor_EME would wrap (DecryptOp); run() is
// the one call that does the operation. Those calls return their result in a fresh vector, so
// every run() allocates it (there is no Botan 2 API that writes a signature or shared secret into
// a caller's buffer). Botan 2.19 has no Ed448 or X448.

std::string botan_hash(const std::string& ours) {
  if (ours == "sha1") return "SHA-1";
  if (ours == "sha256") return "SHA-256";
  if (ours == "sha384") return "SHA-384";
  if (ours == "sha512") return "SHA-512";
  throw Unsupported("botan adapter has no name for digest '" + ours + "'");
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

Botan::BigInt big(const Bytes& b) { return Botan::BigInt(b.data(), b.size()); }
Botan::BigInt big_part(const KeyParts& key, const char* name) { return big(key_part(key, name)); }

#if BOTAN_VERSION_MAJOR >= 3
Bytes padded(const Botan::BigInt& v, size_t len) { return v.serialize<Bytes>(len); }
Bytes minimal(const Botan::BigInt& v) { return v.serialize<Bytes>(); }
#else
Bytes padded(const Botan::BigInt& v, size_t len) {
  Bytes out(len);
  Botan::BigInt::encode_1363(out.data(), len, v);
  return out;
}
Bytes minimal(const Botan::BigInt& v) { return Botan::BigInt::encode(v); }
#endif

const Bytes& sized_part(const KeyParts& key, const char* name, size_t len) {
  const Bytes& b = key_part(key, name);
  if (b.size() != len)
    throw Error(std::string("key part '") + name + "' must be " + std::to_string(len) + " bytes");
  return b;
}

// Named groups, built once: EC_Group("secp256r1") is a cheap handle to data Botan caches itself,
// but every DL_Group("ffdhe/ietf/N") decodes the prime and precomputes its Montgomery tables anew
// (about 0.6 ms for ffdhe2048 here, as long as a key generation), which generate_key(), timed as a
// whole, must not repeat.
class Groups {
 public:
  const Botan::EC_Group& ec(const std::string& key_type) {
    const char* name = nullptr;
    if (key_type == "ecdsa-p256" || key_type == "ecdh-p256") name = "secp256r1";
    if (key_type == "ecdsa-p384" || key_type == "ecdh-p384") name = "secp384r1";
    if (key_type == "ecdsa-p521" || key_type == "ecdh-p521") name = "secp521r1";
    if (!name) throw Unsupported("botan adapter has no curve for " + key_type);
    auto it = ec_.find(name);
    if (it == ec_.end()) it = ec_.emplace(name, named_curve(name)).first;
    return it->second;
  }
  // The RFC 7919 groups are built into Botan 2 as "ffdhe/ietf/2048" etc.
  const Botan::DL_Group& dl(const std::string& key_type) {
    if (!starts_with(key_type, "ffdhe"))
      throw Unsupported("botan adapter has no group for " + key_type);
    auto it = dl_.find(key_type);
    if (it == dl_.end())
      it = dl_.emplace(key_type, named_group("ffdhe/ietf/" + key_type.substr(5))).first;
    return it->second;
  }

 private:
#if BOTAN_VERSION_MAJOR >= 3
  static Botan::EC_Group named_curve(const char* name) { return Botan::EC_Group::from_name(name); }
  static Botan::DL_Group named_group(const std::string& name) {
    return Botan::DL_Group::from_name(name);
  }
#else
  static Botan::EC_Group named_curve(const char* name) { return Botan::EC_Group(name); }
  static Botan::DL_Group named_group(const std::string& name) { return Botan::DL_Group(name); }
#endif

  std::map<std::string, Botan::EC_Group> ec_;
  std::map<std::string, Botan::DL_Group> dl_;
};

void check_rsa_size(const AlgorithmInfo& info, const Botan::BigInt& n) {
  if (n.bits() != info.bits)
    throw Error(info.name + ": modulus has " + std::to_string(n.bits()) + " bits, not " +
                std::to_string(info.bits));
}

// Keys' parts in and out where the two versions differ: Botan 3 replaced the EC point type
// (PointGFp) by EC_AffinePoint and EC_Scalar, and reads raw Ed25519, X25519 and DH key material
// through raw_*_key_bits() and get_int_field() instead of per-class getters.
#if BOTAN_VERSION_MAJOR >= 3
Botan::EC_AffinePoint ec_point(const Botan::EC_Group& group, const KeyParts& key) {
  // from_bigint_xy checks that the coordinates are in the field and the point on the curve.
  auto point = Botan::EC_AffinePoint::from_bigint_xy(group, big_part(key, "x"), big_part(key, "y"));
  if (!point) throw Error("public point is not on the curve");
  return *point;
}
KeyParts ec_public_parts(const Botan::EC_PublicKey& key, size_t) {
  const Botan::EC_AffinePoint& q = key._public_ec_point();
  return {{"x", q.x_bytes<Bytes>()}, {"y", q.y_bytes<Bytes>()}};
}
template <typename Key>
std::unique_ptr<Botan::Private_Key> ec_private(const Botan::EC_Group& group, const Botan::BigInt& d,
                                               Botan::RandomNumberGenerator&) {
  return std::make_unique<Key>(group, Botan::EC_Scalar::from_bigint(group, d));
}
std::unique_ptr<Botan::Private_Key> ed25519_private(const Bytes& seed) {
  return std::make_unique<Botan::Ed25519_PrivateKey>(Botan::Ed25519_PrivateKey::from_seed(seed));
}
Bytes ed25519_seed(const Botan::Ed25519_PrivateKey& k) {
  const auto bits = k.raw_private_key_bits();  // seed || public key
  return Bytes(bits.begin(), bits.begin() + 32);
}
Bytes ed25519_public(const Botan::Ed25519_PublicKey& k) { return k.raw_public_key_bits(); }
KeyParts x25519_parts(const X25519PrivateKey& k) {
  const auto priv = k.raw_private_key_bits();
  return {{"priv", Bytes(priv.begin(), priv.end())}, {"pub", k.raw_public_key_bits()}};
}
std::unique_ptr<Botan::Private_Key> dh_private(const Botan::DL_Group& group, const Botan::BigInt& x,
                                               Botan::RandomNumberGenerator&) {
  return std::make_unique<Botan::DH_PrivateKey>(group, x);
}
const Botan::BigInt& dh_x(const Botan::DH_PrivateKey& k) { return k.get_int_field("x"); }
const Botan::BigInt& dh_y(const Botan::DH_PrivateKey& k) { return k.get_int_field("y"); }
#else
Botan::PointGFp ec_point(const Botan::EC_Group& group, const KeyParts& key) {
  Botan::PointGFp point = group.point(big_part(key, "x"), big_part(key, "y"));
  if (!point.on_the_curve()) throw Error("public point is not on the curve");
  return point;
}
KeyParts ec_public_parts(const Botan::EC_PublicKey& key, size_t len) {
  const Botan::PointGFp& q = key.public_point();
  return {{"x", padded(q.get_affine_x(), len)}, {"y", padded(q.get_affine_y(), len)}};
}
template <typename Key>
std::unique_ptr<Botan::Private_Key> ec_private(const Botan::EC_Group& group, const Botan::BigInt& d,
                                               Botan::RandomNumberGenerator& rng) {
  return std::make_unique<Key>(rng, group, d);
}
std::unique_ptr<Botan::Private_Key> ed25519_private(const Bytes& seed) {
  return std::make_unique<Botan::Ed25519_PrivateKey>(
      Botan::secure_vector<uint8_t>(seed.begin(), seed.end()));
}
Bytes ed25519_seed(const Botan::Ed25519_PrivateKey& k) {
  const auto& bits = k.get_private_key();  // seed || public key
  return Bytes(bits.begin(), bits.begin() + 32);
}
Bytes ed25519_public(const Botan::Ed25519_PublicKey& k) { return k.get_public_key(); }
KeyParts x25519_parts(const X25519PrivateKey& k) {
  const auto& priv = k.get_x();
  return {{"priv", Bytes(priv.begin(), priv.end())}, {"pub", k.public_value()}};
}
std::unique_ptr<Botan::Private_Key> dh_private(const Botan::DL_Group& group, const Botan::BigInt& x,
                                               Botan::RandomNumberGenerator& rng) {
  return std::make_unique<Botan::DH_PrivateKey>(rng, group, x);
}
const Botan::BigInt& dh_x(const Botan::DH_PrivateKey& k) { return k.get_x(); }
const Botan::BigInt& dh_y(const Botan::DH_PrivateKey& k) { return k.get_y(); }
#endif

std::unique_ptr<Botan::Private_Key> import_private(const AlgorithmInfo& info, const KeyParts& key,
                                                   Botan::RandomNumberGenerator& rng,
                                                   Groups& groups) {
  const std::string& type = info.key_type;
  if (starts_with(type, "rsa-")) {
    // Botan derives its CRT values (d mod p-1, d mod q-1, q^-1 mod p) from p, q and d.
    auto k = std::make_unique<Botan::RSA_PrivateKey>(big_part(key, "p"), big_part(key, "q"),
                                                     big_part(key, "e"), big_part(key, "d"),
                                                     big_part(key, "n"));
    check_rsa_size(info, k->get_n());
    return k;
  }
  if (starts_with(type, "ecdsa-"))
    return ec_private<Botan::ECDSA_PrivateKey>(groups.ec(type), big_part(key, "d"), rng);
  if (starts_with(type, "ecdh-"))
    return ec_private<Botan::ECDH_PrivateKey>(groups.ec(type), big_part(key, "d"), rng);
  if (type == "ed25519") return ed25519_private(sized_part(key, "priv", 32));
  if (type == "x25519") {
    const Bytes& priv = sized_part(key, "priv", 32);
    return std::make_unique<X25519PrivateKey>(
        Botan::secure_vector<uint8_t>(priv.begin(), priv.end()));
  }
  if (starts_with(type, "ffdhe")) return dh_private(groups.dl(type), big_part(key, "x"), rng);
  throw Unsupported("botan does not offer " + info.name);
}

std::unique_ptr<Botan::Public_Key> import_public(const AlgorithmInfo& info, const KeyParts& key,
                                                 Groups& groups) {
  const std::string& type = info.key_type;
  if (starts_with(type, "rsa-")) {
    auto k = std::make_unique<Botan::RSA_PublicKey>(big_part(key, "n"), big_part(key, "e"));
    check_rsa_size(info, k->get_n());
    return k;
  }
  if (starts_with(type, "ecdsa-")) {
    const Botan::EC_Group& group = groups.ec(type);
    return std::make_unique<Botan::ECDSA_PublicKey>(group, ec_point(group, key));
  }
  if (type == "ed25519") {
    const Bytes& pub = sized_part(key, "pub", 32);
    return std::make_unique<Botan::Ed25519_PublicKey>(pub.data(), pub.size());
  }
  throw Unsupported("botan does not offer " + info.name);
}

// The peer's public value in the form PK_Key_Agreement takes: the raw u-coordinate for X25519,
// an uncompressed SEC1 point for ECDH (Botan decodes it with an on-curve check), y for FFDH.
Bytes peer_value(const AlgorithmInfo& info, const KeyParts& peer, Groups& groups) {
  const std::string& type = info.key_type;
  if (type == "x25519") return sized_part(peer, "pub", 32);
  if (starts_with(type, "ecdh-")) {
    const size_t len = groups.ec(type).get_p_bytes();
    Bytes out{0x04};
    for (const char* name : {"x", "y"}) {
      const Botan::BigInt v = big_part(peer, name);
      if (v.bytes() > len) throw Error(std::string("peer ") + name + " is too large");
      const Bytes b = padded(v, len);
      out.insert(out.end(), b.begin(), b.end());
    }
    return out;
  }
  if (starts_with(type, "ffdhe")) return key_part(peer, "y");
  throw Unsupported("botan does not offer " + info.name);
}

// The padding / EMSA specification Botan's PK_* classes take for one of our algorithms.
std::string pk_padding(const AlgorithmInfo& info) {
  if (info.family == "rsa-pkcs1") return "EMSA3(" + botan_hash(info.digest) + ")";
  // The explicit salt length also makes verification insist on it.
  if (info.family == "rsa-pss") return "EMSA4(" + botan_hash(info.digest) + ",MGF1,32)";
  // OAEP(H) is MGF1 with the same hash and an empty label.
  if (info.family == "rsa-oaep") return "OAEP(" + botan_hash(info.digest) + ")";
  if (info.family == "rsa-pkcs1v15-enc") return "EME-PKCS1-v1_5";
  if (info.family == "ecdsa") return "EMSA1(" + botan_hash(info.digest) + ")";
  if (info.family == "ed25519") return "Pure";
  if (info.kind == Kind::KeyAgreement) return "Raw";  // the shared secret itself, no KDF
  throw Unsupported("botan does not offer " + info.name);
}

// A failure inside a run() is the library's: a bad ciphertext, an invalid peer value, ...
template <typename F>
size_t guarded_run(const std::string& alg, F&& f) {
  try {
    return f();
  } catch (const Botan::Exception& e) {
    throw Error("botan " + alg + ": " + e.what());
  }
}

size_t copy_out(const uint8_t* data, size_t len, uint8_t* out) {
  std::memcpy(out, data, len);
  return len;
}

// IEEE_1363 is the fixed-size format: RSA's k bytes, ECDSA's r || s each padded to the order size.
class SignOp : public Operation {
 public:
  SignOp(const AlgorithmInfo& info, std::unique_ptr<Botan::Private_Key> key,
         Botan::RandomNumberGenerator& rng)
      : info_(info),
        key_(std::move(key)),
        signer_(*key_, rng, pk_padding(info), kSignatureFormat),
        rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
      const std::vector<uint8_t> sig = signer_.sign_message(in, len, rng_);
      return copy_out(sig.data(), sig.size(), out);
    });
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::Private_Key> key_;  // the signer refers to it
  Botan::PK_Signer signer_;
  Botan::RandomNumberGenerator& rng_;
};

class VerifyOp : public Operation {
 public:
  VerifyOp(const AlgorithmInfo& info, std::unique_ptr<Botan::Public_Key> key, const Bytes& sig)
      : info_(info),
        key_(std::move(key)),
        verifier_(*key_, pk_padding(info), kSignatureFormat),
        sig_(sig) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    bool valid = false;
    try {
      valid = verifier_.verify_message(in, len, sig_.data(), sig_.size());
    } catch (const Botan::Exception& e) {
      // Botan throws instead of answering false for some malformed signatures.
      throw Error("botan " + info_.name + ": invalid signature (" + e.what() + ")");
    }
    if (!valid) throw Error("botan " + info_.name + ": invalid signature");
    return 0;
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::Public_Key> key_;
  Botan::PK_Verifier verifier_;
  Bytes sig_;
};

class EncryptOp : public Operation {
 public:
  EncryptOp(const AlgorithmInfo& info, std::unique_ptr<Botan::Public_Key> key,
            Botan::RandomNumberGenerator& rng)
      : info_(info), key_(std::move(key)), enc_(*key_, rng, pk_padding(info)), rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
      const std::vector<uint8_t> c = enc_.encrypt(in, len, rng_);
      return copy_out(c.data(), c.size(), out);
    });
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::Public_Key> key_;
  Botan::PK_Encryptor_EME enc_;
  Botan::RandomNumberGenerator& rng_;
};

// RSA decryption through the operation PK_Decryptor_EME itself wraps, so that a refusal is a
// status (docs/leaks.md, "Valid against invalid"). In Botan 2.19 PK_Decryptor_EME's constructor
// is `m_op = key.create_decryption_op(rng, padding, provider)` and PK_Decryptor::decrypt is
// `m_op->decrypt(valid_mask, in, len)` followed by `throw Decoding_Error` when valid_mask is 0
// (src/lib/pubkey/pubkey.cpp; Botan 3.13 the same, the input a span); the same two calls are made
// here (Private_Key's create_decryption_op and the public PK_Ops::Decryption of pk_ops.h), and
// valid_mask is read instead of thrown. The decryption and the constant-time unpadding are the
// library's own.
class DecryptOp : public Operation {
 public:
  DecryptOp(const AlgorithmInfo& info, std::unique_ptr<Botan::Private_Key> key,
            Botan::RandomNumberGenerator& rng)
      : info_(info),
        key_(std::move(key)),
        op_(key_->create_decryption_op(rng, pk_padding(info), "")) {
    if (!op_) throw Error("botan " + info.name + ": the key does not decrypt");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    size_t n = 0;
    if (!try_run(in, len, out, n))
      throw Error("botan " + info_.name + ": " +
                  (refused_.empty() ? "Invalid public key ciphertext, cannot decrypt" : refused_));
    return n;
  }
  bool refuses_by_status() const override { return true; }
  bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) override {
    uint8_t valid_mask = 0;
    Botan::secure_vector<uint8_t> m;
    try {
#if BOTAN_VERSION_MAJOR >= 3
      m = op_->decrypt(valid_mask, {in, len});
#else
      m = op_->decrypt(valid_mask, in, len);
#endif
    } catch (const Botan::Exception& e) {
      // A ciphertext not below the modulus ("RSA private op - input is too large"), which
      // PK_Decryptor::decrypt throws as well; none of the leak classes is one.
      refused_ = e.what();
      return false;
    }
    if (valid_mask == 0) {
      refused_.clear();  // run() then says what PK_Decryptor::decrypt's Decoding_Error says
      return false;
    }
    out_len = copy_out(m.data(), m.size(), out);
    return true;
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::Private_Key> key_;  // the operation refers to it
  std::unique_ptr<Botan::PK_Ops::Decryption> op_;
  std::string refused_;  // the exception that refused the last decryption, if one did
};

class AgreeOp : public Operation {
 public:
  AgreeOp(const AlgorithmInfo& info, std::unique_ptr<Botan::Private_Key> key, Bytes peer,
          Botan::RandomNumberGenerator& rng)
      : info_(info),
        key_(std::move(key)),
        ka_(*key_, rng, pk_padding(info)),
        peer_(std::move(peer)) {}
  // With the "Raw" KDF and key length 0 derive_key() returns the whole shared secret: X25519's 32
  // bytes, the ECDH x-coordinate and g^xy mod p, both padded to the field / group size. Peer
  // checks are Botan 2.19's own: an on-curve check for ECDH, 1 < y < p - 1 for FFDH (no subgroup
  // check), none for X25519 (a small-order peer gives an all-zero secret, no error). Botan 3.13
  // refuses that all-zero secret (RFC 7748's optional check: "public point appears to be of low
  // order"), an error here.
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
      const Botan::SymmetricKey secret = ka_.derive_key(0, peer_.data(), peer_.size());
      return copy_out(secret.begin(), secret.length(), out);
    });
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::Private_Key> key_;
  Botan::PK_Key_Agreement ka_;
  Bytes peer_;
};

// PBKDF2 and scrypt through PasswordHash, parameterised once in prepare().
class PasswordHashOp : public Operation {
 public:
  PasswordHashOp(const AlgorithmInfo& info, std::unique_ptr<Botan::PasswordHash> pwhash,
                 const Params& p)
      : info_(info), pwhash_(std::move(pwhash)), salt_(p.salt), out_len_(p.out_len) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
      pwhash_->derive_key(out, out_len_, reinterpret_cast<const char*>(in), len, salt_.data(),
                          salt_.size());
      return out_len_;
    });
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::PasswordHash> pwhash_;
  Bytes salt_;
  size_t out_len_;
};

// Argon2id with RFC 9106's optional secret K and associated data X. Botan 2.19 takes them only in
// its argon2() function; Botan 3 deprecated that function (which now builds a PasswordHash per
// call) for PasswordHash::derive_key with AD and key, so its PasswordHash is made once here.
// Both process the lanes one after another in the calling thread (botan@3 is built without
// thread_utils, which would run them in a thread pool; docs/versions.md).
class Argon2Op : public Operation {
 public:
  Argon2Op(const AlgorithmInfo& info, const Params& p)
      : info_(info),
        salt_(p.salt),
        secret_(p.key),
        ad_(p.aad),
        out_len_(p.out_len),
        t_(cost_param(p, "t")),
        m_(cost_param(p, "m")),
        p_(cost_param(p, "p")) {
#if BOTAN_VERSION_MAJOR >= 3
    pwhash_ = Botan::PasswordHashFamily::create_or_throw("Argon2id")->from_params(m_, t_, p_);
#endif
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
#if BOTAN_VERSION_MAJOR >= 3
      pwhash_->derive_key(out, out_len_, reinterpret_cast<const char*>(in), len, salt_.data(),
                          salt_.size(), ad_.data(), ad_.size(), secret_.data(), secret_.size());
#else
      constexpr uint8_t kArgon2id = 2;
      Botan::argon2(out, out_len_, reinterpret_cast<const char*>(in), len, salt_.data(),
                    salt_.size(), secret_.data(), secret_.size(), ad_.data(), ad_.size(), kArgon2id,
                    p_, m_, t_);
#endif
      return out_len_;
    });
  }

 private:
  const AlgorithmInfo& info_;
  Bytes salt_, secret_, ad_;
  size_t out_len_;
  size_t t_, m_, p_;
#if BOTAN_VERSION_MAJOR >= 3
  std::unique_ptr<Botan::PasswordHash> pwhash_;
#endif
};

// HKDF(H).kdf() is extract-then-expand; an empty salt becomes HashLen zero bytes, as RFC 5869 says.
class HkdfOp : public Operation {
 public:
  HkdfOp(const AlgorithmInfo& info, const Params& p)
      : info_(info),
        kdf_(Botan::KDF::create("HKDF(" + botan_hash(info.digest) + ")")),
        salt_(p.salt),
        label_(p.info),
        out_len_(p.out_len) {
    if (!kdf_) throw Unsupported("botan has no HKDF(" + botan_hash(info.digest) + ")");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
#if BOTAN_VERSION_MAJOR >= 3
      kdf_->derive_key(std::span<uint8_t>(out, out_len_), std::span<const uint8_t>(in, len), salt_,
                       label_);
#else
      kdf_->kdf(out, out_len_, in, len, salt_.data(), salt_.size(), label_.data(), label_.size());
#endif
      return out_len_;
    });
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<Botan::KDF> kdf_;
  Bytes salt_, label_;
  size_t out_len_;
};

// The provider's Botan objects: the RNG every operation and key generation draws from, and the
// named groups.
//
// The RNG is System_RNG (the kernel's random device; this build reads /dev/urandom, code_path's
// pk_rng), which Botan's own `botan speed` and its C API use by default. Botan's ECC and RSA
// blinding draw many small random values per operation; from an AutoSeeded_RNG (HMAC_DRBG over
// SHA-384) those cost about half of an ECDH P-256 agreement here.
//
// Both live in a function-local static, not in the provider object: the groups' BigInts are
// secure_vectors from Botan's mlock pool, itself a function-local static made on first use. The
// provider object is made before that pool, so the runtime would destroy the pool first and the
// provider's Botan objects would then free into unmapped pages at exit (it crashed so). Made in
// init(), after the pool exists, this static is destroyed before it.
struct PkState {
  Botan::System_RNG rng;
  Groups groups;
};

PkState& pk_state() {
  Botan::mlock_allocator::instance();
  static PkState state;
  return state;
}

// Catalogue names of what Botan 2.19 offers beyond the symmetric bindings.
std::vector<std::string> public_key_algorithms() {
  std::vector<std::string> out;
  for (const char* bits : {"1024", "2048", "3072", "4096"}) {
    const std::string rsa = std::string("rsa-") + bits;
    for (const char* suffix : {"", "-pkcs1-sha256", "-pss-sha256", "-oaep-sha256"})
      out.push_back(rsa + suffix);
  }
  out.push_back("rsa-2048-pkcs1v15-enc");
  for (const char* name :
       {"ecdsa-p256", "ecdsa-p384", "ecdsa-p521", "ed25519", "x25519", "ecdh-p256", "ecdh-p384",
        "ffdhe2048", "ffdhe3072", "ffdhe4096", "pbkdf2-sha1", "pbkdf2-sha256", "pbkdf2-sha512",
        "scrypt", "argon2id", "hkdf-sha256"})
    out.push_back(name);
  return out;
}

std::unique_ptr<Operation> prepare_kdf(const AlgorithmInfo& info, const Params& p) {
  if (p.out_len == 0) throw Unsupported(info.name + ": no output length given");
  if (info.family == "hkdf") return std::make_unique<HkdfOp>(info, p);
  if (info.family == "argon2") {
    // RFC 9106's limits, checked here because Botan's argon2() only checks them per call.
    const uint64_t t = cost_param(p, "t"), m = cost_param(p, "m"), lanes = cost_param(p, "p");
    if (t == 0 || lanes == 0 || lanes >= (1u << 24) || m < 8 * lanes || p.out_len < 4)
      throw Unsupported("argon2id needs t >= 1, 1 <= p < 2^24, m >= 8p KiB and 4+ output bytes");
    return std::make_unique<Argon2Op>(info, p);
  }
  std::unique_ptr<Botan::PasswordHashFamily> family;
  std::unique_ptr<Botan::PasswordHash> pwhash;
  try {
    if (info.family == "pbkdf2") {
      const uint64_t iterations = cost_param(p, "iterations");
      if (iterations == 0) throw Unsupported("PBKDF2 needs at least one iteration");
      family = Botan::PasswordHashFamily::create("PBKDF2(" + botan_hash(info.digest) + ")");
      if (family) pwhash = family->from_params(iterations);
    } else if (info.family == "scrypt") {
      family = Botan::PasswordHashFamily::create("Scrypt");
      if (family)
        pwhash = family->from_params(cost_param(p, "N"), cost_param(p, "r"), cost_param(p, "p"));
    }
  } catch (const Botan::Invalid_Argument& e) {
    // Parameters outside what Botan accepts (scrypt N not a power of two, ...).
    throw Unsupported("botan " + info.name + ": " + e.what());
  }
  if (!pwhash) throw Unsupported("botan does not offer " + info.name);
  return std::make_unique<PasswordHashOp>(info, std::move(pwhash), p);
}

// Botan serves secure_vector allocations of 16..256 bytes (key schedules, nonce-derived subkeys)
// from a pool of mlock'ed pages, bypassing malloc: the runner's heap counter cannot see them, and
// the pool's 512 KiB count towards RSS from first use. BOTAN_MLOCK_POOL_SIZE=0 turns it off.
std::string mlock_pool_state() {
  auto& allocator = Botan::mlock_allocator::instance();
  void* probe = allocator.allocate(1, 16);
  if (!probe) return "inactive";
  allocator.deallocate(probe, 1, 16);
  return "active";
}

// ---- keyload: PKCS#8 private keys and X.509 certificates, PEM or DER ----------------------------
// Botan's decoders take PEM or BER alike (they look for the PEM label first). One run decodes a
// private key (PKCS8::load_key) or a certificate (X509_Certificate, whose subject key Botan
// decodes only when asked: decode_key asks) and frees it.

bool is_certificate(const std::string& algorithm) { return starts_with(algorithm, "x509-"); }

class KeyloadOp : public Operation {
 public:
  explicit KeyloadOp(std::string algorithm) : certificate_(is_certificate(algorithm)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    try {
      Botan::DataSource_Memory src(in, len);
      if (certificate_)
        Botan::X509_Certificate cert(src);
      else
        Botan::PKCS8::load_key(src);
    } catch (const Botan::Exception& e) {
      throw Error(std::string("botan keyload: ") + e.what());
    }
    return 0;
  }

 private:
  bool certificate_;
};

KeyParts decoded_parts(const AlgorithmInfo& info, const Bytes& encoded) {
  try {
    Botan::DataSource_Memory src(encoded.data(), encoded.size());
    std::unique_ptr<Botan::Private_Key> priv;
    std::unique_ptr<Botan::Public_Key> pub;
    if (is_certificate(info.name))
#if BOTAN_VERSION_MAJOR >= 3
      pub = Botan::X509_Certificate(src).subject_public_key();
#else
      pub = Botan::X509_Certificate(src).load_subject_public_key();
#endif
    else
      priv = Botan::PKCS8::load_key(src);
    const Botan::Public_Key* key = priv ? priv.get() : pub.get();
    if (auto* rsa = dynamic_cast<const Botan::RSA_PrivateKey*>(key))
      return {{"n", minimal(rsa->get_n())},   {"e", minimal(rsa->get_e())},
              {"d", minimal(rsa->get_d())},   {"p", minimal(rsa->get_p())},
              {"q", minimal(rsa->get_q())},   {"dp", minimal(rsa->get_d1())},
              {"dq", minimal(rsa->get_d2())}, {"qinv", minimal(rsa->get_c())}};
    if (auto* rsa = dynamic_cast<const Botan::RSA_PublicKey*>(key))
      return {{"n", minimal(rsa->get_n())}, {"e", minimal(rsa->get_e())}};
    if (auto* ec = dynamic_cast<const Botan::EC_PublicKey*>(key)) {
      const size_t len = ec->domain().get_p_bytes();
      KeyParts out = ec_public_parts(*ec, len);
      if (auto* ecp = dynamic_cast<const Botan::EC_PrivateKey*>(key))
        out["d"] = padded(ecp->private_value(), len);
      return out;
    }
    if (auto* ed = dynamic_cast<const Botan::Ed25519_PrivateKey*>(key))
      return {{"priv", ed25519_seed(*ed)}, {"pub", ed25519_public(*ed)}};
    if (auto* ed = dynamic_cast<const Botan::Ed25519_PublicKey*>(key))
      return {{"pub", ed25519_public(*ed)}};
  } catch (const Botan::Exception& e) {
    throw Error(std::string("botan keyload: ") + e.what());
  }
  throw Error("botan keyload: " + info.name + " decoded to a key of another type");
}

class BotanProvider : public Provider {
 public:
  std::string name() const override { return CB_PROVIDER_NAME; }
  std::string version() const override { return Botan::version_string(); }
  std::vector<Variant> variants() const override {
    return {
        {"default", "all CPU features Botan detects", {}},
        {"soft",
         "portable C++ only: Botan's CPUID bits for SSE2..AVX-512, AES-NI, PCLMULQDQ, SHA-NI, "
         "BMI1/2 and ADX cleared before first use",
         {}},
        // The counterpart of openssl/noaesni: AES falls back to Botan's SSSE3 "vperm" code.
        {"noaesni", kNoAesniDescription, {}},
    };
  }
  void init(const std::string& variant) override {
    if (variant == "soft") {
      // Botan consults its CPUID state on every key schedule and every call, so clearing the bits
      // before any object exists moves everything to the portable code (AES "base" instead of
      // "cpu" or "vperm", GHASH "base" instead of "clmul", SHA-256 "base" instead of "shani").
      for (auto bit : kSoftClearedBits) Botan::CPUID::clear_cpuid_bit(bit);
    } else if (variant == "noaesni") {
      for (auto bit : kNoAesniClearedBits) Botan::CPUID::clear_cpuid_bit(bit);
    } else if (variant != "default") {
      throw Unsupported("botan has no variant '" + variant + "'");
    }
    variant_ = variant;
    PkState& state = pk_state();
    rng_ = &state.rng;
    groups_ = &state.groups;
  }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& b : kBindings) out.push_back(b.ours);
    for (auto& name : public_key_algorithms()) out.push_back(std::move(name));
    for (const auto& a : cb::algorithms())
      if (a.kind == Kind::Keyload) out.push_back(a.name);
    return out;
  }
  KeyParts decode_key(const std::string& algorithm, const Bytes& encoded) override {
    return decoded_parts(checked_algorithm(algorithm, OpKind::Keyload), encoded);
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    if (const AlgorithmInfo* kl = find_algorithm(algorithm); kl && kl->kind == Kind::Keyload)
      return std::make_unique<KeyloadOp>(checked_algorithm(algorithm, op).name);
    if (const AlgorithmInfo* hs = find_algorithm(algorithm); hs && hs->kind == Kind::Handshake)
      return prepare_handshake(algorithm, params);
    if (const AlgorithmInfo* pk = find_algorithm(algorithm);
        pk && (is_public_key(pk->kind) || pk->kind == Kind::Kdf))
      return prepare_public_key(checked_algorithm(algorithm, op), op, params);
    const AlgorithmInfo* info = find_algorithm(algorithm);
    const Binding* b = find_binding(algorithm);
    if (!info || !b) throw Unsupported("botan does not offer " + algorithm);
    const auto ops = operations_for(*info);
    if (std::find(ops.begin(), ops.end(), op) == ops.end())
      throw Unsupported(algorithm + " has no operation " + to_string(op));
    switch (b->api) {
      case Api::Mode:
        return std::make_unique<ModeOp>(*info, b->spec, op, params);
      case Api::Stream:
        return std::make_unique<StreamOp>(*info, b->spec, params);
      case Api::Hash:
        return std::make_unique<HashOp>(b->spec);
      case Api::Mac:
        return std::make_unique<MacOp>(*info, b->spec, params);
    }
    throw Unsupported("botan does not offer " + algorithm);
  }
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Mac);
    const Binding* b = find_binding(algorithm);
    if (!b || b->api != Api::Mac) throw Unsupported("botan does not offer " + algorithm);
    return std::make_unique<MacVerify>(info, b->spec, params);
  }
  // The handshake kind is TLS 1.3, which Botan 2 does not have: its TLS ends at 1.2
  // (Botan::TLS::Protocol_Version stops at TLS_V12, botan/tls_version.h); TLS 1.3 arrived in
  // Botan 3.0. Not offered, with that reason (the `list`'s not_offered).
  std::unique_ptr<HandshakeOperation> prepare_handshake(const std::string& algorithm,
                                                        const Params&) override {
    checked_algorithm(algorithm, OpKind::Handshake);
#if BOTAN_VERSION_MAJOR >= 3
    // Botan 3 has TLS 1.3, but this build leaves out its TLS module and the adapter does not
    // drive it yet (docs/versions.md, "Not done yet").
    throw Unsupported(std::string(CB_PROVIDER_NAME) + " does not offer " + algorithm +
                      ": Botan 3 has TLS 1.3, but this build leaves out its tls13 module and the "
                      "adapter does not drive Botan's TLS yet");
#else
    throw Unsupported(std::string(CB_PROVIDER_NAME) + " does not offer " + algorithm +
                      ": Botan 2 has no TLS 1.3 (its TLS ends at 1.2, "
                      "Botan::TLS::Protocol_Version::TLS_V12); TLS 1.3 arrived in Botan 3.0");
#endif
  }
  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    out["variant"] = variant_;
    out["cpuid"] = Botan::CPUID::to_string();
    // Each object names the implementation it dispatched to from the CPUID state. (The provider
    // argument of the create() functions selects between Botan and external engines such as
    // "openssl", none of which Debian builds in; "base" is the only one here.)
    auto note = [&](const char* key, auto&& object) {
      out[key] = object ? object->provider() : "unavailable";
    };
    note("aes", Botan::BlockCipher::create("AES-256"));
    note("gcm_ghash", Botan::Cipher_Mode::create("AES-256/GCM", kEncryption));
    note("chacha20", Botan::StreamCipher::create("ChaCha(20)"));
    note("sha1", Botan::HashFunction::create("SHA-1"));
    note("sha256", Botan::HashFunction::create("SHA-256"));
    note("sha512", Botan::HashFunction::create("SHA-512"));
    note("sha3", Botan::HashFunction::create("SHA-3(256)"));
    out["mlock_pool"] = mlock_pool_state();
#ifdef CB_BUILD_RECORD
    out["build"] = CB_BUILD_RECORD;  // a versioned provider: its crate, flags and build time
#endif
    if (rng_) out["pk_rng"] = rng_->name();  // what signing, OAEP, blinding and keygen draw from
    return out;
  }

  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    if (!offers(algorithm)) throw Unsupported("botan cannot generate " + algorithm + " keys");
    const std::string& type = info.key_type;
    Botan::RandomNumberGenerator& rng = *rng_;
    try {
      if (starts_with(type, "rsa-")) {
        const Botan::RSA_PrivateKey k(rng, info.bits, 65537);
        return {{"n", minimal(k.get_n())},   {"e", minimal(k.get_e())},
                {"d", minimal(k.get_d())},   {"p", minimal(k.get_p())},
                {"q", minimal(k.get_q())},   {"dp", minimal(k.get_d1())},
                {"dq", minimal(k.get_d2())}, {"qinv", minimal(k.get_c())}};
      }
      if (starts_with(type, "ecdsa-") || starts_with(type, "ecdh-")) {
        const Botan::EC_Group& group = groups_->ec(type);
        const size_t len = group.get_p_bytes();
        // An ECDSA and an ECDH key pair are the same (d, dG); each is made by its own class.
        std::unique_ptr<Botan::EC_PrivateKey> k;
        if (starts_with(type, "ecdsa-"))
          k = std::make_unique<Botan::ECDSA_PrivateKey>(rng, group);
        else
          k = std::make_unique<Botan::ECDH_PrivateKey>(rng, group);
        KeyParts out = ec_public_parts(*k, len);
        out["d"] = padded(k->private_value(), len);
        return out;
      }
      if (type == "ed25519") {
        // RFC 8032's private key is the 32-byte seed.
        const Botan::Ed25519_PrivateKey k(rng);
        return {{"priv", ed25519_seed(k)}, {"pub", ed25519_public(k)}};
      }
      if (type == "x25519") return x25519_parts(X25519PrivateKey(rng));
      if (starts_with(type, "ffdhe")) {
        const Botan::DL_Group& group = groups_->dl(type);
        const Botan::DH_PrivateKey k(rng, group);
        return {{"x", minimal(dh_x(k))}, {"y", padded(dh_y(k), group.p_bytes())}};
      }
    } catch (const Botan::Exception& e) {
      throw Error("botan " + algorithm + " key generation: " + e.what());
    }
    throw Unsupported("botan cannot generate " + algorithm + " keys");
  }

 private:
  bool offers(const std::string& algorithm) const {
    const auto names = public_key_algorithms();
    return std::find(names.begin(), names.end(), algorithm) != names.end();
  }

  std::unique_ptr<Operation> prepare_public_key(const AlgorithmInfo& info, OpKind op,
                                                const Params& params) {
    if (!offers(info.name)) throw Unsupported("botan does not offer " + info.name);
    if (info.kind == Kind::Kdf) return prepare_kdf(info, params);
    Botan::RandomNumberGenerator& rng = *rng_;
    // Importing a key or building the padding object: a key Botan rejects is a failure.
    try {
      switch (op) {
        case OpKind::Sign:
          return std::make_unique<SignOp>(info, import_private(info, params.keypair, rng, *groups_),
                                          rng);
        case OpKind::Verify:
          return std::make_unique<VerifyOp>(info, import_public(info, params.keypair, *groups_),
                                            params.signature);
        case OpKind::Encrypt:
          return std::make_unique<EncryptOp>(info, import_public(info, params.keypair, *groups_),
                                             rng);
        case OpKind::Decrypt:
          return std::make_unique<DecryptOp>(
              info, import_private(info, params.keypair, rng, *groups_), rng);
        case OpKind::Derive:
          return std::make_unique<AgreeOp>(info,
                                           import_private(info, params.keypair, rng, *groups_),
                                           peer_value(info, params.peer, *groups_), rng);
        default:
          break;
      }
    } catch (const Botan::Lookup_Error& e) {
      throw Unsupported("botan " + info.name + ": " + e.what());
    } catch (const Botan::Exception& e) {
      throw Error("botan " + info.name + ": " + e.what());
    }
    throw Unsupported(info.name + " has no " + to_string(op) + " operation in botan");
  }

  std::string variant_ = "default";
  Botan::RandomNumberGenerator* rng_ = nullptr;  // from pk_state(), set in init()
  Groups* groups_ = nullptr;
};

}  // namespace

CB_REGISTER_PROVIDER(CB_PROVIDER_NAME, BotanProvider);

}  // namespace cb
