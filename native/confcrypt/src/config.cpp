// The open chain (whole-file -> format -> per-value crypto -> text encoding) and the save chain
// (the same reversed). See config.hpp.
#include "confcrypt/config.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "confcrypt/format.hpp"
#include "confcrypt/io.hpp"
#include "confcrypt/wholefile.hpp"
#include "cryptobench/provider.hpp"

namespace confcrypt {

namespace {

// What a protected value was when the file was opened or last saved: an unchanged value keeps
// its stored text, so its line stays byte-identical and its nonce is not spent again.
struct Snapshot {
  char type;
  std::string plaintext;
  std::string stored;
};

bool marked(const Key& k) {
  auto it = k.meta.find(kMetaEncrypt);
  return it != k.meta.end() && it->second == "1";
}

std::unique_ptr<Format> pick_format(const Options& o, const std::string& bytes) {
  try {
    if (!o.format.empty()) return format_by_name(o.format);
    if (!o.source.empty()) return format_for_path(o.source);
  } catch (const Failure&) {
    throw;
  } catch (const Error& e) {
    throw Failure(Status::kUsage, std::string(e.what()) + ": use --format");
  }
  // No name to go by (in-memory use): JSON starts with '{' or '['.
  size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (bytes[first] == '{' || bytes[first] == '[')) {
    return format_by_name("json");
  }
  return format_by_name("ini");
}

std::unique_ptr<Document> parse_document(const Format& format, const std::string& bytes,
                                         const std::string& source) {
  try {
    return format.parse(bytes, source);
  } catch (const Failure&) {
    throw;
  } catch (const Error& e) {
    throw Failure(Status::kMalformed, e.what());
  }
}

std::string emit_document(const Document& doc) {
  try {
    return doc.emit();
  } catch (const Failure&) {
    throw;
  } catch (const Error& e) {
    throw Failure(Status::kUsage, std::string("cannot write the file: ") + e.what());
  }
}

// INI and dotenv keep the crypto/encrypt marker in the file; JSON keeps no metadata (the
// header's policy says what is protected).
bool stores_meta(const Format& f) { return f.name() != "json"; }

// The text-encoding filter: a binary value is stored as @BASE64 text.
void decode_text(Key& k) {
  if (k.type != ValueType::String || !is_base64_token(k.value)) return;
  try {
    k.value = from_base64_token(k.value);
    k.type = ValueType::Binary;
  } catch (const Error&) {
    // Not valid Base64 after all: a string that happens to start with "@BASE64".
  }
}

}  // namespace

struct Config::Impl {
  Options opts;
  std::unique_ptr<Format> format;
  std::unique_ptr<Document> doc;  // the stored form
  KeySet plain;
  Scheme scheme = Scheme::kPlain;
  bool whole_file = false;
  std::string signer;

  std::unique_ptr<Crypto> crypto;
  cb::Provider* compat = nullptr;  // compatibility mode's provider, once chosen
  std::unique_ptr<Gpg> gpg;
  std::unique_ptr<Keyring> keyring;
  std::optional<Header> header;
  std::string data_key;
  FileKeys file_keys;
  std::unique_ptr<PathSelector> selector;
  std::unordered_map<std::string, Snapshot> snapshot;
  std::vector<std::string> notes;
  std::optional<std::string> written;  // the last bytes saved, when doc has not caught up

  explicit Impl(Options o) : opts(std::move(o)) {
    crypto = std::make_unique<Crypto>(opts.provider);
    gpg = std::make_unique<Gpg>(opts.gpg);
    keyring = std::make_unique<Keyring>(*crypto, *gpg, opts.secrets);
    if (!is_supported_aead(opts.aead)) {
      throw Failure(Status::kUsage,
                    "unknown AEAD '" + opts.aead + "' (aes-256-gcm or chacha20-poly1305)");
    }
  }

  bool is_protected(const Key& k) const {
    return marked(k) || (selector && selector->matches(k.path));
  }

