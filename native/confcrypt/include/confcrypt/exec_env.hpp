// `confcrypt exec`: the child's environment, built in one pass, and the kernel's limit on what
// execve() accepts, checked before the exec (docs/confcrypt.md, "exec").
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "confcrypt/keyset.hpp"

namespace confcrypt {

// The variable name of a key path: dotenv names as they are; otherwise upper-case with every
// character outside [A-Z0-9_] turned into '_' ("db/password" -> DB_PASSWORD), a leading digit
// prefixed with '_'; `prefix` goes in front.
std::string env_name(const std::string& path, const std::string& format, const std::string& prefix);

// The child's environment: `base` (NAME=value strings, e.g. this process's environ) with every
// key of `keys` set as a variable (a key replaces a base variable of the same name in place, new
// ones follow in file order). Linear in the number of keys and variables. Throws
// Failure(kUsage) for a key without a variable name, a value with a NUL byte, or two keys mapping
// to one name.
std::vector<std::string> exec_environment(const std::vector<std::string>& base, const KeySet& keys,
                                          const std::string& format, const std::string& prefix);

// What execve() counts against its limit: every argument and environment string with its NUL,
// one pointer for each, and the program's path (the kernel copies it too).
size_t exec_size(const std::string& path, const std::vector<std::string>& argv,
                 const std::vector<std::string>& envp);

// The kernel's limits: the total (sysconf(_SC_ARG_MAX), i.e. a quarter of the stack limit, at
// most 6 MiB as Linux caps it) and one string (MAX_ARG_STRLEN, 32 pages, NUL included).
struct ExecLimits {
  size_t total;
  size_t one_string;
};
ExecLimits exec_limits();

// Throws Failure(kTooLarge) with a one-line message when execve() would refuse these with
// E2BIG: a string longer than one_string (named by its variable or argument), or a total above
// `total`.
void check_exec_size(const std::string& path, const std::vector<std::string>& argv,
                     const std::vector<std::string>& envp, const ExecLimits& limits);

}  // namespace confcrypt
