// The catalogue is data (catalogue/algorithms.json, embedded at build time): the embedded file is
// what algorithms() serves, and a malformed entry is refused with its position and name instead of
// becoming an algorithm with silent zeros.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "cryptobench/algorithms.hpp"

namespace cb {
namespace {

using nlohmann::json;

json sha256_entry() {
  return {{"name", "sha256"},       {"kind", "hash"},
          {"operations", {"hash"}}, {"key_bytes", 0},
          {"iv_bytes", 0},          {"block_bytes", 1},
          {"min_size", 0},          {"tag_bytes", 0},
          {"output_bytes", 32},     {"public_key_bytes", 0},
          {"ciphertext_bytes", 0},  {"family", "sha2"},
          {"key_type", ""},         {"bits", 0},
          {"digest", ""},           {"description", "SHA-256 (FIPS 180-4)"}};
}

// entries: a JSON array (json{x} of one json x is x itself, not an array).
std::string refusal(const json& entries) {
  try {
    parse_catalogue(json{{"algorithms", entries}}.dump());
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(CatalogueFile, TheEmbeddedFileIsTheCatalogue) {
  const AlgorithmInfo* gcm = find_algorithm("aes-256-gcm");
  ASSERT_NE(gcm, nullptr);
  EXPECT_EQ(gcm->kind, Kind::Aead);
  EXPECT_EQ(gcm->key_len, 32u);
  EXPECT_EQ(gcm->iv_len, 12u);
  EXPECT_EQ(gcm->tag_len, 16u);
  EXPECT_EQ(gcm->family, "aes-gcm");
  EXPECT_EQ(operations_for(*gcm), (std::vector<OpKind>{OpKind::Encrypt, OpKind::Decrypt}));
  const AlgorithmInfo* kem = find_algorithm("ml-kem-768");
  ASSERT_NE(kem, nullptr);
  EXPECT_EQ(kem->kind, Kind::Kem);
  EXPECT_EQ(kem->public_key_len, 1184u);
  EXPECT_EQ(kem->ciphertext_len, 1088u);
  EXPECT_EQ(operations_for(*kem),
            (std::vector<OpKind>{OpKind::Keygen, OpKind::Encaps, OpKind::Decaps}));
  const AlgorithmInfo* ed = find_algorithm("ed25519");
  ASSERT_NE(ed, nullptr);
  EXPECT_EQ(operations_for(*ed),
            (std::vector<OpKind>{OpKind::Keygen, OpKind::Sign, OpKind::Verify}));
}

TEST(CatalogueFile, AParsedEntryKeepsEveryField) {
  const auto v = parse_catalogue(json{{"algorithms", json::array({sha256_entry()})}}.dump());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].name, "sha256");
  EXPECT_EQ(v[0].output_len, 32u);
  EXPECT_EQ(v[0].description, "SHA-256 (FIPS 180-4)");
}

TEST(CatalogueFile, AMalformedEntryIsRefusedByPositionAndName) {
  json missing = sha256_entry();
  missing.erase("output_bytes");
  EXPECT_NE(refusal({sha256_entry(), missing}).find("algorithms[1] (sha256)"), std::string::npos);

  json kind = sha256_entry();
  kind["kind"] = "digest";
  EXPECT_NE(refusal(json::array({kind})).find("unknown kind 'digest'"), std::string::npos);

  json ops = sha256_entry();
  ops["operations"] = {"encrypt"};
  EXPECT_NE(refusal(json::array({ops})).find("operations must be [hash]"), std::string::npos);

  json typed = sha256_entry();
  typed["key_bytes"] = "none";
  EXPECT_NE(refusal(json::array({typed})).find("algorithms[0] (sha256)"), std::string::npos);

  EXPECT_NE(refusal({sha256_entry(), sha256_entry()}).find("duplicate name"), std::string::npos);
  EXPECT_NE(refusal(sha256_entry()).find("'algorithms' is an array"), std::string::npos);
}

}  // namespace
}  // namespace cb
