#include "cryptobench/engine.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "../src/testing/fault_provider.hpp"
#include "cryptobench/heap.hpp"
#include "cryptobench/stats.hpp"

namespace cb {
namespace {

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

}  // namespace
}  // namespace cb
