// The OpenSSL adapter loads OpenSSL's legacy provider (about 6 M instructions) only when a legacy
// algorithm is first prepared, and still offers and passes the gate for every one of them
// (GateTest covers the known answers). The check runs in a freshly started process (a
// "threadsafe" death test re-executes this binary), so no earlier test can have loaded it; OpenSSL
// is asked through dlsym so that the test builds without it (CB_PROVIDERS_ONLY).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "cryptobench/hexutil.hpp"
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

using Available = int (*)(void* libctx, const char* name);

// Exit codes of the child: 0 as expected, 1 loaded too early, 2 not loaded by whirlpool, 3 a
// wrong digest, 4 nothing to check (no adapter, no legacy module).
[[noreturn]] void check_in_this_process() {
  Provider* p = unusable_reason("openssl").empty() ? get_provider("openssl") : nullptr;
  auto available = reinterpret_cast<Available>(dlsym(RTLD_DEFAULT, "OSSL_PROVIDER_available"));
  const auto algs = p ? p->algorithms() : std::vector<std::string>{};
  if (!available || std::find(algs.begin(), algs.end(), "whirlpool") == algs.end()) std::_Exit(4);
  Params gcm;
  gcm.key = Bytes(32, 1);
  gcm.iv = Bytes(12, 2);
  p->prepare("aes-256-gcm", OpKind::Encrypt, gcm);
  p->prepare("sha256", OpKind::Hash, {});
  p->prepare("ripemd160", OpKind::Hash, {});
  if (available(nullptr, "legacy")) std::_Exit(1);
  auto op = p->prepare("whirlpool", OpKind::Hash, {});
  if (!available(nullptr, "legacy")) std::_Exit(2);
  uint8_t out[64 + 1024];
  // ISO/IEC 10118-3 Whirlpool of the empty string.
  if (op->run(nullptr, 0, out) != 64 || to_hex(Bytes(out, out + 8)) != "19fa61d75522a466")
    std::_Exit(3);
  std::_Exit(0);
}

int child_exit_code() {
  int code = -1;
  EXPECT_EXIT(
      check_in_this_process(),
      [&](int status) {
        code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return true;
      },
      "");
  return code;
}

TEST(OpensslLegacy, LoadedOnlyWhenALegacyAlgorithmIsPrepared) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int code = child_exit_code();
  if (code == 4) GTEST_SKIP() << "no openssl adapter or no legacy module (whirlpool not offered)";
  EXPECT_NE(code, 1) << "the legacy provider was loaded without a legacy algorithm";
  EXPECT_NE(code, 2) << "preparing whirlpool did not load the legacy provider";
  EXPECT_NE(code, 3) << "whirlpool gave a wrong digest";
  EXPECT_EQ(code, 0);
}

}  // namespace
}  // namespace cb
