// The `leak` request (leak.hpp, docs/protocol.md): classes interleaved in random order, each
// measurement `batch` back-to-back runs of one class, timed with CLOCK_MONOTONIC.
#include "cryptobench/leak.hpp"

#include <algorithm>
#include <random>

#include "cryptobench/engine.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/protocol.hpp"

namespace cb {

using nlohmann::json;

namespace {

constexpr uint64_t kMaxRounds = 1000000;
constexpr uint64_t kMaxBatch = 100000;
constexpr size_t kMaxClasses = 16;
constexpr uint64_t kWarmupRounds = 16;

Bytes hex_value(const json& v, const std::string& where) {
  if (!v.is_string()) throw SpecError(where + ": must be a hex string");
  try {
    return from_hex(v.get<std::string>());
  } catch (const std::invalid_argument&) {
    throw SpecError(where + ": not a hex string");
  }
}

}  // namespace

Params parse_leak_params(const json& j) {
  Params p;
  if (j.is_null()) return p;
  if (!j.is_object()) throw SpecError("params: must be an object");
  for (const auto& [name, value] : j.items()) {
    const std::string where = "params." + name;
    if (name == "key") {
      p.key = hex_value(value, where);
    } else if (name == "iv") {
      p.iv = hex_value(value, where);
    } else if (name == "aad") {
      p.aad = hex_value(value, where);
    } else if (name == "keypair" || name == "peer") {
      if (!value.is_object()) throw SpecError(where + ": must be an object of hex parts");
      KeyParts& parts = name == "keypair" ? p.keypair : p.peer;
      for (const auto& [part, hex] : value.items())
        parts[part] = hex_value(hex, where + "." + part);
    } else if (name == "public") {
      // The coordinator's full parameter set carries the public parts too; decryption and MAC
      // verification need none of them.
    } else {
      throw SpecError(where + ": unknown parameter");
    }
  }
  return p;
}

namespace {

uint64_t uint_field(const json& req, const char* name, uint64_t fallback, uint64_t max) {
  if (!req.contains(name)) return fallback;
  const json& v = req[name];
  if (!v.is_number_unsigned() || v.get<uint64_t>() < 1 || v.get<uint64_t>() > max)
    throw SpecError(std::string(name) + ": must be an integer from 1 to " + std::to_string(max));
  return v.get<uint64_t>();
}

json outcome(Operation& op, const Bytes& in, Bytes& out) {
  try {
    const size_t n = op.run(in.data(), in.size(), out.data());
    return {{"out", to_hex(out.data(), std::min(n, out.size()))}};
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

}  // namespace

json leak_reply(const json& req) {
  if (!req.contains("case")) throw SpecError("case: missing");
  // MAC verification is no catalogue operation (a `mac` case computes a tag): asked for as a
  // MAC algorithm's `verify`, it is resolved as the `mac` it verifies.
  json case_json = req["case"];
  bool mac_verify = false;
  if (case_json.is_object() && case_json.value("operation", json()) == "verify" &&
      case_json.value("algorithm", json()).is_string()) {
    const AlgorithmInfo* mac = find_algorithm(case_json["algorithm"].get<std::string>());
    mac_verify = mac && mac->kind == Kind::Mac;
    if (mac_verify) case_json["operation"] = "mac";
  }
  CaseSpec spec = parse_case(case_json, json::object(), "case");
  if (!req.contains("classes") || !req["classes"].is_array() || req["classes"].size() < 2 ||
      req["classes"].size() > kMaxClasses)
    throw SpecError("classes: must be an array of 2 to " + std::to_string(kMaxClasses) +
                    " hex strings");
  std::vector<Bytes> classes;
  for (size_t i = 0; i < req["classes"].size(); ++i)
    classes.push_back(hex_value(req["classes"][i], "classes[" + std::to_string(i) + "]"));
  const uint64_t rounds = uint_field(req, "rounds", 1000, kMaxRounds);
  const uint64_t batch = uint_field(req, "batch", 1, kMaxBatch);
  const uint64_t seed =
      req.contains("seed") && req["seed"].is_number_unsigned() ? req["seed"].get<uint64_t>() : 1;
  const Params params = parse_leak_params(req.contains("params") ? req["params"] : json());

  json reply = {{"type", "leak"}, {"id", spec.id}, {"status", "ok"}, {"reason", ""}};
  std::unique_ptr<Operation> op;
  try {
    const AlgorithmInfo* info = nullptr;
    OpKind kind{};
    Provider& provider = resolve_case(spec, info, kind);
    op = mac_verify ? provider.prepare_mac_verify(spec.algorithm, params)
                    : provider.prepare(spec.algorithm, kind, params);
  } catch (const Unsupported& e) {
    reply["status"] = "unsupported", reply["reason"] = e.what();
    return reply;
  } catch (const std::exception& e) {
    reply["status"] = "failed", reply["reason"] = e.what();
    return reply;
  }

  size_t longest = 0;
  for (const auto& c : classes) longest = std::max(longest, c.size());
  Bytes out(longest + kOutRoom);
  // What each class does once (the coordinator checks a valid class decrypts and an invalid one
  // is refused): the only untimed run whose output is looked at.
  json outcomes = json::array();
  for (const auto& c : classes) outcomes.push_back(outcome(*op, c, out));

  // Each class in a buffer of its own, so no copy falls inside the timed region.
  std::vector<Bytes> inputs = classes;
  std::vector<size_t> order(classes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  Clock& clock = system_clock();
  const auto measure = [&](size_t k) {
    const Bytes& in = inputs[k];
    size_t n = 0;
    // A refused class (a wrong tag, bad padding) is what is being timed: try_run returns false.
    const uint64_t t0 = clock.now_ns();
    for (uint64_t b = 0; b < batch; ++b) (void)op->try_run(in.data(), in.size(), out.data(), n);
    return clock.now_ns() - t0;
  };
  for (uint64_t r = 0; r < kWarmupRounds; ++r)
    for (size_t k = 0; k < classes.size(); ++k) measure(k);

  std::vector<std::vector<uint64_t>> ns(classes.size(), std::vector<uint64_t>(rounds));
  for (uint64_t r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k : order) ns[k][r] = measure(k);
  }
  reply["outcomes"] = outcomes;
  reply["batch"] = batch;
  reply["refusal"] = op->refuses_by_status() ? "status" : "exception";
  reply["ns"] = ns;
  return reply;
}

}  // namespace cb