  cb::Provider& compat_provider() {
    if (compat) return *compat;
    const CompatKdf kdf = opts.compat_kdf;
    cb::Provider* selected = cb::get_provider(opts.provider);
    if (selected && compat_supported(*selected, kdf)) return *(compat = selected);
    for (const auto& name : cb::provider_names()) {
      cb::Provider* p = cb::get_provider(name);
      if (p && cb::unusable_reason(name).empty() && compat_supported(*p, kdf)) {
        notes.push_back(opts.provider + " cannot do compatibility mode (" +
                        compat_kdf_algorithm(kdf) + "); using " + name);
        return *(compat = p);
      }
    }
    throw Failure(Status::kUnsupported, std::string("no compiled-in provider offers ") +
                                            compat_kdf_algorithm(kdf) +
                                            " and aes-256-cbc (compatibility mode)");
  }

  const std::string& master_password() const {
    if (!opts.master_password) {
      throw Failure(Status::kNoKey,
                    "compatibility mode needs the master password: --master-password-file or "
                    "--master-password-gpg");
    }
    return *opts.master_password;
  }

  void open_per_value() {
    header = Header::from_text(*doc->header());
    data_key = keyring->unlock(*header);
    file_keys = derive_file_keys(*crypto, data_key, header->file_id);
    selector = std::make_unique<PathSelector>(header->regexes);
    plain = verify_and_decrypt(*crypto, *header, file_keys, doc->keys(), stores_meta(*format));
    const auto& stored = doc->keys().keys();
    for (size_t i = 0; i < stored.size(); ++i) {
      const Key& p = plain.keys()[i];
      if (looks_like_token(stored[i].value) && marked(p)) {
        snapshot[p.path] = {type_letter(p), p.value, stored[i].value};
      }
    }
    notes.push_back("unlocked with " + keyring->unlocked_by());
  }

  void open_compat() {
    plain = doc->keys();
    // JSON keeps no metadata, so no marker survives there: a thesis value is self-describing
    // (@BASE64 of "#!crypto00..."), and in JSON the token itself marks the key.
    const bool token_marks = format && format->name() == "json";
    for (Key& k : plain.keys()) {
      if ((!marked(k) && !token_marks) || !is_base64_token(k.value)) continue;
      std::string binary;
      try {
        binary = from_base64_token(k.value);
      } catch (const Error& e) {
        throw Failure(Status::kMalformed, "value of '" + k.path + "': " + e.what());
      }
      if (!is_compat_value(binary)) continue;
      std::string stored = k.value;
      try {
        auto [type, value] = decrypt_compat(compat_provider(), master_password(), binary,
                                            opts.compat_iterations, opts.compat_kdf);
        k.type = type;
        k.value = std::move(value);
        k.meta[kMetaEncrypt] = "1";
      } catch (const Failure&) {
        throw;
      } catch (const Error& e) {
        throw Failure(Status::kCompat, "value of '" + k.path + "': " + e.what());
      }
      snapshot[k.path] = {type_letter(k), k.value, stored};
    }
  }

  // The downgrade rule (docs/confcrypt.md, threat model): a file without a valid header is
  // refused unless the caller asked for unprotected reading, and even then when it still bears
  // traces of protection (an encrypted token, a header-like line) — those mean a header was
  // removed or damaged, not that the file was never protected.
  void refuse_downgrade(const std::string& inner) {
    const std::string where = opts.source.empty() ? "the file" : opts.source;
    const bool header_like = inner.find("#@CONFCRYPT") != std::string::npos ||
                             inner.find("\"#confcrypt\"") != std::string::npos;
    std::string token_key;
    for (const Key& k : doc->keys().keys()) {
      if (looks_like_token(k.value)) {
        token_key = k.path;
        break;
      }
    }
    if (header_like) {
      throw Failure(Status::kUnprotected,
                    where +
                        " has a damaged confcrypt header: refusing to read it (restore the "
                        "file from a good copy)");
    }
    if (!token_key.empty()) {
      throw Failure(Status::kUnprotected,
                    where + " holds an encrypted value ('" + token_key +
                        "') but no confcrypt header: it was stripped; refusing to read it");
    }
    if (!opts.allow_unprotected) {
      throw Failure(Status::kUnprotected,
                    where +
                        " has no confcrypt header: refusing to read it as plain "
                        "configuration (--unprotected reads an unprotected file; "
                        "`confcrypt init` protects it)");
    }
  }

