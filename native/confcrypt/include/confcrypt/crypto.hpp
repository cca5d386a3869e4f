// Per-value encryption and the file MAC (docs/confcrypt.md, "File format").
//
// One random 256-bit data key per file. From it, HKDF-SHA-256 (salt = file id) derives a value key
// for the per-value AEAD and a MAC key for the file MAC, so the two uses never share a key. Each
// protected value is sealed with a fresh random 96-bit nonce; its associated data binds the
// format version, the file id, the key's full path and the value's type, so a value moved to
// another key, another file or another type fails to open. The file MAC (HMAC-SHA-256) covers the
// header (recipients, encryption policy) and every key's path, encrypted flag, type and stored
// value in file order, so removing, adding, reordering or un-marking an entry is detected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "confcrypt/errors.hpp"
#include "confcrypt/io.hpp"
#include "confcrypt/keyset.hpp"

namespace cb {
class Provider;
class Operation;
}  // namespace cb

namespace confcrypt {

inline constexpr uint8_t kFormatVersion = 1;
inline constexpr size_t kDataKeyLen = 32;
inline constexpr size_t kNonceLen = 12;
inline constexpr size_t kTagLen = 16;
inline constexpr size_t kFileIdLen = 16;
inline constexpr char kDefaultAead[] = "aes-256-gcm";
inline constexpr char kDefaultProvider[] = "openssl";

// `n` bytes from the kernel's CSPRNG (getrandom); throws Failure on error.

// Base64url without padding (RFC 4648 section 5): the alphabet of tokens and header fields.
std::string b64url_encode(const std::string& bytes);
// Throws Failure(kMalformed) naming `what` on a bad character or length.
std::string b64url_decode(const std::string& text, const char* what);

// The cryptography confcrypt needs, from the provider adapters of libcryptobench. Each algorithm
// comes from the selected provider when it offers it, else from the first compiled-in provider
// that does (recorded in notes()): the bytes are the same, any provider reads what any wrote.
class Crypto {
 public:
  // Throws Failure(kUnknownProvider) when no such provider is compiled in.
  explicit Crypto(const std::string& provider = kDefaultProvider);
  ~Crypto();
  Crypto(const Crypto&) = delete;
  Crypto& operator=(const Crypto&) = delete;
  const std::string& provider_name() const { return provider_name_; }

  // The provider doing `algorithm`; throws Failure(kUnsupported) when none offers it.
  cb::Provider& provider_for(const std::string& algorithm);
  // The name of that provider (for `show --verbose`).
  std::string provider_name_for(const std::string& algorithm);

  // AEAD ("aes-256-gcm" or "chacha20-poly1305"): ciphertext || 16-byte tag.
  std::string seal(const std::string& aead, const std::string& key, const std::string& nonce,
                   const std::string& ad, const std::string& plaintext);
  // nullopt when the tag does not verify.
  std::optional<std::string> open(const std::string& aead, const std::string& key,
                                  const std::string& nonce, const std::string& ad,
                                  const std::string& sealed);
  std::string hmac_sha256(const std::string& key, const std::string& message);
  std::string hkdf_sha256(const std::string& ikm, const std::string& salt, const std::string& info,
                          size_t out_len);
  std::string scrypt(const std::string& passphrase, const std::string& salt, uint64_t n, uint64_t r,
                     uint64_t p, size_t out_len);

  // Human-readable lines: which provider did what when it was not the selected one.
  const std::vector<std::string>& notes() const { return notes_; }
  // Every algorithm used so far and the provider that did it.
  std::map<std::string, std::string> used() const;
  // How many times each operation ran ("aes-256-gcm seal", "aes-256-gcm open", "hmac-sha256",
  // "hkdf-sha256", "scrypt"): the work done, for tests and `show --verbose`.
  const std::map<std::string, uint64_t>& runs() const { return runs_; }

