// Allocator interposition; see heap.hpp. This file is compiled into each executable, never into
// a library, so these definitions are the ones the dynamic linker binds every library's calls to.
#include "cryptobench/heap.hpp"

#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstddef>

extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void* __libc_valloc(size_t);
void* __libc_pvalloc(size_t);
}

namespace {

std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocs{0}, g_frees{0}, g_bytes{0};
std::atomic<int64_t> g_live{0}, g_peak{0};

void note_alloc(void* p, size_t requested) {
  if (!p || !g_counting.load(std::memory_order_relaxed)) return;
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(requested, std::memory_order_relaxed);
  const int64_t live =
      g_live.fetch_add(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed) +
      static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

void note_free(void* p) {
  if (!p || !g_counting.load(std::memory_order_relaxed)) return;
  g_frees.fetch_add(1, std::memory_order_relaxed);
  g_live.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
}

}  // namespace

extern "C" {

void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  note_alloc(p, n);
  return p;
}

void free(void* p) {
  note_free(p);
  __libc_free(p);
}

void* calloc(size_t count, size_t size) {
  void* p = __libc_calloc(count, size);
  note_alloc(p, count * size);
  return p;
}

void* realloc(void* old, size_t n) {
  if (old && n == 0) {  // glibc frees in this case
    free(old);
    return nullptr;
  }
  const size_t old_usable = old ? malloc_usable_size(old) : 0;
  void* p = __libc_realloc(old, n);
  if (p && g_counting.load(std::memory_order_relaxed)) {
    if (old) {
      g_frees.fetch_add(1, std::memory_order_relaxed);
      g_live.fetch_sub(static_cast<int64_t>(old_usable), std::memory_order_relaxed);
    }
    note_alloc(p, n);
  }
  return p;
}

void* memalign(size_t alignment, size_t n) {
  void* p = __libc_memalign(alignment, n);
  note_alloc(p, n);
  return p;
}

int posix_memalign(void** out, size_t alignment, size_t n) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(alignment, n);
  if (!p) return ENOMEM;
  note_alloc(p, n);
  *out = p;
  return 0;
}

void* aligned_alloc(size_t alignment, size_t n) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    errno = EINVAL;
    return nullptr;
  }
  return memalign(alignment, n);
}

void* valloc(size_t n) {
  void* p = __libc_valloc(n);
  note_alloc(p, n);
  return p;
}

void* pvalloc(size_t n) {
  void* p = __libc_pvalloc(n);
  note_alloc(p, n);
  return p;
}

}  // extern "C"

namespace cb::heap {

bool available() { return true; }

void start() {
  g_counting.store(false);
  g_allocs = 0;
  g_frees = 0;
  g_bytes = 0;
  g_live = 0;
  g_peak = 0;
  g_counting.store(true);
}

Counters stop() {
  g_counting.store(false);
  Counters c;
  c.allocs = g_allocs.load();
  c.frees = g_frees.load();
  c.bytes = g_bytes.load();
  c.live = g_live.load();
  c.peak_live = g_peak.load();
  return c;
}

}  // namespace cb::heap
