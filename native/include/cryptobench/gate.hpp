// The correctness gate: nothing is timed before it passes (DESIGN.md, "How a case is measured").
#pragma once

#include <string>

#include "cryptobench/provider.hpp"

namespace cb {

struct GateReport {
  bool ok = false;
  std::string reason;     // why it failed; empty when ok
  std::string kat;        // "passed 4 vectors", ...
  std::string roundtrip;  // "passed", ...
  std::string agreement;  // "agrees with botan, gcrypt", "no other provider offers it", "skipped"
  // Deviations from a standard's strict rules that do not make output wrong, e.g. a verifier that
  // accepts a non-canonical EdDSA encoding (signature malleability). Empty when none.
  std::string lax;
};

// 1. every known-answer vector for the algorithm, run twice on one prepared operation (for AEAD
//    decryption also: a flipped tag bit must be rejected);
// 2. the case's own input round-trips (encrypt -> decrypt; hashes and MACs: same output twice);
// Agreement with other providers is not checked here: each provider computes its agreement
// output in its own process (agreement.hpp) and the coordinator compares them; `agreement` only
// says in report.agreement whether the coordinator was asked to ("checked by the coordinator").
// Public-key algorithms and KDFs go to run_pk_gate.
GateReport run_gate(const std::string& provider, const AlgorithmInfo& info, OpKind op,
                    const Bytes& input, const Params& params, bool agreement);

// The gate for public-key algorithms and KDFs (gate_pk.cpp):
// 1. every vector: deterministic signatures (PKCS#1 v1.5, EdDSA) equal the published one, a
//    randomised one verifies; verification accepts valid and rejects invalid signatures, a
//    flipped bit and another message; decryption, shared secrets and KDF outputs equal the
//    published ones; key generation has no vector;
// 2. round trip on the case's fixed test key (vectors/keys.json) and input: sign -> verify,
//    encrypt -> decrypt (and two encryptions differ), both parties derive the same secret, a KDF
//    gives the same output twice; two generated keys differ and work;
GateReport run_pk_gate(const std::string& provider, const AlgorithmInfo& info, OpKind op,
                       const Bytes& input, const Params& params, bool agreement);

// The gate for TLS handshakes (gate_handshake.cpp), on one prepared HandshakeOperation with the
// algorithm's server certificate and key (vectors/tls13.json):
// 1. two handshakes complete, each with the vector's version, cipher suite and group, the client
//    having verified the server's certificate, and client and server deriving the same exporter
//    value (so the same secrets from the same transcript), a new one in each handshake;
// 2. the tampered-record control: with one byte of the server's first flight flipped (in
//    ServerHello.random, then its last byte) the handshake fails, and the next one completes.
GateReport run_handshake_gate(const std::string& provider, const AlgorithmInfo& info,
                              bool agreement, bool known_answers_only = false);
// The server's certificate, key and host name for a handshake algorithm (vectors/tls13.json);
// throws Error when its vector is missing.
Params handshake_params(const AlgorithmInfo& info);
// One handshake on `op`, its facts checked against the algorithm's vector: "" or why not. The
// check of the timed instance runs it on the timed operation.
std::string check_handshake(HandshakeOperation& op, const AlgorithmInfo& info,
                            HandshakeFacts* facts = nullptr);

// Step 1 alone (report.ok: every vector passed), for the `agreement` reply's `kat`.
GateReport run_known_answers(const std::string& provider, const AlgorithmInfo& info, OpKind op);

// KDF parameters cheap enough to run in every provider (`check` and the tests use them).
Params cheap_kdf_params(const AlgorithmInfo& info);

// The public parts of a key of info.key_type (RSA n, e; EC x, y; pub; FFDH y).
KeyParts public_parts(const AlgorithmInfo& info, const KeyParts& key);

// Providers the agreement check compares against (every compiled-in provider but the test-only
// "fault" provider).
bool is_reference_provider(const std::string& name);

}  // namespace cb
