// Crypto++ adapter. Every object is keyed once in prepare(); run() only resynchronises the IV and
// calls ProcessData / EncryptAndAuthenticate / Update+Final straight into the caller's buffer. The
// filter/pipeline API is avoided on purpose: it allocates on every message. Public-key algorithms
// and KDFs work the same way (see "public-key operations and KDFs" below); keyload decodes PKCS#8
// keys (see "keyload").
//
// Crypto++ 8.7 chooses AES-NI, CLMUL, SHA-NI, SSSE3 and AVX2 code from CPUID and offers no
// supported switch to turn them off (the g_has* globals in cpu.h are marked "should not be used
// directly" and are filled in by a static initialiser), so there is only the "default" variant.
#define CRYPTOPP_ENABLE_NAMESPACE_WEAK 1
#include <cryptopp/aes.h>
#include <cryptopp/algparam.h>
#include <cryptopp/argnames.h>
#include <cryptopp/base64.h>
#include <cryptopp/blake2.h>
#include <cryptopp/chacha.h>
#include <cryptopp/chachapoly.h>
#include <cryptopp/cmac.h>
#include <cryptopp/config_ver.h>
#include <cryptopp/cpu.h>
#include <cryptopp/cryptlib.h>
#include <cryptopp/des.h>
#include <cryptopp/dh.h>
#include <cryptopp/eccrypto.h>
#include <cryptopp/filters.h>
#include <cryptopp/gcm.h>
#include <cryptopp/hkdf.h>
#include <cryptopp/hmac.h>
#include <cryptopp/integer.h>
#include <cryptopp/md5.h>
#include <cryptopp/misc.h>
#include <cryptopp/modes.h>
#include <cryptopp/oaep.h>
#include <cryptopp/oids.h>
#include <cryptopp/osrng.h>
#include <cryptopp/pkcspad.h>
#include <cryptopp/pssr.h>
#include <cryptopp/pwdbased.h>
#include <cryptopp/queue.h>
#include <cryptopp/ripemd.h>
#include <cryptopp/rsa.h>
#include <cryptopp/salsa.h>
#include <cryptopp/scrypt.h>
#include <cryptopp/sha.h>
#include <cryptopp/sha3.h>
#include <cryptopp/whrlpool.h>
#include <cryptopp/xed25519.h>
#include <cryptopp/xts.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

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

// ---- public-key operations and KDFs ------------------------------------------------------------
//
// prepare() imports the key into a Signer / Verifier / Encryptor / Decryptor, or encodes it in the
// byte form a key-agreement domain takes; run() makes the one call (SignMessage, VerifyMessage,
// Encrypt, Decrypt, Agree, DeriveKey) straight into the caller's buffer. Signing still allocates a
// message accumulator inside Crypto++ on every call. Crypto++ 8.7 has no Argon2, Ed448 or X448.

// The RFC 7919 primes (generator 2), which Crypto++ does not ship: taken from the output of
// `openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdheN` (OpenSSL 3.0) and checked
// against Botan's built-in "ffdhe/ietf/N" groups by agreeing on the same shared secrets.
constexpr const char* kFfdhe2048 =
    "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1D8B9C583CE2D3695A9E13641146433FBCC939DCE"
    "249B3EF97D2FE363630C75D8F681B202AEC4617AD3DF1ED5D5FD65612433F51F5F066ED0856365553DED1AF3"
    "B557135E7F57C935984F0C70E0E68B77E2A689DAF3EFE8721DF158A136ADE73530ACCA4F483A797ABC0AB182"
    "B324FB61D108A94BB2C8E3FBB96ADAB760D7F4681D4F42A3DE394DF4AE56EDE76372BB190B07A7C8EE0A6D70"
    "9E02FCE1CDF7E2ECC03404CD28342F619172FE9CE98583FF8E4F1232EEF28183C3FE3B1B4C6FAD733BB5FCBC"
    "2EC22005C58EF1837D1683B2C6F34A26C1B2EFFA886B423861285C97FFFFFFFFFFFFFFFF";
