// The in-memory TLS handshake (catalogue kind `handshake`): every provider that offers it
// completes checked handshakes on one prepared operation, fails a handshake whose server flight
// was tampered with (and completes the next), refuses a server whose certificate is not for the
// name the client asked for, and counts the server's CPU time. The whole gate, tamper control
// included, also runs for each of them in kat_test.cpp. Libraries without TLS 1.3 (Botan 2,
// Debian's mbedTLS 2.28) do not offer it and say why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>

#include "cryptobench/gate.hpp"
#include "cryptobench/protocol.hpp"
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
    Provider* p = get_provider(name);
    if (!p) {  // a versioned module listed by the build that does not load here
      std::cerr << "handshake_test: skipping " << name
                << ", its module did not load: " << provider_load_error(name) << "\n";
      continue;
    }
    for (const auto& alg : p->algorithms()) {
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
  EXPECT_EQ(f.group, pk_vectors_for(info).front().group);
  EXPECT_FALSE(f.verified.empty());
  EXPECT_EQ(f.client_exporter.size(), kExporterBytes);
  EXPECT_EQ(f.client_exporter, f.server_exporter);

  const uint64_t before = op->server_cpu_ns();
  EXPECT_EQ(run_once(*op), 0u);
  EXPECT_GT(op->server_cpu_ns(), before) << "the server's calls took no CPU time";
  // The ClientHello: a record header, a handshake header, 32 random bytes, the suites, and the
  // key share (32 bytes of X25519, 1216 of X25519MLKEM768) among the extensions.
  const uint64_t share = f.group == "x25519mlkem768" ? 1216 : 32;
  EXPECT_GT(op->client_hello_bytes(), 5 + 4 + 32 + share) << "the client's first flight";
  EXPECT_LT(op->client_hello_bytes(), 1000 + share) << "the client's first flight";

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

bool compiled_in(const std::string& provider) {
  const auto names = provider_names();
  return std::find(names.begin(), names.end(), provider) != names.end();
}

TEST(Handshake, TheSystemOpensslGnutlsAndWolfsslOfferBoth) {
  for (const char* p : {"openssl", "gnutls", "wolfssl"}) {
    if (!compiled_in(p)) continue;
    size_t offered = 0;
    for (const auto& c : handshake_cases()) offered += c.provider == p;
    EXPECT_EQ(offered, 2u) << p << ": tls13-x25519-ecdsa-p256 and tls13-x25519-rsa-2048";
  }
}

// The hybrid post-quantum group X25519MLKEM768 arrived in OpenSSL 3.5: the OpenSSL family offers
// its handshake from 3.5 on, and AWS-LC and BoringSSL (their ssl.h's SSL_GROUP_X25519_MLKEM768);
// older OpenSSLs, GnuTLS 3.7.9 and wolfSSL 5.5.4 do not, and say why.
TEST(Handshake, TheHybridGroupIsOfferedWhereTheLibraryHasIt) {
  const std::string hybrid = "tls13-x25519mlkem768-ecdsa-p256";
  const struct {
    const char* provider;
    const char* why;  // nullptr: offered
  } expected[] = {
      {"openssl", "(it arrived in OpenSSL 3.5)"},
      {"openssl@1.1.1", "(it arrived in OpenSSL 3.5)"},
      {"openssl@3.5", nullptr},
      {"openssl@3.6", nullptr},
      {"openssl@4.0", nullptr},
      {"aws-lc", nullptr},
      {"boringssl", nullptr},
      {"gnutls", "has no X25519MLKEM768 group"},
      {"wolfssl", "has no X25519MLKEM768 group"},
  };
  const AlgorithmInfo& info = *find_algorithm(hybrid);
  size_t checked = 0;
  for (const auto& e : expected) {
    Provider* p = compiled_in(e.provider) ? get_provider(e.provider) : nullptr;
    if (!p) continue;
    const auto offered = p->algorithms();
    // A build without libssl (or wolfSSL without TLS 1.3) offers no handshake at all.
    if (std::find(offered.begin(), offered.end(), "tls13-x25519-ecdsa-p256") == offered.end())
      continue;
    ++checked;
    const bool lists = std::find(offered.begin(), offered.end(), hybrid) != offered.end();
    EXPECT_EQ(lists, e.why == nullptr) << e.provider;
    if (!e.why) continue;
    try {
      p->prepare_handshake(hybrid, handshake_params(info));
      ADD_FAILURE() << e.provider << " prepared " << hybrid;
    } catch (const Unsupported& u) {
      EXPECT_NE(std::string(u.what()).find(e.why), std::string::npos) << u.what();
    }
  }
  if (checked == 0) GTEST_SKIP() << "none of the OpenSSL family, GnuTLS or wolfSSL is here";
}

// Botan 2 has no TLS 1.3 and Debian's mbedTLS 2.28 is built without its experimental one: neither
// lists a handshake, each adapter refuses it (through prepare() too, as a probe would) with its
// library's reason, and the runner's `list` gives that reason in providers[].not_offered.
TEST(Handshake, BotanAndMbedtlsDoNotOfferItAndSayWhy) {
  const struct {
    const char* provider;
    const char* why;
  } expected[] = {
      {"botan", "Botan 2 has no TLS 1.3"},
      {"mbedtls", "MBEDTLS_SSL_PROTO_TLS1_3_EXPERIMENTAL"},
  };
  const nlohmann::json caps = capabilities();
  size_t checked = 0;
  for (const auto& e : expected) {
    if (!compiled_in(e.provider)) continue;
    Provider* p = get_provider(e.provider);
    const auto offered = p->algorithms();
    const nlohmann::json* listed = nullptr;
    for (const auto& entry : caps["providers"])
      if (entry["name"] == e.provider) listed = &entry;
    ASSERT_NE(listed, nullptr) << e.provider;
    for (const auto& a : algorithms()) {
      if (a.kind != Kind::Handshake) continue;
      ++checked;
      EXPECT_EQ(std::find(offered.begin(), offered.end(), a.name), offered.end())
          << e.provider << " lists " << a.name;
      try {
        p->prepare_handshake(a.name, handshake_params(a));
        ADD_FAILURE() << e.provider << " prepared " << a.name;
      } catch (const Unsupported& u) {
        EXPECT_NE(std::string(u.what()).find(e.why), std::string::npos) << u.what();
      }
      EXPECT_THROW(p->prepare(a.name, OpKind::Handshake, handshake_params(a)), Unsupported);
      const std::string reason =
          listed->value("not_offered", nlohmann::json::object()).value(a.name, std::string());
      EXPECT_NE(reason.find(e.why), std::string::npos)
          << e.provider << " " << a.name << ": not_offered says '" << reason << "'";
    }
  }
  if (checked == 0) GTEST_SKIP() << "neither botan nor mbedtls is compiled in";
}

}  // namespace
}  // namespace cb
