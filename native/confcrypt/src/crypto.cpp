// Per-value AEAD, the file MAC and the header text (docs/confcrypt.md, "File format").
#include "confcrypt/crypto.hpp"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include <algorithm>
#include <memory>
#include <regex>
#include <unordered_map>
#include <unordered_set>

#include "confcrypt/io.hpp"
#include "cryptobench/provider.hpp"

namespace confcrypt {

namespace {

cb::Bytes to_bytes(const std::string& s) { return cb::Bytes(s.begin(), s.end()); }

// ---- length-prefixed encoding (associated data, MAC input) -------------------------------------

void put_u32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += char((v >> shift) & 0xff);
}
void put_u64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out += char((v >> shift) & 0xff);
}
void put(std::string& out, const std::string& field) {
  put_u32(out, uint32_t(field.size()));
  out += field;
}
void put_u8(std::string& out, uint8_t v) { put(out, std::string(1, char(v))); }

// ---- percent encoding of header list elements
// -----------------------------------------------------

bool header_safe(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         std::string("-._~/@").find(c) != std::string::npos;
}

std::string percent_encode(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    if (header_safe(c)) {
      out += c;
    } else {
      out += '%';
      out += kHex[uint8_t(c) >> 4];
      out += kHex[uint8_t(c) & 15];
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) throw Failure(Status::kMalformed, "confcrypt header: bad %-escape");
    out += char(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(sep, start);
    parts.emplace_back(s, start, end == std::string::npos ? std::string::npos : end - start);
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string join_encoded(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += percent_encode(items[i]);
  }
  return out;
}

uint64_t parse_decimal(const std::string& s, const char* what) {
  if (s.empty() || s.size() > 19 || (s.size() > 1 && s[0] == '0') ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw Failure(Status::kMalformed, std::string("confcrypt header: bad ") + what);
  }
  return std::stoull(s);
}

}  // namespace

// ---- random, base64url
// ---------------------------------------------------------------------------

namespace {
const char kUrlAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
// The sextet of each base64url character, -1 for any other byte.
struct SextetTable {
  int8_t v[256];
  constexpr SextetTable() : v() {
    for (int i = 0; i < 256; ++i) v[i] = -1;
    for (int i = 0; i < 26; ++i) v['A' + i] = int8_t(i), v['a' + i] = int8_t(26 + i);
    for (int i = 0; i < 10; ++i) v['0' + i] = int8_t(52 + i);
    v[int('-')] = 62;
    v[int('_')] = 63;
  }
};
constexpr SextetTable kSextets;
int url_sextet(char c) { return kSextets.v[static_cast<uint8_t>(c)]; }
}  // namespace

std::string b64url_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : bytes) {
    acc = (acc << 8) | uint8_t(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kUrlAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits) out += kUrlAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

std::string b64url_decode(const std::string& text, const char* what) {
  // A length of 1 mod 4 cannot occur; leftover bits must be zero so that each value has exactly
  // one encoding (a flipped trailing bit must not decode to the same bytes).
  if (text.size() % 4 == 1) {
    throw Failure(Status::kMalformed, std::string("bad base64url length in ") + what);
  }
  std::string out(text.size() * 3 / 4, '\0');
  size_t n = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = url_sextet(c);
    if (v < 0) throw Failure(Status::kMalformed, std::string("bad base64url character in ") + what);
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = char((acc >> bits) & 0xff);
    }
  }
  if (bits && (acc & ((1u << bits) - 1))) {
    throw Failure(Status::kMalformed, std::string("non-canonical base64url in ") + what);
  }
  return out;
}

// ---- Crypto
// ------------------------------------------------------------------------------------------

namespace {

bool offers(cb::Provider& p, const std::string& algorithm) {
  if (!cb::unusable_reason(p.name()).empty()) return false;
  auto algs = p.algorithms();
  return std::find(algs.begin(), algs.end(), algorithm) != algs.end();
}

// A run() output buffer: the adapters may write up to len + 1024 bytes.
std::string run_op(cb::Operation& op, const std::string& in, size_t expected_max) {
  // One scratch buffer per thread, grown as needed: a value's operation no longer allocates and
  // zeroes a fresh one (1,000 values, 1,000 buffers).
  thread_local std::vector<uint8_t> scratch;
  const size_t room = in.size() + 1024 + expected_max;
  if (scratch.size() < room) scratch.resize(room);
  size_t n = op.run(reinterpret_cast<const uint8_t*>(in.data()), in.size(), scratch.data());
  std::string out(reinterpret_cast<const char*>(scratch.data()), n);
  std::fill_n(scratch.data(), n, uint8_t(0));  // no copy of a plaintext left behind in it
  return out;
}

}  // namespace

