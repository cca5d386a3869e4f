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
// Only a regular file is read: a directory, device or FIFO is refused at once (a FIFO without a
// writer would block forever, a device never ends).
std::string read_file(const std::string& path, size_t max_bytes = kMaxReadBytes);

// Standard input to its end, refusing more than max_bytes (`confcrypt set FILE KEY -`).
std::string read_stdin(size_t max_bytes);

// An advisory lock (flock) held for one read-modify-write of `path`, so that concurrent
// `confcrypt set`s on one file serialise instead of losing updates. Taken on the file itself
// (re-checked after locking, since every write renames a new file into place), or on its
// directory while the file does not exist yet. Waits up to wait_seconds, then throws Error.
class FileLock {
 public:
  explicit FileLock(const std::string& path, double wait_seconds = 300);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

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
