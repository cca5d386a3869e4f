#include "cryptobench/algorithms.hpp"

#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

namespace cb {

extern const char* const kCatalogueJson;  // generated from catalogue/algorithms.json

namespace {

using nlohmann::json;

// The kinds' names, in the order of enum Kind.
const char* const kKinds[] = {"cipher",  "aead",      "hash",          "mac",
                              "keypair", "signature", "pk-encryption", "key-agreement",
                              "kdf",     "kem",       "keyload",       "handshake"};

Kind parse_kind(const std::string& name) {
  for (size_t i = 0; i < std::size(kKinds); ++i)
    if (name == kKinds[i]) return static_cast<Kind>(i);
  throw std::invalid_argument("unknown kind '" + name + "'");
}

// The operations an entry's kind has: ciphers, AEAD and public-key encryption encrypt and
// decrypt, hashes hash, MACs mac, signatures sign and verify, key agreement and KDFs derive, KEMs
// encaps and decaps; an algorithm that is its own key type also has keygen, first. The engine and
// the gate rely on it, so an entry whose `operations` say otherwise is refused.
std::vector<OpKind> kind_operations(const AlgorithmInfo& info) {
  std::vector<OpKind> ops;
  if (!info.key_type.empty() && info.key_type == info.name) ops.push_back(OpKind::Keygen);
  switch (info.kind) {
    case Kind::Cipher:
    case Kind::Aead:
    case Kind::PkEncryption:
      ops.insert(ops.end(), {OpKind::Encrypt, OpKind::Decrypt});
      break;
    case Kind::Hash:
      ops.push_back(OpKind::Hash);
      break;
    case Kind::Mac:
      ops.push_back(OpKind::Mac);
      break;
    case Kind::Signature:
      ops.insert(ops.end(), {OpKind::Sign, OpKind::Verify});
      break;
    case Kind::KeyAgreement:
    case Kind::Kdf:
      ops.push_back(OpKind::Derive);
      break;
    case Kind::Kem:
      ops.insert(ops.end(), {OpKind::Encaps, OpKind::Decaps});
      break;
    case Kind::Keyload:
      ops.push_back(OpKind::Keyload);
      break;
    case Kind::Handshake:
      ops.push_back(OpKind::Handshake);
      break;
    case Kind::KeyPair:
      break;
  }
  return ops;
}

// One entry of catalogue/algorithms.json; every field is required (docs/protocol.schema.json,
// $defs/algorithm), so a typo fails here instead of becoming a silent 0.
AlgorithmInfo parse_entry(const json& e) {
  auto size = [&](const char* field) { return e.at(field).get<size_t>(); };
  auto text = [&](const char* field) { return e.at(field).get<std::string>(); };
  AlgorithmInfo a{text("name"),        parse_kind(text("kind")),
                  size("key_bytes"),   size("iv_bytes"),
                  size("block_bytes"), size("min_size"),
                  size("tag_bytes"),   size("output_bytes"),
                  text("family"),      text("description"),
                  text("key_type"),    size("bits"),
                  text("digest"),      {}};
  a.public_key_len = size("public_key_bytes");
  a.ciphertext_len = size("ciphertext_bytes");
  for (const auto& op : e.at("operations")) a.operations.push_back(parse_op(op.get<std::string>()));
  if (a.operations != kind_operations(a)) {
    std::string want;
    for (OpKind op : kind_operations(a))
      want += std::string(want.empty() ? "" : ", ") + to_string(op);
    throw std::invalid_argument("operations must be [" + want + "] for its kind and key type");
  }
  if (a.name.empty() || a.family.empty()) throw std::invalid_argument("empty name or family");
  if (a.block_len == 0) throw std::invalid_argument("block_bytes must be at least 1");
  return a;
}

}  // namespace

std::vector<AlgorithmInfo> parse_catalogue(const std::string& text) {
  const json doc = json::parse(text);
  if (!doc.is_object() || !doc.contains("algorithms") || !doc["algorithms"].is_array())
    throw std::runtime_error("catalogue: must be an object whose 'algorithms' is an array");
  std::vector<AlgorithmInfo> v;
  std::set<std::string> names;
  for (const auto& e : doc.at("algorithms")) {
    const std::string where = "catalogue/algorithms.json, algorithms[" + std::to_string(v.size()) +
                              "] (" + e.value("name", std::string("?")) + ")";
    try {
      v.push_back(parse_entry(e));
    } catch (const std::exception& err) {
      throw std::runtime_error(where + ": " + err.what());
    }
    if (!names.insert(v.back().name).second) throw std::runtime_error(where + ": duplicate name");
  }
  return v;
}

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> all = parse_catalogue(kCatalogueJson);
  return all;
}

const AlgorithmInfo* find_algorithm(const std::string& name) {
  for (const auto& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<OpKind> operations_for(const AlgorithmInfo& info) { return info.operations; }

bool is_public_key(Kind kind) {
  return kind == Kind::KeyPair || kind == Kind::Signature || kind == Kind::PkEncryption ||
         kind == Kind::KeyAgreement || kind == Kind::Kem;
}

bool is_post_quantum(const AlgorithmInfo& info) {
  return info.kind == Kind::Kem || info.family == "ml-dsa" || info.family == "slh-dsa";
}

const char* to_string(OpKind op) {
  switch (op) {
    case OpKind::Encrypt:
      return "encrypt";
    case OpKind::Decrypt:
      return "decrypt";
    case OpKind::Hash:
      return "hash";
    case OpKind::Mac:
      return "mac";
    case OpKind::Keygen:
      return "keygen";
    case OpKind::Sign:
      return "sign";
    case OpKind::Verify:
      return "verify";
    case OpKind::Derive:
      return "derive";
    case OpKind::Encaps:
      return "encaps";
    case OpKind::Decaps:
      return "decaps";
    case OpKind::Keyload:
      return "keyload";
    case OpKind::Handshake:
      return "handshake";
  }
  return "?";
}

const char* to_string(Kind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < std::size(kKinds) ? kKinds[i] : "?";
}

OpKind parse_op(const std::string& name) {
  for (OpKind op : {OpKind::Encrypt, OpKind::Decrypt, OpKind::Hash, OpKind::Mac, OpKind::Keygen,
                    OpKind::Sign, OpKind::Verify, OpKind::Derive, OpKind::Encaps, OpKind::Decaps,
                    OpKind::Keyload, OpKind::Handshake})
    if (name == to_string(op)) return op;
  throw std::invalid_argument("unknown operation '" + name +
                              "' (encrypt, decrypt, hash, mac, keygen, sign, verify, derive, "
                              "encaps, decaps, keyload, handshake)");
}

}  // namespace cb