Crypto::Crypto(const std::string& provider) : provider_name_(provider) {
  selected_ = cb::get_provider(provider);
  if (!selected_ && !cb::provider_load_error(provider).empty()) {
    throw Failure(Status::kUnknownProvider, "provider '" + provider + "' cannot be loaded: " +
                                                cb::provider_load_error(provider));
  }
  if (!selected_) {
    std::string known;
    for (const auto& n : cb::provider_names()) known += (known.empty() ? "" : ", ") + n;
    throw Failure(Status::kUnknownProvider,
                  "unknown provider '" + provider + "' (compiled in: " + known + ")");
  }
}

namespace {
void wipe(std::string& s) {
  if (!s.empty()) explicit_bzero(s.data(), s.size());
  s.clear();
}
}  // namespace

Crypto::~Crypto() {
  wipe(kept_seal_.key);
  wipe(kept_open_.key);
}

cb::Operation& Crypto::aead_op(KeptAead& kept, const std::string& aead, bool seal,
                               const std::string& key, const std::string& nonce,
                               const std::string& ad) {
  if (kept.op && kept.aead == aead && kept.key == key &&
      kept.op->rebind(to_bytes(nonce), to_bytes(ad)))
    return *kept.op;
  cb::Params params;
  params.key = to_bytes(key);
  params.iv = to_bytes(nonce);
  params.aad = to_bytes(ad);
  kept.op.reset();
  wipe(kept.key);
  kept.op =
      provider_for(aead).prepare(aead, seal ? cb::OpKind::Encrypt : cb::OpKind::Decrypt, params);
  std::fill(params.key.begin(), params.key.end(), uint8_t(0));
  kept.aead = aead;
  kept.key = key;
  return *kept.op;
}

cb::Provider& Crypto::provider_for(const std::string& algorithm) {
  auto it = chosen_.find(algorithm);
  if (it != chosen_.end()) return *it->second;
  cb::Provider* found = offers(*selected_, algorithm) ? selected_ : nullptr;
  if (!found) {
    for (const auto& name : cb::provider_names()) {
      cb::Provider* p = cb::get_provider(name);
      if (p && offers(*p, algorithm)) {
        found = p;
        notes_.push_back(provider_name_ + " does not offer " + algorithm + "; using " + name);
        break;
      }
    }
  }
  if (!found) {
    throw Failure(Status::kUnsupported, "no compiled-in provider offers " + algorithm);
  }
  chosen_[algorithm] = found;
  return *found;
}

std::map<std::string, std::string> Crypto::used() const {
  std::map<std::string, std::string> out;
  for (const auto& [alg, p] : chosen_) out[alg] = p->name();
  if (hkdf_from_hmac_) out["hkdf-sha256"] = "hmac-sha256 (RFC 5869)";
  return out;
}

std::string Crypto::provider_name_for(const std::string& algorithm) {
  return provider_for(algorithm).name();
}

bool is_supported_aead(const std::string& name) {
  return name == "aes-256-gcm" || name == "chacha20-poly1305";
}

std::string Crypto::seal(const std::string& aead, const std::string& key, const std::string& nonce,
                         const std::string& ad, const std::string& plaintext) {
  ++runs_[aead + " seal"];
  try {
    return run_op(aead_op(kept_seal_, aead, true, key, nonce, ad), plaintext, kTagLen);
  } catch (const cb::Unsupported& e) {
    throw Failure(Status::kUnsupported, aead + ": " + e.what());
  } catch (const cb::Error& e) {
    throw Failure(Status::kInternal, aead + " encryption failed: " + e.what());
  }
}

std::optional<std::string> Crypto::open(const std::string& aead, const std::string& key,
                                        const std::string& nonce, const std::string& ad,
                                        const std::string& sealed) {
  if (sealed.size() < kTagLen || nonce.size() != kNonceLen) return std::nullopt;
  ++runs_[aead + " open"];
  cb::Operation* op = nullptr;
  try {
    op = &aead_op(kept_open_, aead, false, key, nonce, ad);
  } catch (const cb::Unsupported& e) {
    throw Failure(Status::kUnsupported, aead + ": " + e.what());
  } catch (const cb::Error& e) {
    throw Failure(Status::kInternal, aead + " decryption failed: " + e.what());
  }
  try {
    return run_op(*op, sealed, 0);
  } catch (const cb::Error&) {
    return std::nullopt;  // the adapters report a bad tag as an Error
  }
}

