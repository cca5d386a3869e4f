// The measurement engine: one open case = prepared operation + buffers + calibrated iteration
// count; samples are taken on demand so a caller can interleave cases and providers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cryptobench/gate.hpp"
#include "cryptobench/heap.hpp"
#include "cryptobench/provider.hpp"

namespace cb {

struct Sample {
  uint64_t iterations = 0;
  uint64_t ns = 0;     // CLOCK_MONOTONIC nanoseconds for all iterations
  uint64_t ticks = 0;  // TSC ticks for all iterations
};

// Time sources, replaceable so calibration can be tested on a fake clock.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t now_ns() = 0;
  virtual uint64_t ticks() = 0;
};
Clock& system_clock();

struct CaseSpec {
  std::string id;
  std::string provider;
  std::string variant;  // empty: the process's variant
  std::string operation;
  std::string algorithm;
  uint64_t size = 0;
  std::string input = "random";  // random | zeros | text
  unsigned align_offset = 0;
  uint64_t aad_bytes = 0;
  uint64_t samples = 11;
  uint64_t batch = 1;
  double target_sample_ms = 2.0;
  double warmup_ms = 20.0;
  uint64_t heap_iterations = 8;
  uint64_t seed = 1;
  bool agreement = true;
  // KDF cost parameters (provider.hpp, Params::cost): {"iterations": 10000}, {"N", "r", "p"}...
  std::map<std::string, uint64_t> cost;
};

struct HeapFigures {
  double allocs_per_op = 0, frees_per_op = 0, bytes_per_op = 0;
  int64_t peak_live_bytes = 0;
  uint64_t prepare_allocs = 0, prepare_bytes = 0;
};

// Calibration: after `warmup_ns` of untimed calls, doubles the iteration count until one batch
// takes at least a quarter of the target, re-times that count twice more, and scales the fastest
// of the three to the target. `body(n)` runs n operations.
uint64_t calibrate(const std::function<void(uint64_t)>& body, Clock& clock, double target_ns,
                   double warmup_ns);

enum class CaseStatus { Ok, Failed, Unsupported };
const char* to_string(CaseStatus s);

class OpenCase {
 public:
  // Validates, prepares, gates, warms up, calibrates and counts heap use. Never throws for a
  // library or gate problem: those become status() Failed/Unsupported with reason().
  OpenCase(CaseSpec spec, Clock& clock = system_clock());
  ~OpenCase();
  OpenCase(const OpenCase&) = delete;
  OpenCase& operator=(const OpenCase&) = delete;

  CaseStatus status() const { return status_; }
  const std::string& reason() const { return reason_; }
  const CaseSpec& spec() const { return spec_; }
  const GateReport& gate() const { return gate_; }
  uint64_t iterations() const { return iterations_; }
  uint64_t calibration_ns() const { return calibration_ns_; }
  const HeapFigures& heap() const { return heap_; }
  const std::vector<Sample>& samples() const { return samples_; }

  // Takes one sample (status must be Ok) and records it. Throws Error when the library fails.
  Sample sample();
  // Marks an open case failed (a library error while sampling); its samples are discarded.
  void fail(const std::string& reason);

 private:
  void open();
  // Public-key and KDF cases: parameters from the fixed test keys, the measured input, and for
  // key generation one key per iteration.
  void open_public_key(Provider& provider, const AlgorithmInfo& info, OpKind op);
  void allocate_buffers(const Bytes& input, size_t out_room);
  void measure_heap_and_calibrate(Provider& provider, const Params& params, OpKind op);
  void run_ops(uint64_t n);

  CaseSpec spec_;
  Clock& clock_;
  CaseStatus status_ = CaseStatus::Failed;
  std::string reason_;
  GateReport gate_;
  std::unique_ptr<Operation> op_;
  uint8_t* in_block_ = nullptr;
  uint8_t* out_block_ = nullptr;
  uint8_t* in_ = nullptr;
  uint8_t* out_ = nullptr;
  size_t in_len_ = 0;
  uint64_t iterations_ = 0;
  uint64_t calibration_ns_ = 0;
  HeapFigures heap_;
  std::vector<Sample> samples_;
};

}  // namespace cb
