// Compatibility mode: the thesis's per-value format against known answers computed independently
// (data/make_compat_vector.py: Python hashlib + cryptography) for each of the thesis's three
// library variants (PBKDF2 with SHA-512, SHA-1 or SHA-256), round trips and cross-provider reading
// for every compiled-in provider that offers the KDF.
#include "confcrypt/compat.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "confcrypt/format.hpp"
#include "confcrypt/io.hpp"
#include "cryptobench/provider.hpp"

using confcrypt::Error;
using confcrypt::ValueType;

namespace {

std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out += char(std::stoi(h.substr(i, 2), nullptr, 16));
  return out;
}

std::vector<cb::Provider*> compat_providers(
    confcrypt::CompatKdf kdf = confcrypt::kCompatDefaultKdf) {
  std::vector<cb::Provider*> out;
  for (const std::string& name : cb::provider_names()) {
    cb::Provider* p = cb::get_provider(name);
    if (p && confcrypt::compat_supported(*p, kdf)) out.push_back(p);
  }
  return out;
}

nlohmann::json vectors() {
  std::ifstream in(std::string(CONFCRYPT_TEST_DATA_DIR) + "/compat_vector.json");
  EXPECT_TRUE(in) << "compat_vector.json missing";
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

const char kPassword[] = "Zq3vN8rT1xLm0pWc6yHb2kJd9sFg4a";

TEST(Compat, KnownAnswer) {
  auto providers = compat_providers();
  if (providers.empty()) GTEST_SKIP() << "no compiled-in provider offers pbkdf2-sha512";
  std::string names;
  for (cb::Provider* p : providers) names += " " + p->name();
  std::cout << "compat providers:" << names << "\n";
  auto doc = vectors();
  const std::string password = doc["master_password"];
  const uint32_t iterations = doc["iterations"];
  ASSERT_EQ(iterations, confcrypt::kCompatIterations);
  ASSERT_GE(doc["vectors"].size(), 4u);
  std::set<std::string> kdfs;
  for (const auto& v : doc["vectors"]) {
    const auto kdf = confcrypt::parse_compat_kdf(v["kdf"].get<std::string>());
    kdfs.insert(confcrypt::compat_kdf_name(kdf));
    ValueType type = static_cast<ValueType>(v["type"].get<int>());
    std::string plain = unhex(v["plaintext"]), salt = unhex(v["salt"]);
    std::string stored = unhex(v["stored"]);
    // The text token decodes to the stored bytes and back.
    EXPECT_EQ(confcrypt::from_base64_token(v["token"]), stored);
    EXPECT_EQ(confcrypt::to_base64_token(stored), v["token"]);
    for (cb::Provider* p : compat_providers(kdf)) {
      SCOPED_TRACE(p->name() + ": " + v["name"].get<std::string>());
      auto [t, value] = confcrypt::decrypt_compat(*p, password, stored, iterations, kdf);
      EXPECT_EQ(t, type);
      EXPECT_EQ(value, plain);
      EXPECT_EQ(
          confcrypt::encrypt_compat_with_salt(*p, password, type, plain, salt, iterations, kdf),
          stored);
    }
  }
  // Every variant of the thesis has known answers.
  EXPECT_EQ(kdfs, (std::set<std::string>{"sha512", "sha256", "sha1"}));
}

// The thesis's library variants differ in PBKDF2's hash only (Elektra dfa9bb8): each library gets
// its own, and a value written by one variant does not open under another's.
TEST(Compat, EachThesisVariantHasItsOwnKdf) {
  using confcrypt::CompatKdf;
  EXPECT_EQ(confcrypt::thesis_compat_kdf("gcrypt"), CompatKdf::kSha512);
  EXPECT_EQ(confcrypt::thesis_compat_kdf("openssl"), CompatKdf::kSha1);
  EXPECT_EQ(confcrypt::thesis_compat_kdf("botan"), CompatKdf::kSha256);
  EXPECT_EQ(confcrypt::thesis_compat_kdf("nettle"), std::nullopt);
  EXPECT_STREQ(confcrypt::compat_kdf_algorithm(CompatKdf::kSha1), "pbkdf2-sha1");
  EXPECT_EQ(confcrypt::parse_compat_kdf("sha256"), CompatKdf::kSha256);
  EXPECT_THROW(confcrypt::parse_compat_kdf("md5"), Error);
  EXPECT_THROW(confcrypt::parse_compat_kdf("pbkdf2-sha1"), Error);

  auto doc = vectors();
  for (const auto& v : doc["vectors"]) {
    const auto kdf = confcrypt::parse_compat_kdf(v["kdf"].get<std::string>());
    const std::string stored = unhex(v["stored"]);
    for (CompatKdf other : {CompatKdf::kSha512, CompatKdf::kSha256, CompatKdf::kSha1}) {
      if (other == kdf) continue;
      for (cb::Provider* p : compat_providers(other)) {
        SCOPED_TRACE(p->name() + ": " + v["name"].get<std::string>() + " read with " +
                     confcrypt::compat_kdf_name(other));
        try {
          auto got = confcrypt::decrypt_compat(*p, doc["master_password"], stored,
                                               confcrypt::kCompatIterations, other);
          // CBC has no MAC: only an implausible header betrays the wrong key, so a wrong KDF
          // could in principle decode; it must at least not give the plaintext.
          EXPECT_NE(got.second, unhex(v["plaintext"]));
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("wrong master password"), std::string::npos);
        }
      }
    }
  }
}

