// Crypto++ adapter. Every object is keyed once in prepare(); run() only resynchronises the IV and
// calls ProcessData / EncryptAndAuthenticate / Update+Final straight into the caller's buffer. The
// filter/pipeline API is avoided on purpose: it allocates on every message.
//
// Crypto++ 8.7 chooses AES-NI, CLMUL, SHA-NI, SSSE3 and AVX2 code from CPUID and offers no
// supported switch to turn them off (the g_has* globals in cpu.h are marked "should not be used
// directly" and are filled in by a static initialiser), so there is only the "default" variant.
#define CRYPTOPP_ENABLE_NAMESPACE_WEAK 1
#include <cryptopp/aes.h>
#include <cryptopp/algparam.h>
#include <cryptopp/argnames.h>
#include <cryptopp/blake2.h>
#include <cryptopp/chacha.h>
#include <cryptopp/chachapoly.h>
#include <cryptopp/cmac.h>
#include <cryptopp/config_ver.h>
#include <cryptopp/cpu.h>
#include <cryptopp/cryptlib.h>
#include <cryptopp/des.h>
#include <cryptopp/gcm.h>
#include <cryptopp/hmac.h>
#include <cryptopp/md5.h>
#include <cryptopp/misc.h>
#include <cryptopp/modes.h>
#include <cryptopp/ripemd.h>
#include <cryptopp/salsa.h>
#include <cryptopp/sha.h>
#include <cryptopp/sha3.h>
#include <cryptopp/whrlpool.h>
#include <cryptopp/xts.h>

#include "cryptobench/provider.hpp"

