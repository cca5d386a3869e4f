// GnuTLS 3.7 adapter, through its crypto API (gnutls_cipher_*, gnutls_aead_cipher_*,
// gnutls_hash_*, gnutls_hmac_*). GnuTLS registers its own assembly (AES-NI, PCLMUL, SSSE3,
// SHA-NI; OpenSSL's CRYPTOGAMS code) in front of Nettle, which does everything else and makes
// its own run-time CPU selection. The variants switch these two layers off one after the other.
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include <algorithm>
#include <cstdlib>

#include "cryptobench/provider.hpp"

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
    if (encrypt_) {
      size_t n = len + tag_len_;  // room in out; GnuTLS writes ciphertext || tag
      check(gnutls_aead_cipher_encrypt(h_, iv_.data(), iv_.size(), aad_.data(), aad_.size(),
                                       tag_len_, in, len, out, &n),
            "AEAD encrypt");
      return n;
    }
    if (len < tag_len_) throw Error("ciphertext shorter than the tag");
    size_t n = len - tag_len_;
    const int ret = gnutls_aead_cipher_decrypt(h_, iv_.data(), iv_.size(), aad_.data(), aad_.size(),
                                               tag_len_, in, len, out, &n);
    if (ret == GNUTLS_E_DECRYPTION_FAILED) throw Error("authentication failed");
    check(ret, "AEAD decrypt");
    return n;
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
      if (usable(a.name)) offered_.push_back(a.name);
  }
  std::vector<std::string> algorithms() const override { return offered_; }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
    if (std::find(offered_.begin(), offered_.end(), algorithm) == offered_.end())
      throw Unsupported("gnutls does not offer " + algorithm);
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
    throw Unsupported("gnutls does not offer " + algorithm);
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
