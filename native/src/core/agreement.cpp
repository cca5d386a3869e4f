// Agreement artifacts and cross-checks (agreement.hpp). Each runs in the process of the provider
// named by the case; the coordinator compares and blames.
#include "cryptobench/agreement.hpp"

#include <algorithm>
#include <optional>

#include "cryptobench/gate.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/protocol.hpp"
#include "cryptobench/vectors.hpp"
#include "gate_util.hpp"

namespace cb {

using nlohmann::json;

namespace {

constexpr size_t kKdfOut = 32;
constexpr size_t kShortMessage = 32;  // pk-encryption and KDF passwords use input[:32]

struct Material {
  Bytes key, iv, aad, input, salt;
};

Bytes hex_field(const json& m, const char* name) {
  if (!m.contains(name)) return {};
  if (!m[name].is_string()) throw SpecError(std::string("material.") + name + ": must be hex");
  try {
    return from_hex(m[name].get<std::string>());
  } catch (const std::invalid_argument&) {
    throw SpecError(std::string("material.") + name + ": not a hex string");
  }
}

Material parse_material(const json& req) {
  if (!req.contains("material") || !req["material"].is_object())
    throw SpecError("material: missing (an object of hex strings)");
  const json& m = req["material"];
  return {hex_field(m, "key"), hex_field(m, "iv"), hex_field(m, "aad"), hex_field(m, "input"),
          hex_field(m, "salt")};
}

Bytes run_op(Operation& op, const Bytes& in) {
  Bytes out(in.size() + kOutRoom);
  const size_t n = op.run(in.data(), in.size(), out.data());
  if (n > out.size()) throw Error("operation reported more output than its buffer");
  out.resize(n);
  return out;
}

Bytes prefix(const Bytes& b, size_t n) {
  return Bytes(b.begin(), b.begin() + std::min(n, b.size()));
}

json key_json(const KeyParts& key) {
  json out = json::object();
  for (const auto& [part, bytes] : key) out[part] = to_hex(bytes);
  return out;
}

KeyParts key_from_json(const json& j) {
  if (!j.is_object()) throw Error("generated key is not an object of hex strings");
  KeyParts out;
  for (const auto& [part, value] : j.items()) {
    if (!value.is_string()) throw Error("generated key part " + part + " is not hex");
    out[part] = from_hex(value.get<std::string>());
  }
  return out;
}

Params symmetric_params(const AlgorithmInfo& info, const Material& m) {
  Params params;
  params.key = m.key;
  params.iv = m.iv;
  if (info.kind == Kind::Aead) params.aad = m.aad;
  return params;
}

Params kdf_params(const CaseSpec& spec, const Material& m) {
  Params params;
  params.salt = m.salt;
  params.out_len = kKdfOut;
  params.cost = spec.cost;
  return params;
}

Bytes with_key(Provider& p, const std::string& alg, OpKind op, const KeyParts& key,
               const KeyParts& peer, const Bytes& in) {
  Params params;
  params.keypair = key;
  params.peer = peer;
  return run_op(*p.prepare(alg, op, params), in);
}

bool verifies(Provider& p, const AlgorithmInfo& info, const KeyParts& key, const Bytes& msg,
              const Bytes& sig) {
  Params params;
  params.keypair = public_parts(info, key);
  params.signature = sig;
  auto op = p.prepare(info.name, OpKind::Verify, params);
  try {
    run_op(*op, msg);
    return true;
  } catch (const Unsupported&) {
    throw;
  } catch (const Error&) {
    return false;
  }
}

// What this provider produces for the material (docs/protocol.md, the artifacts table).
json artifacts(Provider& p, const AlgorithmInfo& info, OpKind op, const CaseSpec& spec,
               const Material& m) {
  switch (info.kind) {
    case Kind::Cipher:
    case Kind::Aead:
      return {{"ciphertext",
               to_hex(run_op(*p.prepare(info.name, OpKind::Encrypt, symmetric_params(info, m)),
                             m.input))}};
    case Kind::Hash:
      return {{"digest", to_hex(run_op(*p.prepare(info.name, OpKind::Hash, {}), m.input))}};
    case Kind::Mac:
      return {{"mac", to_hex(run_op(*p.prepare(info.name, OpKind::Mac, symmetric_params(info, m)),
                                    m.input))}};
    case Kind::Kdf:
      return {{"derived", to_hex(run_op(*p.prepare(info.name, OpKind::Derive, kdf_params(spec, m)),
                                        prefix(m.input, kShortMessage)))}};
    case Kind::Keyload: {
      // The parts decoding the encoded key gives, integers without leading zeros (one library
      // pads where another does not): every provider must decode the same key.
      const auto& vectors = pk_vectors_for(info);
      if (vectors.empty()) throw Error("no encoded key for " + info.name);
      KeyParts decoded = p.decode_key(info.name, vectors.front().input);
      for (auto& [name, value] : decoded)
        if (name != "priv" && name != "pub")
          value.erase(value.begin(),
                      std::find_if(value.begin(), value.end(), [](uint8_t c) { return c != 0; }));
      return {{"decoded", key_json(decoded)}};
    }
    default:
      break;
  }
  if (op == OpKind::Keygen) return {{"generated", key_json(p.generate_key(info.name))}};
  const KeyParts& key = test_key(info.key_type);
  switch (info.kind) {
    case Kind::Signature:
      return {{"signature", to_hex(with_key(p, info.name, OpKind::Sign, key, {}, m.input))}};
    case Kind::PkEncryption:
      return {{"ciphertext", to_hex(with_key(p, info.name, OpKind::Encrypt, public_parts(info, key),
                                             {}, prefix(m.input, kShortMessage)))}};
    case Kind::KeyAgreement:
      return {
          {"secret", to_hex(with_key(p, info.name, OpKind::Derive, key,
                                     public_parts(info, test_key(info.key_type + "-peer")), {}))}};
    case Kind::Kem: {
      // One encapsulation to the test key, and the implicit-rejection secret of
      // input[:ciphertext_bytes], which is not a valid ciphertext (docs/post-quantum.md).
      const Bytes e = with_key(p, info.name, OpKind::Encaps, public_parts(info, key), {}, {});
      const auto n = static_cast<std::ptrdiff_t>(std::min(info.ciphertext_len, e.size()));
      return {{"ciphertext", to_hex(Bytes(e.begin(), e.begin() + n))},
              {"secret", to_hex(Bytes(e.begin() + n, e.end()))},
              {"rejection", to_hex(with_key(p, info.name, OpKind::Decaps, key, {},
                                            prefix(m.input, info.ciphertext_len)))}};
    }
    case Kind::Handshake:
      // Every handshake is new (fresh randomness on both sides): nothing two providers produce
      // is comparable, and a client of one library cannot meet a server of another across two
      // processes. Each provider's own gate checks its client against its server.
      throw Unsupported(
          "a handshake has no artifact comparable across providers (interoperation between "
          "libraries is not checked)");
    default:
      throw Unsupported("no agreement artifacts for " + info.name);
  }
}

// Whether this provider accepts one peer's artifacts: "" when it does, else why not. Throws
// Unsupported when it cannot check them (the verdict is then "not checked").
// `own_key` is a key of this provider's own making, generated once for all peers when needed.
std::string check_peer(Provider& p, const AlgorithmInfo& info, OpKind op, const Material& m,
                       const json& peer, std::optional<KeyParts>& own_key) {
  if (!peer.is_object()) throw Error("artifacts are not an object");
  auto bytes = [&](const char* name) { return from_hex(peer.at(name).get<std::string>()); };
  if (peer.contains("generated")) {
    const KeyParts theirs = key_from_json(peer["generated"]);
    if (!own_key) own_key = p.generate_key(info.name);
    return check_generated_key(p, info, theirs, *own_key);
  }
  switch (info.kind) {
    case Kind::Cipher:
    case Kind::Aead: {
      const Bytes pt = run_op(*p.prepare(info.name, OpKind::Decrypt, symmetric_params(info, m)),
                              bytes("ciphertext"));
      return pt == m.input ? "" : "its ciphertext does not decrypt to the input here";
    }
    case Kind::Signature:
      return verifies(p, info, test_key(info.key_type), m.input, bytes("signature"))
                 ? ""
                 : "its signature does not verify here";
    case Kind::Kem: {
      const Bytes ss =
          with_key(p, info.name, OpKind::Decaps, test_key(info.key_type), {}, bytes("ciphertext"));
      return ss == bytes("secret") ? "" : "its ciphertext does not decapsulate to its secret here";
    }
    case Kind::PkEncryption: {
      const Bytes pt =
          with_key(p, info.name, OpKind::Decrypt, test_key(info.key_type), {}, bytes("ciphertext"));
      return pt == prefix(m.input, kShortMessage) ? ""
                                                  : "its ciphertext does not decrypt to the input";
    }
    default:
      (void)op;
      throw Unsupported("compared by equality, not by cross-check");
  }
}

struct Opened {
  CaseSpec spec;
  const AlgorithmInfo* info = nullptr;
  OpKind op = OpKind::Hash;
  Provider* provider = nullptr;
  std::string unsupported;  // why this provider does not offer the case; empty when it does
};

Opened open_request(const json& req) {
  if (!req.contains("case")) throw SpecError("case: missing");
  Opened o;
  o.spec = parse_case(req["case"], json::object(), "case");
  o.info = find_algorithm(o.spec.algorithm);
  o.op = parse_op(o.spec.operation);
  o.provider = get_provider(o.spec.provider);
  const std::string running = selected_variant(o.spec.provider);
  const auto algs = o.provider->algorithms();
  if (const std::string why = unusable_reason(o.spec.provider); !why.empty())
    o.unsupported = why;
  else if (!o.spec.variant.empty() && o.spec.variant != running)
    o.unsupported = "this runner runs " + o.spec.provider + " as variant '" + running + "'";
  else if (std::find(algs.begin(), algs.end(), o.spec.algorithm) == algs.end())
    o.unsupported = o.spec.provider + " does not offer " + o.spec.algorithm;
  return o;
}

}  // namespace

json agreement_reply(const json& req) {
  const Opened o = open_request(req);
  const Material m = parse_material(req);
  json reply = {{"type", "agreement"},
                {"id", o.spec.id},
                {"status", "ok"},
                {"reason", ""},
                {"kat", {{"ok", false}, {"detail", ""}}},
                {"artifacts", json::object()}};
  if (!o.unsupported.empty()) {
    reply["status"] = "unsupported";
    reply["reason"] = o.unsupported;
    return reply;
  }
  try {
    // The provider's known-answer result for the algorithm, every operation: the artifacts come
    // from the forward direction (encrypt, sign) whichever operation the case measures.
    bool kat_ok = true;
    std::string detail;
    for (OpKind op : operations_for(*o.info)) {
      if (op == OpKind::Keygen) continue;
      const GateReport kat = run_known_answers(o.spec.provider, *o.info, op);
      const std::string part = std::string(to_string(op)) + ": " + (kat.ok ? kat.kat : kat.reason);
      if (kat_ok && !kat.ok) detail.clear();
      if (kat_ok || !kat.ok) detail += (detail.empty() ? "" : "; ") + part;
      kat_ok = kat_ok && kat.ok;
    }
    if (detail.empty()) detail = "not applicable (random keys; checked by use)";
    reply["kat"] = {{"ok", kat_ok}, {"detail", detail}};
    reply["artifacts"] = artifacts(*o.provider, *o.info, o.op, o.spec, m);
  } catch (const Unsupported& e) {
    reply["status"] = "unsupported";
    reply["reason"] = e.what();
  } catch (const std::exception& e) {
    reply["status"] = "failed";
    reply["reason"] = std::string("cannot produce agreement output: ") + e.what();
  }
  return reply;
}

json cross_check_reply(const json& req) {
  const Opened o = open_request(req);
  const Material m = parse_material(req);
  if (!req.contains("peers") || !req["peers"].is_object())
    throw SpecError("peers: missing (an object of provider -> artifacts)");
  json verdicts = json::object();
  std::optional<KeyParts> own_key;
  for (const auto& [peer, arts] : req["peers"].items()) {
    json v = {{"ok", nullptr}, {"reason", ""}};
    if (!o.unsupported.empty()) {
      v["reason"] = "not checked: " + o.unsupported;
    } else {
      try {
        const std::string why = check_peer(*o.provider, *o.info, o.op, m, arts, own_key);
        v = {{"ok", why.empty()}, {"reason", why}};
      } catch (const Unsupported& e) {
        v["reason"] = std::string("not checked: ") + e.what();
      } catch (const std::exception& e) {
        v = {{"ok", false}, {"reason", std::string("library error on its output: ") + e.what()}};
      }
    }
    verdicts[peer] = v;
  }
  return {{"type", "cross_check"}, {"id", o.spec.id}, {"verdicts", verdicts}};
}

}  // namespace cb