constexpr const char* kFfdhe3072 =
    "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1D8B9C583CE2D3695A9E13641146433FBCC939DCE"
    "249B3EF97D2FE363630C75D8F681B202AEC4617AD3DF1ED5D5FD65612433F51F5F066ED0856365553DED1AF3"
    "B557135E7F57C935984F0C70E0E68B77E2A689DAF3EFE8721DF158A136ADE73530ACCA4F483A797ABC0AB182"
    "B324FB61D108A94BB2C8E3FBB96ADAB760D7F4681D4F42A3DE394DF4AE56EDE76372BB190B07A7C8EE0A6D70"
    "9E02FCE1CDF7E2ECC03404CD28342F619172FE9CE98583FF8E4F1232EEF28183C3FE3B1B4C6FAD733BB5FCBC"
    "2EC22005C58EF1837D1683B2C6F34A26C1B2EFFA886B4238611FCFDCDE355B3B6519035BBC34F4DEF99C0238"
    "61B46FC9D6E6C9077AD91D2691F7F7EE598CB0FAC186D91CAEFE130985139270B4130C93BC437944F4FD4452"
    "E2D74DD364F2E21E71F54BFF5CAE82AB9C9DF69EE86D2BC522363A0DABC521979B0DEADA1DBF9A42D5C4484E"
    "0ABCD06BFA53DDEF3C1B20EE3FD59D7C25E41D2B66C62E37FFFFFFFFFFFFFFFF";
constexpr const char* kFfdhe4096 =
    "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1D8B9C583CE2D3695A9E13641146433FBCC939DCE"
    "249B3EF97D2FE363630C75D8F681B202AEC4617AD3DF1ED5D5FD65612433F51F5F066ED0856365553DED1AF3"
    "B557135E7F57C935984F0C70E0E68B77E2A689DAF3EFE8721DF158A136ADE73530ACCA4F483A797ABC0AB182"
    "B324FB61D108A94BB2C8E3FBB96ADAB760D7F4681D4F42A3DE394DF4AE56EDE76372BB190B07A7C8EE0A6D70"
    "9E02FCE1CDF7E2ECC03404CD28342F619172FE9CE98583FF8E4F1232EEF28183C3FE3B1B4C6FAD733BB5FCBC"
    "2EC22005C58EF1837D1683B2C6F34A26C1B2EFFA886B4238611FCFDCDE355B3B6519035BBC34F4DEF99C0238"
    "61B46FC9D6E6C9077AD91D2691F7F7EE598CB0FAC186D91CAEFE130985139270B4130C93BC437944F4FD4452"
    "E2D74DD364F2E21E71F54BFF5CAE82AB9C9DF69EE86D2BC522363A0DABC521979B0DEADA1DBF9A42D5C4484E"
    "0ABCD06BFA53DDEF3C1B20EE3FD59D7C25E41D2B669E1EF16E6F52C3164DF4FB7930E9E4E58857B6AC7D5F42"
    "D69F6D187763CF1D5503400487F55BA57E31CC7A7135C886EFB4318AED6A1E012D9E6832A907600A918130C4"
    "6DC778F971AD0038092999A333CB8B7A1A1DB93D7140003C2A4ECEA9F98D0ACC0A8291CDCEC97DCF8EC9B55A"
    "7F88A46B4DB5A851F44182E1C68A007E5E655F6AFFFFFFFFFFFFFFFF";

cp::Integer integer(const Bytes& b) { return cp::Integer(b.data(), b.size()); }
cp::Integer int_part(const KeyParts& key, const char* name) { return integer(key_part(key, name)); }

