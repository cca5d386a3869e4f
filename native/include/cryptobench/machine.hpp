#pragma once

#include <nlohmann/json.hpp>

namespace cb {

// TSC ticks per second, measured against CLOCK_MONOTONIC over `window_ms` (once per process).
double tsc_hz(int window_ms = 100);

// The machine record: CPU model and flags, core count, kernel, OS, compiler, TSC rate and
// invariance, cpufreq governor where readable, hostname. Library versions and code paths are
// reported per provider by the caller.
nlohmann::json machine_record();

}  // namespace cb
