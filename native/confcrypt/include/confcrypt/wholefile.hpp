// Whole-file mode: the entire file is one OpenPGP message, encrypted and signed by gpg through
// pipes (no plaintext on disk). Reading requires a good signature by a configured signer.
#pragma once

#include <string>
#include <vector>

#include "confcrypt/gpg.hpp"

namespace confcrypt {

// True when `bytes` is an OpenPGP message (ASCII-armoured, or binary starting with a public- or
// symmetric-key encrypted session key packet), as opposed to a text configuration.
bool is_openpgp(const std::string& bytes);

// Encrypts to every recipient fingerprint and signs with `sign_with` (gpg's default key when
// empty). Throws Failure(kUsage) without recipients, Failure(kGpg) when gpg fails.
std::string wholefile_seal(const Gpg& gpg, const std::string& plaintext,
                           const std::vector<std::string>& recipients, const std::string& sign_with,
                           bool armor = true);

// An ASCII-armoured message's own integrity: its Base64 text decodes and, when it has one, its
// CRC-24 checksum line matches (RFC 4880 6.1). Throws Failure(kModified) naming what is wrong.
void check_armor(const std::string& armored);

struct WholeFileOpened {
  std::string plaintext;
  std::string signer;  // the configured fingerprint that matched
};
// Decrypts and checks the signature. Throws Failure with kUsage (no signers configured),
// kMalformed (not an encrypted OpenPGP message), kNoKey (no secret key here), kModified
// (integrity check or armour checksum failed), kGpg (gpg cannot run, fails or times out),
// kUnsigned, kBadSignature (bad, expired or revoked), kUnknownSigner (signed by a key that is not
// configured or not in the keyring).
WholeFileOpened wholefile_open(const Gpg& gpg, const std::string& data,
                               const std::vector<std::string>& signers);

}  // namespace confcrypt
