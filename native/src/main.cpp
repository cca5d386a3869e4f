// cryptobench-native: the measurement runner. See docs/protocol.md.
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cryptobench/protocol.hpp"
#include "cryptobench/vectors.hpp"

namespace {

const char* kUsage =
    "usage: cryptobench-native list  [--variant P=V]...\n"
    "       cryptobench-native run   [--spec FILE|-] [--variant P=V]... [--cpu N|--no-pin] "
    "[--vectors DIR]\n"
    "       cryptobench-native serve [--variant P=V]... [--cpu N|--no-pin] [--vectors DIR]\n"
    "       cryptobench-native check [--provider P]... [--variant P=V]... [--vectors DIR]\n"
    "Protocol and message formats: docs/protocol.md\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string command;
  std::string spec = "-";
  std::vector<std::pair<std::string, std::string>> variants;
  std::vector<std::string> providers;
  std::optional<int> cpu;
  bool pin = true;
  std::string vectors;
};

Options parse_args(int argc, char** argv) {
  Options o;
  if (argc < 2) throw UsageError("missing command (list, run, serve, check)");
  o.command = argv[1];
  if (o.command == "-h" || o.command == "--help") return o;
  if (o.command != "list" && o.command != "run" && o.command != "serve" && o.command != "check")
    throw UsageError("unknown command '" + o.command + "' (list, run, serve, check)");
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--spec" && o.command == "run") {
      o.spec = value();
    } else if (a == "--variant") {
      const std::string v = value();
      const auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        throw UsageError("--variant takes PROVIDER=VARIANT, got '" + v + "'");
      o.variants.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--provider" && o.command == "check") {
      o.providers.push_back(value());
    } else if (a == "--cpu") {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 0 || n >= CPU_SETSIZE)
        throw UsageError("--cpu takes a CPU number, got '" + v + "'");
      o.cpu = static_cast<int>(n);
    } else if (a == "--no-pin") {
      o.pin = false;
    } else if (a == "--vectors") {
      o.vectors = value();
    } else if (a == "-h" || a == "--help") {
      o.command = "--help";
    } else {
      throw UsageError("unknown option '" + a + "' for " + o.command);
    }
  }
  return o;
}

// Applies each selected variant (unknown ones are usage errors) and returns the environment the
// selection needs: a variable some selected variant sets is set, every other variant variable is
// unset, so that "default" really is the library's default code path. Libraries can share a
// switch (GnuTLS falls back to Nettle, so gnutls/soft sets NETTLE_FAT_OVERRIDE too); a provider
// whose variant does not match the resulting environment is marked unusable in this process.
std::map<std::string, std::optional<std::string>> select_variants(const Options& o) {
  std::map<std::string, std::string> chosen;
  for (const auto& [provider, variant] : o.variants) {
    if (!cb::peek_provider(provider))
      throw UsageError("--variant: unknown provider '" + provider + "'");
    try {
      cb::select_variant(provider, variant);
    } catch (const cb::Unsupported& e) {
      throw UsageError(std::string("--variant: ") + e.what());
    }
    chosen[provider] = variant;
  }
  using Env = std::map<std::string, std::optional<std::string>>;
  std::map<std::string, Env> wants;  // provider -> what its selected variant needs
  Env env;
  std::map<std::string, std::string> setter;  // variable -> provider/variant that set it
  for (const auto& name : cb::provider_names()) {
    const std::string selected = chosen.count(name) ? chosen[name] : "default";
    const cb::Provider* provider = cb::peek_provider(name);
    if (!provider) {  // a module that does not load (a versioned provider): left out, and why
      std::cerr << "cryptobench-native: provider " << name
                << " left out: " << cb::provider_load_error(name) << "\n";
      continue;
    }
    for (const auto& v : provider->variants())
      for (const auto& kv : v.env) wants[name][kv.first] = std::nullopt;
    for (const auto& v : provider->variants()) {
      if (v.name != selected) continue;
      for (const auto& [key, value] : v.env) {
        wants[name][key] = value;
        if (env[key] && *env[key] != value)
          throw UsageError("--variant: " + name + "/" + selected + " and " + setter[key] +
                           " need different values of " + key + "; use separate runners");
        env[key] = value;
        setter[key] = name + "/" + selected;
      }
    }
  }
  for (const auto& [name, needs] : wants)
    for (const auto& [key, value] : needs)
      if (env[key] != value)
        cb::mark_unusable(name, key + "=" + env[key].value_or("") + " is set for " + setter[key] +
                                    " in this runner, which changes " + name +
                                    "'s code path; measure " + name + " in a runner of its own");
  return env;
}

