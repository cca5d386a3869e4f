// Botan 2 adapter, through the high-level factories: Cipher_Mode for block-cipher modes and AEADs,
// StreamCipher for CTR, OFB and the (X)ChaCha20/(X)Salsa20 family, HashFunction and
// MessageAuthenticationCode. Botan picks AES-NI, vperm, SHA-NI, AVX2, ... inside each object from
// its CPUID state, which the "soft" variant clears before any object exists.
//
// cpuid.h and locking_allocator.h are public headers in Botan 2 but marked "will be made
// internal", which makes every include emit a compiler warning. CPUID is the only hardware switch
// Botan 2 has (the BOTAN_CLEAR_CPUID environment variable arrived in Botan 3; 2.19 reads no such
// variable), so the warning is silenced here.
#define BOTAN_NO_DEPRECATED_WARNINGS
#include <botan/aead.h>
#include <botan/block_cipher.h>
#include <botan/cipher_mode.h>
#include <botan/cpuid.h>
#include <botan/exceptn.h>
#include <botan/hash.h>
#include <botan/locking_allocator.h>
#include <botan/mac.h>
#include <botan/stream_cipher.h>
#include <botan/version.h>

#include <algorithm>
#include <cstring>

#include "cryptobench/provider.hpp"

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

// Everything x86 Botan 2.19 dispatches on for symmetric primitives. RDTSC, RDRAND and RDSEED stay:
// they only feed the RNG, which no catalogue algorithm uses.
constexpr Botan::CPUID::CPUID_bits kSoftClearedBits[] = {
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
    const auto dir = op == OpKind::Encrypt ? Botan::ENCRYPTION : Botan::DECRYPTION;
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

 private:
  std::unique_ptr<Botan::MessageAuthenticationCode> mac_;
};

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

class BotanProvider : public Provider {
 public:
  std::string name() const override { return "botan"; }
  std::string version() const override { return Botan::version_string(); }
  std::vector<Variant> variants() const override {
    return {
        {"default", "all CPU features Botan detects", {}},
        {"soft",
         "portable C++ only: Botan's CPUID bits for SSE2..AVX-512, AES-NI, PCLMULQDQ, SHA-NI, "
         "BMI1/2 and ADX cleared before first use",
         {}},
        // The counterpart of openssl/noaesni: AES falls back to Botan's SSSE3 "vperm" code.
        {"noaesni", "AES-NI and PCLMULQDQ cleared; SSSE3 vperm AES, SHA-NI and AVX kept", {}},
    };
  }
  void init(const std::string& variant) override {
    if (variant == "soft") {
      // Botan consults its CPUID state on every key schedule and every call, so clearing the bits
      // before any object exists moves everything to the portable code (AES "base" instead of
      // "cpu" or "vperm", GHASH "base" instead of "clmul", SHA-256 "base" instead of "shani").
      for (auto bit : kSoftClearedBits) Botan::CPUID::clear_cpuid_bit(bit);
    } else if (variant == "noaesni") {
      Botan::CPUID::clear_cpuid_bit(Botan::CPUID::CPUID_AESNI_BIT);
      Botan::CPUID::clear_cpuid_bit(Botan::CPUID::CPUID_CLMUL_BIT);
    } else if (variant != "default") {
      throw Unsupported("botan has no variant '" + variant + "'");
    }
    variant_ = variant;
  }
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& b : kBindings) out.push_back(b.ours);
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = find_algorithm(algorithm);
    const Binding* b = find_binding(algorithm);
    if (!info || !b) throw Unsupported("botan does not offer " + algorithm);
    const auto ops = operations_for(info->kind);
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
    note("gcm_ghash", Botan::Cipher_Mode::create("AES-256/GCM", Botan::ENCRYPTION));
    note("chacha20", Botan::StreamCipher::create("ChaCha(20)"));
    note("sha1", Botan::HashFunction::create("SHA-1"));
    note("sha256", Botan::HashFunction::create("SHA-256"));
    note("sha512", Botan::HashFunction::create("SHA-512"));
    note("sha3", Botan::HashFunction::create("SHA-3(256)"));
    out["mlock_pool"] = mlock_pool_state();
    return out;
  }

 private:
  std::string variant_ = "default";
};

}  // namespace

CB_REGISTER_PROVIDER("botan", BotanProvider);

}  // namespace cb
