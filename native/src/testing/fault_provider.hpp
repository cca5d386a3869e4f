#pragma once

#include <cstdint>
#include <utility>

namespace cb::testing {
// Input and output pointers of the fault provider's last run().
std::pair<const uint8_t*, const uint8_t*> last_buffers();
// Keys the fault provider generated in this process.
uint64_t keygen_calls();
// Registers the misbehaving "fault" provider (see fault_provider.cpp); idempotent.
void register_fault_provider();
}  // namespace cb::testing