// Library switches read from the environment must be in place before the libraries initialise,
// which happens before main(): re-execute this program with the environment the variants need.
void reexec_if_needed(const std::map<std::string, std::optional<std::string>>& env, char** argv) {
  bool changed = false;
  for (const auto& [key, value] : env) {
    const char* now = std::getenv(key.c_str());
    if (value ? (!now || *value != now) : now != nullptr) {
      changed = true;
      if (value)
        setenv(key.c_str(), value->c_str(), 1);
      else
        unsetenv(key.c_str());
    }
  }
  if (!changed) return;
  if (std::getenv("CRYPTOBENCH_REEXEC"))
    throw std::runtime_error("variant environment did not stick");
  setenv("CRYPTOBENCH_REEXEC", "1", 1);
  execv("/proc/self/exe", argv);
  throw std::runtime_error(std::string("cannot re-execute the runner: ") + std::strerror(errno));
}

// Pins to the requested CPU, by default the last one this process may use (CPU 0 tends to take
// more interrupts). Returns the CPU, or -1 when not pinned.
int pin(const Options& o) {
  if (!o.pin) return -1;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
  int cpu = -1;
  if (o.cpu) {
    if (!CPU_ISSET(*o.cpu, &allowed))
      throw UsageError("--cpu " + std::to_string(*o.cpu) + ": not available to this process");
    cpu = *o.cpu;
  } else {
    for (int c = CPU_SETSIZE - 1; c >= 0; --c)
      if (CPU_ISSET(c, &allowed)) {
        cpu = c;
        break;
      }
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return -1;
  return cpu;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse_args(argc, argv);
    if (o.command == "--help") {
      std::cout << kUsage;
      return 0;
    }
    reexec_if_needed(select_variants(o), argv);
    unsetenv("CRYPTOBENCH_REEXEC");
    if (!o.vectors.empty()) cb::set_vectors_dir(o.vectors);
    if (o.command == "list") {
      // Pinned like a runner, so the machine record's frequency state (governor, boost) is that
      // of the CPU runners measure on, not of whichever CPU `list` happened to start on.
      pin(o);
      return cb::command_list(std::cout);
    }
    if (o.command == "check") {
      std::vector<std::string> providers = o.providers;
      if (providers.empty()) providers = cb::provider_names();
      for (const auto& p : providers)
        if (!cb::peek_provider(p)) throw UsageError("--provider: unknown provider '" + p + "'");
      return cb::command_check(providers, std::cout);
    }
    const int cpu = pin(o);
    if (o.command == "serve") return cb::command_serve(std::cin, std::cout, cpu);
    if (o.spec == "-") return cb::command_run(std::cin, std::cout, cpu);
    std::ifstream spec(o.spec);
    if (!spec) throw UsageError("--spec: cannot read '" + o.spec + "'");
    return cb::command_run(spec, std::cout, cpu);
  } catch (const UsageError& e) {
    std::cerr << "cryptobench-native: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const cb::SpecError& e) {
    cb::emit(std::cout, {{"type", "error"}, {"message", e.what()}});
    std::cerr << "cryptobench-native: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    cb::emit(std::cout, {{"type", "error"}, {"message", e.what()}});
    std::cerr << "cryptobench-native: " << e.what() << "\n";
    return 1;
  }
}