std::string Crypto::hmac_sha256(const std::string& key, const std::string& message) {
  ++runs_["hmac-sha256"];
  cb::Params params;
  params.key = to_bytes(key);
  try {
    auto op = provider_for("hmac-sha256").prepare("hmac-sha256", cb::OpKind::Mac, params);
    return run_op(*op, message, 32);
  } catch (const cb::Unsupported& e) {
    throw Failure(Status::kUnsupported, std::string("hmac-sha256: ") + e.what());
  } catch (const cb::Error& e) {
    throw Failure(Status::kInternal, std::string("hmac-sha256 failed: ") + e.what());
  }
}

std::string Crypto::hkdf_sha256(const std::string& ikm, const std::string& salt,
                                const std::string& info, size_t out_len) {
  ++runs_["hkdf-sha256"];
  if (!hkdf_from_hmac_) {
    try {
      provider_for("hkdf-sha256");
    } catch (const Failure& f) {
      if (f.status() != Status::kUnsupported) throw;
      // HKDF is two HMAC steps (RFC 5869); every provider has HMAC-SHA-256, so a build whose
      // adapters lack the KDF still reads and writes the same bytes.
      hkdf_from_hmac_ = true;
      notes_.push_back("no provider offers hkdf-sha256; computed from hmac-sha256 (RFC 5869)");
    }
  }
  if (hkdf_from_hmac_) {
    if (out_len > 255 * 32) throw Failure(Status::kInternal, "hkdf-sha256: output too long");
    std::string prk = hmac_sha256(salt.empty() ? std::string(32, '\0') : salt, ikm);
    std::string out, block;
    for (uint8_t counter = 1; out.size() < out_len; ++counter) {
      block = hmac_sha256(prk, block + info + char(counter));
      out += block;
    }
    out.resize(out_len);
    return out;
  }
  cb::Params params;
  params.salt = to_bytes(salt);
  params.info = to_bytes(info);
  params.out_len = out_len;
  try {
    auto op = provider_for("hkdf-sha256").prepare("hkdf-sha256", cb::OpKind::Derive, params);
    std::string out = run_op(*op, ikm, out_len);
    if (out.size() != out_len) throw Failure(Status::kInternal, "hkdf-sha256: short output");
    return out;
  } catch (const cb::Unsupported& e) {
    throw Failure(Status::kUnsupported, std::string("hkdf-sha256: ") + e.what());
  } catch (const cb::Error& e) {
    throw Failure(Status::kInternal, std::string("hkdf-sha256 failed: ") + e.what());
  }
}

std::string Crypto::scrypt(const std::string& passphrase, const std::string& salt, uint64_t n,
                           uint64_t r, uint64_t p, size_t out_len) {
  ++runs_["scrypt"];
  cb::Params params;
  params.salt = to_bytes(salt);
  params.out_len = out_len;
  params.cost = {{"N", n}, {"r", r}, {"p", p}};
  try {
    auto op = provider_for("scrypt").prepare("scrypt", cb::OpKind::Derive, params);
    std::string out = run_op(*op, passphrase, out_len);
    if (out.size() != out_len) throw Failure(Status::kInternal, "scrypt: short output");
    return out;
  } catch (const cb::Unsupported& e) {
    throw Failure(Status::kUnsupported, std::string("scrypt: ") + e.what());
  } catch (const cb::Error& e) {
    throw Failure(Status::kInternal, std::string("scrypt failed: ") + e.what());
  }
}

// ---- values
// ---------------------------------------------------------------------------------------

char type_letter(const Key& key) {
  switch (key.type) {
    case ValueType::Binary:
      return 'b';
    case ValueType::Null:
      return 'n';
    case ValueType::String:
      break;
  }
  auto it = key.meta.find(kMetaJsonLiteral);
  return it != key.meta.end() && it->second == "1" ? 'l' : 's';
}

void apply_type_letter(Key& key, char letter) {
  key.type = letter == 'b'   ? ValueType::Binary
             : letter == 'n' ? ValueType::Null
                             : ValueType::String;
  if (letter == 'l') {
    key.meta[kMetaJsonLiteral] = "1";
  } else {
    key.meta.erase(kMetaJsonLiteral);
  }
}

bool looks_like_token(const std::string& stored) {
  return stored.compare(0, sizeof(kTokenPrefix) - 1, kTokenPrefix) == 0;
}

std::string format_token(const Token& t) {
  std::string out = kTokenPrefix;
  out += t.aead;
  out += ':';
  out += t.type;
  out += ':';
  out += b64url_encode(t.nonce);
  out += ':';
  out += b64url_encode(t.sealed);
  return out;
}

