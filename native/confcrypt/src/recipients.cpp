#include "confcrypt/recipients.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "confcrypt/io.hpp"

namespace confcrypt {

namespace {

void put(std::string& out, const std::string& field) {
  uint32_t n = uint32_t(field.size());
  for (int shift = 24; shift >= 0; shift -= 8) out += char((n >> shift) & 0xff);
  out += field;
}

std::string to_hex(const std::string& bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out += kHex[uint8_t(c) >> 4];
    out += kHex[uint8_t(c) & 15];
  }
  return out;
}

bool is_key_id(const std::string& s) {
  return s.size() == 16 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

}  // namespace

RecipientSpec parse_recipient_spec(const std::string& text) {
  RecipientSpec s;
  if (text == "passphrase") {
    s.kind = Recipient::Kind::kPassphrase;
  } else if (text.rfind("keyfile:", 0) == 0 && text.size() > 8) {
    s.kind = Recipient::Kind::kKeyFile;
    s.value = text.substr(8);
  } else if (text.rfind("gpg:", 0) == 0) {
    s.kind = Recipient::Kind::kGpg;
    s.value = Gpg::normalize_fingerprint(text.substr(4));
  } else {
    try {
      s.kind = Recipient::Kind::kGpg;
      s.value = Gpg::normalize_fingerprint(text);
    } catch (const Failure&) {
      throw Failure(Status::kUsage,
                    "bad recipient '" + text + "' (gpg:FINGERPRINT, passphrase or keyfile:PATH)");
    }
  }
  return s;
}

std::string wrap_ad(const Header& h, const Recipient& r) {
  std::string ad;
  put(ad, "confcrypt-wrap");
  // The wrap format's version, not the header's: a header migrated to a new version keeps its
  // wrapped keys.
  put(ad, std::string(1, char(kFormatVersion)));
  put(ad, h.file_id);
  put(ad, kind_name(r.kind));
  put(ad, r.id);
  if (r.kind == Recipient::Kind::kPassphrase) {
    put(ad, r.salt);
    put(ad, std::to_string(r.n) + ":" + std::to_string(r.r) + ":" + std::to_string(r.p));
  }
  return ad;
}

std::string create_key_file(const std::string& path) {
  std::string key = random_bytes(kKeyFileLen);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw Failure(Status::kIo, "cannot create key file " + path + ": " + strerror(errno));
  }
  bool ok = fchmod(fd, 0600) == 0 && write(fd, key.data(), key.size()) == ssize_t(key.size()) &&
            fsync(fd) == 0;
  int saved = errno;
  ok = close(fd) == 0 && ok;
  if (!ok) {
    unlink(path.c_str());
    throw Failure(Status::kIo, "cannot write key file " + path + ": " + strerror(saved));
  }
  return key;
}

std::string read_key_file(const std::string& path) {
  std::string key;
  try {
    key = read_file(path, kKeyFileLen + 1);  // a key file is 32 bytes; never read more
  } catch (const Error& e) {
    throw Failure(Status::kIo, e.what());
  }
  if (key.size() != kKeyFileLen) {
    throw Failure(Status::kNoKey, path + " is not a confcrypt key file (32 bytes)");
  }
  return key;
}

std::string key_file_id(Crypto& crypto, const std::string& key) {
  return to_hex(crypto.hmac_sha256(key, "confcrypt key id").substr(0, 8));
}

bool matches(Crypto& crypto, const Recipient& r, const RecipientSpec& spec) {
  if (r.kind != spec.kind) return false;
  switch (r.kind) {
    case Recipient::Kind::kPassphrase:
      return true;
    case Recipient::Kind::kGpg:
      return r.id == spec.value;
    case Recipient::Kind::kKeyFile:
      // A lost key file can still be removed by its id.
      if (!exists(spec.value)) return is_key_id(spec.value) && r.id == spec.value;
      return r.id == key_file_id(crypto, read_key_file(spec.value));
  }
  return false;
}

Keyring::Keyring(Crypto& crypto, const Gpg& gpg, Secrets secrets)
    : crypto_(crypto), gpg_(gpg), secrets_(std::move(secrets)) {}

std::string Keyring::ask(const std::string& prompt, bool confirm) {
  std::string p = secrets_.prompt(prompt, confirm);
  if (p.empty()) throw Failure(Status::kUsage, "empty passphrase");
  return p;
}

