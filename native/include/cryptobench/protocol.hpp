// The runner protocol (docs/protocol.md): spec parsing and the list/run/serve/check commands.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "cryptobench/engine.hpp"

namespace cb {

constexpr int kSchema = 1;
constexpr const char* kRunnerVersion = "0.1.0";

// A bad specification: the message names the field, e.g. "cases[2].size: must be ...".
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One case from its JSON object, with `defaults` filling missing fields. Throws SpecError.
CaseSpec parse_case(const nlohmann::json& j, const nlohmann::json& defaults,
                    const std::string& where);
// A spec document: an array of cases or {"schema", "defaults", "cases"}. Throws SpecError.
std::vector<CaseSpec> parse_spec(const nlohmann::json& doc);

nlohmann::json capabilities();
nlohmann::json hello(int cpu);
nlohmann::json case_message(const OpenCase& c);
nlohmann::json samples_message(const std::string& id, const std::vector<Sample>& samples);
nlohmann::json result_message(const OpenCase& c);

// Writes one JSON line and flushes.
void emit(std::ostream& out, const nlohmann::json& message);

// The commands; each returns the process exit status.
int command_list(std::ostream& out);
int command_run(std::istream& in, std::ostream& out, int cpu);
int command_serve(std::istream& in, std::ostream& out, int cpu);
int command_check(const std::vector<std::string>& providers, std::ostream& out);

}  // namespace cb
