#include "cryptobench/protocol.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "cryptobench/agreement.hpp"
#include "cryptobench/gate.hpp"
#include "cryptobench/heap.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/leak.hpp"
#include "cryptobench/machine.hpp"
#include "cryptobench/stats.hpp"
#include "cryptobench/taint.hpp"

namespace cb {

using nlohmann::json;

namespace {

// Not getrusage's ru_maxrss alone: each case's heap pass resets the high-water mark it reads.
long max_rss_kb() { return static_cast<long>(heap::lifetime_rss_peak_kb()); }

const std::set<std::string>& case_fields() {
  static const std::set<std::string> fields = {
      "id",        "provider",        "variant",   "operation", "algorithm", "size",
      "input",     "align_offset",    "aad_bytes", "samples",   "batch",     "target_sample_ms",
      "warmup_ms", "heap_iterations", "seed",      "agreement", "cost",      "inplace"};
  return fields;
}

// Typed field access with errors that name the field.
class Fields {
 public:
  Fields(const json& j, const json& defaults, std::string where)
      : j_(j), defaults_(defaults), where_(std::move(where)) {}

  const json* find(const char* name) const {
    if (j_.contains(name)) return &j_[name];
    if (defaults_.is_object() && defaults_.contains(name)) return &defaults_[name];
    return nullptr;
  }
  [[noreturn]] void fail(const char* name, const std::string& why) const {
    throw SpecError(where_ + "." + name + ": " + why);
  }
  std::string str(const char* name, const char* fallback = nullptr) const {
    const json* v = find(name);
    if (!v) {
      if (fallback) return fallback;
      fail(name, "missing");
    }
    if (!v->is_string()) fail(name, "must be a string");
    return v->get<std::string>();
  }
  uint64_t uint(const char* name, std::optional<uint64_t> fallback, uint64_t min = 0,
                uint64_t max = UINT64_MAX) const {
    const json* v = find(name);
    if (!v) {
      if (fallback) return *fallback;
      fail(name, "missing");
    }
    if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<int64_t>() >= 0))
      fail(name, "must be a non-negative integer");
    const uint64_t x = v->get<uint64_t>();
    if (x < min || x > max)
      fail(name, "must be between " + std::to_string(min) + " and " + std::to_string(max));
    return x;
  }
  double number(const char* name, double fallback, double min) const {
    const json* v = find(name);
    if (!v) return fallback;
    if (!v->is_number()) fail(name, "must be a number");
    const double x = v->get<double>();
    if (!(x >= min)) fail(name, "must be at least " + std::to_string(min));
    return x;
  }
  bool boolean(const char* name, bool fallback) const {
    const json* v = find(name);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(name, "must be true or false");
    return v->get<bool>();
  }

 private:
  const json& j_;
  const json& defaults_;
  std::string where_;
};

void check_known_fields(const json& j, const std::string& where) {
  for (const auto& [key, value] : j.items())
    if (!case_fields().count(key)) throw SpecError(where + "." + key + ": unknown field");
}

json gate_json(const GateReport& g) {
  json out = {{"kat", g.kat}, {"roundtrip", g.roundtrip}, {"agreement", g.agreement}};
  if (!g.lax.empty()) out["lax"] = g.lax;
  return out;
}

json case_fields_json(const CaseSpec& s) {
  return {{"provider", s.provider},
          {"variant", s.variant},
          {"operation", s.operation},
          {"algorithm", s.algorithm},
          {"size", s.size},
          {"input", s.input},
          {"align_offset", s.align_offset},
          {"aad_bytes", s.aad_bytes},
          {"cost", s.cost},
          {"inplace", s.inplace}};
}

json sample_json(const Sample& s) {
  json j = {{"iterations", s.iterations}, {"ns", s.ns}, {"ticks", s.ticks}};
  if (s.cycles) j["cycles"] = s.cycles;
  return j;
}

// Why the provider does not offer each handshake algorithm it does not list: its adapter's own
// refusal, from prepare_handshake (which needs no parameters to say no), as the other runners
// probe every algorithm through their adapters (docs/protocol.md, "What a provider offers").
// The native adapters list the rest of what they offer from their own tables.
json handshakes_not_offered(Provider& p, const std::vector<std::string>& offered) {
  json out = json::object();
  for (const auto& a : algorithms()) {
    if (a.kind != Kind::Handshake ||
        std::find(offered.begin(), offered.end(), a.name) != offered.end())
      continue;
    try {
      p.prepare_handshake(a.name, Params{});
    } catch (const Unsupported& e) {
      out[a.name] = e.what();
    } catch (const std::exception&) {
      // refused for the empty parameters, not for the algorithm: not a reason
    }
  }
  return out;
}

