#include <algorithm>
#include <mutex>

#include "cryptobench/provider.hpp"

namespace cb {

namespace {

struct Entry {
  ProviderFactory factory;
  std::unique_ptr<Provider> instance;
  std::string variant = "default";
  std::string unusable;
  bool initialised = false;
};

std::map<std::string, Entry>& table() {
  static std::map<std::string, Entry> t;
  return t;
}

Entry* find(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

Provider* instance(Entry& e) {
  if (!e.instance) e.instance = e.factory();
  return e.instance.get();
}

}  // namespace

const AlgorithmInfo& checked_algorithm(const std::string& algorithm, OpKind op) {
  const AlgorithmInfo* info = find_algorithm(algorithm);
  if (!info) throw Unsupported("unknown algorithm " + algorithm);
  const auto ops = operations_for(*info);
  if (std::find(ops.begin(), ops.end(), op) == ops.end())
    throw Unsupported(algorithm + " has no " + to_string(op) + " operation");
  return *info;
}

void check_param_sizes(const AlgorithmInfo& info, const Params& params) {
  if (info.family != "hmac" && params.key.size() != info.key_len)
    throw Unsupported(info.name + " needs a " + std::to_string(info.key_len) + "-byte key");
  if (params.iv.size() != info.iv_len)
    throw Unsupported(info.name + " needs a " + std::to_string(info.iv_len) + "-byte IV");
}

uint64_t cost_param(const Params& params, const std::string& name) {
  auto it = params.cost.find(name);
  if (it == params.cost.end()) throw Unsupported("missing cost parameter '" + name + "'");
  return it->second;
}

const Bytes& key_part(const KeyParts& key, const std::string& name) {
  auto it = key.find(name);
  if (it == key.end() || it->second.empty()) throw Error("key has no part '" + name + "'");
  return it->second;
}

KeyParts Provider::generate_key(const std::string& algorithm) {
  throw Unsupported(name() + " cannot generate " + algorithm + " keys");
}

Registrar::Registrar(const char* name, ProviderFactory factory) {
  table()[name].factory = std::move(factory);
}

std::vector<std::string> provider_names() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : table()) names.push_back(name);
  return names;
}

Provider* peek_provider(const std::string& name) {
  Entry* e = find(name);
  return e ? instance(*e) : nullptr;
}

Provider* get_provider(const std::string& name) {
  Entry* e = find(name);
  if (!e) return nullptr;
  Provider* p = instance(*e);
  if (!e->initialised) {
    p->init(e->variant);
    e->initialised = true;
  }
  return p;
}

void select_variant(const std::string& provider, const std::string& variant) {
  Entry* e = find(provider);
  if (!e) throw Unsupported("unknown provider '" + provider + "'");
  const auto vs = instance(*e)->variants();
  const bool known =
      std::any_of(vs.begin(), vs.end(), [&](const Variant& v) { return v.name == variant; });
  if (!known) throw Unsupported("provider '" + provider + "' has no variant '" + variant + "'");
  if (e->initialised && e->variant != variant)
    throw Unsupported("provider '" + provider + "' is already initialised as variant '" +
                      e->variant + "' in this process; start a runner with --variant " + provider +
                      "=" + variant);
  e->variant = variant;
}

void mark_unusable(const std::string& provider, const std::string& reason) {
  if (Entry* e = find(provider)) e->unusable = reason;
}

std::string unusable_reason(const std::string& provider) {
  Entry* e = find(provider);
  return e ? e->unusable : std::string();
}

std::string selected_variant(const std::string& provider) {
  Entry* e = find(provider);
  return e ? e->variant : std::string();
}

}  // namespace cb
