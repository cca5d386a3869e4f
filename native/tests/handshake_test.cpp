// The in-memory TLS handshake (catalogue kind `handshake`): every provider that offers it
// completes checked handshakes on one prepared operation, fails a handshake whose server flight
// was tampered with (and completes the next), refuses a server whose certificate is not for the
// name the client asked for, and counts the server's CPU time. The whole gate, tamper control
// included, also runs for each of them in kat_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "cryptobench/gate.hpp"
#include "cryptobench/vectors.hpp"

namespace cb {
namespace {

struct HandshakeCase {
  std::string provider, algorithm;
};

std::vector<HandshakeCase> handshake_cases() {
  std::vector<HandshakeCase> out;
  for (const auto& name : provider_names()) {
    if (!is_reference_provider(name)) continue;
    for (const auto& alg : get_provider(name)->algorithms()) {
      const AlgorithmInfo* info = find_algorithm(alg);
      if (info && info->kind == Kind::Handshake) out.push_back({name, alg});
    }
  }
  return out;
}

void PrintTo(const HandshakeCase& c, std::ostream* os) { *os << c.provider << " " << c.algorithm; }

size_t run_once(HandshakeOperation& op) {
  uint8_t none[1] = {0};
  return op.run(none, 0, none);
}

class HandshakeTest : public ::testing::TestWithParam<HandshakeCase> {};

TEST_P(HandshakeTest, CompletesAndFailsWhenTheServersFlightIsTampered) {
  const auto& c = GetParam();
  const AlgorithmInfo& info = *find_algorithm(c.algorithm);
  auto op = get_provider(c.provider)->prepare_handshake(c.algorithm, handshake_params(info));
  HandshakeFacts f;
  ASSERT_EQ(check_handshake(*op, info, &f), "");
  EXPECT_EQ(f.version, "TLSv1.3");
  EXPECT_EQ(f.suite, "TLS_AES_128_GCM_SHA256");
  EXPECT_EQ(f.group, "x25519");
  EXPECT_FALSE(f.verified.empty());
  EXPECT_EQ(f.client_exporter.size(), kExporterBytes);
  EXPECT_EQ(f.client_exporter, f.server_exporter);

  const uint64_t before = op->server_cpu_ns();
  EXPECT_EQ(run_once(*op), 0u);
  EXPECT_GT(op->server_cpu_ns(), before) << "the server's calls took no CPU time";

  // A record header byte, ServerHello.random, the last byte of the flight: each must fail.
  for (size_t at : {size_t{3}, size_t{20}, SIZE_MAX}) {
    op->tamper_next(at);
    EXPECT_THROW(run_once(*op), Error) << "byte " << at << " of the server's flight flipped";
    EXPECT_THROW(op->facts(), Error) << "facts of a failed handshake";
  }
  EXPECT_EQ(check_handshake(*op, info), "") << "the handshake after the tampered ones";
}

TEST_P(HandshakeTest, TheClientRefusesACertificateForAnotherName) {
  const auto& c = GetParam();
  const AlgorithmInfo& info = *find_algorithm(c.algorithm);
  Params params = handshake_params(info);
  params.server_name = "not-" + params.server_name;
  auto op = get_provider(c.provider)->prepare_handshake(c.algorithm, params);
  EXPECT_THROW(run_once(*op), Error);
}

std::string case_name(const ::testing::TestParamInfo<HandshakeCase>& p) {
  std::string n = p.param.provider + "_" + p.param.algorithm;
  std::replace_if(
      n.begin(), n.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); },
      '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllProviders, HandshakeTest, ::testing::ValuesIn(handshake_cases()),
                         case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HandshakeTest);

TEST(Handshake, TheSystemOpensslAndGnutlsOfferIt) {
  std::vector<std::string> offering;
  for (const auto& c : handshake_cases()) offering.push_back(c.provider);
  const auto names = provider_names();
  for (const char* p : {"openssl", "gnutls"})
    if (std::find(names.begin(), names.end(), p) != names.end())
      EXPECT_NE(std::find(offering.begin(), offering.end(), p), offering.end()) << p;
}

}  // namespace
}  // namespace cb
