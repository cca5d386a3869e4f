#include "confcrypt/gpg.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <sstream>

extern char** environ;

namespace confcrypt {

namespace {

// Pipe ends are moved to descriptors >= 10 so that dup2() onto 0..3 in the child always copies
// (dup2 of a descriptor onto itself would keep its close-on-exec flag), and every end is
// close-on-exec so the child inherits only what the file actions give it.
constexpr int kLowestFd = 10;

int lift(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, kLowestFd);
  int saved = errno;
  close(fd);
  errno = saved;
  return high;
}

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      throw Failure(Status::kInternal, "pipe: " + std::string(strerror(errno)));
    read = lift(fds[0]);
    write = lift(fds[1]);
    if (read < 0 || write < 0) {
      close_both();
      throw Failure(Status::kInternal, "pipe: " + std::string(strerror(errno)));
    }
  }
  ~Pipe() { close_both(); }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_read() {
    if (read >= 0) close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) close(write);
    write = -1;
  }
  void close_both() {
    close_read();
    close_write();
  }
};

// Writing to a child that exited early raises SIGPIPE, which would kill this process: the
// signal is blocked in this thread while the pipes are serviced, and a pending one consumed.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SigpipeBlock() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) && !sigismember(&old_, SIGPIPE)) {
      struct timespec zero = {0, 0};
      sigtimedwait(&set, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  const sigset_t& old() const { return old_; }

 private:
  sigset_t old_;
};

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

namespace {
double now_seconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

std::string seconds_text(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}
}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input,
                          bool want_status_fd, double timeout_seconds) {
  if (argv.empty()) throw Failure(Status::kInternal, "run_process: empty command");
  Pipe in, out, err;
  std::unique_ptr<Pipe> status;
  if (want_status_fd) status = std::make_unique<Pipe>();
  SigpipeBlock block;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write, 2);
  if (status) posix_spawn_file_actions_adddup2(&actions, status->write, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // The child starts with the signal mask and SIGPIPE disposition of a normal program.
  sigset_t none, pipe_only;
  sigemptyset(&none);
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &block.old());
  posix_spawnattr_setsigdefault(&attr, &pipe_only);
  // Its own process group, so that a timeout ends whatever it started too (a wrapper script
  // and its children), by the group's id.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    throw Failure(Status::kGpg, "cannot run '" + argv[0] + "': " + strerror(rc));
  }
  in.close_read();
  out.close_write();
  err.close_write();
  if (status) status->close_write();

  ProcessResult result;
  set_nonblocking(in.write);
  size_t written = 0;
  if (input.empty()) in.close_write();
  struct Reader {
    Pipe* pipe;
    std::string* sink;
  };
  std::vector<Reader> readers = {{&out, &result.out}, {&err, &result.err}};
  if (status) readers.push_back({status.get(), &result.status});

  char buf[65536];
  const double deadline = timeout_seconds > 0 ? now_seconds() + timeout_seconds : 0;
  bool timed_out = false;
  for (;;) {
    std::vector<pollfd> fds;
    if (in.write >= 0) fds.push_back({in.write, POLLOUT, 0});
    for (const auto& r : readers) {
      if (r.pipe->read >= 0) fds.push_back({r.pipe->read, POLLIN, 0});
    }
    if (fds.empty()) break;
    int wait_ms = -1;
    if (deadline > 0) {
      double left = deadline - now_seconds();
      if (left <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = int(left * 1000) + 1;
    }
    if (poll(fds.data(), fds.size(), wait_ms) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (const pollfd& p : fds) {
      if (!p.revents) continue;
      if (p.fd == in.write) {
        ssize_t n = write(in.write, input.data() + written, input.size() - written);
        if (n > 0) written += size_t(n);
        // EPIPE: the child stopped reading; its exit status and messages tell why.
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
          in.close_write();
        }
        continue;
      }
      for (auto& r : readers) {
        if (r.pipe->read != p.fd) continue;
        ssize_t n = read(p.fd, buf, sizeof buf);
        if (n > 0) {
          r.sink->append(buf, size_t(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          r.pipe->close_read();
        }
      }
    }
  }
  int wstatus = 0;
  bool reaped = false;
  if (!timed_out && deadline > 0) {
    // The pipes are closed, but the program may still be running: wait for it until the
    // deadline as well.
    while (!reaped && !timed_out) {
      pid_t done = waitpid(pid, &wstatus, WNOHANG);
      if (done == pid) {
        reaped = true;
      } else if (done < 0 && errno != EINTR) {
        break;
      } else if (now_seconds() >= deadline) {
        timed_out = true;
      } else {
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, nullptr);
      }
    }
  }
  if (timed_out) {
    kill(-pid, SIGKILL);  // the group this call created, by its id
    in.close_write();
    for (auto& r : readers) r.pipe->close_read();
  }
  while (!reaped && waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    throw Timeout("'" + argv[0] + "' did not finish within " + seconds_text(timeout_seconds) +
                  " s and was stopped (CONFCRYPT_GPG_TIMEOUT, --gpg-timeout)");
  }
  if (WIFEXITED(wstatus)) {
    result.exit_code = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    result.exit_code = 128 + WTERMSIG(wstatus);
  }
  if (result.exit_code == 127 && result.out.empty() && result.err.empty()) {
    throw Failure(Status::kGpg, "cannot run '" + argv[0] + "'");
  }
  return result;
}

std::string first_gpg_message(const std::string& err) {
  // gpg prints progress ("gpg: encrypted with ...") before the reason; the last line is the
  // most telling one.
  std::istringstream lines(err);
  std::string line, last;
  while (std::getline(lines, line)) {
    if (!line.empty()) last = line;
  }
  if (last.rfind("gpg: ", 0) == 0) last = last.substr(5);
  return last.empty() ? "no message" : last;
}

Gpg::Gpg(GpgOptions options) : options_(std::move(options)) {}

std::vector<std::string> Gpg::base_args() const {
  std::vector<std::string> a = {options_.program};
  if (!options_.homedir.empty()) {
    a.push_back("--homedir");
    a.push_back(options_.homedir);
  }
  a.insert(a.end(), {"--batch", "--no-tty", "--quiet"});
  return a;
}

std::string Gpg::normalize_fingerprint(const std::string& text) {
  std::string fpr;
  std::string t = text;
  if (t.rfind("0x", 0) == 0 || t.rfind("0X", 0) == 0) t = t.substr(2);
  for (char c : t) {
    if (c == ' ') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      throw Failure(Status::kUsage, "'" + text + "' is not a key fingerprint (40 hex digits)");
    }
    fpr += char(std::toupper(static_cast<unsigned char>(c)));
  }
  if (fpr.size() != 40 && fpr.size() != 64) {
    throw Failure(Status::kUsage, "'" + text +
                                      "' is not a full key fingerprint (40 hex digits): short "
                                      "key ids and user ids are ambiguous");
  }
  return fpr;
}