namespace cb {
namespace {

namespace cp = CryptoPP;

using CipherPtr = std::unique_ptr<cp::SymmetricCipher>;
using AeadPtr = std::unique_ptr<cp::AuthenticatedSymmetricCipher>;
using HashPtr = std::unique_ptr<cp::HashTransformation>;
using MacPtr = std::unique_ptr<cp::MessageAuthenticationCode>;

template <class Scheme>
CipherPtr make_cipher(bool encrypt) {
  if (encrypt) return std::make_unique<typename Scheme::Encryption>();
  return std::make_unique<typename Scheme::Decryption>();
}

template <class Scheme>
AeadPtr make_aead(bool encrypt) {
  if (encrypt) return std::make_unique<typename Scheme::Encryption>();
  return std::make_unique<typename Scheme::Decryption>();
}

template <class T>
HashPtr make_hash() {
  return std::make_unique<T>();
}

template <class T>
MacPtr make_mac() {
  return std::make_unique<T>();
}

struct CipherRow {
  const char* name;
  CipherPtr (*make)(bool encrypt);
};
// ChaChaTLS is Crypto++'s name for the RFC 8439 ChaCha20 (96-bit nonce, 32-bit counter from 0);
// plain cp::ChaCha is Bernstein's 64-bit-nonce original.
const CipherRow kCiphers[] = {
    {"aes-128-cbc", make_cipher<cp::CBC_Mode<cp::AES>>},
    {"aes-192-cbc", make_cipher<cp::CBC_Mode<cp::AES>>},
    {"aes-256-cbc", make_cipher<cp::CBC_Mode<cp::AES>>},
    {"aes-128-cfb", make_cipher<cp::CFB_Mode<cp::AES>>},
    {"aes-192-cfb", make_cipher<cp::CFB_Mode<cp::AES>>},
    {"aes-256-cfb", make_cipher<cp::CFB_Mode<cp::AES>>},
    {"aes-128-ofb", make_cipher<cp::OFB_Mode<cp::AES>>},
    {"aes-192-ofb", make_cipher<cp::OFB_Mode<cp::AES>>},
    {"aes-256-ofb", make_cipher<cp::OFB_Mode<cp::AES>>},
    {"aes-128-ctr", make_cipher<cp::CTR_Mode<cp::AES>>},
    {"aes-192-ctr", make_cipher<cp::CTR_Mode<cp::AES>>},
    {"aes-256-ctr", make_cipher<cp::CTR_Mode<cp::AES>>},
    {"aes-128-xts", make_cipher<cp::XTS_Mode<cp::AES>>},
    {"aes-256-xts", make_cipher<cp::XTS_Mode<cp::AES>>},
    {"des-ede3-cbc", make_cipher<cp::CBC_Mode<cp::DES_EDE3>>},
    {"chacha20", make_cipher<cp::ChaChaTLS>},
    {"xchacha20", make_cipher<cp::XChaCha20>},
    {"salsa20", make_cipher<cp::Salsa20>},
    {"xsalsa20", make_cipher<cp::XSalsa20>},
};

struct AeadRow {
  const char* name;
  AeadPtr (*make)(bool encrypt);
};
// GCM<AES> uses the default 2K-table GHASH in software; with CLMUL present Crypto++ ignores the
// tables and multiplies with PCLMULQDQ.
const AeadRow kAeads[] = {
    {"aes-128-gcm", make_aead<cp::GCM<cp::AES>>},
    {"aes-192-gcm", make_aead<cp::GCM<cp::AES>>},
    {"aes-256-gcm", make_aead<cp::GCM<cp::AES>>},
    {"chacha20-poly1305", make_aead<cp::ChaCha20Poly1305>},
    {"xchacha20-poly1305", make_aead<cp::XChaCha20Poly1305>},
};

struct HashRow {
  const char* name;
  HashPtr (*make)();
};
HashPtr make_blake2b_512() { return std::make_unique<cp::BLAKE2b>(false, 64u); }
const HashRow kHashes[] = {
    {"md5", make_hash<cp::Weak::MD5>},       {"sha1", make_hash<cp::SHA1>},
    {"sha224", make_hash<cp::SHA224>},       {"sha256", make_hash<cp::SHA256>},
    {"sha384", make_hash<cp::SHA384>},       {"sha512", make_hash<cp::SHA512>},
    {"sha3-256", make_hash<cp::SHA3_256>},   {"sha3-512", make_hash<cp::SHA3_512>},
    {"blake2b-512", make_blake2b_512},       {"whirlpool", make_hash<cp::Whirlpool>},
    {"ripemd160", make_hash<cp::RIPEMD160>},
};

struct MacRow {
  const char* name;
  MacPtr (*make)();
};
const MacRow kMacs[] = {
    {"hmac-sha256", make_mac<cp::HMAC<cp::SHA256>>},
    {"hmac-sha512", make_mac<cp::HMAC<cp::SHA512>>},
    {"cmac-aes128", make_mac<cp::CMAC<cp::AES>>},
    {"cmac-aes256", make_mac<cp::CMAC<cp::AES>>},
};

template <class Row, size_t N>
const Row* lookup(const Row (&table)[N], const std::string& name) {
  for (const auto& row : table)
    if (name == row.name) return &row;
  return nullptr;
}

class CipherOp : public Operation {
 public:
  CipherOp(const AlgorithmInfo& info, CipherPtr cipher, const Params& p)
      : info_(info), cipher_(std::move(cipher)), iv_(p.iv) {
    cp::AlgorithmParameters params = cp::MakeParameters(
        cp::Name::IV(),
        cp::ConstByteArrayParameter(static_cast<const cp::byte*>(iv_.data()), iv_.size()));
    // Crypto++'s XChaCha20 starts at block 1 (the keystream offset draft-arciszewski-xchacha's
    // AEAD uses) unless told otherwise; the catalogue's xchacha20 starts at 0, as libsodium's
    // crypto_stream_xchacha20 and draft-irtf-cfrg-xchacha-03 A.3.2 do.
    if (info.name == "xchacha20") params("InitialBlock", cp::word64{0});
    cipher_->SetKey(p.key.data(), p.key.size(), params);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (len % info_.block_len) throw Error(info_.name + ": length is not a whole number of blocks");
    cipher_->Resynchronize(iv_.data(), static_cast<int>(iv_.size()));
    cipher_->ProcessData(out, in, len);
    return len;
  }