Bytes hex_bytes(const char* hex) {
  Bytes out(std::strlen(hex) / 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<uint8_t>(std::stoi(std::string(hex + 2 * i, 2), nullptr, 16));
  return out;
}

Bytes padded(const cp::Integer& v, size_t len) {
  if (v.IsNegative() || v.MinEncodedSize() > len)
    throw Error("integer does not fit in " + std::to_string(len) + " bytes");
  Bytes out(len);
  v.Encode(out.data(), len);
  return out;
}
Bytes minimal(const cp::Integer& v) { return padded(v, v.MinEncodedSize()); }

const Bytes& sized_part(const KeyParts& key, const char* name, size_t len) {
  const Bytes& b = key_part(key, name);
  if (b.size() != len)
    throw Error(std::string("key part '") + name + "' must be " + std::to_string(len) + " bytes");
  return b;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

cp::OID curve_oid(const std::string& key_type) {
  if (key_type == "ecdsa-p256" || key_type == "ecdh-p256") return cp::ASN1::secp256r1();
  if (key_type == "ecdsa-p384" || key_type == "ecdh-p384") return cp::ASN1::secp384r1();
  if (key_type == "ecdsa-p521" || key_type == "ecdh-p521") return cp::ASN1::secp521r1();
  throw Unsupported("cryptopp adapter has no curve for " + key_type);
}

// Key-agreement domains by key type, built once: a DH domain parses its prime, an EC domain
// decodes its curve from the OID. They are only read after construction (Agree,
// GenerateKeyPair are const), so operations share them.
using DomainPtr = std::shared_ptr<const cp::SimpleKeyAgreementDomain>;

DomainPtr make_domain(const std::string& key_type) {
  if (key_type == "x25519") return std::make_shared<cp::x25519>();
  if (starts_with(key_type, "ecdh-") || starts_with(key_type, "ecdsa-"))
    return std::make_shared<cp::ECDH<cp::ECP>::Domain>(curve_oid(key_type));
  const char* prime = key_type == "ffdhe2048"   ? kFfdhe2048
                      : key_type == "ffdhe3072" ? kFfdhe3072
                      : key_type == "ffdhe4096" ? kFfdhe4096
                                                : nullptr;
  if (!prime) throw Unsupported("cryptopp adapter has no key-agreement domain for " + key_type);
  // cp::DH's group parameters are a safe-prime group: the subgroup order is (p - 1) / 2.
  return std::make_shared<cp::DH>(integer(hex_bytes(prime)), cp::Integer::Two());
}

class Domains {
 public:
  DomainPtr get(const std::string& key_type) {
    auto it = domains_.find(key_type);
    if (it == domains_.end()) it = domains_.emplace(key_type, make_domain(key_type)).first;
    return it->second;
  }

 private:
  std::map<std::string, DomainPtr> domains_;
};

void check_rsa_size(const AlgorithmInfo& info, const cp::Integer& n) {
  if (n.BitCount() != info.bits)
    throw Error(info.name + ": modulus has " + std::to_string(n.BitCount()) + " bits, not " +
                std::to_string(info.bits));
}

cp::InvertibleRSAFunction rsa_private(const AlgorithmInfo& info, const KeyParts& key) {
  cp::InvertibleRSAFunction k;
  // Crypto++'s u is q^-1 mod p, the same as PKCS #1's qInv.
  k.Initialize(int_part(key, "n"), int_part(key, "e"), int_part(key, "d"), int_part(key, "p"),
               int_part(key, "q"), int_part(key, "dp"), int_part(key, "dq"), int_part(key, "qinv"));
  check_rsa_size(info, k.GetModulus());
  return k;
}

cp::RSAFunction rsa_public(const AlgorithmInfo& info, const KeyParts& key) {
  cp::RSAFunction k;
  k.Initialize(int_part(key, "n"), int_part(key, "e"));
  check_rsa_size(info, k.GetModulus());
  return k;
}

// RSASS<PSS, H> is PSS with MGF1 over H and a salt as long as H's digest (SALT_LEN = -1), which
// verification also expects; OAEP<H> is MGF1 over H with an empty label.
using RsaPkcs1 = cp::RSASS<cp::PKCS1v15, cp::SHA256>;
using RsaPss = cp::RSASS<cp::PSS, cp::SHA256>;
using RsaOaep = cp::RSAES<cp::OAEP<cp::SHA256>>;
using RsaPkcs1Enc = cp::RSAES<cp::PKCS1v15>;

// ECDSA signatures come out, and are read, as r || s, each padded to the order's size: IEEE P1363,
// Crypto++'s native format.
template <class H>
std::unique_ptr<cp::PK_Signer> ecdsa_signer(const std::string& key_type, const KeyParts& key) {
  typename cp::ECDSA<cp::ECP, H>::PrivateKey k;
  k.Initialize(curve_oid(key_type), int_part(key, "d"));
  return std::make_unique<typename cp::ECDSA<cp::ECP, H>::Signer>(k);
}

template <class H>
std::unique_ptr<cp::PK_Verifier> ecdsa_verifier(const std::string& key_type, const KeyParts& key) {
  typename cp::ECDSA<cp::ECP, H>::PublicKey k;
  k.Initialize(curve_oid(key_type), cp::ECP::Point(int_part(key, "x"), int_part(key, "y")));
  if (!k.GetGroupParameters().GetCurve().VerifyPoint(k.GetPublicElement()))
    throw Error("public point is not on the curve");
  return std::make_unique<typename cp::ECDSA<cp::ECP, H>::Verifier>(k);
}

std::unique_ptr<cp::PK_Signer> make_signer(const AlgorithmInfo& info, const KeyParts& key) {
  if (info.family == "rsa-pkcs1") return std::make_unique<RsaPkcs1::Signer>(rsa_private(info, key));
  if (info.family == "rsa-pss") return std::make_unique<RsaPss::Signer>(rsa_private(info, key));
  if (info.name == "ecdsa-p256") return ecdsa_signer<cp::SHA256>(info.key_type, key);
  if (info.name == "ecdsa-p384") return ecdsa_signer<cp::SHA384>(info.key_type, key);
  if (info.name == "ecdsa-p521") return ecdsa_signer<cp::SHA512>(info.key_type, key);
  // Constructed from the seed alone, the signer derives the public key itself.
  if (info.name == "ed25519")
    return std::make_unique<cp::ed25519::Signer>(sized_part(key, "priv", 32).data());
  throw Unsupported("cryptopp does not offer " + info.name);
}

std::unique_ptr<cp::PK_Verifier> make_verifier(const AlgorithmInfo& info, const KeyParts& key) {
  if (info.family == "rsa-pkcs1")
    return std::make_unique<RsaPkcs1::Verifier>(rsa_public(info, key));
  if (info.family == "rsa-pss") return std::make_unique<RsaPss::Verifier>(rsa_public(info, key));
  if (info.name == "ecdsa-p256") return ecdsa_verifier<cp::SHA256>(info.key_type, key);
  if (info.name == "ecdsa-p384") return ecdsa_verifier<cp::SHA384>(info.key_type, key);
  if (info.name == "ecdsa-p521") return ecdsa_verifier<cp::SHA512>(info.key_type, key);
  if (info.name == "ed25519")
    return std::make_unique<cp::ed25519::Verifier>(sized_part(key, "pub", 32).data());
  throw Unsupported("cryptopp does not offer " + info.name);
}

// A failure inside a run() is the library's: an invalid argument, a failed decryption, ...
template <typename F>
auto guarded_run(const std::string& alg, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const cp::Exception& e) {
    throw Error("Crypto++ " + alg + ": " + e.what());
  }
}

class SignOp : public Operation {
 public:
  SignOp(const AlgorithmInfo& info, std::unique_ptr<cp::PK_Signer> signer,
         cp::RandomNumberGenerator& rng)
      : info_(info), signer_(std::move(signer)), rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] { return signer_->SignMessage(rng_, in, len, out); });
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<cp::PK_Signer> signer_;
  cp::RandomNumberGenerator& rng_;
};