std::string Keyring::passphrase_key(const Recipient& r, const std::string& passphrase) {
  std::string cache_key = r.salt + ":" + std::to_string(r.n) + ":" + std::to_string(r.r) + ":" +
                          std::to_string(r.p) + ":" + passphrase;
  auto it = kek_cache_.find(cache_key);
  if (it != kek_cache_.end()) return it->second;
  std::string kek = crypto_.scrypt(passphrase, r.salt, r.n, r.r, r.p, 32);
  kek_cache_[cache_key] = kek;
  return kek;
}

std::optional<std::string> Keyring::try_passphrase(const Header& h, const Recipient& r,
                                                   const std::string& passphrase) {
  std::string kek = passphrase_key(r, passphrase);
  auto dk = crypto_.open(h.aead, kek, r.nonce, wrap_ad(h, r), r.wrapped);
  if (dk) secrets_.passphrase = passphrase;  // remembered for rotation
  return dk;
}

std::string Keyring::unlock(const Header& h) {
  for (const auto& path : secrets_.key_files) {
    std::string key = read_key_file(path);
    key_files_[key_file_id(crypto_, key)] = key;
  }
  bool has_pass = false, has_gpg = false, has_keyfile = false;
  for (const Recipient& r : h.recipients) {
    if (r.kind == Recipient::Kind::kPassphrase) has_pass = true;
    if (r.kind == Recipient::Kind::kGpg) has_gpg = true;
    if (r.kind == Recipient::Kind::kKeyFile) has_keyfile = true;
    if (r.kind != Recipient::Kind::kKeyFile || !key_files_.count(r.id)) continue;
    auto dk = crypto_.open(h.aead, key_files_[r.id], r.nonce, wrap_ad(h, r), r.wrapped);
    if (!dk) {
      throw Failure(Status::kModified, "the data key wrapped for key file " + r.id +
                                           " does not authenticate: the header was changed");
    }
    unlocked_by_ = describe(r);
    return *dk;
  }

  bool tried_pass = false;
  if (secrets_.passphrase) {
    for (const Recipient& r : h.recipients) {
      if (r.kind != Recipient::Kind::kPassphrase) continue;
      tried_pass = true;
      if (auto dk = try_passphrase(h, r, *secrets_.passphrase)) {
        unlocked_by_ = describe(r);
        return *dk;
      }
    }
  }

  std::string gpg_problem;
  bool gpg_broken = false;  // gpg did not work (cannot run, failed without a status line)
  if (has_gpg && secrets_.use_gpg) {
    try {
      // With one gpg recipient, decrypting is the test of whether its key is here; listing the
      // secret keys first pays off only when it saves failed attempts on several recipients.
      size_t gpg_recipients = 0;
      for (const Recipient& r : h.recipients) gpg_recipients += r.kind == Recipient::Kind::kGpg;
      if (gpg_recipients > 1 && !secret_fprs_) secret_fprs_ = gpg_.secret_fingerprints();
      for (const Recipient& r : h.recipients) {
        if (r.kind != Recipient::Kind::kGpg) continue;
        if (secret_fprs_ &&
            std::find(secret_fprs_->begin(), secret_fprs_->end(), r.id) == secret_fprs_->end()) {
          continue;
        }
        Gpg::Decrypted d = gpg_.decrypt(r.wrapped);
        if (d.exit_code == 0 && d.plaintext.size() == kDataKeyLen) {
          unlocked_by_ = describe(r);
          return d.plaintext;
        }
        gpg_problem = "gpg cannot decrypt the key for " + r.id + ": " + first_gpg_message(d.err);
      }
    } catch (const Timeout&) {
      throw;  // a hung gpg is not "no key here": the user must hear that gpg hangs
    } catch (const Failure& f) {
      if (f.status() != Status::kGpg) throw;
      gpg_problem = f.what();
      gpg_broken = true;
    }
  }

  if (has_pass && !tried_pass && secrets_.prompt) {
    std::string pass = ask("Passphrase: ", false);
    for (const Recipient& r : h.recipients) {
      if (r.kind != Recipient::Kind::kPassphrase) continue;
      tried_pass = true;
      if (auto dk = try_passphrase(h, r, pass)) {
        unlocked_by_ = describe(r);
        return *dk;
      }
    }
  }

  if (tried_pass) throw Failure(Status::kWrongPassphrase, "wrong passphrase");
  std::string how;
  if (has_gpg)
    how += ", a gpg secret key (" + (gpg_problem.empty() ? "none here" : gpg_problem) + ")";
  if (has_pass) how += ", a passphrase (none given: --passphrase-file or CONFCRYPT_PASSPHRASE)";
  if (has_keyfile) {
    how += secrets_.key_files.empty() ? ", a key file (none given: --key-file)"
                                      : ", a key file (the ones given do not match)";
  }
  std::string list;
  for (const Recipient& r : h.recipients) list += (list.empty() ? "" : " ") + describe(r);
  // gpg itself failing is its own error: the key may well be here.
  throw Failure(gpg_broken ? Status::kGpg : Status::kNoKey,
                "no usable key: the file opens with " + how.substr(2) + "; recipients: " + list);
}