Token parse_token(const std::string& stored, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return Failure(Status::kMalformed, "encrypted value of '" + path + "' is malformed: " + why);
  };
  if (!looks_like_token(stored)) throw bad("not an ENC:cc1: token");
  // Four fields after the prefix, split in place (one token per value: no copies but the fields).
  const size_t npos = std::string::npos, f0 = sizeof(kTokenPrefix) - 1;
  const size_t c1 = stored.find(':', f0);
  const size_t c2 = c1 == npos ? npos : stored.find(':', c1 + 1);
  const size_t c3 = c2 == npos ? npos : stored.find(':', c2 + 1);
  if (c3 == npos || stored.find(':', c3 + 1) != npos)
    throw bad("expected ENC:cc1:<aead>:<type>:<nonce>:<ciphertext>");
  Token t;
  t.aead = stored.substr(f0, c1 - f0);
  if (!is_supported_aead(t.aead)) throw bad("unknown AEAD '" + t.aead + "'");
  if (c2 - c1 != 2 || std::string("bsnl").find(stored[c1 + 1]) == std::string::npos) {
    throw bad("unknown type '" + stored.substr(c1 + 1, c2 - c1 - 1) + "'");
  }
  t.type = stored[c1 + 1];
  t.nonce = b64url_decode(stored.substr(c2 + 1, c3 - c2 - 1), "a nonce");
  t.sealed = b64url_decode(stored.substr(c3 + 1), "a ciphertext");
  if (t.nonce.size() != kNonceLen) throw bad("the nonce is not 12 bytes");
  if (t.sealed.size() < kTagLen) throw bad("shorter than a tag");
  return t;
}

std::string value_ad(const std::string& file_id, const std::string& path, char type) {
  std::string ad;
  put(ad, "confcrypt-value");
  put_u8(ad, kFormatVersion);
  put(ad, file_id);
  put(ad, path);
  put(ad, std::string(1, type));
  return ad;
}

FileKeys derive_file_keys(Crypto& crypto, const std::string& data_key, const std::string& file_id) {
  FileKeys k;
  k.value_key = crypto.hkdf_sha256(data_key, file_id, "confcrypt v1 value key", 32);
  k.mac_key = crypto.hkdf_sha256(data_key, file_id, "confcrypt v1 file mac", 32);
  return k;
}

std::string encrypt_value(Crypto& crypto, const std::string& aead, const FileKeys& keys,
                          const std::string& file_id, const std::string& path, char type,
                          const std::string& plaintext) {
  Token t;
  t.aead = aead;
  t.type = type;
  t.nonce = random_bytes(kNonceLen);
  t.sealed = crypto.seal(aead, keys.value_key, t.nonce, value_ad(file_id, path, type), plaintext);
  return format_token(t);
}

// ---- header
// ----------------------------------------------------------------------------------------

const char* kind_name(Recipient::Kind kind) {
  switch (kind) {
    case Recipient::Kind::kGpg:
      return "gpg";
    case Recipient::Kind::kPassphrase:
      return "passphrase";
    case Recipient::Kind::kKeyFile:
      return "keyfile";
  }
  return "?";
}

std::string describe(const Recipient& r) {
  if (r.kind == Recipient::Kind::kPassphrase) return "passphrase";
  return std::string(kind_name(r.kind)) + ":" + r.id;
}

std::string Header::to_text() const {
  std::string t = "cc" + std::to_string(version);
  t += " id=" + b64url_encode(file_id);
  t += " aead=" + aead;
  t += " keys=" + std::to_string(key_count);
  if (version == 1) {
    if (!protected_paths.empty()) t += " protect=" + join_encoded(protected_paths);
  } else {
    t += " protected=" + std::to_string(protected_count);
  }
  if (!regexes.empty()) t += " regex=" + join_encoded(regexes);
  for (const Recipient& r : recipients) {
    t += " recipient=";
    t += kind_name(r.kind);
    switch (r.kind) {
      case Recipient::Kind::kGpg:
        t += ":" + r.id + ":" + b64url_encode(r.wrapped);
        break;
      case Recipient::Kind::kPassphrase:
        t += ":scrypt:" + std::to_string(r.n) + ":" + std::to_string(r.r) + ":" +
             std::to_string(r.p) + ":" + b64url_encode(r.salt) + ":" + b64url_encode(r.nonce) +
             ":" + b64url_encode(r.wrapped);
        break;
      case Recipient::Kind::kKeyFile:
        t += ":" + r.id + ":" + b64url_encode(r.nonce) + ":" + b64url_encode(r.wrapped);
        break;
    }
  }
  t += " mac=" + b64url_encode(mac);
  return t;
}

namespace {

bool is_upper_hex(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return hex_digit(c) >= 0; });
}

