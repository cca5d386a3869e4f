// Internal to the gate (gate.cpp, gate_pk.cpp): running a list of known-answer vectors.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cryptobench/gate.hpp"

namespace cb {

// Runs check(v) for every vector: "" passes, any other text is why it failed, Unsupported means
// the vector does not apply to this provider (at least one must apply). Fills report.kat; returns
// "" or the failure, naming the vector and the provider.
template <typename V, typename Check>
std::string run_vectors(const std::vector<V>& vectors, const std::string& provider,
                        const AlgorithmInfo& info, GateReport& report, Check check) {
  size_t passed = 0, not_applicable = 0;
  std::string na_reason;
  for (const auto& v : vectors) {
    std::string why;
    try {
      why = check(v);
    } catch (const Unsupported& e) {
      ++not_applicable;
      na_reason = e.what();
      continue;
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!why.empty())
      return "known-answer test " + (v.source.empty() ? info.name : v.source) + " failed for " +
             provider + ": " + why;
    ++passed;
  }
  if (passed == 0) return "no known-answer vector applies: " + na_reason;
  report.kat = "passed " + std::to_string(passed) + " vector" + (passed == 1 ? "" : "s");
  if (not_applicable)
    report.kat += ", " + std::to_string(not_applicable) + " not applicable (" + na_reason + ")";
  return "";
}

using GateStep = std::function<std::string(GateReport&)>;

// The gate's steps in order, each returning "" or why it failed; the first failure is the
// report's reason. A library error thrown by a step becomes the reason too; Unsupported
// propagates (the case is unsupported, not failed). Agreement is not a step here: the coordinator
// compares the providers' `agreement` replies (agreement.cpp); `agreement` only labels the report.
GateReport run_steps(const std::string& provider, bool agreement, const GateStep& kat,
                     const GateStep& roundtrip);

// Checks that a generated key `a` works in provider p (another key `b` of p's for contrast): it has
// a private part, signs and verifies (only under itself), or derives the same secret as b.
std::string check_generated_key(Provider& p, const AlgorithmInfo& info, const KeyParts& a,
                                const KeyParts& b);

// KAT only, for the `agreement` reply (gate_pk.cpp).
GateReport run_pk_known_answers(const std::string& provider, const AlgorithmInfo& info, OpKind op);

}  // namespace cb
