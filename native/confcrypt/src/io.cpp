#include "confcrypt/io.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "confcrypt/keyset.hpp"

namespace confcrypt {

namespace {

std::string sys_error(const std::string& what, const std::string& path, int err) {
  return what + " " + path + ": " + std::strerror(err);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // close() reports delayed write errors (NFS, quota), so the writer checks it.
  int close() {
    int r = ::close(fd_);
    fd_ = -1;
    return r;
  }

 private:
  int fd_;
};

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string random_suffix() {
  unsigned char raw[6];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("getrandom: ") + std::strerror(errno));
    }
    got += size_t(n);
  }
  static const char hex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : raw) {
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO or pipe";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Reads fd to its end, refusing more than max_bytes.
std::string read_all(int fd, const std::string& name, size_t max_bytes) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(sys_error("cannot read", name, errno));
    }
    if (n == 0) break;
    out.append(buf, size_t(n));
    if (out.size() > max_bytes) {
      throw Error(name + " is larger than " + std::to_string(max_bytes) +
                  " bytes: refusing to read it");
    }
  }
  return out;
}

}  // namespace

std::string read_file(const std::string& path, size_t max_bytes) {
  // Non-blocking open: a FIFO without a writer must not hang us before it is refused.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) throw Error(sys_error("cannot open", path, errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error(sys_error("cannot stat", path, errno));
  if (!S_ISREG(st.st_mode)) {
    throw Error("cannot read " + path + ": " + kind_of(st.st_mode) + ", not a regular file");
  }
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    throw Error(sys_error("cannot read", path, errno));
  }
  return read_all(fd.get(), path, max_bytes);
}

std::string read_stdin(size_t max_bytes) { return read_all(0, "standard input", max_bytes); }

FileLock::FileLock(const std::string& path, double wait_seconds) {
  // The lock is on the file's inode, so a writer that renamed a new file into place leaves the
  // waiters holding the old one: each checks after locking that the path still names what it
  // locked, else tries again. A file not there yet is locked through its directory.
  const double deadline = wait_seconds;
  double waited = 0;
  for (;;) {
    std::string target = path;
    bool is_dir = false;
    int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (raw < 0 && errno == ENOENT) {
      target = dir_of(path);
      is_dir = true;
      raw = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECTORY);
    }
    if (raw < 0) throw Error(sys_error("cannot open", target, errno));
    Fd fd(raw);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw Error(sys_error("cannot stat", target, errno));
    if (!is_dir && !S_ISREG(st.st_mode)) {
      throw Error("cannot lock " + path + ": " + kind_of(st.st_mode) + ", not a regular file");
    }
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        throw Error(sys_error("cannot lock", target, errno));
      }
      if (waited >= deadline) {
        throw Error(path + " is being changed by another confcrypt for more than " +
                    std::to_string(int(deadline)) + " s: try again later");
      }
      ::usleep(5000);
      waited += 0.005;
    }
    // Still the same file (or, for a directory lock, still no file)?
    struct stat now {};
    bool same = is_dir ? ::stat(path.c_str(), &now) != 0 && errno == ENOENT
                       : ::stat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev &&
                             now.st_ino == st.st_ino;
    if (same) {
      // The lock lasts while a descriptor of the open file is open: keep a duplicate.
      fd_ = ::dup(fd.get());
      if (fd_ < 0) throw Error(sys_error("cannot lock", target, errno));
      return;
    }
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

void write_file_atomic(const std::string& path, const std::string& bytes, mode_t mode) {
  if (path.empty()) throw Error("cannot write a file with an empty name");
  // Writing through a symlink replaces its target, not the link.
  std::string target = path;
  struct stat st {};
  bool exists = false;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      char* real = ::realpath(path.c_str(), nullptr);
      if (!real) throw Error(sys_error("cannot resolve symlink", path, errno));
      target = real;
      std::free(real);
      if (::stat(target.c_str(), &st) != 0) throw Error(sys_error("cannot stat", target, errno));
    }
    if (!S_ISREG(st.st_mode)) throw Error("cannot write " + path + ": not a regular file");
    exists = true;
  } else if (errno != ENOENT) {
    throw Error(sys_error("cannot stat", path, errno));
  }
  mode_t perms = exists ? (st.st_mode & 07777) : (mode & 07777);

  std::string dir = dir_of(target);
  size_t slash = target.rfind('/');
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string tmp;
  int raw_fd = -1;
  for (int attempt = 0; attempt < 16 && raw_fd < 0; ++attempt) {
    tmp = (dir == "." && slash == std::string::npos ? "" : dir + "/") + "." + base + ".tmp-" +
          random_suffix();
    raw_fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (raw_fd < 0 && errno != EEXIST) {
      throw Error(sys_error("cannot create a temporary file next to", target, errno));
    }
  }
  if (raw_fd < 0) throw Error("cannot create a temporary file next to " + target);
  Fd fd(raw_fd);
  auto fail = [&](const std::string& what, int err) {
    ::unlink(tmp.c_str());
    throw Error(sys_error(what, target, err));
  };

  // Ownership first, permissions second: fchown may clear set-id bits that fchmod then restores.
  if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid())) {
    // Best effort: only a privileged writer can hand the file back to its owner.
    if (::fchown(fd.get(), st.st_uid, st.st_gid) != 0 && errno != EPERM) {
      fail("cannot set the owner of the new", errno);
    }
  }
  if (::fchmod(fd.get(), perms) != 0) fail("cannot set the mode of the new", errno);

  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write the new", errno);
    }
    done += size_t(n);
  }
  if (::fsync(fd.get()) != 0) fail("cannot sync the new", errno);
  if (fd.close() != 0) fail("cannot close the new", errno);
  if (::rename(tmp.c_str(), target.c_str()) != 0) fail("cannot replace", errno);

  // The rename is durable only once the directory entry is on disk.
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() < 0)
    throw Error(sys_error("wrote but cannot open the directory of", target, errno));
  if (::fsync(dfd.get()) != 0 && errno != EINVAL) {
    throw Error(sys_error("wrote but cannot sync the directory of", target, errno));
  }
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = getrandom(&out[got], n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("getrandom: ") + std::strerror(errno));
    }
    got += size_t(r);
  }
  return out;
}

}  // namespace confcrypt