Recipient parse_recipient(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Failure(Status::kMalformed, "confcrypt header: bad recipient: " + why);
  };
  auto f = split(text, ':');
  Recipient r;
  if (f[0] == "gpg" && f.size() == 3) {
    r.kind = Recipient::Kind::kGpg;
    r.id = f[1];
    if (!is_upper_hex(r.id) || (r.id.size() != 40 && r.id.size() != 64)) {
      throw bad("not a fingerprint");
    }
    r.wrapped = b64url_decode(f[2], "a gpg recipient");
    if (r.wrapped.empty()) throw bad("empty gpg message");
  } else if (f[0] == "passphrase" && f.size() == 8 && f[1] == "scrypt") {
    r.kind = Recipient::Kind::kPassphrase;
    r.n = parse_decimal(f[2], "scrypt N");
    r.r = parse_decimal(f[3], "scrypt r");
    r.p = parse_decimal(f[4], "scrypt p");
    // Bounded (crypto.hpp) so that an edited header cannot make the reader allocate gigabytes:
    // scrypt runs before the MAC can say the header was changed.
    const bool pow2 = r.n && !(r.n & (r.n - 1));
    if (!pow2 || r.n < kScryptMinN || r.n > kScryptMaxN || r.r < kScryptMinR || r.r > kScryptMaxR ||
        r.p < kScryptMinP || r.p > kScryptMaxP || 128 * r.n * r.r > kScryptMaxMemory) {
      throw bad("scrypt parameters N=" + f[2] + " r=" + f[3] + " p=" + f[4] +
                " out of range (N a power of two 2^15..2^18, r 8..16, p 1..4, 128*N*r at most "
                "256 MiB)");
    }
    r.salt = b64url_decode(f[5], "a passphrase salt");
    r.nonce = b64url_decode(f[6], "a passphrase nonce");
    r.wrapped = b64url_decode(f[7], "a passphrase recipient");
    if (r.salt.size() < 16) throw bad("salt shorter than 16 bytes");
  } else if (f[0] == "keyfile" && f.size() == 4) {
    r.kind = Recipient::Kind::kKeyFile;
    r.id = f[1];
    if (!std::all_of(r.id.begin(), r.id.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }) ||
        r.id.size() != 16) {
      throw bad("bad key file id");
    }
    r.nonce = b64url_decode(f[2], "a key file nonce");
    r.wrapped = b64url_decode(f[3], "a key file recipient");
  } else {
    throw bad("unknown kind or wrong number of fields");
  }
  if (r.kind != Recipient::Kind::kGpg &&
      (r.nonce.size() != kNonceLen || r.wrapped.size() != kDataKeyLen + kTagLen)) {
    throw bad("wrong nonce or wrapped key length");
  }
  return r;
}

}  // namespace

Header Header::from_text(const std::string& text) {
  auto fields = split(text, ' ');
  if (fields[0] != "cc1" && fields[0] != "cc2") {
    if (fields[0].rfind("cc", 0) == 0) {
      throw Failure(Status::kMalformed,
                    "confcrypt header: unsupported format version '" + fields[0] + "'");
    }
    throw Failure(Status::kMalformed, "confcrypt header: does not start with 'cc2' or 'cc1'");
  }
  const uint8_t version = fields[0] == "cc1" ? 1 : 2;
  // Each field is name=value with a known name, fields are separated by exactly one blank: the
  // message names what is wrong, not the next field the parser was looking for.
  static const char* const kOrder[] = {"id",        "aead",  "keys",      "protect",
                                       "protected", "regex", "recipient", "mac"};
  auto field_name = [](const std::string& f) { return f.substr(0, f.find('=')); };
  auto known = [&](const std::string& name) {
    if (name == (version == 1 ? "protected" : "protect")) return false;
    return std::any_of(std::begin(kOrder), std::end(kOrder),
                       [&](const char* k) { return name == k; });
  };
  for (size_t j = 1; j < fields.size(); ++j) {
    const std::string& f = fields[j];
    if (f.empty()) {
      throw Failure(Status::kMalformed,
                    j + 1 == fields.size()
                        ? std::string("confcrypt header: a blank at the end of the line")
                        : "confcrypt header: two blanks in a row before '" +
                              field_name(fields[j + 1]).substr(0, 32) + "='");
    }
    if (f.find('=') == std::string::npos) {
      throw Failure(Status::kMalformed,
                    "confcrypt header: field '" + f.substr(0, 32) + "' is not name=value");
    }
    if (!known(field_name(f))) {
      throw Failure(Status::kMalformed,
                    "confcrypt header: unknown field '" + field_name(f).substr(0, 32) + "='");
    }
  }
  Header h;
  h.version = version;
  size_t i = 1;
  auto take = [&](const char* name, bool optional) -> std::optional<std::string> {
    std::string prefix = std::string(name) + "=";
    if (i < fields.size() && fields[i].compare(0, prefix.size(), prefix) == 0) {
      return fields[i++].substr(prefix.size());
    }
    if (optional) return std::nullopt;
    if (i < fields.size()) {
      throw Failure(Status::kMalformed,
                    "confcrypt header: '" + field_name(fields[i]) + "=' where '" + name +
                        "=' belongs (fields out of order, or '" + name + "=' missing)");
    }
    throw Failure(Status::kMalformed, std::string("confcrypt header: missing ") + name + "=");
  };
  h.file_id = b64url_decode(*take("id", false), "the file id");
  if (h.file_id.size() != kFileIdLen) {
    throw Failure(Status::kMalformed, "confcrypt header: the file id is not 16 bytes");
  }
  h.aead = *take("aead", false);
  if (!is_supported_aead(h.aead)) {
    throw Failure(Status::kMalformed, "confcrypt header: unknown AEAD '" + h.aead + "'");
  }
  h.key_count = parse_decimal(*take("keys", false), "key count");
  if (version == 1) {
    if (auto p = take("protect", true)) {
      for (const auto& e : split(*p, ',')) h.protected_paths.push_back(percent_decode(e));
    }
  } else {
    h.protected_count = parse_decimal(*take("protected", false), "protected count");
  }
  if (auto r = take("regex", true)) {
    for (const auto& e : split(*r, ',')) h.regexes.push_back(percent_decode(e));
  }
  while (auto r = take("recipient", true)) h.recipients.push_back(parse_recipient(*r));
  h.mac = b64url_decode(*take("mac", false), "the MAC");
  if (i != fields.size()) {
    throw Failure(Status::kMalformed, "confcrypt header: '" + field_name(fields[i]) +
                                          "=' after 'mac=', which must come last");
  }
  if (h.mac.size() != 32) throw Failure(Status::kMalformed, "confcrypt header: bad MAC length");
  if (h.recipients.empty()) throw Failure(Status::kMalformed, "confcrypt header: no recipients");
  std::unordered_set<std::string> seen;
  for (const auto& p : h.protected_paths) {
    if (!seen.insert(p).second) {
      throw Failure(Status::kMalformed, "confcrypt header: path '" + p + "' listed twice");
    }
  }
  // One text per header: a re-encoded field would otherwise pass unnoticed until the MAC check.
  if (h.to_text() != text) {
    throw Failure(Status::kMalformed, "confcrypt header: not in canonical form");
  }
  return h;
}

