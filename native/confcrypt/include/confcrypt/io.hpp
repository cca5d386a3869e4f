// File input and crash-safe output.
#pragma once

#include <sys/types.h>

#include <string>

namespace confcrypt {

// The whole file; throws Error naming the path and the system error.
// Reads are bounded: a file (or /dev/zero given by mistake) larger than max_bytes is refused
// with an Error instead of growing memory without limit.
constexpr size_t kMaxReadBytes = size_t(64) << 20;  // configuration files
constexpr size_t kMaxSecretBytes = 4096;            // passphrase and master-password files
std::string read_file(const std::string& path, size_t max_bytes = kMaxReadBytes);

// Replaces `path` with `bytes` so that a reader sees either the old or the new content, never a
// mix, and a failure at any step leaves the original untouched: the bytes go to a new temp file
// in the same directory (O_EXCL), are fsync'ed, the file is renamed over `path`, and the
// directory is fsync'ed. An existing file keeps its permission bits (and, where permitted, its
// owner); a new one gets `mode`. A symlink is followed: its target is replaced. Throws Error; the
// temp file is removed on every failure.
void write_file_atomic(const std::string& path, const std::string& bytes, mode_t mode = 0600);

// n bytes from the kernel's CSPRNG (getrandom); throws Error if it fails.
std::string random_bytes(size_t n);

}  // namespace confcrypt
