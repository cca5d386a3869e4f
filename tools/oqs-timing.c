// oqs-timing: one liboqs operation timed in the ways the PQ fidelity check compares
// (docs/post-quantum.md, "Fidelity"), in one small process linked against the cached liboqs.a,
// so the harnesses can be told apart from the library:
//
//   speed     liboqs's speed_sig/speed_kem (tests/ds_benchmark.h): gettimeofday around every
//             call, the mean of the whole-microsecond differences over one second;
//   batch     cryptobench's engine (native/src/core/engine.cpp): 20 ms warm-up, a count
//             calibrated to 2 ms samples, 11 samples back to back, the median ns/op;
//   visits    the same, as a coordinator drives it: samples in visits of 3, the process asleep
//             for GAP µs before each visit, then ~0.75 ms of untimed operations (the re-warm);
//   cold      visits without the re-warm;
//   single    one operation per sample (how the engine times key generation), visits of 3
//             after GAP µs asleep, no re-warm (the engine's rule for iterations < 2);
//   keys      one key per sample, back to back, after 20 ms of keys (the engine's key generation
//             within one visit).
//
// OP `keygen-adapter` is key generation shaped as src/providers/liboqs.cpp generate_key() does
// it: a fresh OQS_KEM/OQS_SIG object, a seed from OQS_randombytes, fresh zeroed buffers for the
// seed and both keys, the key pair from the seed (ML-DSA: through the custom random source, set
// and reset around OQS_SIG_keypair), everything freed; `keygen` is speed_kem's and speed_sig's
// OQS_*_keypair into the same two buffers every time.
//
// Build (no install; the cache path is `make liboqs`'s):
//   cc -O2 -I$L/prefix/include tools/oqs-timing.c $L/prefix/lib/liboqs.a -lpthread -o oqs-timing
// Run pinned where the runners pin themselves:
//   taskset -c 1 ./oqs-timing MODE ML-DSA-65|ML-KEM-768 OP [GAP_US]
// Prints one line: mode alg op ns_per_op core_ghz_before core_ghz_after median_sample_ghz
// (the clock measured by ~20 µs of dependent adds right before each sample; after, for speed).
#define _GNU_SOURCE
#include <oqs/oqs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum Op { SIG_KEYGEN, SIGN, VERIFY, KEM_KEYGEN, ENCAPS, DECAPS, SIG_ADAPTER, KEM_ADAPTER };

struct Ctx {
  enum Op op;
  const char* alg;
  OQS_SIG* sig;
  OQS_KEM* kem;
  uint8_t *pk, *sk, *msg, *sigbuf, *ct, *ss;
  size_t siglen, msglen;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// The engine's core_ghz (native/src/core/machine.cpp): 16 dependent adds per round, the best
// of `attempts` runs of `rounds` rounds.
static double ghz_of(int attempts, int rounds) {
  double best = 0;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    uint64_t x = 0;
    const uint64_t t0 = now_ns();
    for (int i = 0; i < rounds; ++i)
      __asm__ volatile(
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
          : "+r"(x));
    const uint64_t t1 = now_ns();
    const double ghz = (double)rounds * 16 / (double)(t1 - t0);
    if (ghz > best) best = ghz;
  }
  return best;
}

static double core_ghz(void) { return ghz_of(5, 1 << 14); }

// The clock right before a sample: ~20 µs of adds, so it barely delays the sample.
static double sample_ghz[64];
static int ghz_per_sample = 1;  // `keys` leaves it out: nothing runs between the engine's keys

static void must(OQS_STATUS rc, const char* what) {
  if (rc != OQS_SUCCESS) {
    fprintf(stderr, "oqs-timing: %s failed\n", what);
    exit(1);
  }
}

// The adapter's seed source (liboqs.cpp seed_source): the seed, once.
static const uint8_t* g_seed;
static size_t g_seed_left;
static void seed_source(uint8_t* out, size_t n) {
  if (n > g_seed_left) abort();
  memcpy(out, g_seed, n);
  g_seed += n;
  g_seed_left -= n;
}

static void adapter_kem_keygen(const char* alg) {
  OQS_KEM* k = OQS_KEM_new(alg);
  uint8_t* seed = calloc(1, k->length_keypair_seed);
  uint8_t* pk = calloc(1, k->length_public_key);
  uint8_t* sk = calloc(1, k->length_secret_key);
  OQS_randombytes(seed, k->length_keypair_seed);
  must(OQS_KEM_keypair_derand(k, pk, sk, seed), "keypair_derand");
  free(sk), free(pk), free(seed);
  OQS_KEM_free(k);
}

