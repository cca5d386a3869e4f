// LD_PRELOAD fault shim for tests: OpenSSL's EVP_DigestUpdate crashes (SIGSEGV), as a library
// with a memory bug would.
#include <csignal>
#include <cstddef>

extern "C" int EVP_DigestUpdate(void*, const void*, size_t) {
  std::raise(SIGSEGV);
  return 0;
}
