// The correctness gate for TLS handshakes (gate.hpp, run_handshake_gate). A handshake has no
// known answer (both sides draw fresh randomness), so the gate checks what must hold for any
// correct one: it completes, negotiates what the case names, the client verified the server's
// certificate, and both sides derived the same secrets from the same transcript (their exporter
// values are equal); and a flipped byte of the server's flight makes it fail.
#include <algorithm>

#include "cryptobench/gate.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/vectors.hpp"
#include "gate_util.hpp"

namespace cb {

namespace {

// Byte 20 of the server's first flight lies in ServerHello.random (a 5-byte record header, a
// 4-byte handshake header and the 2-byte legacy_version come first): the client's transcript,
// and so every key it derives, then differs from the server's.
constexpr size_t kServerRandomByte = 20;
constexpr size_t kLastByte = static_cast<size_t>(-1);

const PkVector& vector_of(const AlgorithmInfo& info) {
  const auto& vectors = pk_vectors_for(info);
  if (vectors.empty())
    throw Error("no server certificate for " + info.name + " in " + vectors_dir() + "/" +
                info.family + ".json");
  return vectors.front();
}

std::string short_hex(const Bytes& b) {
  return b.empty() ? "nothing" : to_hex(b.data(), std::min<size_t>(b.size(), 8)) + "...";
}

std::string clip_text(const std::string& s) {
  return s.size() > 160 ? s.substr(0, 157) + "..." : s;
}

std::string facts_mismatch(const HandshakeFacts& f, const PkVector& v) {
  if (f.version != v.version) return "negotiated version " + f.version + ", expected " + v.version;
  if (f.suite != v.suite) return "negotiated cipher suite " + f.suite + ", expected " + v.suite;
  if (f.group != v.group) return "negotiated group " + f.group + ", expected " + v.group;
  if (f.verified.empty()) return "the client did not verify the server's certificate";
  if (f.client_exporter.size() != kExporterBytes)
    return "the client's exporter value is " + std::to_string(f.client_exporter.size()) +
           " bytes, expected " + std::to_string(kExporterBytes);
  if (f.client_exporter != f.server_exporter)
    return "client and server derived different exporter values (client " +
           short_hex(f.client_exporter) + ", server " + short_hex(f.server_exporter) + ")";
  return "";
}

void run_handshake(HandshakeOperation& op) {
  uint8_t none[1] = {0};
  op.run(none, 0, none);
}

}  // namespace

Params handshake_params(const AlgorithmInfo& info) { return vector_of(info).server; }

std::string check_handshake(HandshakeOperation& op, const AlgorithmInfo& info,
                            HandshakeFacts* facts) {
  const PkVector& v = vector_of(info);
  try {
    run_handshake(op);
  } catch (const Error& e) {
    return std::string("the handshake failed: ") + clip_text(e.what());
  }
  HandshakeFacts f = op.facts();
  if (std::string why = facts_mismatch(f, v); !why.empty()) return why;
  if (facts) *facts = std::move(f);
  return "";
}

GateReport run_handshake_gate(const std::string& provider, const AlgorithmInfo& info,
                              bool agreement, bool known_answers_only) {
  Provider* p = get_provider(provider);
  std::unique_ptr<HandshakeOperation> op;
  return run_steps(
      provider, agreement,
      [&](GateReport& r) {
        op = p->prepare_handshake(info.name, handshake_params(info));
        HandshakeFacts first, second;
        if (std::string why = check_handshake(*op, info, &first); !why.empty()) return why;
        if (std::string why = check_handshake(*op, info, &second); !why.empty())
          return "second handshake on the same prepared operation: " + why;
        if (first.client_exporter == second.client_exporter)
          return std::string("two handshakes derived the same exporter value (no fresh secrets)");
        r.kat = "2 handshakes: " + first.version + ", " + first.suite + ", " + first.group +
                "; client and server exporters equal, new per handshake; the client verified " +
                "the server's certificate (" + first.verified + ")";
        return std::string();
      },
      [&](GateReport& r) {
        if (known_answers_only) {
          r.roundtrip = "skipped";
          return std::string();
        }
        std::string refusals;
        for (size_t at : {kServerRandomByte, kLastByte}) {
          const std::string where = at == kLastByte
                                        ? "its last byte"
                                        : "byte " + std::to_string(at) + " (ServerHello.random)";
          op->tamper_next(at);
          try {
            run_handshake(*op);
            return "the handshake completed with " + where + " of the server's flight flipped";
          } catch (const Error& e) {
            refusals += (refusals.empty() ? "" : "; ") + where + ": " + clip_text(e.what());
          }
        }
        if (std::string why = check_handshake(*op, info); !why.empty())
          return "after the tampered handshakes: " + why;
        r.roundtrip = "a server flight with one byte flipped fails (" + refusals +
                      "); the next handshake completes";
        return std::string();
      });
}

}  // namespace cb
