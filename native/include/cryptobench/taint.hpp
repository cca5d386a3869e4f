// Secret-flow check (docs/leaks.md, "Method `--method taint`"; docs/protocol.md, "`taint`"): one
// operation prepared and run once with its secrets -- the key, and the input when the test says
// it is secret -- marked undefined for valgrind's memcheck (the ctgrind / TIMECOP technique).
// Memcheck then reports every branch ("Conditional jump or move depends on uninitialised
// value(s)") and every memory index ("Use of uninitialised value of size N") that depends on
// them. The runner only marks and runs; the coordinator runs it under valgrind and reads the
// XML (python/cryptobench/scenarios/leaks/taint.py). Outside valgrind the request still runs,
// and says it was not watched.
#pragma once

#include <nlohmann/json.hpp>

namespace cb {

// The reply to {"cmd": "taint", "case": {...}, "params": {...}, "input": hex,
// "secret_input": bool}. Throws SpecError for a malformed request.
nlohmann::json taint_reply(const nlohmann::json& request);

// Whether this build can mark memory for memcheck (valgrind/memcheck.h was found).
bool taint_supported();

}  // namespace cb
