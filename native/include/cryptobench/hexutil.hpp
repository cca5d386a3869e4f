#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cb {

std::string to_hex(const uint8_t* data, size_t len);
std::string to_hex(const std::vector<uint8_t>& data);
// Throws std::invalid_argument for odd length or a non-hex character.
std::vector<uint8_t> from_hex(const std::string& hex);

// Deterministic byte generator (splitmix64) for keys, IVs and inputs: same seed, same bytes.
class ByteStream {
 public:
  explicit ByteStream(uint64_t seed) : state_(seed) {}
  uint64_t next();
  void fill(uint8_t* out, size_t len);
  std::vector<uint8_t> bytes(size_t len);

 private:
  uint64_t state_;
};

}  // namespace cb