static void adapter_sig_keygen(const char* alg) {
  OQS_SIG* s = OQS_SIG_new(alg);
  uint8_t* seed = calloc(1, 32);
  uint8_t* pk = calloc(1, s->length_public_key);
  uint8_t* sk = calloc(1, s->length_secret_key);
  OQS_randombytes(seed, 32);
  g_seed = seed, g_seed_left = 32;
  OQS_randombytes_custom_algorithm(seed_source);
  must(OQS_SIG_keypair(s, pk, sk), "keypair");
  OQS_randombytes_switch_algorithm(OQS_RAND_alg_system);
  free(sk), free(pk), free(seed);
  OQS_SIG_free(s);
}

static void run_op(struct Ctx* c) {
  switch (c->op) {
    case SIG_KEYGEN:
      must(OQS_SIG_keypair(c->sig, c->pk, c->sk), "keypair");
      break;
    case SIGN:
      must(OQS_SIG_sign(c->sig, c->sigbuf, &c->siglen, c->msg, c->msglen, c->sk), "sign");
      break;
    case VERIFY:
      must(OQS_SIG_verify(c->sig, c->msg, c->msglen, c->sigbuf, c->siglen, c->pk), "verify");
      break;
    case KEM_KEYGEN:
      must(OQS_KEM_keypair(c->kem, c->pk, c->sk), "keypair");
      break;
    case ENCAPS:
      must(OQS_KEM_encaps(c->kem, c->ct, c->ss, c->pk), "encaps");
      break;
    case DECAPS:
      must(OQS_KEM_decaps(c->kem, c->ss, c->ct, c->sk), "decaps");
      break;
    case SIG_ADAPTER:
      adapter_sig_keygen(c->alg);
      break;
    case KEM_ADAPTER:
      adapter_kem_keygen(c->alg);
      break;
  }
}

static void run_ops(struct Ctx* c, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) run_op(c);
}

static double speed_mean_ns(struct Ctx* c) {
  uint64_t iterations = 0, cumulative_us = 0;
  while (cumulative_us < 1000000) {
    struct timeval a, b;
    gettimeofday(&a, NULL);
    run_op(c);
    gettimeofday(&b, NULL);
    cumulative_us += (uint64_t)((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_usec - a.tv_usec));
    ++iterations;
  }
  return (double)cumulative_us * 1000.0 / (double)iterations;
}

