// GNU Nettle adapter. Nettle is a toolkit of modes over raw block functions: prepare() runs the key
// schedule into a context, run() copies the prepared IV into a working buffer (the mode functions
// advance it in place) and calls the mode. Contexts are sized from Nettle's own meta descriptors.
//
// Nettle 3.8 has no OFB mode, no BLAKE2, no Whirlpool, no XChaCha20/XSalsa20: those names are not
// offered. Debian builds Nettle as a "fat" library that picks AES-NI, PCLMULQDQ (GHASH) and SHA-NI
// code from CPUID in a load-time constructor; NETTLE_FAT_OVERRIDE replaces the CPUID answer with
// a comma-separated feature list, so a list naming no feature selects the portable x86_64 code.
#include <dlfcn.h>
#include <link.h>
#include <nettle/aes.h>
#include <nettle/cbc.h>
#include <nettle/cfb.h>
#include <nettle/chacha.h>
#include <nettle/cmac.h>
#include <nettle/ctr.h>
#include <nettle/des.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/nettle-meta.h>
#include <nettle/salsa20.h>
#include <nettle/version.h>
#include <nettle/xts.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

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
    constexpr size_t kTag = 16;
    void* ctx = ctx_.get();
    // set_nonce restarts the counter and the authenticator for a new message.
    meta_.set_nonce(ctx, nonce_.data());
    if (!aad_.empty()) meta_.update(ctx, aad_.size(), aad_.data());
    if (encrypt_) {
      meta_.encrypt(ctx, len, out, in);
      meta_.digest(ctx, kTag, out + len);
      return len + kTag;
    }
    if (len < kTag) throw Error("ciphertext shorter than the tag");
    const size_t body = len - kTag;
    meta_.decrypt(ctx, body, out, in);
    uint8_t tag[kTag];
    meta_.digest(ctx, kTag, tag);
    if (!memeql_sec(tag, in + body, kTag)) throw Error("authentication failed");
    return body;
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
    return out;
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    const AlgorithmInfo* info = &checked_algorithm(algorithm, op);
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
  std::map<std::string, std::string> code_path() const override {
    std::map<std::string, std::string> out;
    out["version"] = version();
    const char* env = std::getenv(kFatOverride);
    out["fat_override"] = env ? env : "(unset: CPUID decides)";
    add_fat_choices(out);
    return out;
  }
};

}  // namespace

CB_REGISTER_PROVIDER("nettle", NettleProvider);

}  // namespace cb