  void open_bytes(const std::string& bytes) {
    std::string inner = bytes;
    if (!opts.signers.empty() && !is_openpgp(bytes) && !opts.allow_unsigned) {
      // A configured signer means only a signed OpenPGP message is acceptable.
      throw Failure(Status::kUnsigned,
                    (opts.source.empty() ? std::string("the file") : opts.source) +
                        " is not a signed OpenPGP message, but a signer is configured: refusing "
                        "to read it unsigned");
    }
    if (is_openpgp(bytes)) {
      WholeFileOpened w = wholefile_open(*gpg, bytes, opts.signers);
      inner = std::move(w.plaintext);
      signer = w.signer;
      whole_file = true;
      notes.push_back("whole-file signature by " + signer);
    }
    format = pick_format(opts, inner);
    doc = parse_document(*format, inner, opts.source);
    if (doc->header()) {
      scheme = Scheme::kPerValue;
      open_per_value();
    } else if (opts.compat) {
      scheme = Scheme::kCompat;
      open_compat();
    } else {
      // Inside a verified whole-file message the file is protected as a whole: no header.
      if (!whole_file) refuse_downgrade(inner);
      plain = doc->keys();
    }
    for (Key& k : plain.keys()) {
      // A decrypted value is never text-encoded: only values stored in the clear are.
      if (!snapshot.count(k.path)) decode_text(k);
      if (scheme != Scheme::kPlain && is_protected(k) && !snapshot.count(k.path)) {
        notes.push_back("'" + k.path +
                        "' is marked for encryption but stored in the clear; the next write "
                        "encrypts it");
      }
    }
  }

  // A protected value must be storable in the clear as well: `show` writes the file with it in
  // the clear. Checked whenever a new plaintext is encrypted (so `set --encrypt` of a value with
  // a line break is refused as `set --plain` is, not left for `show` to fail on).
  void check_viewable(const Key& k) const {
    Key v;
    v.path = k.path;
    v.type = k.type;
    v.value = k.type == ValueType::Binary ? to_base64_token(k.value) : k.value;
    if (k.type == ValueType::Binary) v.type = ValueType::String;
    auto lit = k.meta.find(kMetaJsonLiteral);
    if (lit != k.meta.end()) v.meta[kMetaJsonLiteral] = lit->second;
    try {
      format->check_value(v);
    } catch (const Error& e) {
      throw Failure(Status::kUsage, std::string("cannot write the file: ") + e.what() +
                                        ", encrypted or not ('show' writes it in the clear)");
    }
  }

  // The stored form of one plaintext key. Without per-value encryption (kPlain) a marker is
  // only metadata: a thesis-style file kept in the clear, or one inside whole-file encryption.
  Key stored_key(const Key& k) {
    Key s;
    s.path = k.path;
    s.meta = k.meta;
    const bool prot = is_protected(k);
    if (prot) {
      s.meta[kMetaEncrypt] = "1";
    } else {
      s.meta.erase(kMetaEncrypt);
    }
    if (!prot || scheme == Scheme::kPlain) {
      s.type = k.type;
      s.value = k.value;
      if (k.type == ValueType::Binary) {
        s.type = ValueType::String;
        s.value = to_base64_token(k.value);
      }
      return s;
    }
    const char letter = type_letter(k);
    s.type = ValueType::String;
    s.meta.erase(kMetaJsonLiteral);  // a token is a string, in every format
    auto it = snapshot.find(k.path);
    if (it != snapshot.end() && it->second.type == letter && it->second.plaintext == k.value) {
      s.value = it->second.stored;
      return s;
    }
    check_viewable(k);
    if (scheme == Scheme::kPerValue) {
      s.value =
          encrypt_value(*crypto, header->aead, file_keys, header->file_id, k.path, letter, k.value);
    } else {
      if (letter == 'l') {
        throw Failure(Status::kUsage,
                      "compatibility mode cannot keep '" + k.path + "' a JSON number or boolean");
      }
      try {
        s.value = to_base64_token(encrypt_compat(compat_provider(), master_password(), k.type,
                                                 k.value, kCompatSaltLen, opts.compat_iterations,
                                                 opts.compat_kdf));
      } catch (const Failure&) {
        throw;
      } catch (const Error& e) {
        throw Failure(Status::kCompat, "'" + k.path + "': " + e.what());
      }
    }
    return s;
  }

