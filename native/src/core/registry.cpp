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

struct Loader {
  std::vector<std::string> names;
  std::function<std::string(const std::string&)> load;
  std::map<std::string, std::string> tried;  // name -> error ("" once loaded)
};

Loader& loader() {
  static Loader l;
  return l;
}

// find(), loading the provider's module first when a loader knows the name.
Entry* find_or_load(const std::string& name) {
  if (Entry* e = find(name)) return e;
  Loader& l = loader();
  if (!l.load || l.tried.count(name) ||
      std::find(l.names.begin(), l.names.end(), name) == l.names.end()) {
    return nullptr;
  }
  l.tried[name] = l.load(name);
  return find(name);
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

KeyParts Provider::decode_key(const std::string& algorithm, const Bytes&) {
  throw Unsupported(name() + " cannot decode " + algorithm);
}

std::unique_ptr<HandshakeOperation> Provider::prepare_handshake(const std::string& algorithm,
                                                                const Params&) {
  throw Unsupported(name() + " does not offer " + algorithm + ": the " + name() +
                    " adapter has no TLS handshake");
}

std::unique_ptr<Operation> Provider::prepare_mac_verify(const std::string& algorithm,
                                                        const Params&) {
  throw Unsupported("the " + name() + " adapter has no MAC verification of " + algorithm +
                    " (docs/leaks.md, \"MAC verification\")");
}

Registrar::Registrar(const char* name, ProviderFactory factory) {
  table()[name].factory = std::move(factory);
}

std::vector<std::string> provider_names() {
  std::vector<std::string> names = loaded_provider_names();
  for (const auto& n : loader().names) {
    // A module that failed to load is not offered.
    if (!table().count(n) && provider_load_error(n).empty()) names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> loaded_provider_names() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : table()) names.push_back(name);
  return names;
}

void set_provider_loader(std::vector<std::string> names,
                         std::function<std::string(const std::string&)> load) {
  loader().names = std::move(names);
  loader().load = std::move(load);
}

std::string provider_load_error(const std::string& name) {
  auto it = loader().tried.find(name);
  return it == loader().tried.end() ? std::string() : it->second;
}

Provider* peek_provider(const std::string& name) {
  Entry* e = find_or_load(name);
  return e ? instance(*e) : nullptr;
}

Provider* get_provider(const std::string& name) {
  Entry* e = find_or_load(name);
  if (!e) return nullptr;
  Provider* p = instance(*e);
  if (!e->initialised) {
    p->init(e->variant);
    e->initialised = true;
  }
  return p;
}

void select_variant(const std::string& provider, const std::string& variant) {
  Entry* e = find_or_load(provider);
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
