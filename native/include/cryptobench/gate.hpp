// The correctness gate: nothing is timed before it passes (DESIGN.md, "How a case is measured").
#pragma once

#include <string>

#include "cryptobench/provider.hpp"

namespace cb {

struct GateReport {
  bool ok = false;
  std::string reason;     // why it failed; empty when ok
  std::string kat;        // "passed 4 vectors", ...
  std::string roundtrip;  // "passed", ...
  std::string agreement;  // "agrees with botan, gcrypt", "no other provider offers it", "skipped"
};

// 1. every known-answer vector for the algorithm, run twice on one prepared operation (for AEAD
//    decryption also: a flipped tag bit must be rejected);
// 2. the case's own input round-trips (encrypt -> decrypt; hashes and MACs: same output twice);
// 3. with `agreement`, the output for a fixed key, IV and 4 KiB input equals that of every other
//    provider in this process that offers the algorithm (for decryption, this provider must also
//    decrypt the other providers' ciphertexts).
GateReport run_gate(const std::string& provider, const AlgorithmInfo& info, OpKind op,
                    const Bytes& input, const Params& params, bool agreement);

// Providers the agreement check compares against (every compiled-in provider but the test-only
// "fault" provider).
bool is_reference_provider(const std::string& name);

}  // namespace cb