  // Brings the stored document in line with the plaintext key set.
  void apply_to_document() {
    std::vector<Key> next;
    next.reserve(plain.size());
    std::unordered_set<std::string> wanted;
    for (const Key& k : plain.keys()) {
      if (!wanted.insert(k.path).second) {
        throw Failure(Status::kUsage, "duplicate key '" + k.path + "'");
      }
    }
    std::unordered_map<std::string, size_t> existing;
    auto& stored = doc->keys().keys();
    // Existing keys keep their document order; new ones follow in the order they were added.
    std::vector<Key> kept;
    for (Key& s : stored) {
      if (wanted.count(s.path)) {
        existing.emplace(s.path, kept.size());
        kept.push_back(std::move(s));
      }
    }
    for (const Key& k : plain.keys()) {
      auto it = existing.find(k.path);
      if (it != existing.end()) {
        kept[it->second] = stored_key(k);
      } else {
        next.push_back(stored_key(k));
      }
    }
    for (Key& s : next) kept.push_back(std::move(s));
    stored = std::move(kept);
  }

  void catch_up() {
    if (written) doc = parse_document(*format, *written, opts.source);
    written.reset();
  }

  std::string save() {
    catch_up();
    apply_to_document();
    if (scheme == Scheme::kPerValue) {
      // The MAC covers the keys as a reader will see them: new keys may land elsewhere in the
      // file (INI puts them in their section), so the document is emitted and parsed back first.
      std::string first = emit_document(*doc);
      auto reread = parse_document(*format, first, opts.source);
      Header& h = *header;
      // Written in the current header version: a version-1 file (protected paths listed in the
      // header) is migrated here; each protected entry is marked where it stands instead.
      h.version = kHeaderVersion;
      h.protected_paths.clear();
      h.protected_count = 0;
      std::unordered_set<std::string> prot;
      for (const Key& k : plain.keys()) {
        if (is_protected(k)) prot.insert(k.path);
      }
      std::vector<bool> encrypted;
      for (const Key& k : reread->keys().keys()) {
        bool enc = prot.count(k.path) > 0;
        if (enc && !looks_like_token(k.value)) {
          throw Failure(
              Status::kInternal,
              "the " + format->name() + " writer did not keep the token of '" + k.path + "'");
        }
        if (!enc && looks_like_token(k.value)) {
          // A reader takes every token for an encrypted entry.
          throw Failure(Status::kUsage, "the value of '" + k.path + "' starts with '" +
                                            kTokenPrefix +
                                            "' and would read as an encrypted value: store it "
                                            "encrypted (--encrypt)");
        }
        encrypted.push_back(enc);
        if (enc) ++h.protected_count;
      }
      h.key_count = reread->keys().size();
      h.mac = std::string(32, '\0');
      h.mac = file_mac(*crypto, file_keys, h, reread->keys(), encrypted);
      reread->set_header(h.to_text());
      doc = std::move(reread);
    }
    std::string bytes = emit_document(*doc);
    // The next save compares against what this one wrote; parsed again only if it comes.
    if (scheme != Scheme::kPerValue) written = bytes;
    refresh_snapshot();
    if (whole_file) {
      bytes = wholefile_seal(*gpg, bytes, opts.wholefile_recipients, opts.sign_with, opts.armor);
    }
    return bytes;
  }

  void refresh_snapshot() {
    snapshot.clear();
    const auto& stored = doc->keys().keys();
    std::unordered_map<std::string, const Key*> by_path;
    for (const Key& k : plain.keys()) by_path.emplace(k.path, &k);
    for (const Key& s : stored) {
      auto it = by_path.find(s.path);
      if (it == by_path.end() || !is_protected(*it->second)) continue;
      snapshot[s.path] = {type_letter(*it->second), it->second->value, s.value};
    }
  }

