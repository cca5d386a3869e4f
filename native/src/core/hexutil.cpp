#include "cryptobench/hexutil.hpp"

#include <stdexcept>

namespace cb {

std::string to_hex(const uint8_t* data, size_t len) {
  static const char digits[] = "0123456789abcdef";
  std::string out(len * 2, '0');
  for (size_t i = 0; i < len; ++i) {
    out[2 * i] = digits[data[i] >> 4];
    out[2 * i + 1] = digits[data[i] & 15];
  }
  return out;
}

std::string to_hex(const std::vector<uint8_t>& data) { return to_hex(data.data(), data.size()); }

namespace {
int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::vector<uint8_t> from_hex(const std::string& hex) {
  if (hex.size() % 2) throw std::invalid_argument("hex string of odd length");
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw std::invalid_argument("non-hex character in '" + hex + "'");
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

uint64_t ByteStream::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void ByteStream::fill(uint8_t* out, size_t len) {
  size_t i = 0;
  while (i < len) {
    uint64_t v = next();
    for (int b = 0; b < 8 && i < len; ++b, ++i) out[i] = static_cast<uint8_t>(v >> (8 * b));
  }
}

std::vector<uint8_t> ByteStream::bytes(size_t len) {
  std::vector<uint8_t> out(len);
  fill(out.data(), len);
  return out;
}

}  // namespace cb