 private:
  std::string provider_name_;
  cb::Provider* selected_;
  std::map<std::string, cb::Provider*> chosen_;
  std::vector<std::string> notes_;
  bool hkdf_from_hmac_ = false;
  std::map<std::string, uint64_t> runs_;
  // The AEAD operation last prepared for seal and for open, with its key: the next value under
  // the same key rebinds nonce and AD (cb::Operation::rebind) instead of a new key schedule and
  // context per value. The kept keys are wiped when they change and in the destructor.
  struct KeptAead {
    std::string aead, key;
    std::unique_ptr<cb::Operation> op;
  };
  KeptAead kept_seal_, kept_open_;
  cb::Operation& aead_op(KeptAead& kept, const std::string& aead, bool seal, const std::string& key,
                         const std::string& nonce, const std::string& ad);
};

// True for the AEAD names a token may carry.
bool is_supported_aead(const std::string& name);

// ---- values -----------------------------------------------------------------------------------

// The type of a value as the token and the MAC record it: 'b' binary, 's' string, 'n' null,
// 'l' a JSON literal (number, true, false) kept as its text.
char type_letter(const Key& key);
// Applies a type letter to a key (type and the JSON-literal metadata).
void apply_type_letter(Key& key, char letter);

// A stored encrypted value:  ENC:cc1:<aead>:<type letter>:<nonce>:<ciphertext||tag>
// with nonce and ciphertext in base64url without padding. Only [A-Za-z0-9_:-] occur, so the
// token needs no quoting or escaping in INI, JSON, dotenv or a shell.
struct Token {
  std::string aead;
  char type = 's';
  std::string nonce;
  std::string sealed;  // ciphertext || tag
};
inline constexpr char kTokenPrefix[] = "ENC:cc1:";
bool looks_like_token(const std::string& stored);
std::string format_token(const Token& token);
// Throws Failure(kMalformed) naming `path`.
Token parse_token(const std::string& stored, const std::string& path);

// The associated data of one value: the length-prefixed encoding of (label "confcrypt-value",
// format version, file id, full key path, type letter).
std::string value_ad(const std::string& file_id, const std::string& path, char type);

// The keys derived from a file's data key.
struct FileKeys {
  std::string value_key;  // HKDF(data key, salt = file id, info "confcrypt v1 value key")
  std::string mac_key;    // HKDF(data key, salt = file id, info "confcrypt v1 file mac")
};
FileKeys derive_file_keys(Crypto& crypto, const std::string& data_key, const std::string& file_id);

// Seals one plaintext value (fresh nonce) into its token text.
std::string encrypt_value(Crypto& crypto, const std::string& aead, const FileKeys& keys,
                          const std::string& file_id, const std::string& path, char type,
                          const std::string& plaintext);

// ---- header -----------------------------------------------------------------------------------

// One party that can unwrap the data key (recipients.hpp does the wrapping).
struct Recipient {
  enum class Kind { kGpg, kPassphrase, kKeyFile };
  Kind kind = Kind::kGpg;
  std::string id;  // gpg: the key's fingerprint (upper-case hex); key file: its key id (hex)
  // Passphrase: scrypt parameters and salt.
  std::string salt;
  uint64_t n = 0, r = 0, p = 0;
  std::string nonce;    // passphrase, key file: the nonce of the AEAD wrap
  std::string wrapped;  // gpg: an OpenPGP message; passphrase, key file: ciphertext || tag
};
// The scrypt costs a reader accepts from a header (scrypt runs before the MAC can be checked, so
// an edited header must not be able to make a read allocate gigabytes or run for minutes): N a
// power of two from 2^15 to 2^18, r 8 to 16, p 1 to 4, and memory 128 * N * r at most 256 MiB.
// What `init` writes (recipients.hpp: N = 2^15, r = 8, p = 1, 32 MiB) is well inside; the worst
// accepted file costs 8 times its memory and 32 times its time.
inline constexpr uint64_t kScryptMinN = uint64_t(1) << 15, kScryptMaxN = uint64_t(1) << 18;
inline constexpr uint64_t kScryptMinR = 8, kScryptMaxR = 16;
inline constexpr uint64_t kScryptMinP = 1, kScryptMaxP = 4;
inline constexpr uint64_t kScryptMaxMemory = uint64_t(256) << 20;
const char* kind_name(Recipient::Kind kind);  // "gpg", "passphrase", "keyfile"
// "gpg:FPR", "passphrase", "keyfile:KID": how lists and messages name a recipient.
std::string describe(const Recipient& recipient);

// The header's version: "cc2" is written; "cc1" (its protected paths listed in the header, one
// line growing with every protected key) is still read, and migrated by the next write.
inline constexpr uint8_t kHeaderVersion = 2;

// The header a per-value file keeps in the format's header slot (one text line).
struct Header {
  uint8_t version = kHeaderVersion;
  std::string file_id;
  std::string aead = kDefaultAead;
  std::vector<Recipient> recipients;
  // The encryption policy. Version 2: each protected entry is marked where it stands (its value
  // is a token; INI and dotenv: it carries the #@META marker), the MAC covers every entry's
  // encrypted flag, and the header holds how many there are. Version 1: the protected paths.
  // Both: the selection regexes (ECMAScript, searched anywhere in the path) every matching key
  // is encrypted by.
  uint64_t protected_count = 0;              // version 2
  std::vector<std::string> protected_paths;  // version 1
  std::vector<std::string> regexes;
  uint64_t key_count = 0;  // keys covered by the MAC
  std::string mac;

  std::string to_text() const;
  // Strict: the text must be exactly what to_text() gives back; throws Failure(kMalformed).
  static Header from_text(const std::string& text);
};

// Which stored keys are encrypted: version 2, those whose value is a token; version 1, those the
// header lists.
std::vector<bool> encrypted_flags(const Header& header, const KeySet& stored);

// The MAC input: length-prefixed encoding of the header (all but the MAC) and, for every key in
// order, (path, encrypted flag, type letter, stored value). `stored` holds the stored form.
std::string mac_input(const Header& header, const KeySet& stored,
                      const std::vector<bool>& encrypted);
std::string file_mac(Crypto& crypto, const FileKeys& keys, const Header& header,
                     const KeySet& stored, const std::vector<bool>& encrypted);

// Whether a path is selected by one of the header's regexes. Throws Failure(kMalformed) for a
// regex that does not compile.
class PathSelector {
 public:
  explicit PathSelector(const std::vector<std::string>& regexes);
  bool matches(const std::string& path) const;

 private:
  struct Impl;
  std::vector<std::shared_ptr<const Impl>> impls_;
};

// Verifies a stored key set against the header and decrypts it. On success returns the plaintext
// key set (protected keys carry meta crypto/encrypt = 1). On failure throws the Failure that
// names what happened: removed, un-marked, added, swapped, tampered entries, or a MAC mismatch.
// `stores_meta`: the format keeps the crypto/encrypt marker in the file (INI, dotenv).
KeySet verify_and_decrypt(Crypto& crypto, const Header& header, const FileKeys& keys,
                          const KeySet& stored, bool stores_meta);

}  // namespace confcrypt
