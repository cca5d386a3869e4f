// The `confcrypt` command (docs/confcrypt.md, "Command line"). In the library so that it can be
// tested and embedded; src/main.cpp only calls run_cli.
#pragma once

namespace confcrypt {

// Runs one command; returns the exit code (errors.hpp's Status values; `exec` replaces the
// process and only returns on failure).
int run_cli(int argc, char** argv);

}  // namespace confcrypt