json provider_json(const std::string& name) {
  Provider* p = get_provider(name);
  json variants = json::array();
  for (const auto& v : p->variants()) {
    json env = json::object();
    for (const auto& [k, val] : v.env) env[k] = val;
    variants.push_back({{"name", v.name}, {"description", v.description}, {"env", env}});
  }
  json algs = json::array();
  const auto offered = p->algorithms();
  for (const auto& a : offered) {
    const AlgorithmInfo* info = find_algorithm(a);
    if (!info) continue;
    json ops = json::array();
    for (OpKind op : operations_for(*info)) ops.push_back(to_string(op));
    algs.push_back({{"name", a}, {"operations", ops}});
  }
  json code_path = json::object();
  for (const auto& [k, v] : p->code_path()) code_path[k] = v;
  json out = {
      {"name", name},         {"version", p->version()}, {"variant", selected_variant(name)},
      {"variants", variants}, {"algorithms", algs},      {"code_path", code_path}};
  if (const std::string why = unusable_reason(name); !why.empty()) out["unusable"] = why;
  if (p->baseline()) out["baseline"] = true;
  if (json why = handshakes_not_offered(*p, offered); !why.empty()) out["not_offered"] = why;
  return out;
}

struct Totals {
  size_t cases = 0, ok = 0, failed = 0, unsupported = 0;
  void count(CaseStatus s) {
    ++cases;
    if (s == CaseStatus::Ok) ++ok;
    if (s == CaseStatus::Failed) ++failed;
    if (s == CaseStatus::Unsupported) ++unsupported;
  }
  json message() const {
    return {{"type", "done"},
            {"cases", cases},
            {"ok", ok},
            {"failed", failed},
            {"unsupported", unsupported},
            {"max_rss_kb", max_rss_kb()}};
  }
};

json error_message(const std::string& message) { return {{"type", "error"}, {"message", message}}; }

}  // namespace

CaseSpec parse_case(const json& j, const json& defaults, const std::string& where) {
  if (!j.is_object()) throw SpecError(where + ": must be an object");
  check_known_fields(j, where);
  Fields f(j, defaults, where);
  CaseSpec s;
  s.id = f.str("id");
  s.provider = f.str("provider");
  if (!peek_provider(s.provider)) {
    std::string known;
    for (const auto& n : provider_names()) known += (known.empty() ? "" : ", ") + n;
    f.fail("provider", "unknown provider '" + s.provider + "' (compiled in: " + known + ")");
  }
  s.variant = f.str("variant", "");
  s.operation = f.str("operation");
  s.algorithm = f.str("algorithm");
  const AlgorithmInfo* info = find_algorithm(s.algorithm);
  if (!info) f.fail("algorithm", "unknown algorithm '" + s.algorithm + "'");
  OpKind op;
  try {
    op = parse_op(s.operation);
  } catch (const std::invalid_argument& e) {
    f.fail("operation", e.what());
  }
  const auto ops = operations_for(*info);
  if (std::find(ops.begin(), ops.end(), op) == ops.end())
    f.fail("operation", s.operation + " does not apply to " + s.algorithm + " (a " +
                            to_string(info->kind) + ")");
  s.size = f.uint("size", std::nullopt, 0, 1ULL << 30);
  if (s.size < info->min_len || s.size % info->block_len)
    f.fail("size", s.algorithm + " needs at least " + std::to_string(info->min_len) +
                       " bytes in multiples of " + std::to_string(info->block_len));
  s.input = f.str("input", "random");
  if (s.input != "random" && s.input != "zeros" && s.input != "text")
    f.fail("input", "must be random, zeros or text");
  s.align_offset = static_cast<unsigned>(f.uint("align_offset", 0, 0, 63));
  s.aad_bytes = f.uint("aad_bytes", 0, 0, 1 << 20);
  s.samples = f.uint("samples", 11, 1, 100000);
  s.batch = f.uint("batch", 1, 1, 100000);
  s.target_sample_ms = f.number("target_sample_ms", 2.0, 0.001);
  s.warmup_ms = f.number("warmup_ms", 20.0, 0.0);
  s.heap_iterations = f.uint("heap_iterations", 8, 1, 1000000);
  s.seed = f.uint("seed", 1);
  s.agreement = f.boolean("agreement", true);
  s.inplace = f.boolean("inplace", true);
  if (const json* cost = f.find("cost")) {
    if (!cost->is_object()) f.fail("cost", "must be an object of non-negative integers");
    for (const auto& [name, value] : cost->items()) {
      if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
        f.fail("cost", name + " must be a non-negative integer");
      s.cost[name] = value.get<uint64_t>();
    }
    if (!s.cost.empty() && info->kind != Kind::Kdf)
      f.fail("cost", s.algorithm + " takes no cost parameters (only KDFs do)");
  }
  return s;
}