  void require_per_value() const {
    if (scheme != Scheme::kPerValue || !header) {
      throw Failure(Status::kUsage, "not a confcrypt per-value file: run 'confcrypt init' first");
    }
  }
};

Config::Config(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(Config&&) noexcept = default;
Config::~Config() = default;

Config Config::open(const std::string& bytes, Options options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->open_bytes(bytes);
  return Config(std::move(impl));
}

Config Config::open_file(const std::string& path, Options options) {
  if (options.source.empty()) options.source = path;
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const Error& e) {
    throw Failure(Status::kIo, e.what());
  }
  return open(bytes, std::move(options));
}

Config Config::create(Options options, Scheme scheme, bool whole_file) {
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->format = pick_format(impl->opts, "");
  // An empty JSON file is not a JSON document; an empty object is the empty configuration.
  impl->doc = parse_document(*impl->format, impl->format->name() == "json" ? "{}\n" : "",
                             impl->opts.source);
  impl->whole_file = whole_file;
  Config c(std::move(impl));
  if (scheme == Scheme::kPerValue) {
    c.init_per_value(c.impl_->opts.recipients, c.impl_->opts.encrypt_regexes);
  } else if (scheme == Scheme::kCompat) {
    c.impl_->scheme = Scheme::kCompat;
  }
  return c;
}

KeySet& Config::keys() { return impl_->plain; }
const KeySet& Config::keys() const { return impl_->plain; }

void Config::set(const std::string& path, std::string value, ValueType type,
                 std::optional<bool> encrypt) {
  if (encrypt && !*encrypt && impl_->selector && impl_->selector->matches(path)) {
    throw Failure(Status::kUsage, "'" + path +
                                      "' matches the file's encryption regex: it cannot be "
                                      "stored in the clear");
  }
  Key& k = impl_->plain.set(path, std::move(value), type);
  if (encrypt) {
    if (*encrypt) {
      k.meta[kMetaEncrypt] = "1";
    } else {
      k.meta.erase(kMetaEncrypt);
    }
  }
}

bool Config::remove(const std::string& path) { return impl_->plain.remove(path); }
bool Config::is_protected(const Key& key) const { return impl_->is_protected(key); }
Scheme Config::scheme() const { return impl_->scheme; }
bool Config::whole_file() const { return impl_->whole_file; }
void Config::set_whole_file(bool on) { impl_->whole_file = on; }
const std::string& Config::signer() const { return impl_->signer; }

void Config::init_per_value(const std::vector<RecipientSpec>& recipients,
                            const std::vector<std::string>& regexes) {
  Impl& m = *impl_;
  if (m.scheme == Scheme::kPerValue) {
    throw Failure(Status::kUsage, "already a confcrypt file");
  }
  if (recipients.empty()) {
    throw Failure(Status::kUsage,
                  "a confcrypt file needs at least one recipient (gpg:FPR, passphrase, "
                  "keyfile:PATH)");
  }
  Header h;
  h.file_id = random_bytes(kFileIdLen);
  h.aead = m.opts.aead;
  h.regexes = regexes;
  auto selector = std::make_unique<PathSelector>(h.regexes);
  std::string dk = random_bytes(kDataKeyLen);
  for (const auto& spec : recipients) {
    for (const Recipient& r : h.recipients) {
      if (matches(*m.crypto, r, spec)) {
        throw Failure(Status::kUsage, "recipient " + describe(r) + " given twice");
      }
    }
    h.recipients.push_back(m.keyring->wrap_new(h, dk, spec));
  }
  m.file_keys = derive_file_keys(*m.crypto, dk, h.file_id);
  m.data_key = dk;
  m.header = std::move(h);
  m.selector = std::move(selector);
  m.scheme = Scheme::kPerValue;
  m.snapshot.clear();
}

void Config::add_regex(const std::string& regex) {
  impl_->require_per_value();
  Header& h = *impl_->header;
  if (std::find(h.regexes.begin(), h.regexes.end(), regex) != h.regexes.end()) return;
  auto regexes = h.regexes;
  regexes.push_back(regex);
  impl_->selector = std::make_unique<PathSelector>(regexes);  // validates it first
  h.regexes = std::move(regexes);
}