class VerifyOp : public Operation {
 public:
  VerifyOp(const AlgorithmInfo& info, std::unique_ptr<cp::PK_Verifier> verifier, const Bytes& sig)
      : info_(info), verifier_(std::move(verifier)), sig_(sig) {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    // Crypto++ reads a DL signature as exactly SignatureLength() bytes whatever length it is
    // given, so a signature of any other length is rejected here, before it reads past the end.
    const bool valid = sig_.size() == verifier_->SignatureLength() && guarded_run(info_.name, [&] {
                         return verifier_->VerifyMessage(in, len, sig_.data(), sig_.size());
                       });
    if (!valid) throw Error("Crypto++ " + info_.name + ": invalid signature");
    return 0;
  }

 private:
  const AlgorithmInfo& info_;
  std::unique_ptr<cp::PK_Verifier> verifier_;
  Bytes sig_;
};

template <class Scheme>
class EncryptOp : public Operation {
 public:
  EncryptOp(const AlgorithmInfo& info, const cp::RSAFunction& key, cp::RandomNumberGenerator& rng)
      : info_(info), enc_(key), rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (len > enc_.FixedMaxPlaintextLength())
      throw Error("Crypto++ " + info_.name + ": message too long");
    return guarded_run(info_.name, [&] {
      enc_.Encrypt(rng_, in, len, out);
      return enc_.CiphertextLength(len);
    });
  }

 private:
  const AlgorithmInfo& info_;
  typename Scheme::Encryptor enc_;
  cp::RandomNumberGenerator& rng_;
};

