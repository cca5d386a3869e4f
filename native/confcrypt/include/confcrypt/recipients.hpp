// Who can unwrap a file's data key: GnuPG keys (through the real gpg), a passphrase (scrypt, run
// once per file, the wrap is AEAD) and key files (32 random bytes). Several per file.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "confcrypt/crypto.hpp"
#include "confcrypt/gpg.hpp"

namespace confcrypt {

// scrypt cost for new passphrase recipients: N = 2^15, r = 8, p = 1 (32 MiB, RFC 7914's
// interactive-use figure); the reader takes the parameters from the header.
inline constexpr uint64_t kScryptN = uint64_t(1) << 15;
inline constexpr uint64_t kScryptR = 8;
inline constexpr uint64_t kScryptP = 1;
inline constexpr size_t kScryptSaltLen = 16;
inline constexpr size_t kKeyFileLen = 32;

// A recipient as the user names it: "gpg:FINGERPRINT" (or a bare fingerprint), "passphrase",
// "keyfile:PATH".
struct RecipientSpec {
  Recipient::Kind kind = Recipient::Kind::kGpg;
  std::string value;  // gpg: normalised fingerprint; key file: path
};
// Throws Failure(kUsage).
RecipientSpec parse_recipient_spec(const std::string& text);

// What may unlock a file, and what is needed to wrap a new or rotated data key.
struct Secrets {
  // The passphrase, when given (--passphrase-file, CONFCRYPT_PASSPHRASE or the API).
  std::optional<std::string> passphrase;
  // Asks for a passphrase when none was given (the CLI reads the terminal); `confirm` asks twice
  // (a new passphrase). Empty: never ask.
  std::function<std::string(const std::string& prompt, bool confirm)> prompt;
  std::vector<std::string> key_files;  // paths of key files to try
  bool use_gpg = true;                 // try the gpg recipients with the local secret keys
};

// Unwraps and caches key material for one file: the data key, and what rotating needs (the
// passphrase-derived key, key file contents).
class Keyring {
 public:
  Keyring(Crypto& crypto, const Gpg& gpg, Secrets secrets);

  // The data key of a file. Throws Failure(kWrongPassphrase) when a passphrase was tried and is
  // wrong and nothing else worked, Failure(kNoKey) naming the recipients when nothing could be
  // tried, Failure(kModified) when a wrap fails that must have worked (the header was edited).
  std::string unlock(const Header& header);
  // What unlocked it ("keyfile:KID", "passphrase", "gpg:FPR").
  const std::string& unlocked_by() const { return unlocked_by_; }

  // A recipient entry wrapping `data_key` for `spec` (a new key file is created, mode 0600).
  Recipient wrap_new(const Header& header, const std::string& data_key, const RecipientSpec& spec);
  // The same recipient (`old`, from `header`) wrapping another data key for `new_header`
  // (rotation); a passphrase recipient keeps its salt, and the passphrase is checked first.
  Recipient rewrap(const Header& header, const Recipient& old, const Header& new_header,
                   const std::string& data_key);

  // Messages about key files created and the like, for the CLI.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::string passphrase_key(const Recipient& r, const std::string& passphrase);
  std::optional<std::string> try_passphrase(const Header& h, const Recipient& r,
                                            const std::string& passphrase);
  std::string key_file_for(const Recipient& r);
  std::string ask(const std::string& prompt, bool confirm);

  Crypto& crypto_;
  const Gpg& gpg_;
  Secrets secrets_;
  std::map<std::string, std::string> key_files_;  // key id -> key
  std::map<std::string, std::string> kek_cache_;  // salt||params -> passphrase-derived key
  std::optional<std::vector<std::string>> secret_fprs_;
  std::string unlocked_by_;
  std::vector<std::string> notes_;
};

// The associated data of a wrapped data key: length-prefixed ("confcrypt-wrap", version, file id,
// recipient kind, recipient id).
std::string wrap_ad(const Header& header, const Recipient& recipient);

// Key files: 32 random bytes, created with O_EXCL and mode 0600.
std::string create_key_file(const std::string& path);
// Throws Failure(kIo) or Failure(kNoKey) when the file is not a 32-byte key.
std::string read_key_file(const std::string& path);
// A key file's public id: the first 8 bytes of HMAC-SHA-256(key, "confcrypt key id"), hex.
std::string key_file_id(Crypto& crypto, const std::string& key);

// Whether `r` is the recipient `spec` names (a key file by its id).
bool matches(Crypto& crypto, const Recipient& r, const RecipientSpec& spec);

}  // namespace confcrypt