std::vector<CaseSpec> parse_spec(const json& doc) {
  json defaults = json::object();
  const json* cases = &doc;
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items())
      if (key != "schema" && key != "defaults" && key != "cases")
        throw SpecError(key + ": unknown field (expected schema, defaults, cases)");
    if (doc.contains("schema") && doc["schema"] != kSchema)
      throw SpecError("schema: this runner speaks schema " + std::to_string(kSchema));
    if (doc.contains("defaults")) {
      defaults = doc["defaults"];
      if (!defaults.is_object()) throw SpecError("defaults: must be an object");
      check_known_fields(defaults, "defaults");
    }
    if (!doc.contains("cases")) throw SpecError("cases: missing");
    cases = &doc["cases"];
  }
  if (!cases->is_array()) throw SpecError("cases: must be an array");
  std::vector<CaseSpec> out;
  std::set<std::string> ids;
  for (size_t i = 0; i < cases->size(); ++i) {
    const std::string where = "cases[" + std::to_string(i) + "]";
    out.push_back(parse_case((*cases)[i], defaults, where));
    if (!ids.insert(out.back().id).second)
      throw SpecError(where + ".id: duplicate id '" + out.back().id + "'");
  }
  return out;
}

void emit(std::ostream& out, const json& message) {
  out << message.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  out.flush();
}

json capabilities() {
  json algs = json::array();
  for (const auto& a : algorithms()) {
    json ops = json::array();
    for (OpKind op : operations_for(a)) ops.push_back(to_string(op));
    algs.push_back({{"name", a.name},
                    {"kind", to_string(a.kind)},
                    {"operations", ops},
                    {"key_bytes", a.key_len},
                    {"iv_bytes", a.iv_len},
                    {"block_bytes", a.block_len},
                    {"min_size", a.min_len},
                    {"tag_bytes", a.tag_len},
                    {"output_bytes", a.output_len},
                    {"public_key_bytes", a.public_key_len},
                    {"ciphertext_bytes", a.ciphertext_len},
                    {"family", a.family},
                    {"key_type", a.key_type},
                    {"bits", a.bits},
                    {"digest", a.digest},
                    {"description", a.description}});
  }
  json providers = json::array();
  json machine = machine_record();
  for (const auto& name : provider_names()) {
    providers.push_back(provider_json(name));
    machine["libraries"][name] = providers.back()["version"];
  }
  return {{"type", "capabilities"},
          {"schema", kSchema},
          {"runner", "cryptobench-native"},
          {"runner_version", kRunnerVersion},
          {"machine", machine},
          {"algorithms", algs},
          {"providers", providers}};
}

json hello(int cpu) {
  json variants = json::object();
  for (const auto& name : provider_names()) variants[name] = selected_variant(name);
  return {{"type", "hello"},
          {"schema", kSchema},
          {"runner", "cryptobench-native"},
          {"runner_version", kRunnerVersion},
          {"pid", getpid()},
          {"cpu", cpu >= 0 ? json(cpu) : json(nullptr)},
          {"cpu_state", cpu_state(cpu >= 0 ? cpu : 0)},
          {"variants", variants}};
}

json case_message(const OpenCase& c) {
  return {{"type", "case"},
          {"id", c.spec().id},
          {"status", to_string(c.status())},
          {"reason", c.reason()},
          {"gate", gate_json(c.gate())},
          {"iterations", c.iterations()},
          {"calibration_ns", c.calibration_ns()}};
}

json samples_message(const std::string& id, const std::vector<Sample>& samples) {
  json list = json::array();
  for (const auto& s : samples) list.push_back(sample_json(s));
  return {{"type", "samples"}, {"id", id}, {"samples", list}};
}

