// What can go wrong when opening or writing a protected configuration, as values: every failure
// the user can act on has its own status, its own exit code of the `confcrypt` command and a
// one-line message (docs/confcrypt.md, "Errors and exit codes").
#pragma once

#include <string>

#include "confcrypt/keyset.hpp"

namespace confcrypt {

// The numbers are the exit codes of the `confcrypt` command; they never change meaning.
enum class Status : int {
  kOk = 0,
  kInternal = 1,         // a bug or an unexpected library failure
  kUsage = 2,            // bad command line or option
  kIo = 3,               // a file cannot be read or written
  kMalformed = 4,        // not a well-formed file, header or token
  kUnknownProvider = 5,  // --provider names no compiled-in provider
  kUnsupported = 6,      // no compiled-in provider offers an algorithm the file needs
  kNoKey = 7,            // no recipient of the file can be unlocked here
  kWrongPassphrase = 8,
  kTamperedValue = 9,   // an encrypted value fails authentication
  kSwappedValue = 10,   // an authentic encrypted value sits under another key's name
  kRemovedEntry = 11,   // a protected (or any covered) entry is gone
  kUnmarkedEntry = 12,  // a protected entry is stored in the clear or lost its marker
  kAddedEntry = 13,     // an entry the file MAC does not cover
  kModified = 14,       // the file MAC fails otherwise (names, plain values, order, header)
  kUnsigned = 15,       // whole-file mode: the file carries no signature
  kBadSignature = 16,   // whole-file mode: the signature does not verify
  kUnknownSigner = 17,  // whole-file mode: a valid signature, but not by a configured signer
  kGpg = 18,            // gpg is missing or failed for another reason
  kNoSuchKey = 19,      // `get` of a key the file does not have
  kCompat = 20,         // compatibility mode: wrong master password or a broken thesis value
  kUnprotected = 21,    // no valid confcrypt header: refused unless plain reading is asked for
  kTooLarge = 22,       // `exec`: the environment would exceed the kernel's execve() limit
  kExec = 127,          // `exec`: the command cannot be run (as in the shell)
};

// A short stable name for a status ("tampered-value"), for documentation and tests.
const char* status_name(Status status);

struct Failure : Error {
  Failure(Status status, const std::string& message) : Error(message), status_(status) {}
  Status status() const { return status_; }

 private:
  Status status_;
};

}  // namespace confcrypt