// The RNG is for RSA blinding of the private-key operation.
template <class Scheme>
class DecryptOp : public Operation {
 public:
  DecryptOp(const AlgorithmInfo& info, const cp::InvertibleRSAFunction& key,
            cp::RandomNumberGenerator& rng)
      : info_(info), dec_(key), rng_(rng) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (len != dec_.FixedCiphertextLength())
      throw Error("Crypto++ " + info_.name + ": ciphertext is not " +
                  std::to_string(dec_.FixedCiphertextLength()) + " bytes");
    const cp::DecodingResult r =
        guarded_run(info_.name, [&] { return dec_.Decrypt(rng_, in, len, out); });
    if (!r.isValidCoding) throw Error("Crypto++ " + info_.name + ": decryption failed");
    return r.messageLength;
  }

 private:
  const AlgorithmInfo& info_;
  typename Scheme::Decryptor dec_;
  cp::RandomNumberGenerator& rng_;
};

// The peer key is validated once, here in prepare, as every adapter does where its API allows
// (docs/methodology.md, "Key parsing and peer validation"): Agree() with validateOtherPublicKey
// rejects small-order X25519 points, checks an ECDH point is on the curve, and checks an FFDH y
// is in range and in the prime-order subgroup -- for FFDH a modular exponentiation as costly as
// the agreement itself, which Crypto++ alone would otherwise pay inside the timed loop. run()
// then agrees without re-validating. X25519 and ECDH give 32/48-byte outputs (the x-coordinate
// for ECDH), FFDH g^xy mod p padded to the size of p.
class AgreeOp : public Operation {
 public:
  AgreeOp(const AlgorithmInfo& info, DomainPtr domain, Bytes priv, Bytes peer)
      : info_(info), domain_(std::move(domain)), priv_(std::move(priv)), peer_(std::move(peer)) {
    Bytes scratch(domain_->AgreedValueLength());
    agree(scratch.data(), true);
  }
  size_t run(const uint8_t*, size_t, uint8_t* out) override {
    agree(out, false);
    return domain_->AgreedValueLength();
  }

 private:
  void agree(uint8_t* out, bool validate) {
    const bool ok = guarded_run(
        info_.name, [&] { return domain_->Agree(out, priv_.data(), peer_.data(), validate); });
    if (!ok) throw Error("Crypto++ " + info_.name + ": peer public key rejected");
  }

  const AlgorithmInfo& info_;
  DomainPtr domain_;
  Bytes priv_, peer_;
};

// The own private key and the peer's public key in the encodings Agree() takes: X25519's raw 32
// bytes; for ECDH the scalar padded to the order's size and an uncompressed point 04 || x || y;
// for FFDH x padded to the subgroup order's size and y to the prime's.
std::unique_ptr<Operation> make_agreement(const AlgorithmInfo& info, DomainPtr domain,
                                          const Params& p) {
  const std::string& type = info.key_type;
  Bytes priv, peer;
  if (type == "x25519") {
    priv = sized_part(p.keypair, "priv", 32);
    peer = sized_part(p.peer, "pub", 32);
  } else if (starts_with(type, "ecdh-")) {
    priv = padded(int_part(p.keypair, "d"), domain->PrivateKeyLength());
    const size_t field = (domain->PublicKeyLength() - 1) / 2;
    peer = {0x04};
    for (const char* name : {"x", "y"}) {
      const Bytes b = padded(int_part(p.peer, name), field);
      peer.insert(peer.end(), b.begin(), b.end());
    }
  } else {
    priv = padded(int_part(p.keypair, "x"), domain->PrivateKeyLength());
    peer = padded(int_part(p.peer, "y"), domain->PublicKeyLength());
  }
  return std::make_unique<AgreeOp>(info, std::move(domain), std::move(priv), std::move(peer));
}

template <class H>
class Pbkdf2Op : public Operation {
 public:
  Pbkdf2Op(const AlgorithmInfo& info, const Params& p)
      : info_(info), salt_(p.salt), out_len_(p.out_len) {
    const uint64_t iterations = cost_param(p, "iterations");
    if (iterations == 0 || iterations > std::numeric_limits<unsigned int>::max())
      throw Unsupported("Crypto++ PBKDF2 takes 1 to 2^32-1 iterations");
    iterations_ = static_cast<unsigned int>(iterations);
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
      kdf_.DeriveKey(out, out_len_, 0, in, len, salt_.data(), salt_.size(), iterations_, 0);
      return out_len_;
    });
  }

 private:
  const AlgorithmInfo& info_;
  cp::PKCS5_PBKDF2_HMAC<H> kdf_;
  Bytes salt_;
  size_t out_len_;
  unsigned int iterations_ = 0;
};

