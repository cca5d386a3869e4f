// A provider that misbehaves on purpose, so the tests can show that the gate and the Python
// orchestrator handle wrong output, crashes and hangs. It exists only when the environment has
// CRYPTOBENCH_TEST_PROVIDERS=1, and it never takes part in cross-provider agreement.
//
// It wraps a real provider (the first other one offering the algorithm) for sha256 and
// aes-256-gcm, and in variant
//   "corrupt" flips the first output byte of every operation -> the gate must fail the case;
//   "crash"   aborts on the 200th operation (after the gate, inside calibration or sampling);
//   "hang"    sleeps forever on the 200th operation;
//   "drift"   is correct for 199 operations of a prepared instance, then flips the first output
//             byte: the gate passes, the check of the timed instance after sampling must not;
//   "overflow" likewise, but writes one byte past its output from the 200th operation on;
//   "leaky"   is correct, but its AES-256-GCM decryption first compares the tag byte by byte and
//             stops at the first wrong byte, each compared byte costing about 25 ns of work
//             here: the positive control of `cryptobench leaks` (a tag wrong in its first byte is
//             refused sooner than one wrong in its last byte). The work per byte makes the
//             difference large enough to be found in seconds on a shared machine; a real
//             early-exit memcmp differs by about a cycle per byte. Its HMAC-SHA256 verification
//             (the `leak` request's MAC `verify`) compares the tag the same way: the positive
//             control of the MAC test.
// It also offers hmac-sha256 (delegated; verified by the real provider except when leaky) and
// x25519 (key generation is counted: keygen_calls()), and records the buffers of
// the last run() (last_buffers()) so tests can see the layout the engine chose.
#include "fault_provider.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "cryptobench/gate.hpp"
#include "cryptobench/mac_verify.hpp"
#include "cryptobench/provider.hpp"

namespace cb {

namespace testing {
const uint8_t* g_last_in = nullptr;
uint8_t* g_last_out = nullptr;
uint64_t g_keygen_calls = 0;
std::pair<const uint8_t*, const uint8_t*> last_buffers() { return {g_last_in, g_last_out}; }
uint64_t keygen_calls() { return g_keygen_calls; }
}  // namespace testing

namespace {

constexpr int kMisbehaveAfter = 200;

class FaultOp : public Operation {
 public:
  FaultOp(std::unique_ptr<Operation> inner, const std::string& variant)
      : inner_(std::move(inner)), variant_(variant) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    if (++calls_ >= kMisbehaveAfter) {
      if (variant_ == "crash") std::abort();
      if (variant_ == "hang")
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    testing::g_last_in = in;
    testing::g_last_out = out;
    const size_t n = inner_->run(in, len, out);
    if (variant_ == "corrupt" && n > 0) out[0] ^= 0x01;
    if (variant_ == "drift" && calls_ >= kMisbehaveAfter && n > 0) out[0] ^= 0x01;
    if (variant_ == "overflow" && calls_ >= kMisbehaveAfter) out[n] ^= 0x5a;
    return n;
  }

 private:
  std::unique_ptr<Operation> inner_;
  std::string variant_;
  int calls_ = 0;
};

// AES-GCM decryption that checks the tag the way it must not: byte by byte, stopping at the
// first difference. The expected tag is the real provider's: encrypting the ciphertext gives the
// plaintext (CTR), and encrypting that gives the ciphertext back with its tag.
class LeakyTagOp : public Operation {
 public:
  explicit LeakyTagOp(std::unique_ptr<Operation> encrypt) : encrypt_(std::move(encrypt)) {}
  size_t run(const uint8_t* in, size_t len, uint8_t* out) override {
    constexpr size_t kTag = 16;
    if (len < kTag) throw Error("ciphertext shorter than its tag");
    const size_t n = len - kTag;
    plain_.resize(n + kTag);
    again_.resize(n + kTag);
    encrypt_->run(in, n, plain_.data());
    encrypt_->run(plain_.data(), n, again_.data());
    for (size_t i = 0; i < kTag; ++i) {
      if (in[n + i] != again_[n + i]) throw Error("authentication tag does not verify");
      for (volatile int spin = 0; spin < 40; spin = spin + 1) {
      }
    }
    std::memcpy(out, plain_.data(), n);
    return n;
  }

 private:
  std::unique_ptr<Operation> encrypt_;
  Bytes plain_, again_;
};

// The same byte-by-byte comparison, stopping at the first difference, for a MAC tag: the
// expected tag is the real provider's (MacCompareOp computes it).
bool leaky_equal(const uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
    for (volatile int spin = 0; spin < 40; spin = spin + 1) {
    }
  }
  return true;
}

class FaultProvider : public Provider {
 public:
  std::string name() const override { return "fault"; }
  std::string version() const override { return "test provider"; }
  std::vector<Variant> variants() const override {
    return {{"default", "behaves (delegates to a real provider)", {}},
            {"corrupt", "flips one output byte", {}},
            {"crash", "aborts on the 200th operation", {}},
            {"hang", "never returns from the 200th operation", {}},
            {"drift", "flips one output byte from the 200th operation on", {}},
            {"overflow", "writes past its output from the 200th operation on", {}},
            {"leaky",
             "AES-GCM decryption and HMAC verification compare the tag byte by byte, stopping "
             "early",
             {}}};
  }
  void init(const std::string& variant) override { variant_ = variant; }
  std::vector<std::string> algorithms() const override {
    return {"sha256", "aes-256-gcm", "hmac-sha256", "x25519"};
  }
  KeyParts generate_key(const std::string& algorithm) override {
    ++testing::g_keygen_calls;
    return real(algorithm).generate_key(algorithm);
  }
  std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                     const Params& params) override {
    if (variant_ == "leaky" && algorithm == "aes-256-gcm" && op == OpKind::Decrypt)
      return std::make_unique<LeakyTagOp>(
          real(algorithm).prepare(algorithm, OpKind::Encrypt, params));
    return std::make_unique<FaultOp>(real(algorithm).prepare(algorithm, op, params), variant_);
  }
  std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                const Params& params) override {
    if (variant_ != "leaky") return real(algorithm).prepare_mac_verify(algorithm, params);
    return std::make_unique<MacCompareOp>(real(algorithm).prepare(algorithm, OpKind::Mac, params),
                                          checked_algorithm(algorithm, OpKind::Mac).output_len,
                                          leaky_equal);
  }
  std::map<std::string, std::string> code_path() const override { return {{"variant", variant_}}; }

 private:
  // The first real provider offering the algorithm.
  static Provider& real(const std::string& algorithm) {
    for (const auto& name : provider_names()) {
      if (!is_reference_provider(name)) continue;
      Provider* p = get_provider(name);
      if (p->baseline()) continue;
      const auto algs = p->algorithms();
      if (std::find(algs.begin(), algs.end(), algorithm) != algs.end()) return *p;
    }
    throw Unsupported("no real provider offers " + algorithm);
  }

  std::string variant_ = "default";
};

const bool registered = [] {
  const char* on = std::getenv("CRYPTOBENCH_TEST_PROVIDERS");
  if (on && std::string(on) == "1") testing::register_fault_provider();
  return true;
}();

}  // namespace

void testing::register_fault_provider() {
  static Registrar r("fault", [] { return std::unique_ptr<Provider>(new FaultProvider()); });
}

}  // namespace cb