// The thesis's INI layout (CONFCRYPT.md): the marker line, then the @BASE64 token, in a real file.
TEST(Compat, ThesisIniFile) {
  auto providers = compat_providers();
  if (providers.empty()) GTEST_SKIP() << "no compiled-in provider offers pbkdf2-sha512";
  auto doc = vectors();
  const auto& v = doc["vectors"][0];
  const std::string text =
      "[section1]\n#@META crypto/encrypt = 1\npassword = " + v["token"].get<std::string>() + "\n";
  char dir_template[] = "/tmp/confcrypt-compat-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/thesis.ini";
  confcrypt::write_file_atomic(path, text);
  auto parsed = confcrypt::format_for_path(path)->parse(confcrypt::read_file(path), path);
  const confcrypt::Key* k = parsed->keys().find("section1/password");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->meta.at(confcrypt::kMetaEncrypt), "1");
  for (cb::Provider* p : providers) {
    auto [type, value] = confcrypt::decrypt_compat(*p, doc["master_password"],
                                                   confcrypt::from_base64_token(k->value));
    EXPECT_EQ(type, ValueType::String);
    EXPECT_EQ(value, "secret");
  }
  EXPECT_EQ(parsed->emit(), text);
  std::remove(path.c_str());
  rmdir(dir_template);
}

TEST(Compat, LayoutOfTheStoredValue) {
  auto providers = compat_providers();
  if (providers.empty()) GTEST_SKIP() << "no compiled-in provider offers pbkdf2-sha512";
  std::string s = confcrypt::encrypt_compat(*providers[0], kPassword, ValueType::String, "secret");
  // magic+version, salt length 17 (LE), 17 salt bytes, header block + one content block.
  ASSERT_EQ(s.size(), 10u + 4 + 17 + 32);
  EXPECT_EQ(s.substr(0, 10), "#!crypto00");
  EXPECT_EQ(s.substr(10, 4), std::string("\x11\0\0\0", 4));
  EXPECT_TRUE(confcrypt::is_compat_value(s));
  // Fresh salt every time.
  EXPECT_NE(confcrypt::encrypt_compat(*providers[0], kPassword, ValueType::String, "secret"), s);
  // The thesis's documented prefix for a 17-byte salt.
  EXPECT_EQ(confcrypt::to_base64_token(s).substr(0, 18), "@BASE64IyFjcnlwdG8");
  std::string small =
      confcrypt::encrypt_compat(*providers[0], kPassword, ValueType::Binary, "x", 8, 1000);
  EXPECT_EQ(small.size(), 10u + 4 + 8 + 32);
  EXPECT_EQ(confcrypt::decrypt_compat(*providers[0], kPassword, small, 1000).second, "x");
}

