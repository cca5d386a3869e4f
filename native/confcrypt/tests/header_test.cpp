// Header version 2: each protected entry is marked where it stands and the MAC covers every
// entry's encrypted flag and their count, so the header's first line stays short however many
// keys are protected; a removed protected entry is still detected. Version-1 files (the
// protected paths listed in the header) still read, and the next write migrates them.
#include "confcrypt/config.hpp"
#include "test_env.hpp"

#ifndef CONFCRYPT_TEST_DATA_DIR
#error "CONFCRYPT_TEST_DATA_DIR must be defined by the build"
#endif

namespace confcrypt {
namespace {

const std::string kData = CONFCRYPT_TEST_DATA_DIR;

Status status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Failure& e) {
    return e.status();
  }
  return Status::kOk;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Failure& e) {
    return e.what();
  }
  return "";
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

Options key_file_options(const std::string& format, const std::string& key) {
  Options o;
  o.format = format;
  o.secrets.key_files = {key};
  return o;
}

class HeaderVersion : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = cctest::make_temp_dir("cc-header");
    key_ = dir_ + "/k.key";
  }
  void TearDown() override { cctest::remove_tree(dir_); }
  // A file of `n` protected and `n` plain keys in `format`.
  std::string make(const std::string& format, int n) {
    Options o = key_file_options(format, key_);
    o.recipients = {parse_recipient_spec("keyfile:" + key_)};
    Config c = Config::create(o, Scheme::kPerValue);
    for (int i = 0; i < n; ++i) {
      c.set("s/secret" + std::to_string(i), "value " + std::to_string(i), ValueType::String, true);
      c.set("s/plain" + std::to_string(i), "p" + std::to_string(i));
    }
    return c.save();
  }
  std::string dir_, key_;
};

TEST_F(HeaderVersion, TheFirstLineStaysShortAndAddingAKeyChangesOnlyCountsAndMac) {
  std::string file = make("ini", 1000);
  std::string header = first_line(file);
  EXPECT_EQ(header.rfind("#@CONFCRYPT cc2 ", 0), 0u) << header;
  EXPECT_NE(header.find(" keys=2000 protected=1000 "), std::string::npos) << header;
  EXPECT_EQ(header.find("protect="), std::string::npos);
  EXPECT_LT(header.size(), 300u) << header;  // a version-1 header listed 1,000 paths: 14 KB
  Options o = key_file_options("ini", key_);
  Config c = Config::open(file, o);
  EXPECT_EQ(c.keys().find("s/secret999")->value, "value 999");
  c.set("s/secret1000", "new", ValueType::String, true);
  std::string next = first_line(c.save());
  EXPECT_NE(next.find(" keys=2001 protected=1001 "), std::string::npos) << next;
  EXPECT_EQ(next.size(), header.size());
}

TEST_F(HeaderVersion, ARemovedProtectedEntryIsStillDetected) {
  Options o = key_file_options("ini", key_);
  std::string file = make("ini", 50);
  ASSERT_EQ(status_of([&] { Config::open(file, o); }), Status::kOk);
  std::string line = "secret17 = " + cctest::ini_value(file, "secret17");
  std::string removed = cctest::replace(file, "#@META crypto/encrypt = 1\n" + line + "\n", "");
  EXPECT_EQ(status_of([&] { Config::open(removed, o); }), Status::kRemovedEntry);
  EXPECT_NE(message_of([&] { Config::open(removed, o); })
                .find("a protected entry was removed outside confcrypt (the file has 49 "
                      "encrypted entries, its MAC covers 50)"),
            std::string::npos)
      << message_of([&] { Config::open(removed, o); });
  // Removed, and a plain entry added in its place to keep the count: the MAC still sees it.
  std::string replaced = cctest::replace(file, "#@META crypto/encrypt = 1\n" + line, "x = 1");
  EXPECT_NE(status_of([&] { Config::open(replaced, o); }), Status::kOk);
  // Stripped: the marker kept, the value in the clear.
  std::string cleared = cctest::replace(file, line, "secret17 = attacker");
  EXPECT_EQ(status_of([&] { Config::open(cleared, o); }), Status::kUnmarkedEntry);
  EXPECT_NE(message_of([&] {
              Config::open(cleared, o);
            }).find("protected entry 's/secret17' is stored in the clear"),
            std::string::npos);
  // The marker removed, the token kept.
  std::string unmarked = cctest::replace(file, "#@META crypto/encrypt = 1\n" + line, line);
  EXPECT_EQ(status_of([&] { Config::open(unmarked, o); }), Status::kUnmarkedEntry);
  // The count in the header edited to match the removal: the MAC covers it.
  std::string header = first_line(removed);
  std::string recounted =
      cctest::replace(removed, header,
                      cctest::replace(cctest::replace(header, "protected=50", "protected=49"),
                                      "keys=100", "keys=99"));
  EXPECT_EQ(status_of([&] { Config::open(recounted, o); }), Status::kModified);
}

