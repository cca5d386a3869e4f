// libgcrypt adapter: gcry_cipher for ciphers and AEAD, gcry_md for hashes, gcry_mac for HMAC and
// CMAC. Each prepared operation owns one open libgcrypt handle whose key schedule survives
// gcry_*_reset, so run() only restarts, processes and finishes.
//
// The "soft" variant turns off, through GCRYCTL_DISABLE_HWF, every x86 hardware feature that
// libgcrypt knows. libgcrypt detects features exactly once, inside the first gcry_check_version,
// so this has to happen in init() before that call; it cannot be changed afterwards.
#include <gcrypt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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
    if (!aead_) return body;
    if (encrypt_) {
      check(gcry_cipher_gettag(h, out + body, info_.tag_len), "gettag");
      return body + info_.tag_len;
    }
    const gcry_error_t err = gcry_cipher_checktag(h, in + body, info_.tag_len);
    if (gcry_err_code(err) == GPG_ERR_CHECKSUM) throw Error("authentication failed");
    check(err, "checktag");
    return body;
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

 private:
  size_t len_;
  gcry_mac_hd_t h_ = nullptr;
};

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
    throw Unsupported("gcrypt does not offer " + algorithm);
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
    return out;
  }

 private:
  bool initialised_ = false;
  std::vector<std::string> available_, disabled_, unknown_;
};

}  // namespace

CB_REGISTER_PROVIDER("gcrypt", GcryptProvider);

}  // namespace cb
