// Allocator interposition; see heap.hpp. This file is compiled into each executable, never into
// a library, so these definitions are the ones the dynamic linker binds every library's calls to.
#include "cryptobench/heap.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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
std::atomic<uint64_t> g_mmaps{0}, g_munmaps{0}, g_mmap_bytes{0};
std::atomic<int64_t> g_live{0}, g_floor{0}, g_peak{0};

void raise_live(int64_t bytes) {
  const int64_t live = g_live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  const int64_t rise = live - g_floor.load(std::memory_order_relaxed);
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (rise > peak && !g_peak.compare_exchange_weak(peak, rise, std::memory_order_relaxed)) {
  }
}

void lower_live(int64_t bytes) {
  const int64_t live = g_live.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
  int64_t floor = g_floor.load(std::memory_order_relaxed);
  while (live < floor && !g_floor.compare_exchange_weak(floor, live, std::memory_order_relaxed)) {
  }
}

void note_alloc(void* p, size_t requested) {
  if (!p || !g_counting.load(std::memory_order_relaxed)) return;
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(requested, std::memory_order_relaxed);
  raise_live(static_cast<int64_t>(malloc_usable_size(p)));
}

void note_free(void* p) {
  if (!p || !g_counting.load(std::memory_order_relaxed)) return;
  g_frees.fetch_add(1, std::memory_order_relaxed);
  lower_live(static_cast<int64_t>(malloc_usable_size(p)));
}

// Anonymous mappings made while counting, so that munmap subtracts only what mmap added. A
// fixed table: a std::map would allocate, and mappings are few (one per KDF call).
struct Mapping {
  void* addr;
  size_t len;
};
constexpr size_t kMappings = 256;
Mapping g_mappings[kMappings];
std::atomic_flag g_mappings_lock = ATOMIC_FLAG_INIT;

size_t page_round(size_t n) {
  const size_t page = 4096;
  return (n + page - 1) / page * page;
}

void note_mmap(void* p, size_t len, int flags) {
  if (p == MAP_FAILED || !(flags & MAP_ANONYMOUS) || !g_counting.load(std::memory_order_relaxed))
    return;
  const size_t bytes = page_round(len);
  while (g_mappings_lock.test_and_set(std::memory_order_acquire)) {
  }
  for (auto& m : g_mappings)
    if (!m.addr) {
      m = {p, bytes};
      break;
    }
  g_mappings_lock.clear(std::memory_order_release);
  g_mmaps.fetch_add(1, std::memory_order_relaxed);
  g_mmap_bytes.fetch_add(bytes, std::memory_order_relaxed);
  raise_live(static_cast<int64_t>(bytes));
}

void note_munmap(void* p, size_t len) {
  size_t bytes = 0;
  while (g_mappings_lock.test_and_set(std::memory_order_acquire)) {
  }
  for (auto& m : g_mappings)
    if (m.addr == p) {
      bytes = std::min(m.len, page_round(len));
      m = {nullptr, 0};
      break;
    }
  g_mappings_lock.clear(std::memory_order_release);
  if (!bytes || !g_counting.load(std::memory_order_relaxed)) return;
  g_munmaps.fetch_add(1, std::memory_order_relaxed);
  lower_live(static_cast<int64_t>(bytes));
}

int64_t status_kb(const char* field) {
  // Read with open/read, not stdio: no allocation while counting may be on.
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  const char* at = std::strstr(buf, field);
  if (!at) return -1;
  return std::strtoll(at + std::strlen(field), nullptr, 10);
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
  // malloc_usable_size only while counting: outside it realloc costs what glibc's does.
  const bool counting = g_counting.load(std::memory_order_relaxed);
  const size_t old_usable = counting && old ? malloc_usable_size(old) : 0;
  void* p = __libc_realloc(old, n);
  if (p && counting) {
    if (old) {
      g_frees.fetch_add(1, std::memory_order_relaxed);
      lower_live(static_cast<int64_t>(old_usable));
    }
    note_alloc(p, n);
  }
  return p;
}

// mmap on x86-64 Linux is one system call; glibc's own wrapper is not exported to call through.
void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t offset) {
  void* p = reinterpret_cast<void*>(syscall(SYS_mmap, addr, len, prot, flags, fd, offset));
  note_mmap(p, len, flags);
  return p;
}

void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, len, prot, flags, fd, offset);
}

int munmap(void* addr, size_t len) {
  const int rc = static_cast<int>(syscall(SYS_munmap, addr, len));
  if (rc == 0) note_munmap(addr, len);
  return rc;
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
  g_floor = 0;
  g_peak = 0;
  g_mmaps = 0;
  g_munmaps = 0;
  g_mmap_bytes = 0;
  while (g_mappings_lock.test_and_set(std::memory_order_acquire)) {
  }
  for (auto& m : g_mappings) m = {nullptr, 0};
  g_mappings_lock.clear(std::memory_order_release);
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
  c.mmaps = g_mmaps.load();
  c.munmaps = g_munmaps.load();
  c.mmap_bytes = g_mmap_bytes.load();
  return c;
}

int64_t rss_kb() { return status_kb("VmRSS:"); }

namespace {
std::atomic<int64_t> g_lifetime_rss_peak_kb{0};

void fold_rss_peak(int64_t kb) {
  int64_t seen = g_lifetime_rss_peak_kb.load();
  while (kb > seen && !g_lifetime_rss_peak_kb.compare_exchange_weak(seen, kb)) {
  }
}
}  // namespace

bool reset_rss_peak() {
  fold_rss_peak(rss_peak_kb());
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

int64_t rss_peak_kb() { return status_kb("VmHWM:"); }

int64_t lifetime_rss_peak_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  fold_rss_peak(ru.ru_maxrss);
  return g_lifetime_rss_peak_kb.load();
}

uint64_t minor_faults() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_minflt);
}

}  // namespace cb::heap
