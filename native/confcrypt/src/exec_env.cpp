// The environment of `confcrypt exec`'s child. setenv() once per key was quadratic (glibc scans
// and reallocates environ on every call: 100,000 keys took 25 s); this builds the vector once.
#include "confcrypt/exec_env.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "confcrypt/errors.hpp"

namespace confcrypt {

std::string env_name(const std::string& path, const std::string& format,
                     const std::string& prefix) {
  if (format == "dotenv") return prefix + path;
  std::string n;
  for (const auto& seg : split_path(path)) {
    if (!n.empty()) n += '_';
    for (char c : seg) {
      unsigned char u = static_cast<unsigned char>(c);
      n += std::isalnum(u) ? char(std::toupper(u)) : '_';
    }
  }
  n = prefix + n;
  if (!n.empty() && std::isdigit(static_cast<unsigned char>(n[0]))) n = "_" + n;
  return n;
}

std::vector<std::string> exec_environment(const std::vector<std::string>& base, const KeySet& keys,
                                          const std::string& format, const std::string& prefix) {
  std::vector<std::string> env = base;
  // Variable name -> its index in env, for the base and the keys alike.
  std::unordered_map<std::string, size_t> at;
  at.reserve(base.size() + keys.size());
  for (size_t i = 0; i < env.size(); ++i) {
    size_t eq = env[i].find('=');
    at.emplace(env[i].substr(0, eq), i);  // the first of duplicates is what getenv() finds
  }
  std::unordered_map<std::string, const std::string*> origin;
  origin.reserve(keys.size());
  for (const Key& k : keys.keys()) {
    std::string name = env_name(k.path, format, prefix);
    if (name.empty() || name.find('=') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      throw Failure(Status::kUsage, "key '" + k.path + "' has no environment variable name");
    }
    if (k.value.find('\0') != std::string::npos) {
      throw Failure(Status::kUsage, "value of '" + k.path + "' contains a NUL byte");
    }
    auto [it, fresh] = origin.emplace(name, &k.path);
    if (!fresh) {
      throw Failure(Status::kUsage, "keys '" + *it->second + "' and '" + k.path +
                                        "' both map to the variable " + name);
    }
    std::string entry = name + "=" + k.value;
    auto found = at.find(name);
    if (found != at.end()) {
      env[found->second] = std::move(entry);
    } else {
      at.emplace(std::move(name), env.size());
      env.push_back(std::move(entry));
    }
  }
  return env;
}

size_t exec_size(const std::string& path, const std::vector<std::string>& argv,
                 const std::vector<std::string>& envp) {
  size_t total = path.size() + 1;
  for (const auto& s : argv) total += s.size() + 1 + sizeof(char*);
  for (const auto& s : envp) total += s.size() + 1 + sizeof(char*);
  return total + 2 * sizeof(char*);  // the two terminating null pointers
}

ExecLimits exec_limits() {
  // fs/exec.c: the strings and their pointers may fill a quarter of the stack limit (what
  // glibc's sysconf(_SC_ARG_MAX) reports), but never more than 3/4 of the default 8 MiB stack.
  constexpr size_t kKernelCap = size_t(6) << 20;
  long arg_max = sysconf(_SC_ARG_MAX);
  long page = sysconf(_SC_PAGESIZE);
  ExecLimits l;
  l.total = arg_max > 0 ? std::min(size_t(arg_max), kKernelCap) : size_t(128) << 10;
  l.one_string = size_t(32) * size_t(page > 0 ? page : 4096);  // MAX_ARG_STRLEN
  return l;
}

namespace {
std::string kib(size_t n) { return std::to_string((n + 1023) / 1024) + " KiB"; }
}  // namespace

void check_exec_size(const std::string& path, const std::vector<std::string>& argv,
                     const std::vector<std::string>& envp, const ExecLimits& limits) {
  for (const auto& s : envp) {
    if (s.size() + 1 > limits.one_string) {
      throw Failure(Status::kTooLarge,
                    "the variable " + s.substr(0, std::min(s.find('='), size_t(64))) + " is " +
                        kib(s.size() + 1) + ", above the kernel's limit of " +
                        kib(limits.one_string) + " for one variable: the command cannot be run");
    }
  }
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].size() + 1 > limits.one_string) {
      throw Failure(Status::kTooLarge, "argument " + std::to_string(i) + " of the command is " +
                                           kib(argv[i].size() + 1) +
                                           ", above the kernel's limit of " +
                                           kib(limits.one_string) + " for one argument");
    }
  }
  size_t total = exec_size(path, argv, envp);
  if (total > limits.total) {
    throw Failure(Status::kTooLarge, "the environment (" + std::to_string(envp.size()) +
                                         " variables) and arguments " + "would take " + kib(total) +
                                         ", above the kernel's limit of " + kib(limits.total) +
                                         " (sysconf ARG_MAX): the command cannot be run");
  }
}

}  // namespace confcrypt
