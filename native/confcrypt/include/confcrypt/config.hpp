// Opening and saving a configuration through the whole chain (docs/confcrypt.md):
//
//   open:  bytes -> whole-file (OpenPGP, if the bytes are a message) -> storage format -> per-value
//          crypto (confcrypt's scheme, or the thesis's in compatibility mode) -> text encoding
//          (@BASE64 for binary values) -> plaintext key set
//   save:  the same, reversed, ending in an atomic write.
//
// The library works without the command-line tool: the benchmark driver calls save() and open()
// (below) in-process.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "confcrypt/compat.hpp"
#include "confcrypt/crypto.hpp"
#include "confcrypt/gpg.hpp"
#include "confcrypt/keyset.hpp"
#include "confcrypt/recipients.hpp"

namespace confcrypt {

// How protected values are stored.
enum class Scheme {
  kPlain,     // no per-value encryption (no confcrypt header)
  kPerValue,  // confcrypt's scheme: data key, AEAD tokens, file MAC
  kCompat,    // the thesis's format: #!crypto00 values in @BASE64, PBKDF2 per value, CBC
};

struct Options {
  std::string provider = kDefaultProvider;  // the crypto library, by adapter name
  std::string format;                       // "ini", "json", "dotenv"; empty: from `source`
  std::string source;                       // the file name: format detection and messages
  std::string aead = kDefaultAead;          // for new files and rotation

  // Per-value mode: what may unlock a file; the recipients and regexes of a new one.
  Secrets secrets;
  std::vector<RecipientSpec> recipients;
  std::vector<std::string> encrypt_regexes;

  // Whole-file mode.
  GpgOptions gpg;                                 // also used by gpg recipients
  std::vector<std::string> signers;               // fingerprints trusted to sign (reading)
  std::vector<std::string> wholefile_recipients;  // fingerprints to encrypt to (writing)
  std::string sign_with;                          // signing key; empty: gpg's default key
  bool armor = true;

  // A file without a confcrypt header is refused (Status::kUnprotected) unless this is set:
  // reading commands treat every file as protected unless told otherwise, so a stripped or
  // damaged header can never turn a protected file into plain configuration silently. init,
  // migrate, set and whole-file encrypt set it (they make files protected); --unprotected sets
  // it for the reading commands.
  bool allow_unprotected = false;
  // With a signer configured, only a signed OpenPGP message is read — except by the commands
  // that make or edit a file (init, set, migrate, encrypt), which read its plain form.
  bool allow_unsigned = false;

  // Compatibility mode: read (and write) the thesis's per-value format.
  bool compat = false;
  std::optional<std::string> master_password;
  uint32_t compat_iterations = kCompatIterations;
  // The PBKDF2 hash of the thesis's variant that wrote the values (SHA-512: libgcrypt's).
  CompatKdf compat_kdf = kCompatDefaultKdf;
};

class Config {
 public:
  // Opens a file's bytes. Throws Failure (see errors.hpp) for everything that can go wrong.
  static Config open(const std::string& bytes, Options options);
  // read_file + open; options.source defaults to the path.
  static Config open_file(const std::string& path, Options options);
  // A new, empty configuration. kPerValue needs options.recipients.
  static Config create(Options options, Scheme scheme, bool whole_file = false);

  Config(Config&&) noexcept;
  Config& operator=(Config&&) noexcept;
  ~Config();

  // The plaintext view. A key with meta crypto/encrypt = "1" (or whose path matches one of the
  // file's regexes) is stored encrypted by save(); edit values, add and remove keys freely.
  KeySet& keys();
  const KeySet& keys() const;
  // Sets a value; `encrypt` true marks it, false unmarks it, nullopt keeps its marking (a new
  // key is then encrypted only when a regex selects it). Throws Failure(kUsage) when a regex
  // forces encryption and encrypt == false.
  void set(const std::string& path, std::string value, ValueType type = ValueType::String,
           std::optional<bool> encrypt = std::nullopt);
  bool remove(const std::string& path);
  bool is_protected(const Key& key) const;

  Scheme scheme() const;
  bool whole_file() const;
  void set_whole_file(bool on);
  // Whole-file: the configured fingerprint whose signature was verified on open.
  const std::string& signer() const;

  // Makes a plain (or compatibility-mode) configuration a confcrypt per-value one: a new data
  // key wrapped for `recipients`, selection regexes, protected values encrypted on save().
  void init_per_value(const std::vector<RecipientSpec>& recipients,
                      const std::vector<std::string>& regexes = {});
  // Per-value only:
  void add_regex(const std::string& regex);
  const Header& header() const;  // throws Failure(kUsage) for other schemes
  void add_recipient(const RecipientSpec& spec);
  void remove_recipient(const RecipientSpec& spec);  // does not rotate; call rotate() too
  // A new data key, re-wrapped for every recipient; every value is re-encrypted on save().
  void rotate(const std::optional<std::string>& aead = std::nullopt);

  // The bytes for the current key set, through the chain reversed. Untouched lines (and
  // unchanged encrypted values) come out byte-identical.
  std::string save();
  // save() + write_file_atomic: a failure leaves the original untouched.
  void save_file(const std::string& path);

  // The file with every value in the clear and no confcrypt header (for `show`).
  std::string view() const;
  // Facts worth a line in `show --verbose`: providers used, what unlocked the file, values
  // marked but not yet encrypted.
  std::vector<std::string> notes() const;
  // How many times each crypto operation ran in this configuration's life (Crypto::runs()).
  const std::map<std::string, uint64_t>& crypto_runs() const;

 private:
  struct Impl;
  explicit Config(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The benchmark driver's entry points: a whole file written from a key set (keys with meta
// crypto/encrypt = "1" encrypted under `scheme`), and a file read back to its plaintext keys.
std::string save(const KeySet& keys, const Options& options, Scheme scheme,
                 bool whole_file = false);
KeySet open(const std::string& bytes, const Options& options);

}  // namespace confcrypt
