#include "cryptobench/machine.hpp"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/syscall.h>
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

int cycles_fd() {
  static const int fd = [] {
    perf_event_attr a{};
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
  }();
  return fd;
}

nlohmann::json number_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

double core_ghz() {
  constexpr uint64_t kRounds = 1 << 14, kAddsPerRound = 16;
  double best = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    uint64_t x = 0;
    const uint64_t t0 = monotonic_ns();
    for (uint64_t i = 0; i < kRounds; ++i) {
      // 16 adds, each waiting for the one before: 16 cycles per round on any x86 core.
      asm volatile(
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
          : "+r"(x));
    }
    const uint64_t t1 = monotonic_ns();
    if (t1 > t0) best = std::max(best, double(kRounds * kAddsPerRound) / double(t1 - t0));
  }
  return best;
}

uint64_t core_cycles() {
  const int fd = cycles_fd();
  if (fd < 0) return 0;
  uint64_t v = 0;
  if (read(fd, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return 0;
  return v;
}

bool has_core_cycles() {
  static const bool counts = [] {
    const uint64_t a = core_cycles();
    core_ghz();
    return core_cycles() > a;
  }();
  return counts;
}

nlohmann::json cpu_state(int cpu) {
  const std::string base = "/sys/devices/system/cpu/";
  const std::string freq = base + "cpu" + std::to_string(cpu) + "/cpufreq/";
  nlohmann::json j;
  j["cpu"] = cpu;
  const std::string governor = read_first_line(freq + "scaling_governor");
  j["governor"] = governor.empty() ? nlohmann::json(nullptr) : nlohmann::json(governor);
  j["cur_khz"] = number_or_null(read_first_line(freq + "scaling_cur_freq"));
  j["max_khz"] = number_or_null(read_first_line(freq + "cpuinfo_max_freq"));
  // intel_pstate says "no_turbo"; acpi-cpufreq and amd-pstate say "boost".
  const std::string no_turbo = read_first_line(base + "intel_pstate/no_turbo");
  const std::string boost = read_first_line(base + "cpufreq/boost");
  if (!no_turbo.empty())
    j["boost"] = no_turbo == "0" ? "on" : "off";
  else if (!boost.empty())
    j["boost"] = boost == "1" ? "on" : "off";
  else
    j["boost"] = nullptr;
  return j;
}

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
  m["pmu_cycles"] = has_core_cycles();
  m["cycles_note"] = has_core_cycles()
                         ? "samples carry core cycles from the hardware performance counter"
                         : "no hardware cycle counter is readable here (perf_event_open failed or "
                           "counts nothing): cycle figures are TSC reference cycles";
  // The CPU this process runs on (a runner is pinned before it writes this), not cpu0.
  const int cpu = sched_getcpu();
  const nlohmann::json state = cpu_state(cpu < 0 ? 0 : cpu);
  m["governor"] = state["governor"];
  m["cpu_state"] = state;
  m["core_ghz"] = std::round(core_ghz() * 1000) / 1000;
  return m;
}

}  // namespace cb
