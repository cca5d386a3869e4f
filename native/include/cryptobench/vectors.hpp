// Known-answer vectors from vectors/<family>.json (format: vectors/README.md).
#pragma once

#include <string>
#include <vector>

#include "cryptobench/provider.hpp"

namespace cb {

struct Vector {
  std::string algorithm;
  std::string source;
  Bytes key, iv, aad;
  Bytes input;     // plaintext (ciphers, AEAD) or message (hash, MAC), with `repeat` applied
  Bytes expected;  // ciphertext || tag (AEAD), ciphertext, digest, or (possibly truncated) MAC tag
  size_t initial_counter = 0;  // stream ciphers: block counter the published vector starts at
};

// Directory searched for vector files: set_vectors_dir(), else $CRYPTOBENCH_VECTORS, else the
// repository's vectors/ directory compiled in.
void set_vectors_dir(const std::string& dir);
std::string vectors_dir();

// All vectors for an algorithm (loaded once per family and cached). Throws std::runtime_error
// naming the file for a file that exists but cannot be parsed; returns empty when there is none.
const std::vector<Vector>& vectors_for(const AlgorithmInfo& info);

}  // namespace cb