// Crypto++ parallelises scrypt's p lanes only when built with OpenMP, which Debian's build is not.
class ScryptOp : public Operation {
 public:
  ScryptOp(const AlgorithmInfo& info, const Params& p)
      : info_(info),
        salt_(p.salt),
        out_len_(p.out_len),
        n_(cost_param(p, "N")),
        r_(cost_param(p, "r")),
        p_(cost_param(p, "p")) {
    if (n_ < 2 || (n_ & (n_ - 1)) != 0 || r_ == 0 || p_ == 0)
      throw Unsupported("scrypt needs N a power of two above 1 and r, p at least 1");
  }
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
      kdf_.DeriveKey(out, out_len_, in, len, salt_.data(), salt_.size(), n_, r_, p_);
      return out_len_;
    });
  }

 private:
  const AlgorithmInfo& info_;
  cp::Scrypt kdf_;
  Bytes salt_;
  size_t out_len_;
  cp::word64 n_, r_, p_;
};

// Extract then expand. An empty salt reaches HMAC as an empty key, which HMAC pads to HashLen zero
// bytes: RFC 5869's default salt.
class HkdfOp : public Operation {
 public:
  HkdfOp(const AlgorithmInfo& info, const Params& p)
      : info_(info), salt_(p.salt), label_(p.info), out_len_(p.out_len) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    return guarded_run(info_.name, [&] {
      kdf_.DeriveKey(out, out_len_, in, len, salt_.data(), salt_.size(), label_.data(),
                     label_.size());
      return out_len_;
    });
  }

 private:
  const AlgorithmInfo& info_;
  cp::HKDF<cp::SHA256> kdf_;
  Bytes salt_, label_;
  size_t out_len_;
};

std::unique_ptr<Operation> make_kdf(const AlgorithmInfo& info, const Params& p) {
  if (p.out_len == 0) throw Unsupported(info.name + ": no output length given");
  if (info.name == "pbkdf2-sha1") return std::make_unique<Pbkdf2Op<cp::SHA1>>(info, p);
  if (info.name == "pbkdf2-sha256") return std::make_unique<Pbkdf2Op<cp::SHA256>>(info, p);
  if (info.name == "pbkdf2-sha512") return std::make_unique<Pbkdf2Op<cp::SHA512>>(info, p);
  if (info.name == "scrypt") return std::make_unique<ScryptOp>(info, p);
  if (info.name == "hkdf-sha256") return std::make_unique<HkdfOp>(info, p);
  throw Unsupported("cryptopp does not offer " + info.name);
}

// ---- keyload ------------------------------------------------------------------------------------
// A PKCS#8 private key is read with its key class's Load (BER decoding of PrivateKeyInfo, the
// Crypto++ wiki's "Keys and Formats"): RSA::PrivateKey, ECDSA<ECP, SHA256>::PrivateKey (the
// curve from the key's parameters; the public point is computed when asked), ed25519PrivateKey
// (RFC 8410; the public key is derived when the encoding lacks it). Crypto++ has no PEM reader
// -- the "PEM Pack" is a separate add-on, in neither Crypto++ 8.7 nor Debian's package -- so PEM
// is unwrapped as an application without it must: the text between the armour lines, fed to
// Crypto++'s Base64Decoder. It has no X.509 certificate class either: certificates are not
// offered.

bool keyload_offered(const AlgorithmInfo& info) {
  if (info.kind != Kind::Keyload || starts_with(info.name, "x509-")) return false;
  const std::string& type = info.key_type;
  return starts_with(type, "rsa-") || type == "ecdsa-p256" || type == "ecdsa-p384" ||
         type == "ecdsa-p521" || type == "ed25519";
}

// The Base64 body of a PEM private key: the text between its armour lines.
std::pair<const uint8_t*, size_t> pem_body(const uint8_t* in, size_t len) {
  constexpr std::string_view kBegin = "-----BEGIN PRIVATE KEY-----";
  constexpr std::string_view kEnd = "-----END PRIVATE KEY-----";
  const std::string_view text(reinterpret_cast<const char*>(in), len);
  const size_t begin = text.find(kBegin);
  const size_t end = begin == text.npos ? text.npos : text.find(kEnd, begin + kBegin.size());
  if (end == text.npos) throw Error("Crypto++ keyload: no PEM PRIVATE KEY block");
  const size_t body = begin + kBegin.size();
  return {in + body, end - body};
}

