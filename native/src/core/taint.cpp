// The `taint` request (taint.hpp, docs/protocol.md): the secrets marked undefined for memcheck,
// the operation prepared, run and destroyed between two client messages that tell the
// coordinator which errors belong to it.
#include "cryptobench/taint.hpp"

#include <algorithm>

#include "cryptobench/engine.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/leak.hpp"
#include "cryptobench/protocol.hpp"

#ifdef CB_HAVE_MEMCHECK_H
#include <valgrind/memcheck.h>
#endif

namespace cb {

using nlohmann::json;

namespace {

#ifdef CB_HAVE_MEMCHECK_H
bool on_valgrind() { return RUNNING_ON_VALGRIND != 0; }
void mark_secret(const Bytes& b) {
  if (!b.empty()) VALGRIND_MAKE_MEM_UNDEFINED(b.data(), b.size());
}
// What the caller is given back (the output, whether it was refused) is public; marking it
// defined keeps the runner's own formatting of it out of the report.
void declassify(const void* p, size_t n) {
  if (n) VALGRIND_MAKE_MEM_DEFINED(p, n);
}
void boundary(const char* what, const std::string& id) {
  VALGRIND_PRINTF("cryptobench-taint %s %s\n", what, id.c_str());
}
#else
bool on_valgrind() { return false; }
void mark_secret(const Bytes&) {}
void declassify(const void*, size_t) {}
void boundary(const char*, const std::string&) {}
#endif

}  // namespace

bool taint_supported() {
#ifdef CB_HAVE_MEMCHECK_H
  return true;
#else
  return false;
#endif
}

json taint_reply(const json& req) {
  if (!req.contains("case")) throw SpecError("case: missing");
  CaseSpec spec = parse_case(req["case"], json::object(), "case");
  if (!req.contains("input") || !req["input"].is_string())
    throw SpecError("input: must be a hex string");
  Bytes input;
  try {
    input = from_hex(req["input"].get<std::string>());
  } catch (const std::invalid_argument&) {
    throw SpecError("input: not a hex string");
  }
  const bool secret_input = req.value("secret_input", false);
  Params params = parse_leak_params(req.contains("params") ? req["params"] : json());

  json reply = {{"type", "taint"},
                {"id", spec.id},
                {"status", "ok"},
                {"reason", ""},
                {"on_valgrind", on_valgrind()},
                {"supported", taint_supported()}};
  Provider* provider = nullptr;
  const AlgorithmInfo* info = nullptr;
  OpKind kind{};
  Bytes out(input.size() + kOutRoom);
  try {
    provider = &resolve_case(spec, info, kind);
    // Once with everything defined: one-time set-up (CPU detection, tables built on first use)
    // is not the secret's doing and must not be reported as if it were.
    auto warm = provider->prepare(spec.algorithm, kind, params);
    try {
      warm->run(input.data(), input.size(), out.data());
    } catch (const Error&) {
    }
  } catch (const Unsupported& e) {
    reply["status"] = "unsupported", reply["reason"] = e.what();
    return reply;
  } catch (const std::exception& e) {
    reply["status"] = "failed", reply["reason"] = e.what();
    return reply;
  }

  // Symmetric keys only so far: which parts of a key pair are secret is the adapter's to say.
  mark_secret(params.key);
  if (secret_input) mark_secret(input);
  json outcome;
  boundary("begin", spec.id);
  try {
    auto op = provider->prepare(spec.algorithm, kind, params);
    size_t n = op->run(input.data(), input.size(), out.data());
    // The output's length is public too; some libraries compute it from the tag check's outcome
    // (libsodium's ChaCha20-Poly1305 sets it only when the tag verified).
    declassify(&n, sizeof n);
    op.reset();
    const size_t shown = std::min(n, out.size());
    declassify(out.data(), shown);
    outcome = {{"out", to_hex(out.data(), shown)}};
  } catch (const std::exception& e) {
    outcome = {{"error", e.what()}};
  }
  boundary("end", spec.id);
  reply["outcome"] = outcome;
  return reply;
}

}  // namespace cb