 private:
  const AlgorithmInfo& info_;
  CipherPtr cipher_;
  Bytes iv_;
};

// XTS needs ciphertext stealing for a partial final block: ProcessData takes the whole blocks
// before the last full one, ProcessLastBlock the remaining 17..31 bytes.
class XtsOp : public Operation {
 public:
  XtsOp(CipherPtr cipher, const Params& p) : cipher_(std::move(cipher)), iv_(p.iv) {
    cipher_->SetKeyWithIV(p.key.data(), p.key.size(), iv_.data(), iv_.size());
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    constexpr size_t kBlock = 16;
    if (len < kBlock) throw Error("XTS needs at least one 16-byte block");
    cipher_->Resynchronize(iv_.data(), static_cast<int>(iv_.size()));
    if (len % kBlock == 0) {
      cipher_->ProcessData(out, in, len);
      return len;
    }
    const size_t head = (len / kBlock - 1) * kBlock;
    if (head) cipher_->ProcessData(out, in, head);
    cipher_->ProcessLastBlock(out + head, len - head, in + head, len - head);
    return len;
  }

 private:
  CipherPtr cipher_;
  Bytes iv_;
};

class AeadOp : public Operation {
 public:
  AeadOp(AeadPtr aead, bool encrypt, const Params& p)
      : encrypt_(encrypt), aead_(std::move(aead)), iv_(p.iv), aad_(p.aad) {
    aead_->SetKeyWithIV(p.key.data(), p.key.size(), iv_.data(), iv_.size());
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    const int iv_len = static_cast<int>(iv_.size());
    if (encrypt_) {
      // The one-call API resynchronises with the IV, declares the lengths, absorbs the AAD,
      // encrypts and writes the tag, without allocating (for GCM; ChaCha20-Poly1305 re-derives
      // its Poly1305 key per nonce through AlgorithmParameters, which allocates, whatever API).
      aead_->EncryptAndAuthenticate(out, out + len, kTagLen, iv_.data(), iv_len, aad_.data(),
                                    aad_.size(), in, len);
      return len + kTagLen;
    }
    if (len < kTagLen) throw Error("ciphertext shorter than the tag");
    const size_t body = len - kTagLen;
    // DecryptAndVerify's steps, except that the computed tag goes to the stack: its
    // TruncatedVerify allocates a SecByteBlock for it on every message.
    aead_->Resynchronize(iv_.data(), iv_len);
    aead_->SpecifyDataLengths(aad_.size(), body);
    aead_->Update(aad_.data(), aad_.size());
    aead_->ProcessData(out, in, body);
    cp::byte tag[kTagLen];
    aead_->TruncatedFinal(tag, kTagLen);
    if (!cp::VerifyBufsEqual(tag, in + body, kTagLen)) throw Error("authentication failed");
    return body;
  }

 private:
  static constexpr size_t kTagLen = 16;  // every catalogue AEAD has a 128-bit tag
  bool encrypt_;
  AeadPtr aead_;
  Bytes iv_, aad_;
};

// Final() leaves a hash in its initial state and an HMAC/CMAC keyed and restarted, so a run is
// just Update + Final.
class HashOp : public Operation {
 public:
  explicit HashOp(HashPtr hash) : hash_(std::move(hash)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    hash_->Update(in, len);
    hash_->Final(out);
    return hash_->DigestSize();
  }

 private:
  HashPtr hash_;
};

class MacOp : public Operation {
 public:
  MacOp(MacPtr mac, const Params& p) : mac_(std::move(mac)) {
    mac_->SetKey(p.key.data(), p.key.size());
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    mac_->Update(in, len);
    mac_->Final(out);
    return mac_->DigestSize();
  }

