// Every known-answer vector against every provider that offers the algorithm, through the same
// gate the runner uses (vectors twice per prepared op, round trip, cross-provider agreement).
#include <gtest/gtest.h>

#include <algorithm>

#include "cryptobench/gate.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/vectors.hpp"

namespace cb {
namespace {

struct GateCase {
  std::string provider, algorithm;
  OpKind op;
};

std::vector<GateCase> all_cases() {
  std::vector<GateCase> out;
  for (const auto& name : provider_names()) {
    if (!is_reference_provider(name)) continue;
    for (const auto& alg : get_provider(name)->algorithms()) {
      const AlgorithmInfo* info = find_algorithm(alg);
      if (!info) continue;
      for (OpKind op : operations_for(info->kind)) out.push_back({name, alg, op});
    }
  }
  return out;
}

void PrintTo(const GateCase& c, std::ostream* os) {
  *os << c.provider << " " << c.algorithm << " " << to_string(c.op);
}

class GateTest : public ::testing::TestWithParam<GateCase> {};

TEST_P(GateTest, PassesKnownAnswerRoundTripAndAgreement) {
  const auto& c = GetParam();
  const AlgorithmInfo& info = *find_algorithm(c.algorithm);
  ASSERT_FALSE(vectors_for(info).empty()) << "no vectors for " << c.algorithm;
  ByteStream stream(99);
  Params params{stream.bytes(info.key_len), stream.bytes(info.iv_len), {}};
  const Bytes input = stream.bytes(info.block_len > 1 ? 2048 : 2000);
  const GateReport g = run_gate(c.provider, info, c.op, input, params, true);
  EXPECT_TRUE(g.ok) << g.reason;
  EXPECT_EQ(g.roundtrip, "passed");
  EXPECT_EQ(g.kat.rfind("passed ", 0), 0u) << g.kat;
}

std::string case_name(const ::testing::TestParamInfo<GateCase>& p) {
  std::string n = p.param.provider + "_" + p.param.algorithm + "_" + to_string(p.param.op);
  std::replace_if(
      n.begin(), n.end(), [](char ch) { return !std::isalnum(ch); }, '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllProviders, GateTest, ::testing::ValuesIn(all_cases()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GateTest);

TEST(Catalogue, EveryProviderNamesOnlyCatalogueAlgorithms) {
  for (const auto& name : provider_names())
    for (const auto& alg : get_provider(name)->algorithms())
      EXPECT_NE(find_algorithm(alg), nullptr) << name << " offers unknown " << alg;
}

TEST(Catalogue, EveryAlgorithmHasVectors) {
  for (const auto& a : algorithms()) EXPECT_FALSE(vectors_for(a).empty()) << a.name;
}

TEST(Catalogue, ThreeFoundingProvidersAreCompiledIn) {
  const auto names = provider_names();
  for (const char* p : {"openssl", "gcrypt", "botan"})
    EXPECT_NE(std::find(names.begin(), names.end(), p), names.end()) << p;
}

}  // namespace
}  // namespace cb
