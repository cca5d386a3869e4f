// Operation::rebind (provider.hpp): an AEAD operation given a new nonce and associated data
// computes exactly what an operation freshly prepared with them computes, in both directions, and a
// rejected tag leaves it usable. Adapters that do not offer it say so and change nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include "cryptobench/gate.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/provider.hpp"

namespace cb {
namespace {

Bytes run(Operation& op, const Bytes& in) {
  Bytes out(in.size() + 1024);
  out.resize(op.run(in.data(), in.size(), out.data()));
  return out;
}

Params aead_params(const AlgorithmInfo& info, uint8_t iv_byte, const std::string& aad) {
  Params p;
  p.key = Bytes(info.key_len, 0x42);
  p.iv = Bytes(info.iv_len, iv_byte);
  p.aad = Bytes(aad.begin(), aad.end());
  return p;
}

TEST(Rebind, EqualsAFreshPreparationAndSurvivesABadTag) {
  int rebound = 0;
  for (const auto& name : provider_names()) {
    if (!is_reference_provider(name) || !unusable_reason(name).empty()) continue;
    Provider& p = *get_provider(name);
    for (const auto& alg : p.algorithms()) {
      const AlgorithmInfo* info = find_algorithm(alg);
      if (!info || info->kind != Kind::Aead) continue;
      SCOPED_TRACE(name + " " + alg);
      const Params first = aead_params(*info, 1, "first"), second = aead_params(*info, 2, "2nd");
      const Bytes msg(40, 0x33);
      auto enc = p.prepare(alg, OpKind::Encrypt, first);
      const Bytes c1 = run(*enc, msg);
      if (!enc->rebind(second.iv, second.aad)) {
        EXPECT_EQ(run(*enc, msg), c1) << "a refused rebind changed the operation";
        continue;
      }
      ++rebound;
      const Bytes c2 = run(*enc, msg);
      EXPECT_EQ(to_hex(c2), to_hex(run(*p.prepare(alg, OpKind::Encrypt, second), msg)));
      EXPECT_NE(c1, c2);
      auto dec = p.prepare(alg, OpKind::Decrypt, first);
      EXPECT_EQ(run(*dec, c1), msg);
      ASSERT_TRUE(dec->rebind(second.iv, second.aad));
      Bytes bad = c2;
      bad.back() ^= 1;
      EXPECT_THROW(run(*dec, bad), Error);
      EXPECT_EQ(run(*dec, c2), msg);
      EXPECT_THROW(run(*dec, c1), Error) << "the old nonce and AD still apply";
      EXPECT_FALSE(dec->rebind(Bytes(info->iv_len + 1, 0), {})) << "a nonce of another length";
      EXPECT_EQ(run(*dec, c2), msg);
    }
  }
  if (rebound == 0) GTEST_SKIP() << "no compiled-in adapter offers rebind";
}

}  // namespace
}  // namespace cb
