#include "cryptobench/engine.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>

#include "../src/testing/fault_provider.hpp"
#include "cryptobench/heap.hpp"
#include "cryptobench/machine.hpp"
#include "cryptobench/protocol.hpp"
#include "cryptobench/stats.hpp"
#include "cryptobench/vectors.hpp"

namespace cb {
namespace {

using nlohmann::json;

// A clock that only moves when the measured body says so.
class FakeClock : public Clock {
 public:
  uint64_t now_ns() override { return ns; }
  uint64_t ticks() override { return ns * 3; }
  uint64_t ns = 1000;
};

TEST(Calibration, ScalesIterationsToTheTarget) {
  FakeClock clock;
  uint64_t calls = 0;
  auto body = [&](uint64_t n) {
    calls += n;
    clock.ns += 250 * n;  // 250 ns per operation
  };
  const uint64_t n = calibrate(body, clock, 2e6, 1e5);
  EXPECT_EQ(n, 8000u);     // 2 ms / 250 ns
  EXPECT_GE(calls, 400u);  // the warm-up alone is 100 us = 400 calls
}

TEST(Calibration, IgnoresOneDisturbedMeasurement) {
  FakeClock clock;
  int timed_batches = 0;
  auto body = [&](uint64_t n) {
    clock.ns += 1000 * n;
    // The first batch of 512 (the count the doubling stops at) is preempted for 5 ms.
    if (n == 512 && timed_batches++ == 0) clock.ns += 5000000;
  };
  EXPECT_EQ(calibrate(body, clock, 2e6, 0), 2000u);
}

TEST(Calibration, SlowOperationGetsOneIteration) {
  FakeClock clock;
  auto body = [&](uint64_t n) { clock.ns += 10000000 * n; };  // 10 ms per operation
  EXPECT_EQ(calibrate(body, clock, 2e6, 0), 1u);
}

TEST(Summary, MedianQuartilesMadAndThroughput) {
  std::vector<Sample> samples;
  // Per-op ns: 10, 20, ..., 110 (each sample 1000 iterations).
  for (uint64_t i = 1; i <= 11; ++i) samples.push_back({1000, i * 10000, i * 30000});
  const Summary s = summarise(samples, 1000);
  EXPECT_EQ(s.n, 11u);
  EXPECT_DOUBLE_EQ(s.median_ns, 60);
  EXPECT_DOUBLE_EQ(s.q1_ns, 35);
  EXPECT_DOUBLE_EQ(s.q3_ns, 85);
  EXPECT_DOUBLE_EQ(s.min_ns, 10);
  EXPECT_DOUBLE_EQ(s.max_ns, 110);
  EXPECT_DOUBLE_EQ(s.mad_ns, 30);
  EXPECT_DOUBLE_EQ(s.bytes_per_s, 1000 * 1e9 / 60);
  EXPECT_DOUBLE_EQ(s.median_ticks, 180);
  EXPECT_DOUBLE_EQ(s.ticks_per_byte, 0.18);
}

TEST(Summary, QuantileInterpolates) {
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.25), 7);
}

// Calls through a volatile pointer so the compiler cannot pair up and delete malloc/free.
void* (*volatile g_malloc)(size_t) = std::malloc;
void (*volatile g_free)(void*) = std::free;
void* (*volatile g_calloc)(size_t, size_t) = std::calloc;
void* (*volatile g_realloc)(void*, size_t) = std::realloc;
void* (*volatile g_aligned_alloc)(size_t, size_t) = std::aligned_alloc;
int (*volatile g_posix_memalign)(void**, size_t, size_t) = posix_memalign;

TEST(Heap, CountsAKnownAllocation) {
  ASSERT_TRUE(heap::available());
  heap::start();
  void* p = g_malloc(1000);
  void* q = g_malloc(24);
  g_free(q);
  g_free(p);
  const heap::Counters c = heap::stop();
  EXPECT_EQ(c.allocs, 2u);
  EXPECT_EQ(c.frees, 2u);
  EXPECT_EQ(c.bytes, 1024u);
  EXPECT_GE(c.peak_live, 1024);
  EXPECT_EQ(c.live, 0);
}

