// Heap accounting by interposition: src/core/heap.cpp defines malloc, free, calloc, realloc,
// posix_memalign, aligned_alloc, memalign, valloc and pvalloc in the executable and forwards them
// to glibc's __libc_* entry points, counting while counting is on. It also defines mmap, mmap64
// and munmap (forwarded as system calls) and counts anonymous mappings made while counting
// (libsodium's Argon2id and scrypt, sodium_malloc) as live memory until they are unmapped.
//
// Blind spots (documented in docs/methodology.md): memory a library maps before counting starts
// and keeps (Botan's mlock pool, OpenSSL's secure heap), mremap, allocations and mappings glibc
// makes internally (e.g. reallocarray, strdup inside libc, malloc's own mmap of large blocks,
// which is counted as the malloc), and memory on the stack.
#pragma once

#include <cstdint>

namespace cb::heap {

struct Counters {
  uint64_t allocs = 0;  // successful allocation calls (malloc, calloc, realloc, memalign, ...)
  uint64_t frees = 0;   // free calls with a non-null pointer
  uint64_t bytes = 0;   // bytes requested by those allocation calls
  int64_t live = 0;     // usable bytes allocated minus usable bytes freed while counting,
                        // plus anonymous bytes mapped minus unmapped
  // Highest rise of `live` above its lowest earlier value: freeing a block allocated before
  // counting began lowers the floor instead of hiding a later allocation.
  int64_t peak_live = 0;
  uint64_t mmaps = 0;       // anonymous mmap calls
  uint64_t munmaps = 0;     // munmap calls of mappings counted by mmaps
  uint64_t mmap_bytes = 0;  // bytes those mmap calls mapped
};

// True when this executable's allocator entry points are the ones in use (heap.cpp linked in).
bool available();
// Reset all counters to zero and start counting in this process (all threads).
void start();
// Stop counting and return what was counted since start().
Counters stop();

// Resident set of this process in KiB (VmRSS), -1 when /proc is unreadable.
int64_t rss_kb();
// Resets the resident high-water mark to the current resident set (writes 5 to
// /proc/self/clear_refs); false when the kernel does not allow it. The mark it clears is kept
// first, for lifetime_rss_peak_kb.
bool reset_rss_peak();
// The resident high-water mark (VmHWM) in KiB since the last reset, -1 when unreadable.
int64_t rss_peak_kb();
// The process's resident peak over its life in KiB, across every reset (what getrusage's
// ru_maxrss would say without them).
int64_t lifetime_rss_peak_kb();
// Minor page faults of this process so far (getrusage ru_minflt).
uint64_t minor_faults();

}  // namespace cb::heap
