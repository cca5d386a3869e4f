#include "confcrypt/compat.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "confcrypt/io.hpp"
#include "cryptobench/provider.hpp"

namespace confcrypt {

namespace {

constexpr size_t kMagicLen = sizeof(kCompatMagic) - 1;  // "#!crypto" + "00"
constexpr size_t kMagicNoVersionLen = kMagicLen - 2;    // "#!crypto"
constexpr size_t kBlock = 16;
constexpr size_t kHeaderLen = kBlock;

void put_le32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += char((v >> (8 * i)) & 0xff);
}

uint32_t get_le32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | uint8_t(s[at + i]);
  return v;
}

cb::Bytes to_bytes(const std::string& s) { return cb::Bytes(s.begin(), s.end()); }

// Key (32 bytes) and IV (16 bytes) for one value: one PBKDF2 run per value, as the thesis did.
void derive_key_iv(cb::Provider& provider, const std::string& master_password,
                   const std::string& salt, uint32_t iterations, CompatKdf kdf, cb::Bytes& key,
                   cb::Bytes& iv) {
  const std::string alg = compat_kdf_algorithm(kdf);
  cb::Params params;
  params.salt = to_bytes(salt);
  params.out_len = 48;
  params.cost["iterations"] = iterations;
  std::unique_ptr<cb::Operation> kdf_op;
  try {
    kdf_op = provider.prepare(alg, cb::OpKind::Derive, params);
  } catch (const cb::Unsupported& e) {
    throw Error("provider " + provider.name() + " cannot do compatibility mode (" + alg +
                "): " + e.what());
  } catch (const cb::Error& e) {
    throw Error("provider " + provider.name() + ": " + alg + ": " + e.what());
  }
  // The thesis's library stores strings with their terminating NUL and hashes it too.
  std::vector<uint8_t> password(master_password.begin(), master_password.end());
  password.push_back(0);
  std::vector<uint8_t> out(password.size() + 1024);
  size_t n;
  try {
    n = kdf_op->run(password.data(), password.size(), out.data());
  } catch (const cb::Error& e) {
    throw Error("provider " + provider.name() + ": " + alg + ": " + e.what());
  }
  if (n != 48) throw Error("provider " + provider.name() + ": " + alg + " gave a wrong length");
  key.assign(out.begin(), out.begin() + 32);
  iv.assign(out.begin() + 32, out.begin() + 48);
  std::fill(out.begin(), out.end(), 0);
  std::fill(password.begin(), password.end(), 0);
}

std::string cbc(cb::Provider& provider, cb::OpKind op, const cb::Bytes& key, const cb::Bytes& iv,
                const std::string& in) {
  cb::Params params;
  params.key = key;
  params.iv = iv;
  std::vector<uint8_t> out(in.size() + 1024);
  try {
    auto cipher = provider.prepare("aes-256-cbc", op, params);
    size_t n = cipher->run(reinterpret_cast<const uint8_t*>(in.data()), in.size(), out.data());
    if (n != in.size()) throw Error("aes-256-cbc gave a wrong length");
  } catch (const cb::Unsupported& e) {
    throw Error("provider " + provider.name() + " cannot do aes-256-cbc: " + e.what());
  } catch (const cb::Error& e) {
    throw Error("provider " + provider.name() + ": aes-256-cbc: " + e.what());
  }
  return std::string(out.begin(), out.begin() + in.size());
}

}  // namespace

const char* compat_kdf_algorithm(CompatKdf kdf) {
  switch (kdf) {
    case CompatKdf::kSha256:
      return "pbkdf2-sha256";
    case CompatKdf::kSha1:
      return "pbkdf2-sha1";
    case CompatKdf::kSha512:
      break;
  }
  return "pbkdf2-sha512";
}

const char* compat_kdf_name(CompatKdf kdf) {
  return compat_kdf_algorithm(kdf) + sizeof("pbkdf2-") - 1;
}

CompatKdf parse_compat_kdf(const std::string& name) {
  for (CompatKdf k : {CompatKdf::kSha512, CompatKdf::kSha256, CompatKdf::kSha1}) {
    if (name == compat_kdf_name(k)) return k;
  }
  throw Error("unknown compatibility KDF '" + name + "' (sha512, sha256, sha1)");
}

std::optional<CompatKdf> thesis_compat_kdf(const std::string& provider) {
  if (provider == "gcrypt") return CompatKdf::kSha512;
  if (provider == "openssl") return CompatKdf::kSha1;
  if (provider == "botan") return CompatKdf::kSha256;
  return std::nullopt;
}

bool compat_supported(cb::Provider& provider, CompatKdf kdf) {
  auto algs = provider.algorithms();
  auto has = [&](const char* name) {
    return std::find(algs.begin(), algs.end(), name) != algs.end();
  };
  return has(compat_kdf_algorithm(kdf)) && has("aes-256-cbc");
}

