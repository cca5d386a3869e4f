#include "cryptobench/machine.hpp"

#include <sys/utsname.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

namespace cb {

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Value of the first "key : value" line in /proc/cpuinfo.
std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k == key) {
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "";
}

std::string os_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string v = line.substr(12);
      v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
      return v;
    }
  }
  return "unknown";
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

double tsc_hz(int window_ms) {
  static double cached = 0;
  if (cached > 0) return cached;
  const uint64_t t0 = monotonic_ns(), k0 = __rdtsc();
  std::this_thread::sleep_for(std::chrono::milliseconds(window_ms));
  const uint64_t t1 = monotonic_ns(), k1 = __rdtsc();
  cached = static_cast<double>(k1 - k0) * 1e9 / static_cast<double>(t1 - t0);
  return cached;
}

nlohmann::json machine_record() {
  nlohmann::json m;
  m["cpu_model"] = cpuinfo_field("model name");
  std::vector<std::string> flags;
  std::istringstream fs(cpuinfo_field("flags"));
  for (std::string f; fs >> f;) flags.push_back(f);
  const bool constant = std::count(flags.begin(), flags.end(), "constant_tsc") > 0;
  const bool nonstop = std::count(flags.begin(), flags.end(), "nonstop_tsc") > 0;
  m["cpu_flags"] = flags;
  m["cores"] = sysconf(_SC_NPROCESSORS_ONLN);
  utsname u{};
  uname(&u);
  m["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  m["hostname"] = u.nodename;
  m["os"] = os_name();
#if defined(__clang__)
  m["compiler"] = std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  m["compiler"] = std::string("GCC ") + __VERSION__;
#endif
  m["tsc_hz"] = std::round(tsc_hz());
  m["tsc_invariant"] = constant && nonstop;
  m["tsc_note"] = "TSC ticks count reference cycles at a constant rate, not core clock cycles";
  const std::string governor =
      read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  m["governor"] = governor.empty() ? nlohmann::json(nullptr) : nlohmann::json(governor);
  return m;
}

}  // namespace cb
