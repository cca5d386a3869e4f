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
  uint64_t ns = 0;      // CLOCK_MONOTONIC nanoseconds for all iterations
  uint64_t ticks = 0;   // TSC ticks for all iterations
  uint64_t cycles = 0;  // core cycles (performance counter) for all iterations; 0 when none
  // Handshake cases: CPU time of the server's calls in these iterations
  // (HandshakeOperation::server_cpu_ns); 0 for every other kind.
  uint64_t server_cpu_ns = 0;
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
  // Ciphers and AEADs: process the message in place (one buffer is input and output), as OpenSSL
  // speed and libgcrypt's bench-slope do; false measures out of place (separate output buffer).
  bool inplace = true;
  // KDF cost parameters (provider.hpp, Params::cost): {"iterations": 10000}, {"N", "r", "p"}...
  std::map<std::string, uint64_t> cost;
};

struct HeapFigures {
  double allocs_per_op = 0, frees_per_op = 0, bytes_per_op = 0;
  int64_t peak_live_bytes = 0;  // heap and anonymous mmap, highest rise during the heap pass
  uint64_t prepare_allocs = 0, prepare_bytes = 0;
  double mmaps_per_op = 0, mmap_bytes_per_op = 0;  // anonymous mmap calls and bytes they mapped
  double minor_faults_per_op = 0;                  // getrusage ru_minflt over the heap pass
  // Resident set during the heap pass: VmRSS before it, and VmHWM after it with the high-water
  // mark reset (/proc/self/clear_refs = 5) just before it, so it is this case's own peak.
  // -1 when /proc does not allow it.
  int64_t rss_before_kb = -1, rss_peak_kb = -1;
};

// Where the measured buffers lie: one allocation per case, page-aligned, the input at
// `align_offset` into its first page; out of place, the output starts `distance` bytes after the
// input, a multiple of 4096 plus 2048, so input and output never share a 4 KiB page offset
// (4K aliasing). In place, input and output are the same bytes (distance 0).
struct BufferLayout {
  bool inplace = false;
  uint64_t distance = 0;
  uint64_t in_page_offset = 0;  // input address mod 4096
  std::string note;             // why a case asked in place runs out of place, else empty
};

// The core clock around a case, from a dependent chain of adds (one per cycle), as libgcrypt's
// bench-slope --cpu-mhz auto does; 0 when not measured.
struct ClockCheck {
  double ghz_open = 0, ghz_close = 0;
};

// Calibration: after `warmup_ns` of untimed calls, doubles the iteration count until one batch
// takes at least a quarter of the target, re-times that count twice more, and scales the fastest
// of the three to the target. `body(n)` runs n operations.
uint64_t calibrate(const std::function<void(uint64_t)>& body, Clock& clock, double target_ns,
                   double warmup_ns);

// A sample request that starts this long after the previous sample ended is a new visit; it
// re-warms for about kRewarmNs first (operations, or generated keys, shorter than half a sample
// only).
constexpr uint64_t kVisitGapNs = 50000;
constexpr double kRewarmNs = 750000;

// The provider, catalogue entry and operation a case names, checked as `open` checks them (known
// algorithm and provider, an operation of the algorithm's kind, the process's variant, offered);
// fills in spec.variant. Throws Unsupported naming what does not fit.
Provider& resolve_case(CaseSpec& spec, const AlgorithmInfo*& info, OpKind& op);

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
  const BufferLayout& layout() const { return layout_; }
  const ClockCheck& clock_check() const { return clock_check_; }
  // What the check of the timed instance found ("" before it ran).
  const std::string& timed_check() const { return timed_check_; }
  // Sample requests that began with an untimed re-warm (see sample()).
  uint64_t rewarms() const { return rewarms_; }
  // Whether this is a handshake case, whose samples carry server_cpu_ns.
  bool handshake() const { return handshake_case_; }
  // Handshake cases: the bytes of the client's first flight in the timed instance's last
  // handshake (HandshakeOperation::client_hello_bytes); 0 when not counted.
  uint64_t client_hello_bytes() const { return handshake_ ? handshake_->client_hello_bytes() : 0; }

  // Takes one sample (status must be Ok) and records it. Throws Error when the library fails.
  // A sample that starts more than kVisitGapNs after the previous one ended (another case or
  // process had the CPU in between) is preceded by ~kRewarmNs of untimed operations.
  Sample sample();
  // Checks the timed instance itself, once, after its last sample: the canary bytes past its
  // output are intact, an out-of-place input is unchanged, and one more run on the case's input
  // in the timed buffers gives the output the gated fresh instance gave (deterministic
  // operations). A failure makes the case Failed with the reason. Runs by itself when the
  // spec's sample count is reached; callers also call it before reporting a result.
  void check_timed_instance();
  // Marks an open case failed (a library error while sampling); its samples are discarded.
  void fail(const std::string& reason);

 private:
  void open();
  // Public-key and KDF cases: parameters from the fixed test keys, the measured input, and for
  // key generation one key per iteration.
  void open_public_key(Provider& provider, const AlgorithmInfo& info, OpKind op);
  // keyload: the measured input is the algorithm's encoded key (vectors/encoded-keys.json).
  void open_keyload(Provider& provider, const AlgorithmInfo& info, OpKind op);
  // handshake: no input; the server's certificate and key are the algorithm's
  // (vectors/tls13.json).
  void open_handshake(Provider& provider, const AlgorithmInfo& info, OpKind op);
  // The output a fresh instance gives for `input` (what the gate's round trip verified), and
  // whether it is deterministic; sets expected_, ref_len_, deterministic_.
  void compute_reference(Provider& provider, const Params& params, OpKind op, const Bytes& input);
  void allocate_buffers(const Bytes& input, size_t out_room, bool inplace);
  void measure_heap_and_calibrate(Provider& provider, const Params& params, OpKind op);
  void run_ops(uint64_t n);
  bool canaries_intact() const;
  void rewarm_if_visit_began();

  CaseSpec spec_;
  Clock& clock_;
  CaseStatus status_ = CaseStatus::Failed;
  std::string reason_;
  GateReport gate_;
  std::unique_ptr<Operation> op_;
  // Handshake cases: op_ itself, for the server's CPU time and the facts of the timed instance.
  HandshakeOperation* handshake_ = nullptr;
  bool handshake_case_ = false;
  uint8_t* block_ = nullptr;
  uint8_t* in_ = nullptr;
  uint8_t* out_ = nullptr;
  uint8_t* canary_ = nullptr;
  size_t in_len_ = 0;
  Bytes input_;  // the measured input, to restore and compare at the check
  // Reference output of a fresh instance; compared only when deterministic_.
  Bytes expected_;
  size_t ref_len_ = 0;
  bool deterministic_ = false;
  bool keygen_ = false;
  // AEAD decryption in place: each run leaves the other text in the buffer (CTR-based modes are
  // involutions), so the tag at in_ + tag_at_ alternates between the two precomputed tags.
  bool alternate_tags_ = false;
  size_t tag_at_ = 0;
  Bytes tags_[2];
  unsigned tag_parity_ = 0;
  BufferLayout layout_;
  ClockCheck clock_check_;
  std::string timed_check_;
  bool checked_ = false;
  uint64_t rewarms_ = 0;
  uint64_t last_sample_end_ns_ = 0;
  uint64_t iterations_ = 0;
  double key_ns_ = 0;  // key generation: a key's mean time in the warm-up (0: not key generation)
  uint64_t calibration_ns_ = 0;
  HeapFigures heap_;
  std::vector<Sample> samples_;
};

}  // namespace cb
