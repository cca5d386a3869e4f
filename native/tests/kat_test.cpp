// Every known-answer vector against every provider that offers the algorithm, through the same
// gate the runner uses (vectors twice per prepared op, round trip). Cross-provider agreement:
// agreement_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

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
      for (OpKind op : operations_for(*info)) out.push_back({name, alg, op});
    }
  }
  return out;
}

void PrintTo(const GateCase& c, std::ostream* os) {
  *os << c.provider << " " << c.algorithm << " " << to_string(c.op);
}

class GateTest : public ::testing::TestWithParam<GateCase> {};

TEST_P(GateTest, PassesKnownAnswersAndRoundTrip) {
  const auto& c = GetParam();
  const AlgorithmInfo& info = *find_algorithm(c.algorithm);
  const bool asymmetric = is_public_key(info.kind) || info.kind == Kind::Kdf ||
                          info.kind == Kind::Keyload || info.kind == Kind::Handshake;
  ByteStream stream(99);
  Params params;
  Bytes input;
  if (asymmetric) {
    params = cheap_kdf_params(info);
    input = stream.bytes(32);
  } else {
    ASSERT_FALSE(vectors_for(info).empty()) << "no vectors for " << c.algorithm;
    params.key = stream.bytes(info.key_len);
    params.iv = stream.bytes(info.iv_len);
    input = stream.bytes(info.block_len > 1 ? 2048 : 2000);
  }
  const GateReport g = run_gate(c.provider, info, c.op, input, params, true);
  EXPECT_TRUE(g.ok) << g.reason;
  // keyload says how the decoded key was checked (signed with, or compared part by part); a
  // handshake, that a tampered server flight failed.
  if (info.kind == Kind::Keyload)
    EXPECT_NE(g.roundtrip.find("decoded"), std::string::npos) << g.roundtrip;
  else if (info.kind == Kind::Handshake)
    EXPECT_NE(g.roundtrip.find("one byte flipped fails"), std::string::npos) << g.roundtrip;
  else
    EXPECT_EQ(g.roundtrip, "passed");
  if (info.kind == Kind::Handshake) {  // no known answer: two checked handshakes instead
    EXPECT_EQ(g.kat.rfind("2 handshakes: TLSv1.3, ", 0), 0u) << g.kat;
    return;
  }
  // Key generation and OAEP (no published SHA-256 vectors) have no known answer: the report
  // says so instead.
  if (c.op != OpKind::Keygen && !(info.kind == Kind::PkEncryption && pk_vectors_for(info).empty()))
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
  for (const auto& a : algorithms()) {
    if (a.kind == Kind::KeyPair || a.kind == Kind::PkEncryption) continue;  // see the gate test
    if (is_public_key(a.kind) || a.kind == Kind::Kdf || a.kind == Kind::Keyload ||
        a.kind == Kind::Handshake)
      EXPECT_FALSE(pk_vectors_for(a).empty()) << a.name;
    else
      EXPECT_FALSE(vectors_for(a).empty()) << a.name;
  }
}

TEST(Catalogue, EveryKeyTypeHasATestKey) {
  for (const auto& a : algorithms()) {
    if (a.key_type != a.name) continue;
    EXPECT_NO_THROW(test_key(a.name)) << a.name;
    if (a.kind == Kind::KeyAgreement) EXPECT_NO_THROW(test_key(a.name + "-peer")) << a.name;
  }
}

TEST(PkGate, RejectsATamperedVerificationVector) {
  // A signature vector whose signature was corrupted must fail the verify gate: run the gate on
  // a copy of the Ed25519 vectors with the first valid signature flipped.
  const AlgorithmInfo& info = *find_algorithm("ed25519");
  const std::string dir = ::testing::TempDir() + "/cb-tampered-vectors";
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir + " && cp " + vectors_dir() +
                         "/*.json " + dir + "/")
                            .c_str()),
            0);
  const std::string path = dir + "/ed25519.json";
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in);
  for (auto& v : doc["vectors"]) {
    if (!v.value("valid", true)) continue;
    std::string sig = v["signature"];
    sig[0] = sig[0] == '0' ? '1' : '0';
    v["signature"] = sig;
    break;
  }
  std::ofstream(path) << doc.dump(1);
  const std::string saved = vectors_dir();
  set_vectors_dir(dir);
  ASSERT_NE(pk_vectors_for(info).size(), 0u);
  bool some_provider = false;
  for (const auto& name : provider_names()) {
    if (!is_reference_provider(name)) continue;
    const auto algs = get_provider(name)->algorithms();
    if (std::find(algs.begin(), algs.end(), "ed25519") == algs.end()) continue;
    some_provider = true;
    const GateReport g = run_gate(name, info, OpKind::Verify, Bytes(32, 1), {}, false);
    EXPECT_FALSE(g.ok) << name << " passed a corrupted vector";
    EXPECT_NE(g.reason.find("rejected a valid signature"), std::string::npos) << g.reason;
  }
  set_vectors_dir(saved);
  EXPECT_TRUE(some_provider);
}

TEST(Catalogue, ThreeFoundingProvidersAreCompiledIn) {
  const auto names = provider_names();
  for (const char* p : {"openssl", "gcrypt", "botan"})
    EXPECT_NE(std::find(names.begin(), names.end(), p), names.end()) << p;
}

}  // namespace
}  // namespace cb
