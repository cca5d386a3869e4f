// LD_PRELOAD fault shim for tests: OpenSSL's EVP_DigestUpdate never returns (a hung library).
#include <unistd.h>

#include <cstddef>

extern "C" int EVP_DigestUpdate(void*, const void*, size_t) {
  for (;;) pause();
}
