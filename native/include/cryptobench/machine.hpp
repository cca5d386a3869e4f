#pragma once

#include <nlohmann/json.hpp>

namespace cb {

// TSC ticks per second, measured against CLOCK_MONOTONIC over `window_ms` (once per process).
double tsc_hz(int window_ms = 100);

// The core clock in GHz right now: a chain of dependent adds (one cycle each) timed against
// CLOCK_MONOTONIC, the fastest of a few short rounds (libgcrypt bench-slope's auto-GHz).
double core_ghz();

// Core cycles of this thread from the hardware performance counter (perf_event_open,
// PERF_COUNT_HW_CPU_CYCLES, user space only); 0 when the machine has none (most VMs).
uint64_t core_cycles();
bool has_core_cycles();

// Frequency state of one CPU: cpufreq governor, boost/turbo ("on", "off" or null when
// unreadable), current and maximum frequency in kHz where readable.
nlohmann::json cpu_state(int cpu);

// The machine record: CPU model and flags, core count, kernel, OS, compiler, TSC rate and
// invariance, cpufreq governor where readable, hostname. Library versions and code paths are
// reported per provider by the caller.
nlohmann::json machine_record();

}  // namespace cb