Recipient Keyring::wrap_new(const Header& h, const std::string& data_key,
                            const RecipientSpec& spec) {
  Recipient r;
  r.kind = spec.kind;
  switch (spec.kind) {
    case Recipient::Kind::kGpg:
      r.id = spec.value;
      r.wrapped = gpg_.encrypt(data_key, {spec.value}, false, "", false);
      return r;
    case Recipient::Kind::kPassphrase: {
      if (!secrets_.passphrase) {
        if (!secrets_.prompt) {
          throw Failure(Status::kUsage,
                        "a passphrase recipient needs a passphrase: --passphrase-file or "
                        "CONFCRYPT_PASSPHRASE");
        }
        secrets_.passphrase = ask("New passphrase: ", true);
      }
      if (secrets_.passphrase->empty()) throw Failure(Status::kUsage, "empty passphrase");
      r.salt = random_bytes(kScryptSaltLen);
      r.n = kScryptN;
      r.r = kScryptR;
      r.p = kScryptP;
      std::string kek = passphrase_key(r, *secrets_.passphrase);
      r.nonce = random_bytes(kNonceLen);
      r.wrapped = crypto_.seal(h.aead, kek, r.nonce, wrap_ad(h, r), data_key);
      return r;
    }
    case Recipient::Kind::kKeyFile: {
      std::string key;
      if (exists(spec.value)) {
        key = read_key_file(spec.value);
      } else {
        key = create_key_file(spec.value);
        notes_.push_back("created key file " + spec.value + " (mode 0600): keep it secret");
      }
      r.id = key_file_id(crypto_, key);
      key_files_[r.id] = key;
      r.nonce = random_bytes(kNonceLen);
      r.wrapped = crypto_.seal(h.aead, key, r.nonce, wrap_ad(h, r), data_key);
      return r;
    }
  }
  return r;
}

std::string Keyring::key_file_for(const Recipient& r) {
  auto it = key_files_.find(r.id);
  if (it == key_files_.end()) {
    throw Failure(Status::kNoKey, "re-wrapping the data key for keyfile:" + r.id +
                                      " needs that key file: give it with --key-file");
  }
  return it->second;
}

Recipient Keyring::rewrap(const Header& h, const Recipient& old, const Header& new_header,
                          const std::string& data_key) {
  Recipient r = old;
  switch (old.kind) {
    case Recipient::Kind::kGpg:
      r.wrapped = gpg_.encrypt(data_key, {old.id}, false, "", false);
      break;
    case Recipient::Kind::kPassphrase: {
      // The passphrase must be the one this recipient was made with: checked against its
      // current wrap before the new key is wrapped under it.
      std::optional<std::string> dk;
      if (secrets_.passphrase) dk = try_passphrase(h, old, *secrets_.passphrase);
      if (!dk && secrets_.prompt) {
        std::string pass = ask("Passphrase: ", false);
        dk = try_passphrase(h, old, pass);
      }
      if (!dk) {
        throw Failure(
            secrets_.passphrase || secrets_.prompt ? Status::kWrongPassphrase : Status::kNoKey,
            secrets_.passphrase || secrets_.prompt
                ? "wrong passphrase"
                : "re-wrapping the data key for the passphrase recipient needs the "
                  "passphrase: --passphrase-file or CONFCRYPT_PASSPHRASE");
      }
      r.nonce = random_bytes(kNonceLen);
      r.wrapped = crypto_.seal(new_header.aead, passphrase_key(old, *secrets_.passphrase), r.nonce,
                               wrap_ad(new_header, r), data_key);
      break;
    }
    case Recipient::Kind::kKeyFile:
      r.nonce = random_bytes(kNonceLen);
      r.wrapped = crypto_.seal(new_header.aead, key_file_for(old), r.nonce, wrap_ad(new_header, r),
                               data_key);
      break;
  }
  return r;
}

}  // namespace confcrypt