TEST(Heap, SeesOperatorNewCallocReallocAndAlignedAllocations) {
  heap::start();
  auto* arr = new (std::nothrow) char[300];
  void* c = g_calloc(10, 10);
  c = g_realloc(c, 5000);
  void* a = nullptr;
  ASSERT_EQ(g_posix_memalign(&a, 64, 128), 0);
  void* b = g_aligned_alloc(64, 256);
  g_free(b);
  g_free(a);
  g_free(c);
  delete[] arr;
  const heap::Counters k = heap::stop();
  EXPECT_EQ(k.allocs, 5u);  // new[], calloc, realloc, posix_memalign, aligned_alloc
  EXPECT_EQ(k.frees, 5u);   // realloc releasing the calloc block, three frees, delete[]
  EXPECT_EQ(k.bytes, 300u + 100u + 5000u + 128u + 256u);
  EXPECT_EQ(k.live, 0);
}

TEST(Heap, NotCountingWhenStopped) {
  heap::start();
  heap::stop();
  void* p = g_malloc(100);
  g_free(p);
  heap::start();
  const heap::Counters c = heap::stop();
  EXPECT_EQ(c.allocs, 0u);
}

// A clock where every read of the time takes exactly 1 us and every TSC read 7 ticks.
class SteppingClock : public Clock {
 public:
  uint64_t now_ns() override { return ns += 1000; }
  uint64_t ticks() override { return tsc += 7; }
  uint64_t ns = 0, tsc = 0;
};

TEST(OpenCase, CalibratesAndSamplesOnAFakeClock) {
  SteppingClock clock;
  CaseSpec spec;
  spec.id = "t";
  spec.provider = "openssl";
  spec.operation = "hash";
  spec.algorithm = "sha256";
  spec.size = 64;
  spec.warmup_ms = 0;
  spec.target_sample_ms = 0.004;  // 4 us target / 1 us per batch on this clock => 4 iterations
  OpenCase c(spec, clock);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  EXPECT_EQ(c.iterations(), 4u);
  EXPECT_EQ(c.spec().variant, "default");
  const Sample s = c.sample();
  EXPECT_EQ(s.iterations, 4u);
  EXPECT_EQ(s.ns, 1000u);
  EXPECT_EQ(s.ticks, 7u);
  c.sample();
  EXPECT_EQ(c.samples().size(), 2u);
  EXPECT_DOUBLE_EQ(summarise(c.samples(), 64).median_ns, 250);
}

TEST(OpenCase, UnsupportedAlgorithmIsReportedNotTimed) {
  CaseSpec spec;
  spec.id = "u";
  spec.provider = "openssl";
  spec.operation = "encrypt";
  spec.algorithm = "salsa20";  // OpenSSL 3 has no Salsa20
  spec.size = 64;
  OpenCase c(spec);
  EXPECT_EQ(c.status(), CaseStatus::Unsupported);
  EXPECT_NE(c.reason().find("does not offer"), std::string::npos) << c.reason();
  EXPECT_THROW(c.sample(), std::logic_error);
}

TEST(Gate, RefusesACorruptedOutput) {
  testing::register_fault_provider();
  select_variant("fault", "corrupt");
  CaseSpec spec;
  spec.id = "f";
  spec.provider = "fault";
  spec.operation = "hash";
  spec.algorithm = "sha256";
  spec.size = 1024;
  OpenCase c(spec);
  EXPECT_EQ(c.status(), CaseStatus::Failed);
  EXPECT_NE(c.reason().find("known-answer test"), std::string::npos) << c.reason();
  EXPECT_TRUE(c.samples().empty());

  spec.id = "g";
  spec.operation = "decrypt";
  spec.algorithm = "aes-256-gcm";
  OpenCase d(spec);
  EXPECT_EQ(d.status(), CaseStatus::Failed) << "a flipped plaintext byte must fail the gate";
}

// ---- the timed instance, buffer layout, re-warm ------------------------------------------------

CaseSpec quick_case(const std::string& provider, const std::string& op, const std::string& alg,
                    uint64_t size) {
  CaseSpec spec;
  spec.id = provider + "-" + op + "-" + alg;
  spec.provider = provider;
  spec.operation = op;
  spec.algorithm = alg;
  spec.size = size;
  spec.samples = 3;
  spec.warmup_ms = 0.2;
  spec.target_sample_ms = 0.2;
  spec.heap_iterations = 1;
  spec.agreement = false;
  return spec;
}

Provider* fault_with(const std::string& variant) {
  testing::register_fault_provider();
  Provider* p = get_provider("fault");
  // The registry initialises a provider once; the fault provider keeps its variant in init().
  p->init(variant);
  return p;
}

