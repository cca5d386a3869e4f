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

}  // namespace

void set_vectors_dir(const std::string& dir) { configured_dir() = dir; }

std::string vectors_dir() {
  if (!configured_dir().empty()) return configured_dir();
  if (const char* env = std::getenv("CRYPTOBENCH_VECTORS"); env && *env) return env;
  return CB_VECTORS_DIR;
}

const std::vector<Vector>& vectors_for(const AlgorithmInfo& info) {
  static std::map<std::string, std::map<std::string, std::vector<Vector>>> cache;  // family -> alg
  auto it = cache.find(info.family);
  if (it == cache.end()) {
    std::map<std::string, std::vector<Vector>> by_alg;
    const std::string path = vectors_dir() + "/" + info.family + ".json";
    std::ifstream in(path);
    if (in) {
      nlohmann::json doc;
      try {
        doc = nlohmann::json::parse(in);
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(path + ": " + e.what());
      }
      if (!doc.contains("vectors") || !doc["vectors"].is_array())
        throw std::runtime_error(path + ": no \"vectors\" array");
      size_t i = 0;
      for (const auto& v : doc["vectors"]) {
        const std::string where = path + ": vectors[" + std::to_string(i++) + "]";
        const std::string alg = v.value("algorithm", "");
        const AlgorithmInfo* vinfo = find_algorithm(alg);
        if (!vinfo) throw std::runtime_error(where + ".algorithm: unknown '" + alg + "'");
        by_alg[alg].push_back(parse_vector(v, *vinfo, where));
      }
    }
    it = cache.emplace(info.family, std::move(by_alg)).first;
  }
  static const std::vector<Vector> none;
  auto alg = it->second.find(info.name);
  return alg == it->second.end() ? none : alg->second;
}

}  // namespace cb