 private:
  MacPtr mac_;
};

std::string yes_no(bool b) { return b ? "yes" : "no"; }

// Called through one chosen interface: stream ciphers and GCM reach AlgorithmProvider() along two
// inheritance paths, which makes a direct call ambiguous.
template <class Interface>
std::string provider_of(const Interface& object) {
  return object.AlgorithmProvider();
}

class CryptoppProvider : public Provider {
 public:
  std::string name() const override { return "cryptopp"; }
  std::string version() const override {
    // LibraryVersion() is the compiled library (e.g. 870), not the headers we built against.
    const int v = cp::LibraryVersion();
    return std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." +
           std::to_string(v % 10);
  }
  std::vector<Variant> variants() const override {
    return {{"default", "CPU features Crypto++ detects (no switch exists to disable them)", {}}};
  }
  void init(const std::string&) override {}
  std::vector<std::string> algorithms() const override {
    std::vector<std::string> out;
    for (const auto& r : kCiphers) out.push_back(r.name);
    for (const auto& r : kAeads) out.push_back(r.name);
    for (const auto& r : kHashes) out.push_back(r.name);
    for (const auto& r : kMacs) out.push_back(r.name);
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    check_param_sizes(*info, params);
    const bool encrypt = op == OpKind::Encrypt;
    try {
      if (const auto* row = lookup(kCiphers, algorithm)) {
        if (info->family == "aes-xts") return std::make_unique<XtsOp>(row->make(encrypt), params);
        return std::make_unique<CipherOp>(*info, row->make(encrypt), params);
      }
      if (const auto* row = lookup(kAeads, algorithm))
        return std::make_unique<AeadOp>(row->make(encrypt), encrypt, params);
      if (const auto* row = lookup(kHashes, algorithm))
        return std::make_unique<HashOp>(row->make());
      if (const auto* row = lookup(kMacs, algorithm))
        return std::make_unique<MacOp>(row->make(), params);
    } catch (const cp::Exception& e) {
      throw Error("Crypto++ " + algorithm + ": " + e.what());
    }
    throw Unsupported("cryptopp does not offer " + algorithm);
  }
  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    out["has_aesni"] = yes_no(cp::HasAESNI());
    out["has_clmul"] = yes_no(cp::HasCLMUL());
    out["has_sha"] = yes_no(cp::HasSHA());
    out["has_ssse3"] = yes_no(cp::HasSSSE3());
    out["has_sse41"] = yes_no(cp::HasSSE41());
    out["has_avx"] = yes_no(cp::HasAVX());
    out["has_avx2"] = yes_no(cp::HasAVX2());
    // AlgorithmProvider() names the implementation an object dispatches to ("AESNI", "SHANI",
    // "AVX2", "SSE2", "C++"). GCM reports its block cipher's; its GHASH uses PCLMULQDQ whenever
    // has_clmul is yes.
    out["provider_aes"] = provider_of(cp::AES::Encryption());
    out["provider_gcm"] = provider_of<cp::StreamTransformation>(cp::GCM<cp::AES>::Encryption());
    out["provider_sha1"] = provider_of(cp::SHA1());
    out["provider_sha256"] = provider_of(cp::SHA256());
    out["provider_sha512"] = provider_of(cp::SHA512());
    out["provider_sha3"] = provider_of(cp::SHA3_256());
    out["provider_blake2b"] = provider_of(cp::BLAKE2b());
    out["provider_chacha20"] = provider_of<cp::StreamTransformation>(cp::ChaChaTLS::Encryption());
    out["provider_xchacha20"] = provider_of<cp::StreamTransformation>(cp::XChaCha20::Encryption());
    out["provider_salsa20"] = provider_of<cp::StreamTransformation>(cp::Salsa20::Encryption());
    out["provider_des_ede3"] = provider_of(cp::DES_EDE3::Encryption());
    out["library_version"] = std::to_string(cp::LibraryVersion());
    out["header_version"] = std::to_string(cp::HeaderVersion());
    return out;
  }
};

}  // namespace

CB_REGISTER_PROVIDER("cryptopp", CryptoppProvider);

}  // namespace cb