json result_message(const OpenCase& c) {
  json r = {{"type", "result"},
            {"id", c.spec().id},
            {"status", to_string(c.status())},
            {"reason", c.reason()},
            {"gate", gate_json(c.gate())}};
  r.update(case_fields_json(c.spec()));
  if (c.status() == CaseStatus::Ok) {
    json list = json::array();
    for (const auto& s : c.samples()) list.push_back(sample_json(s));
    r["samples"] = list;
    const Summary s = summarise(c.samples(), c.spec().size);
    r["summary"] = {{"n", s.n},
                    {"median_ns", s.median_ns},
                    {"q1_ns", s.q1_ns},
                    {"q3_ns", s.q3_ns},
                    {"min_ns", s.min_ns},
                    {"max_ns", s.max_ns},
                    {"mad_ns", s.mad_ns},
                    {"bytes_per_s", s.bytes_per_s},
                    {"ops_per_s", s.ops_per_s},
                    {"median_ticks", s.median_ticks},
                    {"ticks_per_byte", s.ticks_per_byte}};
    const HeapFigures& h = c.heap();
    // -1: unreadable, or the kernel refused the reset; null says "not measured", never a figure.
    const auto kb_or_null = [](int64_t kb) { return kb < 0 ? json() : json(kb); };
    r["heap"] = {{"allocs_per_op", h.allocs_per_op},
                 {"frees_per_op", h.frees_per_op},
                 {"bytes_per_op", h.bytes_per_op},
                 {"peak_live_bytes", h.peak_live_bytes},
                 {"prepare_allocs", h.prepare_allocs},
                 {"prepare_bytes", h.prepare_bytes},
                 {"mmaps_per_op", h.mmaps_per_op},
                 {"mmap_bytes_per_op", h.mmap_bytes_per_op},
                 {"minor_faults_per_op", h.minor_faults_per_op},
                 {"rss_before_kb", kb_or_null(h.rss_before_kb)},
                 {"rss_peak_kb", kb_or_null(h.rss_peak_kb)}};
    r["rewarms"] = c.rewarms();
    if (c.handshake()) {
      // The server's share of each sample's handshakes (docs/protocol.md, `handshake`).
      json server = json::array();
      for (const auto& smp : c.samples()) server.push_back(smp.server_cpu_ns);
      r["handshake"] = {{"server_cpu_ns", server},
                        {"clock", "CLOCK_THREAD_CPUTIME_ID around the server's calls"}};
      if (const uint64_t n = c.client_hello_bytes(); n > 0)
        r["handshake"]["client_hello_bytes"] = n;
    }
    const ClockCheck& k = c.clock_check();
    r["clock"] = {{"ghz_open", k.ghz_open}, {"ghz_close", k.ghz_close}};
  }
  if (!c.timed_check().empty()) r["gate"]["timed"] = c.timed_check();
  if (c.iterations() > 0) {  // buffers were laid out
    const BufferLayout& l = c.layout();
    r["layout"] = {
        {"inplace", l.inplace}, {"distance", l.distance}, {"in_page_offset", l.in_page_offset}};
    if (!l.note.empty()) r["layout"]["note"] = l.note;
  }
  r["max_rss_kb"] = max_rss_kb();
  return r;
}

int command_list(std::ostream& out) {
  emit(out, capabilities());
  return 0;
}

