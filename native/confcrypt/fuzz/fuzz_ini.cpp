// libFuzzer target: the ini storage format (see fuzz_format.hpp).
#include "fuzz_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz_format("ini", data, size);
}