std::string mac_input(const Header& h, const KeySet& stored, const std::vector<bool>& encrypted) {
  std::string m;
  put(m, "confcrypt-file-mac");
  put_u8(m, h.version);
  put(m, h.file_id);
  put(m, h.aead);
  put_u32(m, uint32_t(h.recipients.size()));
  for (const Recipient& r : h.recipients) {
    put(m, kind_name(r.kind));
    put(m, r.id);
    put(m, r.salt);
    put_u64(m, r.n);
    put_u64(m, r.r);
    put_u64(m, r.p);
    put(m, r.nonce);
    put(m, r.wrapped);
  }
  if (h.version == 1) {
    put_u32(m, uint32_t(h.protected_paths.size()));
    for (const auto& p : h.protected_paths) put(m, p);
  } else {
    put_u64(m, h.protected_count);
  }
  put_u32(m, uint32_t(h.regexes.size()));
  for (const auto& r : h.regexes) put(m, r);
  put_u64(m, h.key_count);
  const auto& keys = stored.keys();
  put_u32(m, uint32_t(keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) {
    put(m, keys[i].path);
    put_u8(m, encrypted[i] ? 1 : 0);
    put_u8(m, uint8_t(type_letter(keys[i])));
    put(m, keys[i].value);
  }
  return m;
}

std::vector<bool> encrypted_flags(const Header& h, const KeySet& stored) {
  std::vector<bool> out;
  out.reserve(stored.size());
  if (h.version == 1) {
    std::unordered_set<std::string> listed(h.protected_paths.begin(), h.protected_paths.end());
    for (const Key& k : stored.keys()) out.push_back(listed.count(k.path) > 0);
  } else {
    for (const Key& k : stored.keys()) out.push_back(looks_like_token(k.value));
  }
  return out;
}

std::string file_mac(Crypto& crypto, const FileKeys& keys, const Header& header,
                     const KeySet& stored, const std::vector<bool>& encrypted) {
  return crypto.hmac_sha256(keys.mac_key, mac_input(header, stored, encrypted));
}

// ---- selection
// -------------------------------------------------------------------------------------

struct PathSelector::Impl {
  std::regex re;
};

PathSelector::PathSelector(const std::vector<std::string>& regexes) {
  for (const auto& r : regexes) {
    try {
      impls_.push_back(std::make_shared<const Impl>(Impl{std::regex(r, std::regex::ECMAScript)}));
    } catch (const std::regex_error& e) {
      throw Failure(Status::kMalformed, "bad key regex '" + r + "': " + e.what());
    }
  }
}

bool PathSelector::matches(const std::string& path) const {
  for (const auto& i : impls_) {
    if (std::regex_search(path, i->re)) return true;
  }
  return false;
}

// ---- verification
// ----------------------------------------------------------------------------------

namespace {

bool constant_time_equal(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  uint8_t diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= uint8_t(a[i] ^ b[i]);
  return diff == 0;
}

bool marked(const Key& k) {
  auto it = k.meta.find(kMetaEncrypt);
  return it != k.meta.end() && it->second == "1";
}

// After a MAC failure: names what changed, most specific first. Never returns.
[[noreturn]] void diagnose(Crypto& crypto, const Header& h, const FileKeys& keys,
                           const KeySet& stored, const std::vector<bool>& encrypted,
                           bool stores_meta) {
  const auto& ks = stored.keys();
  const uint64_t tokens = uint64_t(std::count(encrypted.begin(), encrypted.end(), true));
  const std::string counts = "the file has " + std::to_string(stored.size()) +
                             " keys, its MAC covers " + std::to_string(h.key_count);
  if (h.version >= 2 && stored.size() > h.key_count && tokens > h.protected_count) {
    // An encrypted entry added (a token copied under a new name): the one that fails under its
    // own name is the newcomer.
    for (size_t i = 0; i < ks.size(); ++i) {
      if (!encrypted[i]) continue;
      Token t = parse_token(ks[i].value, ks[i].path);
      if (!crypto.open(t.aead, keys.value_key, t.nonce, value_ad(h.file_id, ks[i].path, t.type),
                       t.sealed)) {
        throw Failure(Status::kAddedEntry, "encrypted entry '" + ks[i].path +
                                               "' was added outside confcrypt (" + counts + ")");
      }
    }
  }
  // Values first: a protected value that fails its own AEAD says exactly what happened to it.
  // Candidate owners of a misplaced value: every name the file or its policy mentions.
  std::vector<std::string> names = h.protected_paths;
  for (const Key& k : stored.keys()) names.push_back(k.path);
  for (size_t i = 0; i < ks.size(); ++i) {
    const Key& k = ks[i];
    if (!encrypted[i]) continue;
    Token t = parse_token(k.value, k.path);
    if (crypto.open(t.aead, keys.value_key, t.nonce, value_ad(h.file_id, k.path, t.type),
                    t.sealed)) {
      continue;
    }
    for (const auto& other : names) {
      if (other == k.path) continue;
      for (char type : std::string("sbnl")) {
        if (crypto.open(t.aead, keys.value_key, t.nonce, value_ad(h.file_id, other, type),
                        t.sealed)) {
          throw Failure(Status::kSwappedValue, "encrypted value under '" + k.path +
                                                   "' belongs to '" + other +
                                                   "': values were swapped or copied");
        }
      }
    }
    throw Failure(Status::kTamperedValue,
                  "encrypted value of '" + k.path +
                      "' fails authentication: it was tampered with or comes from another file");
  }
  if (h.version >= 2) {
    // Each protected entry is marked where it stands: fewer encrypted entries than the header
    // counts means one was removed or put back in the clear.
    const std::string enc_counts = "the file has " + std::to_string(tokens) +
                                   " encrypted entries, its MAC covers " +
                                   std::to_string(h.protected_count);
    if (tokens < h.protected_count) {
      for (size_t i = 0; i < ks.size(); ++i) {
        if (!encrypted[i] && stores_meta && marked(ks[i])) {
          throw Failure(Status::kUnmarkedEntry, "protected entry '" + ks[i].path +
                                                    "' is stored in the clear: its encryption "
                                                    "was stripped");
        }
      }
      if (stored.size() < h.key_count) {
        throw Failure(Status::kRemovedEntry,
                      "a protected entry was removed outside confcrypt (" + enc_counts + ")");
      }
      throw Failure(Status::kUnmarkedEntry,
                    "a protected entry is stored in the clear: its encryption was stripped (" +
                        enc_counts + ")");
    }
    if (tokens > h.protected_count) {
      if (stored.size() > h.key_count) {
        throw Failure(Status::kAddedEntry,
                      "an encrypted entry was added outside confcrypt (" + enc_counts + ")");
      }
      throw Failure(Status::kModified,
                    "more encrypted entries than the MAC covers (" + enc_counts + ")");
    }
  }
  const Key* unlisted = nullptr;
  if (h.version == 1) {
    std::unordered_set<std::string> listed(h.protected_paths.begin(), h.protected_paths.end());
    for (const Key& k : ks) {
      if (!listed.count(k.path) && looks_like_token(k.value)) {
        unlisted = &k;
        break;
      }
    }
  }
  if (stored.size() > h.key_count) {
    if (unlisted) {
      throw Failure(Status::kAddedEntry, "encrypted entry '" + unlisted->path +
                                             "' was added outside confcrypt (" + counts + ")");
    }
    throw Failure(Status::kAddedEntry, "an entry was added outside confcrypt (" + counts + ")");
  }
  if (stored.size() < h.key_count) {
    throw Failure(Status::kRemovedEntry, "an entry was removed outside confcrypt (" + counts + ")");
  }
  if (unlisted) {
    throw Failure(Status::kModified, "encrypted entry '" + unlisted->path +
                                         "' is missing from the header's policy: the header "
                                         "was edited");
  }
  throw Failure(Status::kModified,
                "the file MAC does not match: a key name, an unencrypted value, the order of "
                "entries or the header was changed outside confcrypt, or an encrypted value "
                "was rolled back");
}

}  // namespace

KeySet verify_and_decrypt(Crypto& crypto, const Header& h, const FileKeys& keys,
                          const KeySet& stored, bool stores_meta) {
  if (h.version == 1) {
    // Version 1 lists the protected paths: each must exist, hold a token and carry its marker.
    std::unordered_map<std::string, const Key*> by_path;
    for (const Key& k : stored.keys()) by_path.emplace(k.path, &k);
    for (const auto& p : h.protected_paths) {
      auto it = by_path.find(p);
      if (it == by_path.end()) {
        throw Failure(Status::kRemovedEntry, "protected entry '" + p + "' was removed");
      }
      if (!looks_like_token(it->second->value)) {
        throw Failure(Status::kUnmarkedEntry, "protected entry '" + p +
                                                  "' is stored in the clear: its encryption was "
                                                  "stripped");
      }
    }
  }
  std::vector<bool> encrypted = encrypted_flags(h, stored);
  // Every encrypted entry (INI, dotenv) carries its marker where it stands.
  for (size_t i = 0; i < stored.size(); ++i) {
    if (encrypted[i] && stores_meta && !marked(stored.keys()[i])) {
      throw Failure(Status::kUnmarkedEntry, "protected entry '" + stored.keys()[i].path +
                                                "' lost its '#@META crypto/encrypt = 1' marker");
    }
  }
  if (!constant_time_equal(file_mac(crypto, keys, h, stored, encrypted), h.mac)) {
    diagnose(crypto, h, keys, stored, encrypted, stores_meta);
  }

  KeySet plain;
  for (size_t i = 0; i < stored.size(); ++i) {
    const Key& k = stored.keys()[i];
    Key out = k;
    if (encrypted[i]) {
      Token t = parse_token(k.value, k.path);
      auto value = crypto.open(t.aead, keys.value_key, t.nonce, value_ad(h.file_id, k.path, t.type),
                               t.sealed);
      // Authentic under the MAC yet not under its own key: written by a broken or hostile
      // holder of the data key.
      if (!value) {
        throw Failure(Status::kTamperedValue,
                      "encrypted value of '" + k.path + "' fails authentication");
      }
      out.value = std::move(*value);
      apply_type_letter(out, t.type);
      out.meta[kMetaEncrypt] = "1";
    }
    plain.keys().push_back(std::move(out));
  }
  return plain;
}

const char* status_name(Status s) {
  switch (s) {
    case Status::kOk:
      return "ok";
    case Status::kInternal:
      return "internal";
    case Status::kUsage:
      return "usage";
    case Status::kIo:
      return "io";
    case Status::kMalformed:
      return "malformed";
    case Status::kUnknownProvider:
      return "unknown-provider";
    case Status::kUnsupported:
      return "unsupported";
    case Status::kNoKey:
      return "no-key";
    case Status::kWrongPassphrase:
      return "wrong-passphrase";
    case Status::kTamperedValue:
      return "tampered-value";
    case Status::kSwappedValue:
      return "swapped-value";
    case Status::kRemovedEntry:
      return "removed-entry";
    case Status::kUnmarkedEntry:
      return "unmarked-entry";
    case Status::kAddedEntry:
      return "added-entry";
    case Status::kModified:
      return "modified";
    case Status::kUnsigned:
      return "unsigned";
    case Status::kBadSignature:
      return "bad-signature";
    case Status::kUnknownSigner:
      return "unknown-signer";
    case Status::kGpg:
      return "gpg";
    case Status::kNoSuchKey:
      return "no-such-key";
    case Status::kCompat:
      return "compat";
    case Status::kUnprotected:
      return "unprotected";
    case Status::kTooLarge:
      return "too-large";
    case Status::kExec:
      return "exec";
  }
  return "?";
}

}  // namespace confcrypt
