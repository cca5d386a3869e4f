#include <cstdint>
#include <string>

#include "confcrypt/compat.hpp"

namespace confcrypt {

namespace {

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    if (rest == 2) v |= uint8_t(bytes[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(const std::string& text) {
  if (text.size() % 4) throw Error("invalid Base64: length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    size_t pad = 0;
    if (last) {
      if (text[i + 3] == '=') ++pad;
      if (pad && text[i + 2] == '=') ++pad;
    }
    uint32_t v = 0;
    for (size_t j = 0; j < 4; ++j) {
      if (j >= 4 - pad) {
        v <<= 6;
        continue;
      }
      int s = sextet(static_cast<unsigned char>(text[i + j]));
      if (s < 0)
        throw Error("invalid Base64: unexpected character at offset " + std::to_string(i + j));
      v = (v << 6) | uint32_t(s);
    }
    // Non-canonical encodings (stray bits under the padding) would give two texts for one value.
    if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff))) {
      throw Error("invalid Base64: non-zero bits in the padding");
    }
    out += char(v >> 16);
    if (pad < 2) out += char((v >> 8) & 0xff);
    if (pad < 1) out += char(v & 0xff);
  }
  return out;
}

std::string to_base64_token(const std::string& binary) {
  return kBase64Prefix + base64_encode(binary);
}

bool is_base64_token(const std::string& text) {
  return text.compare(0, sizeof(kBase64Prefix) - 1, kBase64Prefix) == 0;
}

std::string from_base64_token(const std::string& token) {
  if (!is_base64_token(token)) throw Error("not a @BASE64 value");
  return base64_decode(token.substr(sizeof(kBase64Prefix) - 1));
}

}  // namespace confcrypt
