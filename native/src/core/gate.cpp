#include "cryptobench/gate.hpp"

#include <map>

#include "cryptobench/hexutil.hpp"
#include "cryptobench/vectors.hpp"
#include "gate_util.hpp"

namespace cb {

namespace {

constexpr size_t kStreamBlock = 64;  // ChaCha20 / Salsa20 block: what initial_counter counts

Bytes run_once(Operation& op, const Bytes& in, size_t extra_out) {
  Bytes out(in.size() + extra_out + 64);
  const size_t n = op.run(in.data(), in.size(), out.data());
  if (n > out.size()) throw Error("operation reported more output than its buffer");
  out.resize(n);
  return out;
}

// The forward direction of an algorithm: what the round trip starts from.
OpKind forward(const AlgorithmInfo& info) {
  switch (info.kind) {
    case Kind::Hash:
      return OpKind::Hash;
    case Kind::Mac:
      return OpKind::Mac;
    default:
      return OpKind::Encrypt;
  }
}

std::string mismatch(const char* what, const Bytes& got, const Bytes& want) {
  auto clip = [](const Bytes& b) {
    std::string h = to_hex(b.data(), std::min<size_t>(b.size(), 24));
    return b.size() > 24 ? h + "..." : h;
  };
  return std::string(what) + ": got " + clip(got) + " (" + std::to_string(got.size()) +
         " bytes), expected " + clip(want) + " (" + std::to_string(want.size()) + " bytes)";
}

// Returns an empty string when the vector passes, else the reason.
std::string check_vector(Provider& p, const AlgorithmInfo& info, OpKind op, const Vector& v) {
  Params params;
  params.key = v.key;
  params.iv = v.iv;
  params.aad = v.aad;
  const Bytes prefix(v.initial_counter * kStreamBlock, 0);
  Bytes in, want;
  if (op == OpKind::Decrypt) {
    in = v.expected;
    want = v.input;
  } else {
    in = v.input;
    want = v.expected;
  }
  in.insert(in.begin(), prefix.begin(), prefix.end());
  auto prepared = p.prepare(info.name, op, params);
  for (int round = 1; round <= 2; ++round) {
    Bytes got = run_once(*prepared, in, info.tag_len);
    if (got.size() < prefix.size()) return mismatch("output too short", got, want);
    got.erase(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(prefix.size()));
    if (info.kind == Kind::Mac && want.size() < got.size()) got.resize(want.size());
    if (got != want)
      return mismatch(round == 1 ? "wrong output" : "wrong output on the second run", got, want);
  }
  if (info.kind == Kind::Aead && op == OpKind::Decrypt) {
    Bytes tampered = in;
    tampered.back() ^= 0x01;
    try {
      run_once(*prepared, tampered, 0);
      return "accepted a ciphertext whose tag was altered";
    } catch (const Error&) {
    }
    // The operation must still work after rejecting a forgery.
    Bytes got = run_once(*prepared, in, 0);
    got.erase(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(prefix.size()));
    if (got != want) return "wrong output after rejecting a forgery";
  }
  return "";
}

std::string run_kat(Provider& p, const std::string& provider, const AlgorithmInfo& info, OpKind op,
                    GateReport& report) {
  const auto& vectors = vectors_for(info);
  if (vectors.empty())
    return "no known-answer vector for " + info.name + " in " + vectors_dir() + "/" + info.family +
           ".json";
  return run_vectors(vectors, provider, info, report,
                     [&](const Vector& v) { return check_vector(p, info, op, v); });
}

std::string run_roundtrip(Provider& p, const AlgorithmInfo& info, const Bytes& input,
                          const Params& params) {
  if (info.kind == Kind::Hash || info.kind == Kind::Mac) {
    auto op = p.prepare(info.name, forward(info), params);
    Bytes a = run_once(*op, input, 0), b = run_once(*op, input, 0);
    if (a.size() != info.output_len)
      return "output is " + std::to_string(a.size()) + " bytes, expected " +
             std::to_string(info.output_len);
    if (a != b) return "two runs on the same input gave different outputs";
    return "";
  }
  auto enc = p.prepare(info.name, OpKind::Encrypt, params);
  auto dec = p.prepare(info.name, OpKind::Decrypt, params);
  const Bytes ct = run_once(*enc, input, info.tag_len);
  if (ct.size() != input.size() + info.tag_len)
    return "ciphertext is " + std::to_string(ct.size()) + " bytes for " +
           std::to_string(input.size()) + " bytes of input";
  if (input.size() >= 16 &&
      Bytes(ct.begin(), ct.begin() + 16) == Bytes(input.begin(), input.begin() + 16))
    return "ciphertext starts with the plaintext";
  const Bytes pt = run_once(*dec, ct, 0);
  if (pt != input) return "decrypt(encrypt(input)) differs from the input";
  return "";
}

}  // namespace

bool is_reference_provider(const std::string& name) { return name != "fault"; }

GateReport run_gate(const std::string& provider, const AlgorithmInfo& info, OpKind op,
                    const Bytes& input, const Params& params, bool agreement) {
  if (info.kind == Kind::Handshake) return run_handshake_gate(provider, info, agreement);
  if (is_public_key(info.kind) || info.kind == Kind::Kdf || info.kind == Kind::Keyload)
    return run_pk_gate(provider, info, op, input, params, agreement);
  Provider* p = get_provider(provider);
  return run_steps(
      provider, agreement, [&](GateReport& r) { return run_kat(*p, provider, info, op, r); },
      [&](GateReport&) { return run_roundtrip(*p, info, input, params); });
}

GateReport run_known_answers(const std::string& provider, const AlgorithmInfo& info, OpKind op) {
  if (info.kind == Kind::Handshake) return run_handshake_gate(provider, info, false, true);
  if (is_public_key(info.kind) || info.kind == Kind::Kdf || info.kind == Kind::Keyload)
    return run_pk_known_answers(provider, info, op);
  Provider* p = get_provider(provider);
  return run_steps(
      provider, false, [&](GateReport& r) { return run_kat(*p, provider, info, op, r); },
      [](GateReport& r) {
        r.roundtrip = "skipped";
        return std::string();
      });
}

GateReport run_steps(const std::string& provider, bool agreement, const GateStep& kat,
                     const GateStep& roundtrip) {
  GateReport report;
  if (!get_provider(provider)) {
    report.reason = "unknown provider " + provider;
    return report;
  }
  try {
    if (std::string why = kat(report); !why.empty()) {
      report.reason = why;
      return report;
    }
    if (std::string why = roundtrip(report); !why.empty()) {
      report.reason = "round trip failed: " + why;
      return report;
    }
    if (report.roundtrip.empty()) report.roundtrip = "passed";
    // Agreement across providers needs every provider's output, each from its own process: the
    // coordinator collects them (`agreement` requests) and compares them before it opens cases.
    report.agreement = agreement ? "checked by the coordinator" : "skipped";
  } catch (const Unsupported&) {
    throw;
  } catch (const std::exception& e) {
    report.reason = e.what();
    return report;
  }
  report.ok = true;
  return report;
}

}  // namespace cb
