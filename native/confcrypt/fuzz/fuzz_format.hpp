// One storage format under libFuzzer: whatever bytes parse must come back byte for byte when the
// document is written unchanged (the guarantee of emit(), docs/confcrypt.md "Storage formats"),
// and parse again to the same keys. Malformed input must be a confcrypt::Error, nothing else.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "confcrypt/format.hpp"

inline int fuzz_format(const char* name, const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto format = confcrypt::format_by_name(name);
  std::unique_ptr<confcrypt::Document> doc;
  try {
    doc = format->parse(bytes, "fuzz");
  } catch (const confcrypt::Error&) {
    return 0;
  }
  std::string out = doc->emit();
  if (out != bytes) {
    std::fprintf(stderr, "%s: emit() of an unchanged document differs from its input\n", name);
    std::abort();
  }
  auto again = format->parse(out, "fuzz");
  if (again->keys().size() != doc->keys().size() || again->header() != doc->header()) {
    std::fprintf(stderr, "%s: the re-parsed document differs\n", name);
    std::abort();
  }
  return 0;
}
