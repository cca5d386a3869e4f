// LD_PRELOAD fault shim for tests: libgcrypt's gcry_cipher_encrypt returns its output with the
// first byte flipped (a library that computes a wrong answer). Real libgcrypt does the work.
#include <dlfcn.h>

#include <cstddef>

extern "C" {
using Encrypt = unsigned int (*)(void*, void*, size_t, const void*, size_t);

unsigned int gcry_cipher_encrypt(void* h, void* out, size_t outsize, const void* in, size_t inlen) {
  static const auto real = reinterpret_cast<Encrypt>(dlsym(RTLD_NEXT, "gcry_cipher_encrypt"));
  const unsigned int err = real(h, out, outsize, in, inlen);
  if (err == 0 && out && outsize > 0) static_cast<unsigned char*>(out)[0] ^= 0x01;
  return err;
}
}
