// The agreement and cross_check requests (agreement.hpp): every provider that offers an algorithm
// produces the same artifacts for the same material (where equality is defined) and accepts every
// other provider's randomised ones. In the runner each provider answers in its own process; the
// test asks them all in one, which is enough to compare what they compute.
#include "cryptobench/agreement.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "cryptobench/gate.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/protocol.hpp"

namespace cb {
namespace {

using nlohmann::json;

struct AgreementCase {
  std::string algorithm, operation;
};

std::vector<AgreementCase> all_cases() {
  std::vector<AgreementCase> out;
  for (const auto& info : algorithms())
    for (OpKind op : operations_for(info)) out.push_back({info.name, to_string(op)});
  return out;
}

void PrintTo(const AgreementCase& c, std::ostream* os) { *os << c.algorithm << " " << c.operation; }

json request(const char* cmd, const std::string& provider, const AgreementCase& c,
             const AlgorithmInfo& info) {
  ByteStream s(42);
  json spec = {
      {"id", "a"},
      {"provider", provider},
      {"operation", c.operation},
      {"algorithm", c.algorithm},
      {"size", info.block_len > 1 ? info.block_len * 4 : std::max<size_t>(64, info.min_len)}};
  if (info.kind == Kind::Kdf) {
    json cost = json::object();
    for (const auto& [k, v] : cheap_kdf_params(info).cost) cost[k] = v;
    if (!cost.empty()) spec["cost"] = cost;
  }
  const json material = {{"key", to_hex(s.bytes(info.key_len))},
                         {"iv", to_hex(s.bytes(info.iv_len))},
                         {"aad", ""},
                         {"input", to_hex(s.bytes(4096))},
                         {"salt", to_hex(s.bytes(16))}};
  return {{"cmd", cmd}, {"case", spec}, {"material", material}};
}

bool by_equality(const AlgorithmInfo& info, const std::string& op) {
  if (op == "keygen" || info.kind == Kind::PkEncryption) return false;
  if (info.kind == Kind::Signature)
    return info.family == "rsa-pkcs1" || info.family == "ed25519" || info.family == "ed448";
  return true;
}

class AgreementTest : public ::testing::TestWithParam<AgreementCase> {};

TEST_P(AgreementTest, EveryProviderAgreesWithEveryOther) {
  const auto& c = GetParam();
  const AlgorithmInfo& info = *find_algorithm(c.algorithm);
  std::map<std::string, json> artifacts;
  for (const auto& name : provider_names()) {
    if (!is_reference_provider(name)) continue;
    const json reply = agreement_reply(request("agreement", name, c, info));
    ASSERT_EQ(reply["type"], "agreement");
    if (reply["status"] == "unsupported") continue;
    ASSERT_EQ(reply["status"], "ok") << name << ": " << reply["reason"];
    EXPECT_TRUE(reply["kat"]["ok"].get<bool>()) << name << ": " << reply["kat"]["detail"];
    artifacts[name] = reply["artifacts"];
  }
  if (artifacts.size() < 2) GTEST_SKIP() << "fewer than two providers offer it";
  if (by_equality(info, c.operation))
    for (const auto& [name, a] : artifacts)
      EXPECT_EQ(a, artifacts.begin()->second) << name << " vs " << artifacts.begin()->first;
  for (const auto& [checker, _] : artifacts) {
    json req = request("cross_check", checker, c, info);
    req["peers"] = json::object();
    for (const auto& [peer, a] : artifacts)
      if (peer != checker) req["peers"][peer] = a;
    const json reply = cross_check_reply(req);
    for (const auto& [peer, v] : reply["verdicts"].items())
      EXPECT_NE(v["ok"], false) << checker << " rejects " << peer << ": " << v["reason"];
  }
}

std::string case_name(const ::testing::TestParamInfo<AgreementCase>& p) {
  std::string n = p.param.algorithm + "_" + p.param.operation;
  std::replace_if(
      n.begin(), n.end(), [](char ch) { return !std::isalnum(ch); }, '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, AgreementTest, ::testing::ValuesIn(all_cases()), case_name);

TEST(Agreement, ACorruptedArtifactIsRejectedByCrossCheck) {
  const AgreementCase c{"aes-256-gcm", "decrypt"};
  const AlgorithmInfo& info = *find_algorithm(c.algorithm);
  json theirs = agreement_reply(request("agreement", "openssl", c, info))["artifacts"];
  std::string ct = theirs["ciphertext"];
  ct[0] = ct[0] == '0' ? '1' : '0';
  json req = request("cross_check", "openssl", c, info);
  req["peers"] = {{"bad", {{"ciphertext", ct}}}};
  const json v = cross_check_reply(req)["verdicts"]["bad"];
  EXPECT_EQ(v["ok"], false) << v;
}

TEST(Agreement, UnsupportedAndMalformedRequests) {
  const AlgorithmInfo& info = *find_algorithm("sha256");
  json req = request("agreement", "openssl", {"sha256", "hash"}, info);
  req["case"]["variant"] = "no-such-variant";
  EXPECT_EQ(agreement_reply(req)["status"], "unsupported");
  req.erase("material");
  EXPECT_THROW(agreement_reply(req), SpecError);
}

}  // namespace
}  // namespace cb