KeyParts rsa_parts(const cp::InvertibleRSAFunction& k) {
  return {{"n", minimal(k.GetModulus())},
          {"e", minimal(k.GetPublicExponent())},
          {"d", minimal(k.GetPrivateExponent())},
          {"p", minimal(k.GetPrime1())},
          {"q", minimal(k.GetPrime2())},
          {"dp", minimal(k.GetModPrime1PrivateExponent())},
          {"dq", minimal(k.GetModPrime2PrivateExponent())},
          {"qinv", minimal(k.GetMultiplicativeInverseOfPrime2ModPrime1())}};
}

KeyParts ec_parts(const AlgorithmInfo& info, const cp::DL_PrivateKey_EC<cp::ECP>& key) {
  if (!(key.GetGroupParameters() == cp::DL_GroupParameters_EC<cp::ECP>(curve_oid(info.key_type))))
    throw Error("Crypto++ keyload: the " + info.key_type + " key decoded on another curve");
  cp::DL_PublicKey_EC<cp::ECP> pub;
  key.MakePublicKey(pub);
  const cp::ECP::Point& q = pub.GetPublicElement();
  const size_t width = (info.bits + 7) / 8;
  return {{"d", padded(key.GetPrivateExponent(), width)},
          {"x", padded(q.x, width)},
          {"y", padded(q.y, width)}};
}

class KeyloadOp : public Operation {
 public:
  explicit KeyloadOp(const AlgorithmInfo& info)
      : info_(info),
        pem_(info.name.size() > 4 && info.name.substr(info.name.size() - 4) == "-pem") {}
  size_t run(const uint8_t* in, size_t len, uint8_t*) override {
    guarded_run(info_.name, [&] { decode(in, len, nullptr); });
    return 0;
  }
  // Decodes `in`; with `parts`, also reads the decoded key's parts out (Provider::decode_key).
  void decode(const uint8_t* in, size_t len, KeyParts* parts) const {
    if (starts_with(info_.key_type, "rsa-")) {
      cp::RSA::PrivateKey key;
      load(key, in, len);
      if (parts) *parts = rsa_parts(key);
    } else if (starts_with(info_.key_type, "ecdsa-")) {
      cp::ECDSA<cp::ECP, cp::SHA256>::PrivateKey key;
      load(key, in, len);
      if (parts) *parts = ec_parts(info_, key);
    } else {
      cp::ed25519PrivateKey key;
      load(key, in, len);
      if (parts)
        *parts = {{"priv", Bytes(key.GetPrivateKeyBytePtr(), key.GetPrivateKeyBytePtr() + 32)},
                  {"pub", Bytes(key.GetPublicKeyBytePtr(), key.GetPublicKeyBytePtr() + 32)}};
    }
  }

 private:
  template <class Key>
  void load(Key& key, const uint8_t* in, size_t len) const {
    if (!pem_) {
      cp::ArraySource der(in, len, true);
      key.Load(der);
      return;
    }
    const auto [body, body_len] = pem_body(in, len);
    cp::ByteQueue der;
    cp::Base64Decoder base64(new cp::Redirector(der));
    base64.Put(body, body_len);
    base64.MessageEnd();
    key.Load(der);
  }

  const AlgorithmInfo& info_;
  bool pem_;
};

// Catalogue names of what Crypto++ 8.7 offers beyond the symmetric tables.
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
        "scrypt", "hkdf-sha256"})
    out.push_back(name);
  return out;
}

