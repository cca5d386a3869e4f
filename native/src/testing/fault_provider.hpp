#pragma once

namespace cb::testing {
// Registers the misbehaving "fault" provider (see fault_provider.cpp); idempotent.
void register_fault_provider();
}  // namespace cb::testing
