// The algorithm catalogue: one naming scheme used by every adapter, the protocol, the store and
// the reports. Adding an algorithm means adding one row to algorithms.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cb {

enum class Kind { Cipher, Aead, Hash, Mac };
enum class OpKind { Encrypt, Decrypt, Hash, Mac };

struct AlgorithmInfo {
  std::string name;  // "aes-256-gcm"
  Kind kind;
  size_t key_len;      // bytes; 0 for hashes
  size_t iv_len;       // bytes; 0 when none
  size_t block_len;    // input length must be a multiple of this (1 = any length)
  size_t min_len;      // smallest message (XTS: 16)
  size_t tag_len;      // AEAD tag bytes
  size_t output_len;   // digest / MAC tag bytes; 0 for ciphers
  std::string family;  // "aes-gcm", used to find vectors/<family>.json
  std::string description;
};

// The whole catalogue, in a stable order.
const std::vector<AlgorithmInfo>& algorithms();
// nullptr when unknown.
const AlgorithmInfo* find_algorithm(const std::string& name);

// Operations that apply to a kind: ciphers and AEAD have encrypt and decrypt, hashes hash, MACs
// mac.
std::vector<OpKind> operations_for(Kind kind);
const char* to_string(OpKind op);
const char* to_string(Kind kind);
// Throws std::invalid_argument for an unknown name.
OpKind parse_op(const std::string& name);

}  // namespace cb