bool offers_public_key(const std::string& algorithm) {
  const auto names = public_key_algorithms();
  return std::find(names.begin(), names.end(), algorithm) != names.end();
}

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
    for (auto& name : public_key_algorithms()) out.push_back(std::move(name));
    for (const auto& a : cb::algorithms())
      if (keyload_offered(a)) out.push_back(a.name);
    return out;
  }
  KeyParts decode_key(const std::string& algorithm, const Bytes& encoded) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keyload);
    if (!keyload_offered(info)) throw Unsupported("cryptopp does not decode " + algorithm);
    KeyParts parts;
    guarded_run(algorithm, [&] { KeyloadOp(info).decode(encoded.data(), encoded.size(), &parts); });
    return parts;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (info->kind == Kind::Keyload) {
      if (!keyload_offered(*info))
        throw Unsupported("cryptopp does not decode " + algorithm +
                          " (Crypto++ has no X.509 certificate class)");
      return std::make_unique<KeyloadOp>(*info);
    }
    if (is_public_key(info->kind) || info->kind == Kind::Kdf)
      return prepare_public_key(*info, op, params);
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

  KeyParts generate_key(const std::string& algorithm) override {
    const AlgorithmInfo& info = checked_algorithm(algorithm, OpKind::Keygen);
    if (!offers_public_key(algorithm))
      throw Unsupported("cryptopp cannot generate " + algorithm + " keys");
    const std::string& type = info.key_type;
    try {
      if (starts_with(type, "rsa-")) {
        cp::InvertibleRSAFunction k;
        k.Initialize(rng_, static_cast<unsigned int>(info.bits), 65537);
        return rsa_parts(k);
      }
      if (type == "ed25519") {
        const cp::ed25519::Signer signer(rng_);
        const auto& k = static_cast<const cp::ed25519PrivateKey&>(signer.GetPrivateKey());
        return {{"priv", Bytes(k.GetPrivateKeyBytePtr(), k.GetPrivateKeyBytePtr() + 32)},
                {"pub", Bytes(k.GetPublicKeyBytePtr(), k.GetPublicKeyBytePtr() + 32)}};
      }
      // X25519, ECDSA, ECDH and FFDH: the key-agreement domain's GenerateKeyPair (an ECDSA key
      // pair is the same d and dG as an ECDH one).
      const DomainPtr domain = domains_.get(type);
      Bytes priv(domain->PrivateKeyLength()), pub(domain->PublicKeyLength());
      domain->GenerateKeyPair(rng_, priv.data(), pub.data());
      if (type == "x25519") return {{"priv", priv}, {"pub", pub}};
      if (starts_with(type, "ecdsa-") || starts_with(type, "ecdh-")) {
        const size_t field = (pub.size() - 1) / 2;  // pub is 04 || x || y
        return {{"d", priv},
                {"x", Bytes(pub.begin() + 1, pub.begin() + 1 + field)},
                {"y", Bytes(pub.begin() + 1 + field, pub.end())}};
      }
      return {{"x", minimal(integer(priv))}, {"y", pub}};
    } catch (const cp::Exception& e) {
      throw Error("Crypto++ " + algorithm + " key generation: " + e.what());
    }
  }

 private:
  std::unique_ptr<Operation> prepare_public_key(const AlgorithmInfo& info, OpKind op,
                                                const Params& params) {
    if (!offers_public_key(info.name)) throw Unsupported("cryptopp does not offer " + info.name);
    try {
      if (info.kind == Kind::Kdf) return make_kdf(info, params);
      switch (op) {
        case OpKind::Sign:
          return std::make_unique<SignOp>(info, make_signer(info, params.keypair), rng_);
        case OpKind::Verify:
          return std::make_unique<VerifyOp>(info, make_verifier(info, params.keypair),
                                            params.signature);
        case OpKind::Encrypt:
          if (info.family == "rsa-pkcs1v15-enc")
            return std::make_unique<EncryptOp<RsaPkcs1Enc>>(info, rsa_public(info, params.keypair),
                                                            rng_);
          return std::make_unique<EncryptOp<RsaOaep>>(info, rsa_public(info, params.keypair), rng_);
        case OpKind::Decrypt:
          if (info.family == "rsa-pkcs1v15-enc")
            return std::make_unique<DecryptOp<RsaPkcs1Enc>>(info, rsa_private(info, params.keypair),
                                                            rng_);
          return std::make_unique<DecryptOp<RsaOaep>>(info, rsa_private(info, params.keypair),
                                                      rng_);
        case OpKind::Derive:
          return make_agreement(info, domains_.get(info.key_type), params);
        default:
          break;
      }
    } catch (const cp::Exception& e) {
      throw Error("Crypto++ " + info.name + ": " + e.what());
    }
    throw Unsupported(info.name + " has no " + to_string(op) + " operation in cryptopp");
  }

  // Seeded from the operating system once; signing (ECDSA nonces, PSS salts), OAEP padding, RSA
  // blinding and key generation draw from it.
  cp::AutoSeededRandomPool rng_;
  Domains domains_;
};

}  // namespace

CB_REGISTER_PROVIDER("cryptopp", CryptoppProvider);

}  // namespace cb
