// Memcheck's client requests for the `taint` request (taint.rs; native/src/core/taint.cpp does
// the same in C++). They are C macros over inline assembly that valgrind recognises, so Rust
// reaches them through these functions, compiled by build.rs with the cc crate. Where
// valgrind/memcheck.h is absent (Debian's `valgrind` package brings it) they do nothing and
// cb_on_valgrind() says so.
#include <stddef.h>

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define CB_HAVE_MEMCHECK_H 1
#endif
#endif

// 1 under valgrind, 0 not, -1 when built without valgrind/memcheck.h (the requests do nothing).
int cb_on_valgrind(void) {
#ifdef CB_HAVE_MEMCHECK_H
  return RUNNING_ON_VALGRIND != 0;
#else
  return -1;
#endif
}

// defined = 0: the bytes are secret (VALGRIND_MAKE_MEM_UNDEFINED); 1: public again.
void cb_mark(void *p, size_t n, int defined) {
#ifdef CB_HAVE_MEMCHECK_H
  if (n == 0) return;
  if (defined)
    VALGRIND_MAKE_MEM_DEFINED(p, n);
  else
    VALGRIND_MAKE_MEM_UNDEFINED(p, n);
#else
  (void)p, (void)n, (void)defined;
#endif
}

// The client message that tells the coordinator which errors belong to operation `id`.
void cb_boundary(const char *what, const char *id) {
#ifdef CB_HAVE_MEMCHECK_H
  VALGRIND_PRINTF("cryptobench-taint %s %s\n", what, id);
#else
  (void)what, (void)id;
#endif
}
