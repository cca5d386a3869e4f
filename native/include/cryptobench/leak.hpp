// Timing-leak measurement (docs/protocol.md, "`leak`: input classes timed in turns"): one prepared
// operation run on two or more input classes whose only difference is secret, the classes taken
// in a fresh random order every round, so that each round is one paired observation of every
// class. The runner only times: the classes' bytes come from the coordinator, which also judges
// their outcomes and does the statistics (python/cryptobench/leakstats.py).
#pragma once

#include <nlohmann/json.hpp>

#include "cryptobench/provider.hpp"

namespace cb {

// The reply to {"cmd": "leak", "case": {...}, "params": {...}, "classes": [hex, ...],
// "rounds": N, "batch": B, "seed": S}. Throws SpecError for a malformed request.
nlohmann::json leak_reply(const nlohmann::json& request);

// The prepared operation's parameters, as in `open` with `params` (hex bytes, key parts); also
// read by the `taint` request. Throws SpecError.
Params parse_leak_params(const nlohmann::json& params);

}  // namespace cb