static uint64_t calibrate(struct Ctx* c, double target_ns, double warmup_ns) {
  const uint64_t w = now_ns();
  do run_op(c);
  while ((double)(now_ns() - w) < warmup_ns);
  uint64_t n = 1;
  uint64_t t0 = now_ns();
  run_ops(c, n);
  double elapsed = (double)(now_ns() - t0);
  while (elapsed < target_ns / 4) {
    n *= 2;
    t0 = now_ns();
    run_ops(c, n);
    elapsed = (double)(now_ns() - t0);
  }
  for (int i = 0; i < 2; ++i) {
    t0 = now_ns();
    run_ops(c, n);
    const double e = (double)(now_ns() - t0);
    if (e < elapsed) elapsed = e;
  }
  const double scaled = (double)n * target_ns / elapsed + 0.5;
  return scaled < 1 ? 1 : (uint64_t)scaled;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// 11 samples of `iterations` operations; visits of `per_visit` samples, each visit after
// `gap_us` asleep (0: back to back) and, when `rewarm`, ~0.75 ms of untimed operations.
static double median_ns(struct Ctx* c, uint64_t iterations, int per_visit, unsigned gap_us,
                        int rewarm, double per_op_ns) {
  enum { kSamples = 11 };
  double per[kSamples];
  for (int s = 0; s < kSamples; ++s) {
    if (s % per_visit == 0 && gap_us) {
      usleep(gap_us);
      if (rewarm) run_ops(c, (uint64_t)(750000.0 / per_op_ns) + 1);
    }
    if (ghz_per_sample) sample_ghz[s] = ghz_of(1, 1 << 12);
    const uint64_t t0 = now_ns();
    run_ops(c, iterations);
    per[s] = (double)(now_ns() - t0) / (double)iterations;
  }
  qsort(per, kSamples, sizeof per[0], by_value);
  qsort(sample_ghz, kSamples, sizeof sample_ghz[0], by_value);
  return per[kSamples / 2];
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr,
            "usage: oqs-timing speed|batch|visits|cold|single|keys ML-DSA-65|ML-KEM-768 OP "
            "[GAP_US]\n");
    return 2;
  }
  const char *mode = argv[1], *alg = argv[2], *opname = argv[3];
  const unsigned gap_us = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 300;
  OQS_init();
  struct Ctx c = {0};
  c.alg = alg;
  c.sig = OQS_SIG_new(alg);
  c.kem = c.sig ? NULL : OQS_KEM_new(alg);
  if (!c.sig && !c.kem) {
    fprintf(stderr, "oqs-timing: liboqs has no %s\n", alg);
    return 2;
  }
  if (c.sig) {
    c.pk = malloc(c.sig->length_public_key);
    c.sk = malloc(c.sig->length_secret_key);
    c.sigbuf = malloc(c.sig->length_signature);
    c.msglen = 32;  // the suites' message; speed_sig signs 50 bytes
    c.msg = malloc(c.msglen);
    OQS_randombytes(c.msg, c.msglen);
    must(OQS_SIG_keypair(c.sig, c.pk, c.sk), "keypair");
    must(OQS_SIG_sign(c.sig, c.sigbuf, &c.siglen, c.msg, c.msglen, c.sk), "sign");
    c.op = !strcmp(opname, "keygen")           ? SIG_KEYGEN
           : !strcmp(opname, "keygen-adapter") ? SIG_ADAPTER
           : !strcmp(opname, "sign")           ? SIGN
                                               : VERIFY;
    if (strcmp(opname, "keygen") && strcmp(opname, "keygen-adapter") && strcmp(opname, "sign") &&
        strcmp(opname, "verify")) {
      fprintf(stderr, "oqs-timing: a signature's OP is keygen, keygen-adapter, sign or verify\n");
      return 2;
    }
  } else {
    c.pk = malloc(c.kem->length_public_key);
    c.sk = malloc(c.kem->length_secret_key);
    c.ct = malloc(c.kem->length_ciphertext);
    c.ss = malloc(c.kem->length_shared_secret);
    must(OQS_KEM_keypair(c.kem, c.pk, c.sk), "keypair");
    must(OQS_KEM_encaps(c.kem, c.ct, c.ss, c.pk), "encaps");
    c.op = !strcmp(opname, "keygen")           ? KEM_KEYGEN
           : !strcmp(opname, "keygen-adapter") ? KEM_ADAPTER
           : !strcmp(opname, "encaps")         ? ENCAPS
                                               : DECAPS;
    if (strcmp(opname, "keygen") && strcmp(opname, "keygen-adapter") && strcmp(opname, "encaps") &&
        strcmp(opname, "decaps")) {
      fprintf(stderr, "oqs-timing: a KEM's OP is keygen, keygen-adapter, encaps or decaps\n");
      return 2;
    }
  }
  const double ghz0 = core_ghz();
  double ns;
  sample_ghz[5] = 0;
  if (!strcmp(mode, "speed")) {
    ns = speed_mean_ns(&c);
  } else if (!strcmp(mode, "single")) {
    const uint64_t w = now_ns();
    do run_op(&c);
    while (now_ns() - w < 20000000);
    ns = median_ns(&c, 1, 3, gap_us, 0, 0);
  } else if (!strcmp(mode, "keys")) {
    const uint64_t w = now_ns();
    do run_op(&c);
    while (now_ns() - w < 20000000);
    ghz_per_sample = 0;
    ns = median_ns(&c, 1, 11, 0, 0, 0);
  } else {
    const uint64_t n = calibrate(&c, 2e6, 20e6);
    const double per_op = 2e6 / (double)n;
    if (!strcmp(mode, "batch"))
      ns = median_ns(&c, n, 11, 0, 0, per_op);
    else if (!strcmp(mode, "visits"))
      ns = median_ns(&c, n, 3, gap_us, 1, per_op);
    else if (!strcmp(mode, "cold"))
      ns = median_ns(&c, n, 3, gap_us, 0, per_op);
    else {
      fprintf(stderr, "oqs-timing: unknown mode %s\n", mode);
      return 2;
    }
  }
  // speed has no samples: its clock is the one right after its second of work.
  const double after = core_ghz();
  // Where the operation's data lies (its page offsets matter when two of them alias).
  char here;
  printf("%s %s %s %.0f %.3f %.3f %.3f stack=%03lx pk=%03lx sig=%03lx msg=%03lx\n", mode, alg,
         opname, ns, ghz0, after, sample_ghz[5] > 0 ? sample_ghz[5] : after,
         (unsigned long)(uintptr_t)&here & 0xfff, (unsigned long)(uintptr_t)c.pk & 0xfff,
         (unsigned long)(uintptr_t)(c.sigbuf ? c.sigbuf : c.ct) & 0xfff,
         (unsigned long)(uintptr_t)(c.msg ? c.msg : c.ss) & 0xfff);
  return 0;
}
