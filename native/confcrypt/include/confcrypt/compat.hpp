// Compatibility mode: the thesis's per-value format, byte for byte (docs/confcrypt.md,
// "Compatibility mode"), and its @BASE64 text encoding.
//
// Stored value = "#!crypto00" || salt length (4 bytes LE) || salt || AES-256-CBC(header block ||
// content zero-padded to 16), key || IV = PBKDF2-HMAC-H(master password || NUL, salt, iterations,
// 48), H = SHA-512 by default. Header block = type flag || content length (4 bytes LE) || 11 zero
// bytes; a string's content includes its terminating NUL. CBC without a MAC: only the structure of
// the decrypted header betrays a wrong password; tampering may go unnoticed (the thesis's
// weakness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "confcrypt/keyset.hpp"

namespace cb {
class Provider;
}

namespace confcrypt {

inline constexpr char kCompatMagic[] = "#!crypto00";  // magic "#!crypto" and version "00"
inline constexpr size_t kCompatSaltLen = 17;
inline constexpr uint32_t kCompatIterations = 15000;
inline constexpr char kBase64Prefix[] = "@BASE64";

// The hash inside PBKDF2: the one thing in which the thesis's three library variants differ. At
// the thesis's commit (Elektra dfa9bb8, src/plugins/crypto/*_operations.c) the libgcrypt variant
// ran PBKDF2-HMAC-SHA512, the OpenSSL variant PBKDF2-HMAC-SHA1 and the Botan variant
// PBKDF2-HMAC-SHA256; salt, iterations, 48 bytes of output and the layout are the same.
enum class CompatKdf { kSha512, kSha256, kSha1 };
inline constexpr CompatKdf kCompatDefaultKdf = CompatKdf::kSha512;  // the libgcrypt variant's

// "pbkdf2-sha512", "pbkdf2-sha256" or "pbkdf2-sha1": the catalogue's name of the KDF.
const char* compat_kdf_algorithm(CompatKdf kdf);
// "sha512", "sha256" or "sha1" (the names --compat-kdf takes).
const char* compat_kdf_name(CompatKdf kdf);
// Parses a --compat-kdf name; throws Error naming the ones there are.
CompatKdf parse_compat_kdf(const std::string& name);
// The KDF of the thesis's variant for a provider: gcrypt SHA-512, openssl SHA-1, botan SHA-256;
// nullopt for a library the thesis had no variant for.
std::optional<CompatKdf> thesis_compat_kdf(const std::string& provider);

// True when the provider offers what compatibility mode needs (the KDF and aes-256-cbc).
bool compat_supported(cb::Provider& provider, CompatKdf kdf = kCompatDefaultKdf);

// Encrypts one value with a fresh random salt (getrandom) of salt_len bytes. Returns the binary
// stored value. `plaintext` must be empty for ValueType::Null. Throws Error (also when the
// provider lacks the KDF or aes-256-cbc).
std::string encrypt_compat(cb::Provider& provider, const std::string& master_password,
                           ValueType type, const std::string& plaintext,
                           size_t salt_len = kCompatSaltLen,
                           uint32_t iterations = kCompatIterations,
                           CompatKdf kdf = kCompatDefaultKdf);
// The same with a given salt: deterministic, for known-answer tests and benchmarks.
std::string encrypt_compat_with_salt(cb::Provider& provider, const std::string& master_password,
                                     ValueType type, const std::string& plaintext,
                                     const std::string& salt,
                                     uint32_t iterations = kCompatIterations,
                                     CompatKdf kdf = kCompatDefaultKdf);
// The inverse: (type, plaintext), a string without its terminating NUL. Throws Error saying what
// is wrong: not a compat value (magic), unsupported version, truncated or malformed layout, or
// "wrong master password or corrupted value" when the decrypted header is not well-formed (also
// when the value was written with another KDF: nothing in the stored value names it).
std::pair<ValueType, std::string> decrypt_compat(cb::Provider& provider,
                                                 const std::string& master_password,
                                                 const std::string& stored,
                                                 uint32_t iterations = kCompatIterations,
                                                 CompatKdf kdf = kCompatDefaultKdf);
// True when `stored` starts with the magic "#!crypto" (any version).
bool is_compat_value(const std::string& stored);

// Standard Base64 (RFC 4648, with padding). Decoding is strict: throws Error on a character
// outside the alphabet, bad padding or a bad length.
std::string base64_encode(const std::string& bytes);
std::string base64_decode(const std::string& text);
// The thesis's text encoding of binary values: "@BASE64" || base64.
std::string to_base64_token(const std::string& binary);
bool is_base64_token(const std::string& text);
// Throws Error when `token` lacks the prefix or is not valid Base64.
std::string from_base64_token(const std::string& token);

}  // namespace confcrypt
