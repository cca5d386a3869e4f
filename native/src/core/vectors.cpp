#include "cryptobench/vectors.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cryptobench/hexutil.hpp"

namespace cb {

namespace {

std::string& configured_dir() {
  static std::string dir;
  return dir;
}

Bytes hex_field(const nlohmann::json& v, const char* field, const std::string& where) {
  if (!v.contains(field)) return {};
  if (!v[field].is_string()) throw std::runtime_error(where + "." + field + ": not a hex string");
  try {
    return from_hex(v[field].get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(where + "." + field + ": " + e.what());
  }
}

KeyParts key_field(const nlohmann::json& v, const char* field, const std::string& where) {
  KeyParts parts;
  if (!v.contains(field)) return parts;
  if (!v[field].is_object()) throw std::runtime_error(where + "." + field + ": not an object");
  for (const auto& [name, value] : v[field].items())
    parts[name] = hex_field(v[field], name.c_str(), where + "." + field);
  return parts;
}

PkVector parse_pk_vector(const nlohmann::json& v, const AlgorithmInfo& info,
                         const std::string& where) {
  PkVector out;
  out.algorithm = info.name;
  out.source = v.value("source", "");
  out.key = key_field(v, "key", where);
  out.peer = key_field(v, "peer", where);
  auto require = [&](const Bytes& b, const char* field) {
    if (b.empty()) throw std::runtime_error(where + "." + field + ": missing or empty");
  };
  switch (info.kind) {
    case Kind::Signature:
      out.message = hex_field(v, "message", where);
      out.signature = hex_field(v, "signature", where);
      out.valid = v.value("valid", true);
      out.strict_only = v.value("strict_only", false);
      require(out.signature, "signature");
      break;
    case Kind::PkEncryption:
      out.plaintext = hex_field(v, "plaintext", where);
      out.ciphertext = hex_field(v, "ciphertext", where);
      require(out.ciphertext, "ciphertext");
      break;
    case Kind::KeyAgreement:
      out.shared = hex_field(v, "shared", where);
      require(out.shared, "shared");
      break;
    case Kind::Kem:  // decapsulating `ciphertext` with `key` gives `shared` (docs/post-quantum.md)
      out.ciphertext = hex_field(v, "ciphertext", where);
      out.shared = hex_field(v, "shared", where);
      out.implicit_rejection = v.value("implicit_rejection", false);
      require(out.ciphertext, "ciphertext");
      require(out.shared, "shared");
      break;
    case Kind::Keyload:  // decoding `encoded` gives `key` (vectors/encoded-keys.json)
      out.input = hex_field(v, "encoded", where);
      require(out.input, "encoded");
      if (out.key.empty()) throw std::runtime_error(where + ".key: missing or empty");
      break;
    case Kind::Handshake: {  // vectors/tls13.json: the server's certificate and the negotiation
      out.server.certificate = hex_field(v, "certificate", where);
      out.server.private_key = hex_field(v, "private_key", where);
      require(out.server.certificate, "certificate");
      require(out.server.private_key, "private_key");
      auto text = [&](const char* field) {
        if (!v.contains(field) || !v[field].is_string() || v[field].get<std::string>().empty())
          throw std::runtime_error(where + "." + field + ": missing or not a string");
        return v[field].get<std::string>();
      };
      out.server.server_name = text("server_name");
      out.version = text("version");
      out.suite = text("suite");
      out.group = text("group");
      break;
    }
    case Kind::Kdf:
      out.input = hex_field(v, "input", where);
      out.output = hex_field(v, "output", where);
      require(out.output, "output");
      out.kdf.salt = hex_field(v, "salt", where);
      out.kdf.info = hex_field(v, "info", where);
      out.kdf.key = hex_field(v, "secret", where);
      out.kdf.aad = hex_field(v, "ad", where);
      out.kdf.out_len = out.output.size();
      if (v.contains("cost")) {
        if (!v["cost"].is_object()) throw std::runtime_error(where + ".cost: not an object");
        for (const auto& [name, value] : v["cost"].items()) {
          if (!value.is_number_unsigned())
            throw std::runtime_error(where + ".cost." + name + ": not a non-negative integer");
          out.kdf.cost[name] = value.get<uint64_t>();
        }
      }
      break;
    default:
      throw std::runtime_error(where + ": " + info.name + " takes no public-key vector");
  }
  return out;
}

Vector parse_vector(const nlohmann::json& v, const AlgorithmInfo& info, const std::string& where) {
  Vector out;
  out.algorithm = info.name;
  out.source = v.value("source", "");
  out.key = hex_field(v, "key", where);
  out.iv = hex_field(v, "iv", where);
  out.aad = hex_field(v, "aad", where);
  out.initial_counter = v.value("initial_counter", 0u);
  switch (info.kind) {
    case Kind::Cipher:
      out.input = hex_field(v, "plaintext", where);
      out.expected = hex_field(v, "ciphertext", where);
      break;
    case Kind::Aead: {
      out.input = hex_field(v, "plaintext", where);
      out.expected = hex_field(v, "ciphertext", where);
      Bytes tag = hex_field(v, "tag", where);
      if (tag.size() != info.tag_len) throw std::runtime_error(where + ".tag: wrong length");
      out.expected.insert(out.expected.end(), tag.begin(), tag.end());
      break;
    }
    default:
      throw std::runtime_error(where + ": " + info.name + " takes public-key vectors");
    case Kind::Hash:
    case Kind::Mac: {
      Bytes message = hex_field(v, "message", where);
      const size_t repeat = v.value("repeat", 1u);
      for (size_t i = 0; i < repeat; ++i)
        out.input.insert(out.input.end(), message.begin(), message.end());
      out.expected = hex_field(v, info.kind == Kind::Hash ? "digest" : "tag", where);
      break;
    }
  }
  if (out.expected.empty() && !(info.kind == Kind::Cipher && out.input.empty()))
    throw std::runtime_error(where + ": no expected output");
  return out;
}

// One family file, parsed once per process.
const nlohmann::json& family_doc(const std::string& family) {
  static std::map<std::string, nlohmann::json> cache;  // path -> document
  const std::string path = vectors_dir() + "/" + family + ".json";
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  nlohmann::json doc = nlohmann::json::object();
  std::ifstream in(path);
  if (in) {
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(path + ": " + e.what());
    }
    if (!doc.contains("vectors") || !doc["vectors"].is_array())
      throw std::runtime_error(path + ": no \"vectors\" array");
  }
  return cache.emplace(path, std::move(doc)).first->second;
}

template <typename V, typename Parse>
const std::vector<V>& load(const AlgorithmInfo& info, Parse parse) {
  static std::map<std::string, std::vector<V>> cache;  // directory + algorithm -> vectors
  const std::string cache_key = vectors_dir() + "\n" + info.name;
  auto it = cache.find(cache_key);
  if (it != cache.end()) return it->second;
  std::vector<V> out;
  const nlohmann::json& doc = family_doc(info.family);
  const std::string path = vectors_dir() + "/" + info.family + ".json";
  if (doc.contains("vectors")) {
    size_t i = 0;
    for (const auto& v : doc["vectors"]) {
      const std::string where = path + ": vectors[" + std::to_string(i++) + "]";
      const std::string alg = v.value("algorithm", "");
      if (!find_algorithm(alg))
        throw std::runtime_error(where + ".algorithm: unknown '" + alg + "'");
      if (alg == info.name) out.push_back(parse(v, info, where));
    }
  }
  return cache.emplace(cache_key, std::move(out)).first->second;
}

}  // namespace

void set_vectors_dir(const std::string& dir) { configured_dir() = dir; }

std::string vectors_dir() {
  if (!configured_dir().empty()) return configured_dir();
  if (const char* env = std::getenv("CRYPTOBENCH_VECTORS"); env && *env) return env;
  return CB_VECTORS_DIR;
}

const std::vector<Vector>& vectors_for(const AlgorithmInfo& info) {
  return load<Vector>(info, parse_vector);
}

const std::vector<PkVector>& pk_vectors_for(const AlgorithmInfo& info) {
  return load<PkVector>(info, parse_pk_vector);
}

const KeyParts& test_key(const std::string& name) {
  static std::map<std::string, KeyParts> keys;
  static bool loaded = false;
  const std::string path = vectors_dir() + "/keys.json";
  if (!loaded) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read the test keys " + path);
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error(path + ": " + e.what());
    }
    if (!doc.contains("keys") || !doc["keys"].is_object())
      throw Error(path + ": no \"keys\" object");
    for (const auto& [key_name, parts] : doc["keys"].items())
      keys[key_name] = key_field(doc["keys"], key_name.c_str(), path + ": keys");
    loaded = true;
  }
  auto it = keys.find(name);
  if (it == keys.end()) throw Error("no test key '" + name + "' in " + path);
  return it->second;
}

}  // namespace cb