const Header& Config::header() const {
  impl_->require_per_value();
  return *impl_->header;
}

void Config::add_recipient(const RecipientSpec& spec) {
  impl_->require_per_value();
  Impl& m = *impl_;
  for (const Recipient& r : m.header->recipients) {
    if (matches(*m.crypto, r, spec)) {
      throw Failure(Status::kUsage, describe(r) + " is already a recipient");
    }
  }
  m.header->recipients.push_back(m.keyring->wrap_new(*m.header, m.data_key, spec));
}

void Config::remove_recipient(const RecipientSpec& spec) {
  impl_->require_per_value();
  Impl& m = *impl_;
  auto& rs = m.header->recipients;
  for (auto it = rs.begin(); it != rs.end(); ++it) {
    if (!matches(*m.crypto, *it, spec)) continue;
    if (rs.size() == 1) {
      throw Failure(Status::kUsage, "cannot remove the last recipient");
    }
    rs.erase(it);
    return;
  }
  throw Failure(Status::kUsage, "not a recipient of this file");
}

void Config::rotate(const std::optional<std::string>& aead) {
  impl_->require_per_value();
  Impl& m = *impl_;
  Header next = *m.header;
  if (aead) {
    if (!is_supported_aead(*aead)) {
      throw Failure(Status::kUsage, "unknown AEAD '" + *aead + "'");
    }
    next.aead = *aead;
  }
  std::string dk = random_bytes(kDataKeyLen);
  for (auto& r : next.recipients) r = m.keyring->rewrap(*m.header, r, next, dk);
  m.file_keys = derive_file_keys(*m.crypto, dk, next.file_id);
  m.data_key = dk;
  m.header = std::move(next);
  m.snapshot.clear();
}

std::string Config::save() { return impl_->save(); }

void Config::save_file(const std::string& path) {
  std::string bytes = save();
  try {
    write_file_atomic(path, bytes);
  } catch (const Error& e) {
    throw Failure(Status::kIo, e.what());
  }
}

std::string Config::view() const {
  const Impl& m = *impl_;
  auto doc =
      parse_document(*m.format, m.written ? *m.written : emit_document(*m.doc), m.opts.source);
  std::unordered_map<std::string, const Key*> plain;
  for (const Key& k : m.plain.keys()) plain.emplace(k.path, &k);
  for (Key& s : doc->keys().keys()) {
    auto it = plain.find(s.path);
    if (it == plain.end()) continue;
    const Key& p = *it->second;
    s.value = p.value;
    s.type = p.type;
    if (p.type == ValueType::Binary) {
      s.type = ValueType::String;
      s.value = to_base64_token(p.value);
    }
    auto lit = p.meta.find(kMetaJsonLiteral);
    if (lit != p.meta.end()) s.meta[kMetaJsonLiteral] = lit->second;
  }
  doc->set_header(std::nullopt);
  return emit_document(*doc);
}

std::vector<std::string> Config::notes() const {
  const Impl& m = *impl_;
  std::vector<std::string> out = m.notes;
  out.insert(out.end(), m.crypto->notes().begin(), m.crypto->notes().end());
  for (const auto& [alg, provider] : m.crypto->used()) out.push_back(alg + " by " + provider);
  out.insert(out.end(), m.keyring->notes().begin(), m.keyring->notes().end());
  // Each crypto library is a module loaded on first use: say which ones this process loaded.
  std::string loaded;
  for (const auto& name : cb::loaded_provider_names())
    loaded += (loaded.empty() ? "" : ", ") + name;
  out.push_back("crypto libraries loaded: " + loaded);
  return out;
}

const std::map<std::string, uint64_t>& Config::crypto_runs() const { return impl_->crypto->runs(); }

std::string save(const KeySet& keys, const Options& options, Scheme scheme, bool whole_file) {
  Config c = Config::create(options, scheme, whole_file);
  c.keys() = keys;
  return c.save();
}

KeySet open(const std::string& bytes, const Options& options) {
  return Config::open(bytes, options).keys();
}

}  // namespace confcrypt
