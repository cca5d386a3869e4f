// libFuzzer target: the ENC:cc1: token of an encrypted value. What parses formats back to the
// same text (one text per token); anything else is a Failure(kMalformed).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "confcrypt/crypto.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    confcrypt::Token t = confcrypt::parse_token(text, "fuzz");
    if (confcrypt::format_token(t) != text) {
      std::fprintf(stderr, "token: accepted a non-canonical text\n");
      std::abort();
    }
  } catch (const confcrypt::Failure& f) {
    if (f.status() != confcrypt::Status::kMalformed) std::abort();
  }
  return 0;
}
