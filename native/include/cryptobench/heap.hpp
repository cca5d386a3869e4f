// Heap accounting by interposition: src/core/heap.cpp defines malloc, free, calloc, realloc,
// posix_memalign, aligned_alloc, memalign, valloc and pvalloc in the executable and forwards them
// to glibc's __libc_* entry points, counting while counting is on.
//
// Blind spots (documented in docs/methodology.md): memory a library maps itself (Botan's mlock
// pool, sodium_malloc's guarded pages, OpenSSL secure heap), allocations glibc makes internally
// (e.g. reallocarray, strdup inside libc), and memory on the stack.
#pragma once

#include <cstdint>

namespace cb::heap {

struct Counters {
  uint64_t allocs = 0;    // successful allocation calls (malloc, calloc, realloc, memalign, ...)
  uint64_t frees = 0;     // free calls with a non-null pointer
  uint64_t bytes = 0;     // bytes requested by those allocation calls
  int64_t live = 0;       // usable bytes allocated minus usable bytes freed while counting
  int64_t peak_live = 0;  // highest `live` seen while counting
};

// True when this executable's allocator entry points are the ones in use (heap.cpp linked in).
bool available();
// Reset all counters to zero and start counting in this process (all threads).
void start();
// Stop counting and return what was counted since start().
Counters stop();

}  // namespace cb::heap