void sample_all(OpenCase& c) {
  while (c.status() == CaseStatus::Ok && c.samples().size() < c.spec().samples) c.sample();
}

TEST(TimedInstance, AnOutputThatGoesWrongAfterTheGateFailsTheCase) {
  fault_with("drift");
  // Decryption out of place: in place, the flipped byte would break the next run's tag check.
  for (const char* op : {"encrypt", "decrypt"}) {
    CaseSpec spec = quick_case("fault", op, "aes-256-gcm", 1024);
    spec.inplace = std::string(op) == "encrypt";
    OpenCase c(spec);
    ASSERT_EQ(c.status(), CaseStatus::Ok) << "the gate sees only the first runs: " << c.reason();
    sample_all(c);
    EXPECT_EQ(c.status(), CaseStatus::Failed) << op;
    EXPECT_NE(c.reason().find("output differs from the gated instance"), std::string::npos)
        << c.reason();
    // A caller that asks for one more sample (serve) gets an error, and the reason stays.
    EXPECT_THROW(c.sample(), std::logic_error);
    c.fail("library error while sampling: sample() on a case that is not ok");
    EXPECT_NE(c.reason().find("output differs"), std::string::npos) << c.reason();
  }
  fault_with("default");
}

TEST(TimedInstance, AWritePastTheOutputFailsTheCase) {
  fault_with("overflow");
  OpenCase c(quick_case("fault", "hash", "sha256", 4096));
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  sample_all(c);
  EXPECT_EQ(c.status(), CaseStatus::Failed);
  EXPECT_NE(c.reason().find("wrote past its 32-byte output"), std::string::npos) << c.reason();
  fault_with("default");
}

TEST(TimedInstance, ACorrectCaseReportsWhatWasChecked) {
  OpenCase c(quick_case("openssl", "hash", "sha256", 1000));
  sample_all(c);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  EXPECT_EQ(c.timed_check(), "output equals the gated instance's; canaries intact");
}

TEST(Layout, CiphersRunInPlaceByDefaultAndOutOfPlaceAtAFixedDistance) {
  fault_with("default");
  CaseSpec spec = quick_case("fault", "encrypt", "aes-256-gcm", 16384);
  spec.align_offset = 3;
  OpenCase in(spec);
  ASSERT_EQ(in.status(), CaseStatus::Ok) << in.reason();
  auto [i1, o1] = testing::last_buffers();
  EXPECT_EQ(i1, o1) << "in place: one buffer is input and output";
  EXPECT_TRUE(in.layout().inplace);
  EXPECT_EQ(in.layout().in_page_offset, 3u);

  spec.inplace = false;
  OpenCase out(spec);
  ASSERT_EQ(out.status(), CaseStatus::Ok) << out.reason();
  auto [i2, o2] = testing::last_buffers();
  EXPECT_FALSE(out.layout().inplace);
  EXPECT_EQ(static_cast<uint64_t>(o2 - i2), out.layout().distance);
  EXPECT_EQ(out.layout().distance % 4096, 2048u) << "never the same offset in a 4 KiB page";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(i2) % 4096, 3u);
}

TEST(Layout, HashesAndPublicKeyInputsAreNeverOverwritten) {
  fault_with("default");
  OpenCase c(quick_case("fault", "hash", "sha256", 256));
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  auto [i, o] = testing::last_buffers();
  EXPECT_NE(i, o);
  EXPECT_FALSE(c.layout().inplace);
}