int command_run(std::istream& in, std::ostream& out, int cpu) {
  std::vector<CaseSpec> specs;
  try {
    specs = parse_spec(json::parse(in));
  } catch (const json::exception& e) {
    throw SpecError(std::string("spec is not valid JSON: ") + e.what());
  }
  emit(out, hello(cpu));
  Totals totals;
  // Cases are opened in windows so buffers for thousands of cases are never held at once;
  // within a window, samples go round-robin across cases (interleaving).
  constexpr size_t kWindow = 32;
  for (size_t start = 0; start < specs.size(); start += kWindow) {
    std::vector<std::unique_ptr<OpenCase>> open;
    for (size_t i = start; i < std::min(specs.size(), start + kWindow); ++i) {
      auto c = std::make_unique<OpenCase>(specs[i]);
      emit(out, case_message(*c));
      if (c->status() != CaseStatus::Ok) {
        emit(out, result_message(*c));
        totals.count(c->status());
        continue;
      }
      open.push_back(std::move(c));
    }
    while (!open.empty()) {
      for (auto it = open.begin(); it != open.end();) {
        OpenCase& c = **it;
        const uint64_t want =
            std::min<uint64_t>(c.spec().batch, c.spec().samples - c.samples().size());
        std::vector<Sample> batch;
        try {
          for (uint64_t k = 0; k < want; ++k) batch.push_back(c.sample());
          emit(out, samples_message(c.spec().id, batch));
        } catch (const std::exception& e) {
          c.fail(std::string("library error while sampling: ") + e.what());
        }
        if (c.status() != CaseStatus::Ok || c.samples().size() >= c.spec().samples) {
          c.check_timed_instance();
          emit(out, result_message(c));
          totals.count(c.status());
          it = open.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
  emit(out, totals.message());
  return 0;
}

int command_serve(std::istream& in, std::ostream& out, int cpu) {
  emit(out, hello(cpu));
  std::map<std::string, std::unique_ptr<OpenCase>> open;
  Totals totals;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json req;
    try {
      req = json::parse(line);
    } catch (const json::exception& e) {
      emit(out, error_message(std::string("request is not valid JSON: ") + e.what()));
      continue;
    }
    if (!req.is_object() || !req.contains("cmd") || !req["cmd"].is_string()) {
      emit(out,
           error_message(
               "cmd: missing (open, sample, close, agreement, cross_check, leak, taint, quit)"));
      continue;
    }
    const std::string cmd = req["cmd"];
    try {
      if (cmd == "quit") break;
      if (cmd == "open") {
        if (!req.contains("case")) throw SpecError("case: missing");
        CaseSpec spec = parse_case(req["case"], json::object(), "case");
        if (open.count(spec.id)) throw SpecError("case.id: '" + spec.id + "' is already open");
        auto c = std::make_unique<OpenCase>(spec);
        emit(out, case_message(*c));
        if (c->status() == CaseStatus::Ok) {
          open[spec.id] = std::move(c);
        } else {
          totals.count(c->status());
        }
        continue;
      }
      if (cmd == "agreement") {
        emit(out, agreement_reply(req));
        continue;
      }
      if (cmd == "cross_check") {
        emit(out, cross_check_reply(req));
        continue;
      }
      if (cmd == "leak") {
        emit(out, leak_reply(req));
        continue;
      }
      if (cmd == "taint") {
        emit(out, taint_reply(req));
        continue;
      }
      if (cmd != "sample" && cmd != "close")
        throw SpecError("cmd: unknown command '" + cmd +
                        "' (open, sample, close, agreement, cross_check, leak, taint, quit)");
      if (!req.contains("id") || !req["id"].is_string()) throw SpecError("id: missing");
      auto it = open.find(req["id"].get<std::string>());
      if (it == open.end())
        throw SpecError("id: no open case '" + req["id"].get<std::string>() + "'");
      if (cmd == "sample") {
        Fields f(req, json::object(), "request");
        const uint64_t count = f.uint("count", 1, 1, 100000);
        std::vector<Sample> batch;
        for (uint64_t k = 0; k < count; ++k) batch.push_back(it->second->sample());
        emit(out, samples_message(it->first, batch));
      } else {
        it->second->check_timed_instance();
        emit(out, result_message(*it->second));
        totals.count(it->second->status());
        open.erase(it);
      }
    } catch (const SpecError& e) {
      emit(out, error_message(e.what()));
    } catch (const std::exception& e) {
      // A library failure while sampling: the case ends as failed.
      auto it = open.find(req.value("id", ""));
      if (it == open.end()) {
        emit(out, error_message(e.what()));
        continue;
      }
      it->second->fail(std::string("library error while sampling: ") + e.what());
      emit(out, result_message(*it->second));
      totals.count(CaseStatus::Failed);
      open.erase(it);
    }
  }
  emit(out, totals.message());
  return 0;
}

int command_check(const std::vector<std::string>& providers, std::ostream& out) {
  Totals totals;
  for (const auto& name : providers) {
    Provider* p = get_provider(name);
    for (const auto& alg : p->algorithms()) {
      const AlgorithmInfo* info = find_algorithm(alg);
      if (!info) continue;
      // A message long enough for every mode and not a multiple of 64, to cross block edges.
      const size_t len = info->block_len > 1 ? 1024 : 1000;
      ByteStream stream(7);
      Params params;
      params.key = stream.bytes(info->key_len);
      params.iv = stream.bytes(info->iv_len);
      Bytes input = stream.bytes(len);
      if (is_public_key(info->kind) || info->kind == Kind::Kdf) {
        input.resize(32);
        params = cheap_kdf_params(*info);
      }
      for (OpKind op : operations_for(*info)) {
        GateReport g;
        CaseStatus status = CaseStatus::Failed;
        try {
          if (const std::string why = unusable_reason(name); !why.empty()) throw Unsupported(why);
          g = run_gate(name, *info, op, input, params, false);
          status = g.ok ? CaseStatus::Ok : CaseStatus::Failed;
        } catch (const Unsupported& e) {
          g.reason = e.what();
          status = CaseStatus::Unsupported;
        }
        totals.count(status);
        emit(out, {{"type", "check"},
                   {"provider", name},
                   {"variant", selected_variant(name)},
                   {"algorithm", alg},
                   {"operation", to_string(op)},
                   {"status", to_string(status)},
                   {"reason", g.reason},
                   {"gate", gate_json(g)}});
      }
    }
  }
  emit(out, totals.message());
  return totals.failed ? 1 : 0;
}

}  // namespace cb
