// Cross-provider agreement, one provider per process (docs/protocol.md, "Agreement"): the
// coordinator sends the same material to every provider's runner, collects their artifacts with
// `agreement` and has them check each other's randomised output with `cross_check`. No runner
// ever loads or runs another provider for this.
#pragma once

#include <nlohmann/json.hpp>

namespace cb {

// The reply to {"cmd": "agreement", "case": {...}, "material": {...}}: this provider's KAT result
// and its artifacts for the material. Throws SpecError for a malformed request.
nlohmann::json agreement_reply(const nlohmann::json& request);

// The reply to {"cmd": "cross_check", "case", "material", "peers": {name: artifacts}}: a verdict
// per peer. Throws SpecError for a malformed request.
nlohmann::json cross_check_reply(const nlohmann::json& request);

}  // namespace cb
