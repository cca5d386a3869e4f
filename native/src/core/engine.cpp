#include "cryptobench/engine.hpp"

#include <x86intrin.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>

#include "cryptobench/hexutil.hpp"
#include "cryptobench/machine.hpp"
#include "cryptobench/vectors.hpp"

namespace cb {

namespace {

class SystemClock : public Clock {
 public:
  uint64_t now_ns() override {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
  }
  uint64_t ticks() override {
    // lfence keeps the TSC read from drifting into the measured region.
    _mm_lfence();
    const uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
};

constexpr size_t kPage = 4096;
constexpr size_t kSlack = 128;  // room for tags and digests
constexpr size_t kCanary = 64;  // bytes checked after the output
constexpr uint8_t kCanaryByte = 0xA5;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Key generation, timed: one fresh key pair per call, exported as the adapter returns it.
class KeygenOperation : public Operation {
 public:
  KeygenOperation(Provider& provider, std::string algorithm)
      : provider_(provider), algorithm_(std::move(algorithm)) {}
  size_t run(const uint8_t*, size_t, uint8_t*) override {
    provider_.generate_key(algorithm_);
    return 0;
  }

 private:
  Provider& provider_;
  std::string algorithm_;
};

Bytes make_input(const std::string& kind, size_t len, uint64_t seed) {
  Bytes out(len);
  if (kind == "zeros") return out;
  ByteStream stream(seed ^ 0x1234567ULL);
  stream.fill(out.data(), len);
  if (kind == "text") {
    static const char printable[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_=\n";
    for (auto& b : out) b = static_cast<uint8_t>(printable[b % (sizeof printable - 1)]);
  }
  return out;
}

}  // namespace

Clock& system_clock() {
  static SystemClock clock;
  return clock;
}

const char* to_string(CaseStatus s) {
  switch (s) {
    case CaseStatus::Ok:
      return "ok";
    case CaseStatus::Failed:
      return "failed";
    case CaseStatus::Unsupported:
      return "unsupported";
  }
  return "?";
}

uint64_t calibrate(const std::function<void(uint64_t)>& body, Clock& clock, double target_ns,
                   double warmup_ns) {
  const uint64_t warm_start = clock.now_ns();
  do {
    body(1);
  } while (static_cast<double>(clock.now_ns() - warm_start) < warmup_ns);

  constexpr uint64_t kMaxIterations = 1ULL << 40;
  auto timed = [&](uint64_t n) {
    const uint64_t t0 = clock.now_ns();
    body(n);
    return static_cast<double>(clock.now_ns() - t0);
  };
  uint64_t n = 1;
  double elapsed = timed(n);
  while (elapsed < target_ns / 4 && n < kMaxIterations) {
    n *= 2;
    elapsed = timed(n);
  }
  // A preemption during the one measurement above would make every sample too short: the
  // fastest of three measurements of the same count is the least disturbed estimate.
  for (int i = 0; i < 2; ++i) elapsed = std::min(elapsed, timed(n));
  if (elapsed <= 0) return n;
  const double scaled = std::round(static_cast<double>(n) * target_ns / elapsed);
  return static_cast<uint64_t>(std::max(1.0, std::min(scaled, double(kMaxIterations))));
}

OpenCase::OpenCase(CaseSpec spec, Clock& clock) : spec_(std::move(spec)), clock_(clock) {
  try {
    open();
  } catch (const Unsupported& e) {
    status_ = CaseStatus::Unsupported;
    reason_ = e.what();
  } catch (const std::exception& e) {
    status_ = CaseStatus::Failed;
    reason_ = e.what();
  }
  if (status_ != CaseStatus::Ok) {
    handshake_ = nullptr;
    op_.reset();
  }
}

OpenCase::~OpenCase() { std::free(block_); }

Provider& resolve_case(CaseSpec& spec, const AlgorithmInfo*& info, OpKind& op) {
  info = find_algorithm(spec.algorithm);
  if (!info) throw Unsupported("unknown algorithm " + spec.algorithm);
  op = parse_op(spec.operation);
  const auto ops = operations_for(*info);
  if (std::find(ops.begin(), ops.end(), op) == ops.end())
    throw Unsupported(spec.operation + " does not apply to " + spec.algorithm);
  Provider* provider = get_provider(spec.provider);
  if (!provider) throw Unsupported("unknown provider " + spec.provider);
  if (const std::string why = unusable_reason(spec.provider); !why.empty()) throw Unsupported(why);
  const std::string running = selected_variant(spec.provider);
  if (!spec.variant.empty() && spec.variant != running)
    throw Unsupported("this runner runs " + spec.provider + " as variant '" + running +
                      "'; start one with --variant " + spec.provider + "=" + spec.variant);
  spec.variant = running;
  const auto algs = provider->algorithms();
  if (std::find(algs.begin(), algs.end(), spec.algorithm) == algs.end())
    throw Unsupported(spec.provider + " does not offer " + spec.algorithm);
  return *provider;
}

void OpenCase::open() {
  const AlgorithmInfo* info = nullptr;
  OpKind op{};
  Provider* provider = &resolve_case(spec_, info, op);

  if (info->kind == Kind::Keyload) {
    open_keyload(*provider, *info, op);
    return;
  }
  if (info->kind == Kind::Handshake) {
    open_handshake(*provider, *info, op);
    return;
  }
  if (is_public_key(info->kind) || info->kind == Kind::Kdf) {
    open_public_key(*provider, *info, op);
    return;
  }
  if (spec_.size < info->min_len || spec_.size % info->block_len)
    throw Unsupported(spec_.algorithm + " needs messages of at least " +
                      std::to_string(info->min_len) + " bytes in multiples of " +
                      std::to_string(info->block_len));
  if (!spec_.cost.empty()) throw Unsupported(spec_.algorithm + " takes no cost parameters");

  ByteStream params_stream(spec_.seed);
  Params params;
  params.key = params_stream.bytes(info->key_len);
  params.iv = params_stream.bytes(info->iv_len);
  if (info->kind == Kind::Aead) params.aad = params_stream.bytes(spec_.aad_bytes);
  const Bytes plaintext = make_input(spec_.input, spec_.size, spec_.seed);

  gate_ = run_gate(spec_.provider, *info, op, plaintext, params, spec_.agreement);
  if (!gate_.ok) throw Error(gate_.reason);

  // The measured input: the plaintext, or for decryption this provider's ciphertext of it.
  Bytes input = plaintext;
  const bool cipher = info->kind == Kind::Cipher || info->kind == Kind::Aead;
  bool inplace = spec_.inplace && cipher;
  if (op == OpKind::Decrypt) {
    auto enc = provider->prepare(spec_.algorithm, OpKind::Encrypt, params);
    input.resize(spec_.size + info->tag_len + kSlack);
    input.resize(enc->run(plaintext.data(), plaintext.size(), input.data()));
    if (inplace && info->kind == Kind::Aead) {
      // Decrypting in place leaves the plaintext where the ciphertext was, and the next run would
      // then fail its tag check. For CTR-based AEADs encryption of the ciphertext gives back the
      // plaintext as ciphertext, with its own tag: the runs alternate between the two texts, and
      // the tag in front of each run is the one that belongs to the text in the buffer.
      const size_t n = spec_.size;
      Bytes again(n + info->tag_len + kSlack);
      again.resize(enc->run(input.data(), n, again.data()));
      if (again.size() == input.size() &&
          std::equal(plaintext.begin(), plaintext.end(), again.begin())) {
        alternate_tags_ = true;
        tag_at_ = n;
        tags_[0].assign(input.begin() + static_cast<std::ptrdiff_t>(n), input.end());
        tags_[1].assign(again.begin() + static_cast<std::ptrdiff_t>(n), again.end());
      } else {
        inplace = false;
        layout_.note = spec_.algorithm +
                       " decryption is not an involution, so it cannot repeat in place: measured "
                       "out of place";
      }
    }
  }
  if (op == OpKind::Decrypt)
    expected_ = plaintext, ref_len_ = plaintext.size(), deterministic_ = true;
  else
    compute_reference(*provider, params, op, input);
  if (inplace) {
    // Some APIs cannot work in place (wolfSSL's XChaCha20-Poly1305 authenticates the output
    // buffer after decrypting into it): such a case is measured out of place, and says so.
    std::string why;
    try {
      auto trial = provider->prepare(spec_.algorithm, op, params);
      Bytes buf = input;
      buf.resize(input.size() + info->tag_len + kSlack);
      const size_t n = trial->run(buf.data(), input.size(), buf.data());
      if (n != expected_.size() || !std::equal(expected_.begin(), expected_.end(), buf.begin()))
        why = "gives a different output in place";
    } catch (const std::exception& e) {
      why = std::string("fails in place (") + e.what() + ")";
    }
    if (!why.empty()) {
      inplace = false;
      alternate_tags_ = false;
      layout_.note = spec_.provider + " " + spec_.operation + " " + spec_.algorithm + " " + why +
                     ": measured out of place";
    }
  }
  allocate_buffers(input, kSlack, inplace);
  measure_heap_and_calibrate(*provider, params, op);
}

void OpenCase::compute_reference(Provider& provider, const Params& params, OpKind op,
                                 const Bytes& input) {
  if (op == OpKind::Keygen) {
    keygen_ = true;  // nothing to compare; the canaries are still checked
    return;
  }
  auto fresh = provider.prepare(spec_.algorithm, op, params);
  auto once = [&] {
    Bytes out(input.size() + kOutRoom + kSlack);
    out.resize(fresh->run(input.data(), input.size(), out.data()));
    return out;
  };
  expected_ = once();
  ref_len_ = expected_.size();
  const AlgorithmInfo& info = *find_algorithm(spec_.algorithm);
  if (op == OpKind::Encrypt && info.kind == Kind::PkEncryption) return;  // randomised (OAEP)
  if (op == OpKind::Encaps) return;  // randomised: the canaries only
  // Signatures are deterministic for some schemes (PKCS#1 v1.5, EdDSA) and not for others.
  deterministic_ = op != OpKind::Sign || once() == expected_;
}

void OpenCase::allocate_buffers(const Bytes& input, size_t out_room, bool inplace) {
  in_len_ = input.size();
  input_ = input;
  // Bytes a correct run may write: its output, and in place also the input it overwrites.
  const size_t written = std::max(ref_len_, inplace ? in_len_ : 0);
  const size_t out_cap = std::max(in_len_ + out_room, written + kCanary);
  const size_t distance = inplace ? 0 : round_up(spec_.align_offset + in_len_, kPage) + kPage / 2;
  const size_t total = round_up(spec_.align_offset + distance + out_cap, kPage);
  block_ = static_cast<uint8_t*>(std::aligned_alloc(kPage, total));
  if (!block_) throw Error("out of memory for buffers");
  std::memset(block_, 0, total);
  in_ = block_ + spec_.align_offset;
  out_ = in_ + distance;
  if (!input.empty()) std::memcpy(in_, input.data(), in_len_);
  canary_ = out_ + written;
  std::memset(canary_, kCanaryByte, kCanary);
  layout_.inplace = inplace;
  layout_.distance = distance;
  layout_.in_page_offset = reinterpret_cast<uintptr_t>(in_) % kPage;
}

bool OpenCase::canaries_intact() const {
  for (size_t i = 0; i < kCanary; ++i)
    if (canary_[i] != kCanaryByte) return false;
  return true;
}

void OpenCase::measure_heap_and_calibrate(Provider& provider, const Params& params, OpKind op) {
  heap::start();
  if (op == OpKind::Keygen) {
    op_ = std::make_unique<KeygenOperation>(provider, spec_.algorithm);
  } else if (op == OpKind::Handshake) {
    auto handshake = provider.prepare_handshake(spec_.algorithm, params);
    handshake_ = handshake.get();
    op_ = std::move(handshake);
  } else {
    op_ = provider.prepare(spec_.algorithm, op, params);
  }
  const heap::Counters prep = heap::stop();
  heap_.prepare_allocs = prep.allocs;
  heap_.prepare_bytes = prep.bytes;

  clock_check_.ghz_open = core_ghz();
  const uint64_t t0 = clock_.now_ns();
  if (op == OpKind::Keygen) {
    // Every key takes a different time (prime search): one key per sample, so the samples are
    // the distribution over keys; untimed keys for warmup_ms first (at least one).
    uint64_t keys = 0;
    do {
      run_ops(1);
      ++keys;
    } while (static_cast<double>(clock_.now_ns() - t0) < spec_.warmup_ms * 1e6);
    iterations_ = 1;
    key_ns_ = static_cast<double>(clock_.now_ns() - t0) / static_cast<double>(keys);
  } else {
    iterations_ = calibrate([this](uint64_t n) { run_ops(n); }, clock_,
                            spec_.target_sample_ms * 1e6, spec_.warmup_ms * 1e6);
  }
  calibration_ns_ = clock_.now_ns() - t0;

  // Heap pass after warm-up, so one-time lazy initialisation is not charged per operation.
  const uint64_t heap_ops =
      op == OpKind::Keygen ? std::min<uint64_t>(spec_.heap_iterations, 2) : spec_.heap_iterations;
  heap_.rss_before_kb = heap::rss_kb();
  const bool hwm_reset = heap::reset_rss_peak();
  const uint64_t faults0 = heap::minor_faults();
  heap::start();
  run_ops(heap_ops);
  const heap::Counters c = heap::stop();
  const uint64_t faults1 = heap::minor_faults();
  if (hwm_reset) heap_.rss_peak_kb = heap::rss_peak_kb();
  const double n = static_cast<double>(heap_ops);
  heap_.allocs_per_op = static_cast<double>(c.allocs) / n;
  heap_.frees_per_op = static_cast<double>(c.frees) / n;
  heap_.bytes_per_op = static_cast<double>(c.bytes) / n;
  heap_.peak_live_bytes = c.peak_live;
  heap_.mmaps_per_op = static_cast<double>(c.mmaps) / n;
  heap_.mmap_bytes_per_op = static_cast<double>(c.mmap_bytes) / n;
  heap_.minor_faults_per_op = static_cast<double>(faults1 - faults0) / n;
  status_ = CaseStatus::Ok;
  last_sample_end_ns_ = clock_.now_ns();
}

void OpenCase::open_public_key(Provider& provider, const AlgorithmInfo& info, OpKind op) {
  const bool takes_message =
      op != OpKind::Keygen && info.kind != Kind::KeyAgreement && info.kind != Kind::Kem;
  if (!takes_message && spec_.size != 0)
    throw Unsupported(spec_.operation + " " + spec_.algorithm + " takes no input: size must be 0");
  // OAEP with SHA-256 carries at most k - 2*32 - 2 bytes, PKCS#1 v1.5 at most k - 11.
  const size_t overhead = info.family == "rsa-pkcs1v15-enc" ? 11 : 66;
  if (info.kind == Kind::PkEncryption && spec_.size + overhead > info.output_len)
    throw Unsupported(spec_.algorithm + " encrypts at most " +
                      std::to_string(info.output_len - overhead) + " bytes");
  if (info.kind != Kind::Kdf && !spec_.cost.empty())
    throw Unsupported(spec_.algorithm + " takes no cost parameters");

  ByteStream params_stream(spec_.seed);
  Params params;
  if (info.kind == Kind::Kdf) {
    static const std::map<std::string, std::vector<std::string>> required = {
        {"pbkdf2-sha1", {"iterations"}},   {"pbkdf2-sha256", {"iterations"}},
        {"pbkdf2-sha512", {"iterations"}}, {"scrypt", {"N", "r", "p"}},
        {"argon2id", {"t", "m", "p"}},     {"hkdf-sha256", {}}};
    auto it = required.find(info.name);
    for (const auto& name : it == required.end() ? std::vector<std::string>{} : it->second)
      if (!spec_.cost.count(name))
        throw Error(spec_.algorithm + " needs the cost parameter '" + name + "'");
    for (const auto& [name, value] : spec_.cost)
      if (it != required.end() &&
          std::find(it->second.begin(), it->second.end(), name) == it->second.end())
        throw Error(spec_.algorithm + " has no cost parameter '" + name + "'");
    params.salt = params_stream.bytes(info.name == "hkdf-sha256" ? 32 : 16);
    if (info.name == "hkdf-sha256") params.info = params_stream.bytes(16);
    params.out_len = info.output_len;
    params.cost = spec_.cost;
  } else {
    params.keypair = test_key(info.key_type);
    if (info.kind == Kind::KeyAgreement) {
      const AlgorithmInfo& type = *find_algorithm(info.key_type);
      params.peer = public_parts(type, test_key(info.key_type + "-peer"));
    }
  }
  const Bytes message = make_input(spec_.input, takes_message ? spec_.size : 0, spec_.seed);

  gate_ = run_gate(spec_.provider, info, op, message, params, spec_.agreement);
  if (!gate_.ok) throw Error(gate_.reason);

  Bytes input = message;
  if (op == OpKind::Verify) {
    // The signature every run() checks: this provider's own signature of the message.
    auto signer = provider.prepare(spec_.algorithm, OpKind::Sign, params);
    Bytes sig(message.size() + kOutRoom);
    sig.resize(signer->run(message.data(), message.size(), sig.data()));
    params.signature = sig;
    params.keypair = public_parts(info, params.keypair);
  } else if (op == OpKind::Encrypt || op == OpKind::Encaps) {
    params.keypair = public_parts(info, params.keypair);
  } else if (op == OpKind::Decaps) {
    // Decapsulation of this provider's own ciphertext to the test key.
    Params to_public = params;
    to_public.keypair = public_parts(info, params.keypair);
    auto enc = provider.prepare(spec_.algorithm, OpKind::Encaps, to_public);
    input.resize(info.ciphertext_len + info.output_len + kOutRoom);
    input.resize(enc->run(nullptr, 0, input.data()));
    if (input.size() < info.ciphertext_len) throw Error("encapsulation output is too short");
    input.resize(info.ciphertext_len);
  } else if (op == OpKind::Decrypt) {
    auto enc = provider.prepare(spec_.algorithm, OpKind::Encrypt, params);
    input.resize(info.output_len + kOutRoom);
    input.resize(enc->run(message.data(), message.size(), input.data()));
  }
  if (op == OpKind::Decrypt)
    expected_ = message, ref_len_ = message.size(), deterministic_ = true;
  else
    compute_reference(provider, params, op, input);
  allocate_buffers(input, kOutRoom + kSlack, false);
  measure_heap_and_calibrate(provider, params, op);
}

void OpenCase::open_keyload(Provider& provider, const AlgorithmInfo& info, OpKind op) {
  if (spec_.size != 0)
    throw Unsupported("keyload " + spec_.algorithm +
                      " decodes its own encoded key: size must be 0");
  if (!spec_.cost.empty()) throw Unsupported(spec_.algorithm + " takes no cost parameters");
  const auto& vectors = pk_vectors_for(info);
  if (vectors.empty()) throw Error("no encoded key for " + info.name + " in " + vectors_dir());
  Params params;
  gate_ = run_gate(spec_.provider, info, op, {}, params, spec_.agreement);
  if (!gate_.ok) throw Error(gate_.reason);
  const Bytes& encoded = vectors.front().input;
  compute_reference(provider, params, op, encoded);
  allocate_buffers(encoded, kOutRoom + kSlack, false);
  measure_heap_and_calibrate(provider, params, op);
}

void OpenCase::open_handshake(Provider& provider, const AlgorithmInfo& info, OpKind op) {
  if (spec_.size != 0)
    throw Unsupported("handshake " + spec_.algorithm + " takes no input: size must be 0");
  if (!spec_.cost.empty()) throw Unsupported(spec_.algorithm + " takes no cost parameters");
  handshake_case_ = true;
  const Params params = handshake_params(info);
  gate_ = run_gate(spec_.provider, info, op, {}, params, spec_.agreement);
  if (!gate_.ok) throw Error(gate_.reason);
  // Nothing to compare byte for byte (every handshake is new): the check of the timed instance
  // runs one more checked handshake on it instead.
  allocate_buffers({}, kSlack, false);
  measure_heap_and_calibrate(provider, params, op);
}

void OpenCase::run_ops(uint64_t n) {
  Operation& op = *op_;
  if (alternate_tags_) {
    const size_t tag_len = tags_[0].size();
    for (uint64_t i = 0; i < n; ++i) {
      std::memcpy(in_ + tag_at_, tags_[tag_parity_].data(), tag_len);
      tag_parity_ ^= 1;
      op.run(in_, in_len_, out_);
    }
    return;
  }
  for (uint64_t i = 0; i < n; ++i) op.run(in_, in_len_, out_);
}

void OpenCase::rewarm_if_visit_began() {
  if (clock_.now_ns() - last_sample_end_ns_ <= kVisitGapNs) return;
  // An operation longer than half a sample warms itself; re-warming it would cost a sample. Key
  // generation takes one key per sample however short a key is: a key shorter than that (ML-KEM,
  // ML-DSA, X25519: tens of µs) is re-warmed like any operation, by untimed keys.
  const double target_ns = spec_.target_sample_ms * 1e6;
  const double per_op = iterations_ >= 2 ? target_ns / static_cast<double>(iterations_) : key_ns_;
  if (per_op <= 0 || per_op > target_ns / 2) return;
  run_ops(static_cast<uint64_t>(std::ceil(kRewarmNs / per_op)));
  ++rewarms_;
}

void OpenCase::check_timed_instance() {
  if (checked_ || status_ != CaseStatus::Ok) return;
  checked_ = true;
  clock_check_.ghz_close = core_ghz();
  const auto at = [](size_t i) { return " (byte " + std::to_string(i) + ")"; };
  std::string why;
  if (!canaries_intact()) {
    why = "the timed operation wrote past its " + std::to_string(ref_len_) + "-byte output";
  } else if (!layout_.inplace && !std::equal(input_.begin(), input_.end(), in_)) {
    why = "the timed operation changed its input buffer";
  } else if (keygen_) {
    // Key generation writes nothing to the buffers and another key would cost up to seconds
    // (RSA-4096): the canaries are its whole check.
  } else if (handshake_) {
    // One more handshake on the timed instance, checked as the gate checks one.
    if (std::string bad = check_handshake(*handshake_, *find_algorithm(spec_.algorithm));
        !bad.empty())
      why = "the timed instance's handshake: " + bad;
    else if (!canaries_intact())
      why = "the timed operation wrote past its buffer";
  } else {
    std::memcpy(in_, input_.data(), in_len_);  // in place, the buffer holds a later text
    tag_parity_ = 0;
    size_t n = 0;
    try {
      n = op_->run(in_, in_len_, out_);
    } catch (const std::exception& e) {
      why = std::string("the timed instance failed on the case's input: ") + e.what();
    }
    if (why.empty() && !canaries_intact())
      why = "the timed operation wrote past its " + std::to_string(ref_len_) + "-byte output";
    else if (why.empty() && deterministic_) {
      if (n != expected_.size())
        why = "the timed instance returned " + std::to_string(n) + " bytes, the gated one " +
              std::to_string(expected_.size());
      else if (const auto d = std::mismatch(expected_.begin(), expected_.end(), out_);
               d.first != expected_.end())
        why = "the timed instance's output differs from the gated instance's" +
              at(static_cast<size_t>(d.first - expected_.begin()));
    }
  }
  if (!why.empty()) {
    fail("check of the timed instance after sampling: " + why);
    timed_check_ = "failed";
    return;
  }
  timed_check_ = handshake_       ? "one more handshake on it completes, checked as the gate's; "
                                    "canaries intact"
                 : deterministic_ ? "output equals the gated instance's; canaries intact"
                                  : "canaries intact (randomised output: not compared)";
  if (!keygen_) {
    // The coordinator may ask for more samples (adaptive sampling): the buffer goes back to the
    // state sampling starts from, or an in-place AEAD decryption would meet a text whose tag is
    // not the one in the buffer.
    std::memcpy(in_, input_.data(), in_len_);
    tag_parity_ = 0;
  }
}

void OpenCase::fail(const std::string& reason) {
  // The first reason is the one to report: a caller asking a failed case for more samples must
  // not replace "the timed instance's output differs" by "sample() on a case that is not ok".
  if (status_ != CaseStatus::Failed || reason_.empty()) reason_ = reason;
  status_ = CaseStatus::Failed;
  samples_.clear();
  handshake_ = nullptr;
  op_.reset();
}

Sample OpenCase::sample() {
  if (status_ != CaseStatus::Ok) throw std::logic_error("sample() on a case that is not ok");
  rewarm_if_visit_began();
  Sample s;
  s.iterations = iterations_;
  const uint64_t server0 = handshake_ ? handshake_->server_cpu_ns() : 0;
  const uint64_t c0 = core_cycles();
  const uint64_t t0 = clock_.now_ns();
  const uint64_t k0 = clock_.ticks();
  run_ops(iterations_);
  const uint64_t k1 = clock_.ticks();
  const uint64_t t1 = clock_.now_ns();
  const uint64_t c1 = core_cycles();
  s.ns = t1 - t0;
  s.ticks = k1 - k0;
  s.cycles = c1 - c0;
  if (handshake_) s.server_cpu_ns = handshake_->server_cpu_ns() - server0;
  samples_.push_back(s);
  last_sample_end_ns_ = t1;
  if (samples_.size() >= spec_.samples) check_timed_instance();
  return s;
}

}  // namespace cb
