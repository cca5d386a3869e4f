// Providers as modules, cryptobench-providers/<name>.so beside this library, loaded on first use.
// In libcryptobench_core.so every provider is one; in libcryptobench.so (which links every adapter
// of the system's libraries) only the versioned ones, openssl@3.5.so, ... (docs/versions.md). A
// program on the core library (confcrypt) so loads only the crypto libraries it uses: loading all
// nine at start-up cost about 17 ms per invocation.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "cryptobench/provider.hpp"

#ifndef CB_PROVIDER_MODULES
#error "CB_PROVIDER_MODULES (the comma-separated provider names) must be defined by the build"
#endif

namespace cb {
namespace {

std::vector<std::string> module_names() {
  std::vector<std::string> names;
  std::string list = CB_PROVIDER_MODULES, cur;
  for (char c : list + ",") {
    if (c == ',') {
      if (!cur.empty()) names.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return names;
}

// The directory of this library (where the build and `cmake --install` put the modules' folder).
std::string own_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&module_names), &info) || !info.dli_fname) return ".";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string load_module(const std::string& name) {
  // CRYPTOBENCH_PROVIDER_DIR overrides the location (a relocated install).
  const char* dir = getenv("CRYPTOBENCH_PROVIDER_DIR");
  std::string path = (dir && *dir ? std::string(dir) : own_directory() + "/cryptobench-providers") +
                     "/" + name + ".so";
  // Kept loaded for the life of the process: its provider is in the registry.
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return "";
  const char* err = dlerror();
  return err ? err : "cannot load " + path;
}

struct Install {
  Install() { set_provider_loader(module_names(), load_module); }
} install;

}  // namespace
}  // namespace cb