TEST(Compat, RoundTripAndCrossProvider) {
  auto providers = compat_providers();
  if (providers.empty()) GTEST_SKIP() << "no compiled-in provider offers pbkdf2-sha512";
  struct Case {
    ValueType type;
    std::string value;
  };
  const std::vector<Case> cases = {{ValueType::String, ""},
                                   {ValueType::String, "p@ssw\xC3\xB6rd"},
                                   {ValueType::String, std::string(15, 'a')},
                                   {ValueType::String, std::string(16, 'b')},
                                   {ValueType::Binary, std::string("\0\x01\xff\0", 4)},
                                   {ValueType::Binary, ""},
                                   {ValueType::Binary, std::string(100, '\x7f')},
                                   {ValueType::Null, ""}};
  // Each decryption derives a key with 15,000 PBKDF2 iterations, so not every case crosses
  // every pair (that grid took 48 s of ctest): every writer's every case is read back by itself
  // and by the next provider in turn, and every writer-reader pair reads one case.
  const size_t n = providers.size();
  auto read_back = [&](size_t w, size_t r, const Case& c, const std::string& stored) {
    SCOPED_TRACE(providers[w]->name() + " -> " + providers[r]->name());
    auto [t, v] = confcrypt::decrypt_compat(*providers[r], kPassword, stored);
    EXPECT_EQ(t, c.type);
    EXPECT_EQ(v, c.value);
  };
  for (size_t w = 0; w < n; ++w) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      std::string stored = confcrypt::encrypt_compat(*providers[w], kPassword, c.type, c.value);
      read_back(w, w, c, stored);
      if (i == 1) {
        for (size_t r = 0; r < n; ++r)
          if (r != w) read_back(w, r, c, stored);
      } else if (n > 1) {
        read_back(w, (w + 1 + i % (n - 1)) % n, c, stored);
      }
    }
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Compat, Errors) {
  auto providers = compat_providers();
  if (providers.empty()) GTEST_SKIP() << "no compiled-in provider offers pbkdf2-sha512";
  cb::Provider& p = *providers[0];
  std::string stored = confcrypt::encrypt_compat(p, kPassword, ValueType::String, "secret");
  auto dec = [&](const std::string& pw, const std::string& s) {
    return error_of([&] { confcrypt::decrypt_compat(p, pw, s); });
  };
  EXPECT_NE(dec("wrong password", stored).find("wrong master password"), std::string::npos);
  EXPECT_NE(dec(kPassword, "plain text").find("magic"), std::string::npos);
  std::string v01 = stored;
  v01[9] = '1';
  EXPECT_NE(dec(kPassword, v01).find("version"), std::string::npos);
  EXPECT_NE(dec(kPassword, stored.substr(0, 12)).find("truncated"), std::string::npos);
  EXPECT_NE(dec(kPassword, stored.substr(0, 20)).find("truncated"), std::string::npos);
  EXPECT_NE(dec(kPassword, stored.substr(0, stored.size() - 1)).find("truncated"),
            std::string::npos);
  std::string huge_salt = stored;
  huge_salt[13] = '\x7f';
  EXPECT_NE(dec(kPassword, huge_salt).find("truncated"), std::string::npos);
  // Dropping the last block removes the content the header announces.
  EXPECT_NE(dec(kPassword, stored.substr(0, stored.size() - 16)).find("wrong master password"),
            std::string::npos);
  EXPECT_THROW(confcrypt::encrypt_compat(p, kPassword, ValueType::Null, "x"), Error);
}

TEST(Base64, Rfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> v = {{"", ""},
                                                              {"f", "Zg=="},
                                                              {"fo", "Zm8="},
                                                              {"foo", "Zm9v"},
                                                              {"foob", "Zm9vYg=="},
                                                              {"fooba", "Zm9vYmE="},
                                                              {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, enc] : v) {
    EXPECT_EQ(confcrypt::base64_encode(plain), enc);
    EXPECT_EQ(confcrypt::base64_decode(enc), plain);
  }
  std::string all;
  for (int i = 0; i < 256; ++i) all += char(i);
  EXPECT_EQ(confcrypt::base64_decode(confcrypt::base64_encode(all)), all);
  EXPECT_EQ(confcrypt::to_base64_token("foo"), "@BASE64Zm9v");
  EXPECT_EQ(confcrypt::from_base64_token("@BASE64Zm9v"), "foo");
  EXPECT_TRUE(confcrypt::is_base64_token("@BASE64"));
  EXPECT_FALSE(confcrypt::is_base64_token("@BASE6"));
  for (const char* bad : {"Zg=", "Z===", "Zm9v!", "Zh==", "Zm9=Zm9v", "=AAA", "Zm 9"}) {
    EXPECT_THROW(confcrypt::base64_decode(bad), Error) << bad;
  }
  EXPECT_THROW(confcrypt::from_base64_token("Zm9v"), Error);
}

}  // namespace