bool is_compat_value(const std::string& stored) {
  return stored.compare(0, kMagicNoVersionLen, kCompatMagic, kMagicNoVersionLen) == 0;
}

std::string encrypt_compat(cb::Provider& provider, const std::string& master_password,
                           ValueType type, const std::string& plaintext, size_t salt_len,
                           uint32_t iterations, CompatKdf kdf) {
  return encrypt_compat_with_salt(provider, master_password, type, plaintext,
                                  random_bytes(salt_len), iterations, kdf);
}

std::string encrypt_compat_with_salt(cb::Provider& provider, const std::string& master_password,
                                     ValueType type, const std::string& plaintext,
                                     const std::string& salt, uint32_t iterations, CompatKdf kdf) {
  if (type == ValueType::Null && !plaintext.empty()) {
    throw Error("compat: a null value has no content");
  }
  if (salt.size() > 0xffffffffu) throw Error("compat: salt too long");
  std::string content = plaintext;
  if (type == ValueType::String) content += '\0';
  if (content.size() > 0xffffffffu - 2 * kBlock) throw Error("compat: value too long");

  std::string block;
  block.reserve(kHeaderLen + content.size() + kBlock);
  block += char(static_cast<uint8_t>(type));
  put_le32(block, uint32_t(content.size()));
  block.resize(kHeaderLen, '\0');
  block += content;
  block.resize((block.size() + kBlock - 1) / kBlock * kBlock, '\0');

  cb::Bytes key, iv;
  derive_key_iv(provider, master_password, salt, iterations, kdf, key, iv);
  std::string ct = cbc(provider, cb::OpKind::Encrypt, key, iv, block);
  std::fill(block.begin(), block.end(), '\0');
  std::fill(key.begin(), key.end(), 0);

  std::string stored(kCompatMagic, kMagicLen);
  put_le32(stored, uint32_t(salt.size()));
  stored += salt;
  stored += ct;
  return stored;
}

std::pair<ValueType, std::string> decrypt_compat(cb::Provider& provider,
                                                 const std::string& master_password,
                                                 const std::string& stored, uint32_t iterations,
                                                 CompatKdf kdf) {
  if (!is_compat_value(stored)) throw Error("compat: not an encrypted value (no #!crypto magic)");
  if (stored.size() < kMagicLen || stored.compare(0, kMagicLen, kCompatMagic) != 0) {
    throw Error("compat: unsupported format version '" + stored.substr(kMagicNoVersionLen, 2) +
                "' (only 00 is known)");
  }
  if (stored.size() < kMagicLen + 4) throw Error("compat: value truncated (no salt length)");
  uint32_t salt_len = get_le32(stored, kMagicLen);
  size_t ct_at = kMagicLen + 4 + size_t(salt_len);
  if (ct_at > stored.size()) throw Error("compat: value truncated (salt)");
  size_t ct_len = stored.size() - ct_at;
  if (ct_len < kHeaderLen || ct_len % kBlock) {
    throw Error("compat: value truncated (ciphertext is not a whole number of blocks)");
  }
  std::string salt = stored.substr(kMagicLen + 4, salt_len);

  cb::Bytes key, iv;
  derive_key_iv(provider, master_password, salt, iterations, kdf, key, iv);
  std::string block = cbc(provider, cb::OpKind::Decrypt, key, iv, stored.substr(ct_at));
  std::fill(key.begin(), key.end(), 0);

  // CBC has no MAC: a wrong password shows only as an implausible header, and that check is the
  // only one there is (the thesis's weakness, kept for compatibility).
  const char* bad = "compat: wrong master password or corrupted value";
  uint8_t flag = uint8_t(block[0]);
  uint32_t content_len = get_le32(block, 1);
  bool zeros =
      std::all_of(block.begin() + 5, block.begin() + kHeaderLen, [](char c) { return c == 0; });
  if (flag > 2 || !zeros || content_len > ct_len - kHeaderLen ||
      (ct_len - kHeaderLen) - content_len >= kBlock) {
    throw Error(bad);
  }
  bool pad_zero = std::all_of(block.begin() + kHeaderLen + content_len, block.end(),
                              [](char c) { return c == 0; });
  if (!pad_zero) throw Error(bad);
  ValueType type = static_cast<ValueType>(flag);
  std::string content = block.substr(kHeaderLen, content_len);
  std::fill(block.begin(), block.end(), '\0');
  if (type == ValueType::String) {
    if (content.empty() || content.back() != '\0') throw Error(bad);
    content.pop_back();
  } else if (type == ValueType::Null && !content.empty()) {
    throw Error(bad);
  }
  return {type, content};
}

}  // namespace confcrypt
