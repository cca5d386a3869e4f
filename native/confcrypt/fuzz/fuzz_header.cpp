// libFuzzer target: the confcrypt header line. What parses is canonical: to_text() gives back
// exactly the input. Anything else is a Failure(kMalformed), never another exception.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "confcrypt/crypto.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    confcrypt::Header h = confcrypt::Header::from_text(text);
    if (h.to_text() != text) {
      std::fprintf(stderr, "header: accepted a non-canonical text\n");
      std::abort();
    }
  } catch (const confcrypt::Failure& f) {
    if (f.status() != confcrypt::Status::kMalformed) std::abort();
  }
  return 0;
}