// Every adapter's ciphers and AEADs, encrypting and decrypting in place: the check after the
// last sample compares the in-place output with the gated fresh instance's.
TEST(Layout, EveryAdapterEncryptsAndDecryptsCorrectlyInPlace) {
  int checked = 0, out_of_place = 0;
  for (const auto& name : provider_names()) {
    Provider* p = get_provider(name);
    if (!is_reference_provider(name) || p->baseline() || !unusable_reason(name).empty()) continue;
    for (const auto& alg : p->algorithms()) {
      const AlgorithmInfo* info = find_algorithm(alg);
      if (!info || (info->kind != Kind::Cipher && info->kind != Kind::Aead)) continue;
      for (const char* op : {"encrypt", "decrypt"}) {
        CaseSpec spec = quick_case(name, op, alg, 4096);
        spec.samples = 1;
        spec.target_sample_ms = 0.05;
        spec.warmup_ms = 0;
        OpenCase c(spec);
        if (c.status() == CaseStatus::Unsupported) continue;
        sample_all(c);
        EXPECT_EQ(c.status(), CaseStatus::Ok)
            << name << " " << op << " " << alg << ": " << c.reason();
        if (!c.layout().inplace) {
          std::cout << c.layout().note << "\n";
          ++out_of_place;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 20);
  EXPECT_LE(out_of_place, 2) << "only APIs that cannot work in place fall back";
}

TEST(Rewarm, ASampleRequestAfterAGapRunsUntimedOperationsFirst) {
  SteppingClock clock;
  CaseSpec spec = quick_case("openssl", "hash", "sha256", 64);
  spec.warmup_ms = 0;
  spec.target_sample_ms = 0.004;  // 4 iterations on this clock
  OpenCase c(spec, clock);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  c.sample();
  c.sample();
  EXPECT_EQ(c.rewarms(), 0u) << "back-to-back samples are one visit";
  clock.ns += 10000000;  // another process had the CPU for 10 ms
  c.sample();
  EXPECT_EQ(c.rewarms(), 1u);
}

TEST(Rewarm, KeyGenerationWarmsUpForWarmupMsNotForOneKey) {
  fault_with("default");
  SteppingClock clock;  // every clock read advances 1 us
  CaseSpec spec = quick_case("fault", "keygen", "x25519", 0);
  spec.warmup_ms = 0.02;  // 20 us
  const uint64_t before = testing::keygen_calls();
  OpenCase c(spec, clock);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  // The gate generates a few keys itself; the warm-up alone is about 20.
  EXPECT_GE(testing::keygen_calls() - before, 15u);
  // The check after sampling generates no further key (RSA-4096 would take seconds).
  c.sample();
  const uint64_t sampled = testing::keygen_calls();
  c.check_timed_instance();
  EXPECT_EQ(testing::keygen_calls(), sampled);
  EXPECT_EQ(c.timed_check(), "canaries intact (randomised output: not compared)");
}

TEST(Rewarm, KeyGenerationShorterThanHalfASampleIsReWarmedByUntimedKeys) {
  fault_with("default");
  SteppingClock clock;  // every clock read advances 1 us: a key of the warm-up takes about 1 us
  CaseSpec spec = quick_case("fault", "keygen", "x25519", 0);
  spec.warmup_ms = 0.02;
  spec.target_sample_ms = 0.05;  // a key is far shorter than half a sample
  OpenCase c(spec, clock);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  c.sample();
  EXPECT_EQ(c.rewarms(), 0u) << "the first sample follows the warm-up";
  clock.ns += 10000000;  // another case or process had the CPU for 10 ms
  const uint64_t before = testing::keygen_calls();
  c.sample();
  EXPECT_EQ(c.rewarms(), 1u);
  // About 0.75 ms of untimed 1-us keys, then the sample's one key.
  EXPECT_GE(testing::keygen_calls() - before, 500u);
}

TEST(Rewarm, AKeyLongerThanHalfASampleWarmsItself) {
  fault_with("default");
  SteppingClock clock;
  CaseSpec spec = quick_case("fault", "keygen", "x25519", 0);
  spec.warmup_ms = 0.02;
  spec.target_sample_ms = 0.001;  // half a sample (0.5 us) is shorter than a key
  OpenCase c(spec, clock);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  c.sample();
  clock.ns += 10000000;
  const uint64_t before = testing::keygen_calls();
  c.sample();
  EXPECT_EQ(c.rewarms(), 0u);
  EXPECT_EQ(testing::keygen_calls() - before, 1u);
}

// ---- memory -------------------------------------------------------------------------------------

TEST(Heap, PeakIsTheRiseAboveTheLowestPointNotAboveTheStart) {
  void* old = g_malloc(100000);
  heap::start();
  g_free(old);                 // a block from before counting: live goes negative
  void* p = g_malloc(100000);  // the same size again: live is back at 0
  const heap::Counters c = heap::stop();
  g_free(p);
  EXPECT_GE(c.peak_live, 100000) << "a context freed and re-allocated still occupies memory";
}

TEST(Heap, CountsAnonymousMappings) {
  heap::start();
  const size_t len = 3 << 20;
  void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  ASSERT_EQ(munmap(m, len), 0);
  const heap::Counters c = heap::stop();
  EXPECT_EQ(c.mmaps, 1u);
  EXPECT_EQ(c.munmaps, 1u);
  EXPECT_EQ(c.mmap_bytes, len);
  EXPECT_GE(c.peak_live, static_cast<int64_t>(len));
  EXPECT_EQ(c.live, 0);
}

TEST(Heap, ResidentPeakResetsPerCase) {
  const size_t len = 32 << 20;
  auto* m = static_cast<uint8_t*>(
      mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(m, MAP_FAILED);
  std::memset(m, 1, len);
  munmap(m, len);
  const int64_t lifetime_peak = heap::rss_peak_kb();
  ASSERT_TRUE(heap::reset_rss_peak());
  EXPECT_LT(heap::rss_peak_kb(), lifetime_peak - 16 * 1024) << "32 MiB were released";
  EXPECT_GE(heap::lifetime_rss_peak_kb(), lifetime_peak) << "max_rss_kb survives the reset";
}

TEST(Heap, SodiumArgon2idMemoryIsCountedThroughItsMmap) {
  if (!peek_provider("sodium")) GTEST_SKIP() << "libsodium not compiled in";
  CaseSpec spec = quick_case("sodium", "derive", "argon2id", 16);
  spec.cost = {{"t", 1}, {"m", 8192}, {"p", 1}};
  spec.samples = 1;
  OpenCase c(spec);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  EXPECT_GE(c.heap().peak_live_bytes, 8192 * 1024) << "8 MiB of Argon2 memory";
  EXPECT_GE(c.heap().mmap_bytes_per_op, 8192.0 * 1024);
  EXPECT_GT(c.heap().minor_faults_per_op, 1000) << "MAP_POPULATE of 2048 pages";
  // VmRSS and VmHWM are read from the kernel's per-CPU counters, each exact only to
  // percpu_counter_batch (max(32, 2 * CPUs) pages) per online CPU; two readings are compared.
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const int64_t slack_kb = 2 * std::max(32L, 2 * cpus) * cpus * (sysconf(_SC_PAGESIZE) / 1024);
  EXPECT_GE(c.heap().rss_peak_kb - c.heap().rss_before_kb, 8192 - slack_kb)
      << "8 MiB populated, less what the two counter readings may lag";
}

// ---- one policy for peer keys: validated once, in prepare ---------------------------------------

// Every adapter whose API separates validation from agreement rejects an invalid peer key when
// the operation is prepared, so the timed run() does not validate again.
TEST(PeerKeys, AnInvalidFfdhPeerIsRejectedInPrepare) {
  for (const char* name : {"cryptopp", "openssl"}) {
    Provider* p = peek_provider(name) ? get_provider(name) : nullptr;
    if (!p) continue;
    Params params;
    params.keypair = test_key("ffdhe2048");
    Bytes y = test_key("ffdhe2048-peer").at("y");
    y.assign(y.size(), 0);  // y = 1: g^xy = 1 whatever x is (SP 800-56A requires 1 < y < p - 1)
    y.back() = 1;
    params.peer = {{"y", y}};
    EXPECT_THROW(p->prepare("ffdhe2048", OpKind::Derive, params), Error) << name;
  }
}

// ---- machine and the null provider ----------------------------------------------------------

TEST(Machine, FrequencyStateIsThatOfTheCpuWeRunOn) {
  // Pinned for the test, as a runner is, so the CPU cannot change under it.
  cpu_set_t before, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  const int cpu = sched_getcpu();
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const json m = machine_record();
  sched_setaffinity(0, sizeof before, &before);
  EXPECT_EQ(m["cpu_state"]["cpu"], cpu);
  EXPECT_EQ(m["governor"], m["cpu_state"]["governor"]);
  EXPECT_TRUE(m["boost"].is_null() || m["cpu_state"].contains("boost"));
  EXPECT_EQ(m["pmu_cycles"].get<bool>(), has_core_cycles());
  EXPECT_GT(core_ghz(), 0.05) << "an add chain runs at some clock";
}

TEST(NullProvider, IsABaselineThatPassesTheGate) {
  ASSERT_NE(peek_provider("null"), nullptr);
  EXPECT_TRUE(get_provider("null")->baseline());
  OpenCase c(quick_case("null", "hash", "null", 16));
  sample_all(c);
  ASSERT_EQ(c.status(), CaseStatus::Ok) << c.reason();
  const json caps = capabilities();
  for (const auto& p : caps["providers"])
    EXPECT_EQ(p.value("baseline", false), p["name"] == "null") << p["name"];
}

}  // namespace
}  // namespace cb