TEST_F(HeaderVersion, JsonMarksProtectedEntriesByTheirTokens) {
  Options o = key_file_options("json", key_);
  std::string file = make("json", 5);
  ASSERT_EQ(status_of([&] { Config::open(file, o); }), Status::kOk);
  Config c = Config::open(file, o);
  // Remove one protected member by rewriting the document without it, keeping the header.
  size_t at = file.find("\"secret3\"");
  ASSERT_NE(at, std::string::npos);
  size_t end = file.find(',', at);
  std::string removed = file.substr(0, at) + file.substr(end + 1);
  EXPECT_EQ(status_of([&] { Config::open(removed, o); }), Status::kRemovedEntry)
      << message_of([&] { Config::open(removed, o); });
  size_t v = file.find("ENC:cc1:", at);
  size_t q = file.find('"', v);
  std::string cleared = file.substr(0, v) + "attacker" + file.substr(q);
  EXPECT_EQ(status_of([&] { Config::open(cleared, o); }), Status::kUnmarkedEntry)
      << message_of([&] { Config::open(cleared, o); });
}

TEST_F(HeaderVersion, APlainValueThatLooksLikeATokenIsRefused) {
  Options o = key_file_options("ini", key_);
  Config c = Config::open(make("ini", 1), o);
  c.set("s/plain0", "ENC:cc1:aes-256-gcm:s:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA");
  EXPECT_EQ(status_of([&] { c.save(); }), Status::kUsage);
}

// tests/data/header_v1.ini was written by confcrypt before version 2 (commit 89cc704) with the
// key file header_v1.key.
TEST(HeaderVersion1, StillReadsAndTheNextWriteMigratesIt) {
  const std::string v1 = cctest::read(kData + "/header_v1.ini");
  ASSERT_EQ(v1.rfind("#@CONFCRYPT cc1 ", 0), 0u);
  ASSERT_NE(first_line(v1).find(" protect=db/password,api/token "), std::string::npos);
  Options o = key_file_options("ini", kData + "/header_v1.key");
  Config c = Config::open(v1, o);
  EXPECT_EQ(c.keys().find("db/password")->value, "hunter2");
  EXPECT_EQ(c.keys().find("api/token")->value, "tok-123");
  // Its guarantees hold as they did: a removed protected entry is named.
  std::string pw = "password = " + cctest::ini_value(v1, "password");
  std::string removed = cctest::replace(v1, "#@META crypto/encrypt = 1\n" + pw + "\n", "");
  EXPECT_EQ(status_of([&] { Config::open(removed, o); }), Status::kRemovedEntry);
  EXPECT_EQ(message_of([&] { Config::open(removed, o); }),
            "protected entry 'db/password' was removed");

  c.set("db/host", "db2.example.org");
  std::string migrated = c.save();
  std::string header = first_line(migrated);
  EXPECT_EQ(header.rfind("#@CONFCRYPT cc2 ", 0), 0u) << header;
  EXPECT_NE(header.find(" keys=3 protected=2 "), std::string::npos) << header;
  EXPECT_EQ(header.find("protect="), std::string::npos) << header;
  // The tokens, the wrapped key and the file id are kept: only the header's form changed.
  EXPECT_EQ(cctest::ini_value(migrated, "password"), cctest::ini_value(v1, "password"));
  EXPECT_EQ(cctest::ini_value(migrated, "token"), cctest::ini_value(v1, "token"));
  EXPECT_NE(header.find(first_line(v1).substr(16, 22)), std::string::npos);  // id=...
  Config back = Config::open(migrated, o);
  EXPECT_EQ(back.keys().find("db/password")->value, "hunter2");
  EXPECT_EQ(back.keys().find("db/host")->value, "db2.example.org");
  std::string removed2 = cctest::replace(migrated, "#@META crypto/encrypt = 1\n" + pw + "\n", "");
  EXPECT_EQ(status_of([&] { Config::open(removed2, o); }), Status::kRemovedEntry);
}

}  // namespace
}  // namespace confcrypt
