// The real `gpg`, driven through pipes only: the data goes to its stdin and comes back from its
// stdout, machine-readable status from --status-fd on a third pipe. Nothing is written to a file.
#pragma once

#include <string>
#include <vector>

#include "confcrypt/errors.hpp"

namespace confcrypt {

struct ProcessResult {
  int exit_code = -1;  // the exit status, or 128 + signal number
  std::string out;     // stdout
  std::string err;     // stderr
  std::string status;  // what the child wrote to fd 3 (only with want_status_fd)
};

// A program that did not finish in time (it was killed): a Failure(kGpg) that callers trying
// several ways to unlock a file must not take for "this key is not here".
struct Timeout : Failure {
  explicit Timeout(const std::string& message) : Failure(Status::kGpg, message) {}
};

// Runs argv[0] (searched in PATH) with `input` on its stdin and stdout, stderr (and fd 3 when
// want_status_fd) on pipes, all serviced at once so neither side blocks. The child inherits the
// environment and no other descriptor, and runs in its own process group. Throws Failure(kGpg)
// when the program cannot be started, and Timeout when `timeout_seconds` (> 0) pass before it
// ends: its process group is then killed (SIGKILL) and reaped.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input,
                          bool want_status_fd, double timeout_seconds = 0);

inline constexpr double kDefaultGpgTimeout = 60;  // seconds

struct GpgOptions {
  std::string program = "gpg";  // CONFCRYPT_GPG overrides it in the CLI
  std::string homedir;          // --homedir when set; else gpg's own default (GNUPGHOME)
  // A gpg that hangs (an agent waiting for a pinentry nobody sees, a broken wrapper) is killed
  // after this many seconds: Timeout, exit 18. 0: wait for ever.
  double timeout_seconds = kDefaultGpgTimeout;
};

// One "[GNUPG:] KEYWORD args..." line of --status-fd output.
struct GpgStatus {
  std::string keyword;
  std::vector<std::string> args;
};

class Gpg {
 public:
  explicit Gpg(GpgOptions options = {});

  // Encrypts to every fingerprint (trust model "always": recipients are named by full
  // fingerprint, which is what authenticates them); signs too when `sign` is set, with
  // `sign_with` or gpg's default key. Throws Failure(kGpg) with gpg's message.
  std::string encrypt(const std::string& data, const std::vector<std::string>& recipients,
                      bool sign, const std::string& sign_with, bool armor) const;

  struct Decrypted {
    int exit_code = -1;
    std::string plaintext;
    std::string err;  // gpg's stderr, for messages
    std::vector<GpgStatus> status;
  };
  // `gpg --decrypt` with --status-fd; never throws for a failed decryption or verification (the
  // caller reads the status lines), only when gpg cannot be run, times out, or fails without a
  // single status line (not gpg, or gpg broken: Failure(kGpg)).
  Decrypted decrypt(const std::string& data) const;

  // Fingerprints of every secret key and subkey in the keyring.
  std::vector<std::string> secret_fingerprints() const;

  // Upper-case hex without blanks or "0x"; throws Failure(kUsage) unless it is a full v4 (40 hex
  // digits) or v5 (64) fingerprint: short ids and user ids are ambiguous.
  static std::string normalize_fingerprint(const std::string& text);

  const GpgOptions& options() const { return options_; }

 private:
  std::vector<std::string> base_args() const;
  GpgOptions options_;
};

// gpg's stderr reduced to one line for an error message.
std::string first_gpg_message(const std::string& err);

}  // namespace confcrypt