std::string Gpg::encrypt(const std::string& data, const std::vector<std::string>& recipients,
                         bool sign, const std::string& sign_with, bool armor) const {
  std::vector<std::string> a = base_args();
  a.insert(a.end(), {"--trust-model", "always", "--encrypt"});
  if (armor) a.push_back("--armor");
  if (sign) {
    a.push_back("--sign");
    if (!sign_with.empty()) {
      a.push_back("--local-user");
      a.push_back(normalize_fingerprint(sign_with));
    }
  }
  for (const auto& r : recipients) {
    a.push_back("--recipient");
    a.push_back(normalize_fingerprint(r));
  }
  ProcessResult res = run_process(a, data, false, options_.timeout_seconds);
  if (res.exit_code != 0 || res.out.empty()) {
    throw Failure(Status::kGpg, "gpg cannot encrypt: " + first_gpg_message(res.err));
  }
  return res.out;
}

Gpg::Decrypted Gpg::decrypt(const std::string& data) const {
  std::vector<std::string> a = base_args();
  a.insert(a.end(), {"--status-fd", "3", "--decrypt"});
  ProcessResult res = run_process(a, data, true, options_.timeout_seconds);
  if (res.exit_code != 0 && res.status.find("[GNUPG:] ") == std::string::npos) {
    // gpg reports every outcome of --decrypt on the status descriptor (NODATA, NO_SECKEY,
    // DECRYPTION_FAILED, ...); a run that failed without a single status line is not gpg
    // working (a wrong --gpg program, gpg unable to start its engine).
    throw Failure(Status::kGpg, "'" + options_.program + "' failed (exit status " +
                                    std::to_string(res.exit_code) +
                                    ") without a gpg status line: " + first_gpg_message(res.err));
  }
  Decrypted d;
  d.exit_code = res.exit_code;
  d.plaintext = std::move(res.out);
  d.err = std::move(res.err);
  std::istringstream lines(res.status);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("[GNUPG:] ", 0) != 0) continue;
    std::istringstream words(line.substr(9));
    GpgStatus s;
    words >> s.keyword;
    std::string w;
    while (words >> w) s.args.push_back(w);
    d.status.push_back(std::move(s));
  }
  return d;
}

std::vector<std::string> Gpg::secret_fingerprints() const {
  std::vector<std::string> a = base_args();
  a.insert(a.end(), {"--with-colons", "--list-secret-keys"});
  ProcessResult res = run_process(a, "", false, options_.timeout_seconds);
  std::vector<std::string> fprs;
  std::istringstream lines(res.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("fpr:", 0) != 0) continue;
    // fpr:::::::::<FINGERPRINT>:  -- field 10
    size_t pos = 0;
    for (int i = 0; i < 9 && pos != std::string::npos; ++i) pos = line.find(':', pos + 1);
    if (pos == std::string::npos) continue;
    size_t end = line.find(':', pos + 1);
    fprs.push_back(line.substr(pos + 1, end == std::string::npos ? end : end - pos - 1));
  }
  return fprs;
}

}  // namespace confcrypt
