// The `confcrypt` command as a user runs it: the built binary, real gpg in a throwaway
// GNUPGHOME, exit codes and one-line messages for every failure, atomic writes.
#include <sys/stat.h>

#include <set>
#include <thread>

#include "confcrypt/compat.hpp"
#include "confcrypt/errors.hpp"
#include "confcrypt/recipients.hpp"
#include "cryptobench/provider.hpp"
#include "test_env.hpp"

#ifndef CONFCRYPT_EXE
#error "CONFCRYPT_EXE (the path of the built confcrypt) must be defined by the build"
#endif

namespace confcrypt {
namespace {

const char kIni[] =
    "; service configuration\n"
    "[db]\n"
    "host = db.example.org\n"
    "#@META crypto/encrypt = 1\n"
    "password = hunter2\n"
    "\n"
    "[api]\n"
    "#@META crypto/encrypt = 1\n"
    "token = tok-123\n";

struct Outcome {
  int code;
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    home_ = new cctest::GpgHome();
    alice_ = home_->generate("alice");
    bob_ = home_->generate("bob");
  }
  static void TearDownTestSuite() { delete home_; }
  void SetUp() override {
    dir_ = cctest::make_temp_dir("cc-cli");
    ini_ = dir_ + "/app.ini";
    key_ = dir_ + "/app.key";
    cctest::write(ini_, kIni);
  }
  void TearDown() override { cctest::remove_tree(dir_); }

  // Runs confcrypt with `env` (NAME=value) and never a terminal prompt or a user config file.
  Outcome cc(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
             const std::string& input = "", double timeout_seconds = 0) const {
    std::vector<std::string> argv = {"env",
                                     "-u",
                                     "CONFCRYPT_PASSPHRASE",
                                     "-u",
                                     "CONFCRYPT_SIGNERS",
                                     "CONFCRYPT_CONFIG=/nonexistent"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(CONFCRYPT_EXE);
    argv.push_back("--no-prompt");
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = run_process(argv, input, false, timeout_seconds);
    return {r.exit_code, r.out, r.err};
  }
  // Fails unless the run ended with `status` and exactly one line "confcrypt: ..." containing
  // `words`.
  void expect_failure(const Outcome& r, Status status, const std::string& words) const {
    EXPECT_EQ(r.code, int(status)) << r.err;
    EXPECT_EQ(r.err.rfind("confcrypt: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
  }
  void init_with_key() const {
    Outcome r = cc({"init", ini_, "--recipient", "keyfile:" + key_});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  Outcome get(const std::string& key) const { return cc({"get", ini_, key, "--key-file", key_}); }

  static cctest::GpgHome* home_;
  static std::string alice_, bob_;
  std::string dir_, ini_, key_;
};

cctest::GpgHome* Cli::home_ = nullptr;
std::string Cli::alice_, Cli::bob_;

TEST_F(Cli, UsageErrors) {
  Outcome none = cc({});
  EXPECT_EQ(none.code, int(Status::kUsage));
  EXPECT_NE(none.out.find("usage: confcrypt"), std::string::npos);
  expect_failure(cc({"frobnicate", ini_}), Status::kUsage, "unknown command 'frobnicate'");
  expect_failure(cc({"get", ini_, "x", "--bogus"}), Status::kUsage, "unknown option '--bogus'");
  expect_failure(cc({"get", ini_}), Status::kUsage, "usage: confcrypt get FILE KEY");
  expect_failure(cc({"init", ini_}), Status::kUsage, "at least one recipient");
  expect_failure(cc({"set", ini_, "db/new", "x", "--encrypt"}), Status::kUsage,
                 "not a confcrypt file");
  // Only an absent option means the default: an empty value is refused, not "unset".
  expect_failure(cc({"get", ini_, "db/host", "--gpg-timeout", ""}), Status::kUsage,
                 "--gpg-timeout: an empty value");
  expect_failure(cc({"show", ini_, "--format", "", "--unprotected"}), Status::kUsage,
                 "--format: an empty value");
  // An option that means nothing to the command is refused, not ignored.
  expect_failure(cc({"show", ini_, "--prefix", "APP_", "--unprotected"}), Status::kUsage,
                 "--prefix is for exec, not 'show'");
  expect_failure(cc({"get", ini_, "db/host", "--encrypt-regex", "("}), Status::kUsage,
                 "--encrypt-regex is for init, migrate, set");
  expect_failure(cc({"show", ini_, "--recipient", "zzz", "--unprotected"}), Status::kUsage,
                 "--recipient is for encrypt, init");
  // A line break in a name the user typed stays one line in the message.
  expect_failure(cc({"init", "a\rb\nc"}), Status::kUsage, "'a\\rb\\nc'");
  EXPECT_EQ(cctest::read(ini_), kIni);
}

TEST_F(Cli, InitSetGetShowWithAKeyFile) {
  init_with_key();
  std::string file = cctest::read(ini_);
  EXPECT_EQ(file.find("hunter2"), std::string::npos);
  EXPECT_EQ(file.find("tok-123"), std::string::npos);
  EXPECT_NE(file.find("; service configuration\n[db]\nhost = db.example.org\n"), std::string::npos);
  Outcome g = get("db/password");
  EXPECT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(g.out, "hunter2\n");

  // A value from stdin stays off the command line.
  ASSERT_EQ(
      cc({"set", ini_, "db/password", "-", "--key-file", key_}, {}, "s3cr3t-from-stdin\n").code, 0);
  ASSERT_EQ(cc({"set", ini_, "db/user", "app", "--key-file", key_}).code, 0);
  ASSERT_EQ(cc({"set", ini_, "api/secret", "shh-value", "--encrypt", "--key-file", key_}).code, 0);
  file = cctest::read(ini_);
  EXPECT_EQ(file.find("s3cr3t-from-stdin"), std::string::npos);
  EXPECT_EQ(file.find("shh-value"), std::string::npos);
  EXPECT_NE(file.find("user = app\n"), std::string::npos);
  EXPECT_EQ(get("db/password").out, "s3cr3t-from-stdin\n");
  EXPECT_EQ(get("api/secret").out, "shh-value\n");

  Outcome show = cc({"show", ini_, "--key-file", key_});
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("password = s3cr3t-from-stdin\n"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("#@META crypto/encrypt = 1\nsecret = shh-value\n"), std::string::npos)
      << show.out;
  EXPECT_EQ(show.out.find("#@CONFCRYPT"), std::string::npos);
  Outcome verbose = cc({"show", ini_, "--key-file", key_, "--verbose"});
  EXPECT_NE(verbose.err.find("aes-256-gcm by openssl"), std::string::npos) << verbose.err;

  expect_failure(get("db/nothing"), Status::kNoSuchKey, "no key 'db/nothing'");
  ASSERT_EQ(cc({"unset", ini_, "db/user", "--key-file", key_}).code, 0);
  expect_failure(get("db/user"), Status::kNoSuchKey, "no key 'db/user'");
}

TEST_F(Cli, EveryProviderReadsWhatEveryOtherWrote) {
  for (const auto& writer : cb::provider_names()) {
    cctest::write(ini_, kIni);
    ASSERT_EQ(cc({"init", ini_, "--recipient", "keyfile:" + key_, "--provider", writer}).code, 0);
    for (const auto& reader : cb::provider_names()) {
      Outcome r = cc({"get", ini_, "api/token", "--key-file", key_, "--provider", reader});
      EXPECT_EQ(r.out, "tok-123\n") << writer << " -> " << reader << ": " << r.err;
    }
  }
  expect_failure(cc({"get", ini_, "api/token", "--key-file", key_, "--provider", "nonesuch"}),
                 Status::kUnknownProvider, "unknown provider 'nonesuch'");
}

TEST_F(Cli, PassphraseFromFileOrEnvironmentAndAFailedWriteChangesNothing) {
  std::string pass_file = dir_ + "/pass";
  cctest::write(pass_file, "correct horse\n");
  ASSERT_EQ(cc({"init", ini_, "--recipient", "passphrase", "--passphrase-file", pass_file}).code,
            0);
  EXPECT_EQ(cc({"get", ini_, "db/password", "--passphrase-file", pass_file}).out, "hunter2\n");
  EXPECT_EQ(cc({"get", ini_, "db/password"}, {"CONFCRYPT_PASSPHRASE=correct horse"}).out,
            "hunter2\n");
  std::string before = cctest::read(ini_);
  expect_failure(cc({"set", ini_, "db/password", "x"}, {"CONFCRYPT_PASSPHRASE=wrong"}),
                 Status::kWrongPassphrase, "wrong passphrase");
  expect_failure(cc({"get", ini_, "db/password"}), Status::kNoKey, "CONFCRYPT_PASSPHRASE");
  EXPECT_EQ(cctest::read(ini_), before);
  EXPECT_EQ(cctest::list_dir(dir_), (std::vector<std::string>{"app.ini", "pass"}));
}

TEST_F(Cli, EveryTamperCaseHasItsOwnExitCodeAndMessage) {
  init_with_key();
  const std::string file = cctest::read(ini_);
  const std::string pw = cctest::ini_value(file, "password");
  const std::string tok = cctest::ini_value(file, "token");
  struct Case {
    std::string name, bytes;
    Status status;
    std::string words;
  };
  std::string flipped = pw;
  flipped[flipped.size() - 3] = flipped[flipped.size() - 3] == 'A' ? 'B' : 'A';
  std::string swapped = cctest::replace(file, "password = " + pw, "password = " + tok);
  swapped = cctest::replace(swapped, "token = " + tok, "token = " + pw);
  std::vector<Case> cases = {
      {"tampered", cctest::replace(file, pw, flipped), Status::kTamperedValue,
       "encrypted value of 'db/password' fails authentication"},
      {"swapped", swapped, Status::kSwappedValue, "belongs to"},
      {"removed", cctest::replace(file, "#@META crypto/encrypt = 1\npassword = " + pw + "\n", ""),
       Status::kRemovedEntry, "a protected entry was removed outside confcrypt"},
      {"unmarked",
       cctest::replace(file, "#@META crypto/encrypt = 1\npassword = " + pw, "password = hunter2"),
       Status::kUnmarkedEntry, "a protected entry is stored in the clear"},
      {"added", cctest::replace(file, "host = db.example.org\n", "host = db.example.org\nx = 1\n"),
       Status::kAddedEntry, "added"},
      {"modified", cctest::replace(file, "host = db.example.org", "host = evil.example.org"),
       Status::kModified, "file MAC does not match"},
      {"malformed", cctest::replace(file, "[db]", "[db"), Status::kMalformed, "app.ini:3:"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    cctest::write(ini_, c.bytes);
    expect_failure(get("api/token"), c.status, c.words);
    expect_failure(cc({"set", ini_, "db/host", "x", "--key-file", key_}), c.status, c.words);
    EXPECT_EQ(cctest::read(ini_), c.bytes);  // a refused write leaves the file as it was
  }
  cctest::write(ini_, file);
  create_key_file(dir_ + "/other.key");
  expect_failure(cc({"get", ini_, "db/password", "--key-file", dir_ + "/other.key"}),
                 Status::kNoKey, "no usable key");
  // Every code distinct.
  std::set<int> codes;
  for (const auto& c : cases) codes.insert(int(c.status));
  EXPECT_EQ(codes.size(), cases.size());
}

TEST_F(Cli, UntouchedLinesSurviveByteForByte) {
  init_with_key();
  std::string before = cctest::read(ini_);
  ASSERT_EQ(cc({"set", ini_, "db/host", "db2.example.org", "--key-file", key_}).code, 0);
  std::string after = cctest::read(ini_);
  std::string header_before = before.substr(0, before.find('\n'));
  std::string header_after = after.substr(0, after.find('\n'));
  EXPECT_EQ(cctest::replace(cctest::replace(after, header_after, header_before),
                            "host = db2.example.org", "host = db.example.org"),
            before);
}

TEST_F(Cli, RotateAndRecipients) {
  init_with_key();
  std::string pass_file = dir_ + "/pass";
  cctest::write(pass_file, "pw");
  std::string before = cctest::read(ini_);
  ASSERT_EQ(cc({"rotate", ini_, "--key-file", key_, "--aead", "chacha20-poly1305"}).code, 0);
  std::string rotated = cctest::read(ini_);
  EXPECT_NE(cctest::ini_value(rotated, "password"), cctest::ini_value(before, "password"));
  EXPECT_NE(rotated.find("ENC:cc1:chacha20-poly1305:"), std::string::npos);
  EXPECT_EQ(get("db/password").out, "hunter2\n");

  Outcome add = cc({"recipients", "add", ini_, "passphrase", "--key-file", key_,
                    "--passphrase-file", pass_file});
  ASSERT_EQ(add.code, 0) << add.err;
  ASSERT_EQ(cc({"recipients", "add", ini_, "gpg:" + alice_, "--key-file", key_}).code, 0);
  Outcome list = cc({"recipients", "list", ini_});
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("keyfile:"), std::string::npos);
  EXPECT_NE(list.out.find("passphrase\n"), std::string::npos);
  EXPECT_NE(list.out.find("gpg:" + alice_ + "\n"), std::string::npos) << list.out;
  expect_failure(cc({"recipients", "add", ini_, "passphrase", "--key-file", key_,
                     "--passphrase-file", pass_file}),
                 Status::kUsage, "already a recipient");

  // Removing the key file rotates: the key file no longer opens the file, the others do.
  Outcome rm = cc({"recipients", "remove", ini_, "keyfile:" + key_, "--key-file", key_,
                   "--passphrase-file", pass_file});
  ASSERT_EQ(rm.code, 0) << rm.err;
  // (Without alice's keyring: gpg would open it for her.)
  expect_failure(cc({"get", ini_, "db/password", "--key-file", key_}, {"GNUPGHOME=/nonexistent/x"}),
                 Status::kNoKey, "no usable key");
  EXPECT_EQ(cc({"recipients", "list", ini_}).out.find("keyfile:"), std::string::npos);
  EXPECT_EQ(cc({"get", ini_, "db/password", "--passphrase-file", pass_file}).out, "hunter2\n");
  EXPECT_EQ(cc({"get", ini_, "db/password"}).out, "hunter2\n");  // through gpg (alice)
}

TEST_F(Cli, ExecPutsTheValuesIntoTheChildsEnvironment) {
  init_with_key();
  Outcome r = cc({"exec", ini_, "--key-file", key_, "--", "sh", "-c",
                  "echo \"$DB_PASSWORD $API_TOKEN $DB_HOST\"; exit 3"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.out, "hunter2 tok-123 db.example.org\n");
  std::string env = dir_ + "/app.env";
  cctest::write(env, "#@META crypto/encrypt = 1\nlower_case=secret-x\nPLAIN=1\n");
  ASSERT_EQ(cc({"init", env, "--recipient", "keyfile:" + key_}).code, 0);
  Outcome d = cc({"exec", env, "--key-file", key_, "--prefix", "APP_", "--", "sh", "-c",
                  "echo \"$APP_lower_case $APP_PLAIN\""});
  EXPECT_EQ(d.out, "secret-x 1\n") << d.err;
  expect_failure(cc({"exec", ini_, "--key-file", key_, "--", "/nonexistent/cmd"}), Status::kExec,
                 "cannot run '/nonexistent/cmd'");
}

TEST_F(Cli, WholeFileEncryptShowDecryptLeavesNoPlaintextBehind) {
  EXPECT_EQ(cc({"encrypt", ini_, "--recipient", alice_, "--sign-with", alice_}).code, 0);
  std::string enc = cctest::read(ini_);
  EXPECT_EQ(enc.rfind("-----BEGIN PGP MESSAGE-----", 0), 0u);
  EXPECT_EQ(enc.find("hunter2"), std::string::npos);
  EXPECT_EQ(cctest::list_dir(dir_), (std::vector<std::string>{"app.ini"}));

  Outcome show = cc({"show", ini_, "--signer", alice_});
  EXPECT_EQ(show.code, 0) << show.err;
  EXPECT_EQ(show.out, kIni);
  expect_failure(cc({"show", ini_}), Status::kUsage, "trusted signers");
  expect_failure(cc({"show", ini_, "--signer", bob_}), Status::kUnknownSigner,
                 "not a configured signer");
  EXPECT_EQ(cc({"get", ini_, "db/password"}, {"CONFCRYPT_SIGNERS=" + bob_ + "," + alice_}).out,
            "hunter2\n");

  // An edit of a whole-file encrypted file is encrypted and signed again, still in memory only.
  Outcome set = cc({"set", ini_, "db/host", "db3", "--signer", alice_, "--recipient", alice_,
                    "--sign-with", alice_});
  EXPECT_EQ(set.code, 0) << set.err;
  EXPECT_EQ(cctest::list_dir(dir_), (std::vector<std::string>{"app.ini"}));
  EXPECT_EQ(cc({"get", ini_, "db/host", "--signer", alice_}).out, "db3\n");

  EXPECT_EQ(cc({"decrypt", ini_, "--signer", alice_}).code, 0);
  EXPECT_EQ(cctest::read(ini_), cctest::replace(kIni, "db.example.org", "db3"));

  // Unsigned and badly signed files.
  auto unsigned_msg =
      home_->gpg({"--trust-model", "always", "--armor", "--encrypt", "-r", alice_}, kIni);
  cctest::write(ini_, unsigned_msg.out);
  expect_failure(cc({"show", ini_, "--signer", alice_}), Status::kUnsigned, "not signed");
  auto signed_msg = home_->gpg({"--sign", "--compress-algo", "none", "-u", alice_}, kIni);
  auto forged = home_->gpg({"--trust-model", "always", "--no-literal", "--encrypt", "-r", alice_},
                           cctest::replace(signed_msg.out, "hunter2", "hunter3"));
  cctest::write(ini_, forged.out);
  expect_failure(cc({"show", ini_, "--signer", alice_}), Status::kBadSignature,
                 "signature does not verify");
  expect_failure(cc({"encrypt", ini_, "--recipient", alice_}), Status::kUsage, "already encrypted");
}

TEST_F(Cli, WholeFileAroundPerValueAndGpgRecipients) {
  ASSERT_EQ(cc({"init", ini_, "--recipient", "gpg:" + alice_}).code, 0);
  ASSERT_EQ(cc({"encrypt", ini_, "--recipient", alice_, "--sign-with", alice_}).code, 0);
  EXPECT_EQ(cc({"get", ini_, "api/token", "--signer", alice_}).out, "tok-123\n");
}

TEST_F(Cli, MigrateFromTheThesisFormat) {
  std::string master = "0123456789abcdefghijklmnopqrst";
  cb::Provider* p = cb::get_provider("openssl");
  std::string thesis = "[section1]\n#@META crypto/encrypt = 1\npassword = " +
                       to_base64_token(encrypt_compat(*p, master, ValueType::String, "hunter2")) +
                       "\n";
  cctest::write(ini_, thesis);
  std::string master_file = dir_ + "/master";
  cctest::write(master_file, master);
  // The thesis kept the master password GnuPG-encrypted: read through gpg as well.
  std::string master_gpg = dir_ + "/master.gpg";
  cctest::write(master_gpg,
                home_->gpg({"--trust-model", "always", "--encrypt", "-r", alice_}, master).out);
  EXPECT_EQ(cc({"get", ini_, "section1/password", "--master-password-file", master_file}).out,
            "hunter2\n");
  EXPECT_EQ(cc({"get", ini_, "section1/password", "--master-password-gpg", master_gpg}).out,
            "hunter2\n");
  cctest::write(dir_ + "/wrong", "not-the-master-password-at-all");
  expect_failure(cc({"get", ini_, "section1/password", "--master-password-file", dir_ + "/wrong"}),
                 Status::kCompat, "section1/password");
  Outcome m =
      cc({"migrate", ini_, "--master-password-gpg", master_gpg, "--recipient", "keyfile:" + key_});
  ASSERT_EQ(m.code, 0) << m.err;
  std::string migrated = cctest::read(ini_);
  EXPECT_EQ(migrated.find("@BASE64"), std::string::npos);
  EXPECT_NE(migrated.find("password = ENC:cc1:"), std::string::npos);
  EXPECT_EQ(get("section1/password").out, "hunter2\n");
}

// The thesis's OpenSSL variant derived its keys with PBKDF2-HMAC-SHA1, its Botan variant with
// SHA-256 (libgcrypt's, the default, SHA-512): --compat-kdf reads what each wrote.
TEST_F(Cli, CompatKdfReadsEachThesisVariant) {
  std::string master = "0123456789abcdefghijklmnopqrst";
  cb::Provider* p = cb::get_provider("openssl");
  std::string master_file = dir_ + "/master";
  cctest::write(master_file, master);
  for (auto [name, kdf] : {std::pair{"sha1", confcrypt::CompatKdf::kSha1},
                           std::pair{"sha256", confcrypt::CompatKdf::kSha256}}) {
    SCOPED_TRACE(name);
    std::string token = to_base64_token(encrypt_compat(*p, master, ValueType::String, "hunter2",
                                                       kCompatSaltLen, kCompatIterations, kdf));
    cctest::write(ini_, "[s]\n#@META crypto/encrypt = 1\npassword = " + token + "\n");
    Outcome ok = cc(
        {"get", ini_, "s/password", "--master-password-file", master_file, "--compat-kdf", name});
    EXPECT_EQ(ok.out, "hunter2\n") << ok.err;
    // Without the switch the default (SHA-512) key is wrong: an error, never garbage.
    expect_failure(cc({"get", ini_, "s/password", "--master-password-file", master_file}),
                   Status::kCompat, "s/password");
  }
  expect_failure(
      cc({"get", ini_, "s/password", "--master-password-file", master_file, "--compat-kdf", "md5"}),
      Status::kUsage, "--compat-kdf: unknown compatibility KDF 'md5'");
  expect_failure(cc({"decrypt", ini_, "--compat-kdf", "sha1"}), Status::kUsage,
                 "--compat-kdf is for");
}

TEST_F(Cli, JsonAndDotenvFiles) {
  std::string json = dir_ + "/app.json";
  cctest::write(json, "{\n  \"db\": {\"password\": \"hunter2\", \"port\": 5432}\n}\n");
  ASSERT_EQ(
      cc({"init", json, "--recipient", "keyfile:" + key_, "--encrypt-regex", "password$"}).code, 0);
  std::string text = cctest::read(json);
  EXPECT_EQ(text.find("hunter2"), std::string::npos);
  EXPECT_NE(text.find("\"port\": 5432"), std::string::npos);
  EXPECT_EQ(cc({"get", json, "db/password", "--key-file", key_}).out, "hunter2\n");
  std::string cfg = dir_ + "/settings.txt";
  cctest::write(cfg, "TOKEN=abc\n");
  expect_failure(cc({"get", cfg, "TOKEN"}), Status::kUsage, "--format");
  EXPECT_EQ(cc({"get", cfg, "TOKEN", "--format", "dotenv", "--unprotected"}).out, "abc\n");
}

// The downgrade rule: a protected file whose header was stripped or damaged is never read as
// plain configuration, whatever else an attacker changed; a plain file only on request.
TEST_F(Cli, AStrippedOrDamagedHeaderIsNeverReadAsPlain) {
  init_with_key();
  const std::string good = cctest::read(ini_);
  std::string stripped;  // header and markers gone, the password replaced in the clear
  std::istringstream lines(good);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#@CONFCRYPT", 0) == 0 || line.rfind("#@META", 0) == 0) continue;
    if (line.rfind("password = ", 0) == 0) line = "password = attacker";
    stripped += line + "\n";
  }
  cctest::write(ini_, stripped);
  expect_failure(get("db/password"), Status::kUnprotected, "no confcrypt header");
  Outcome ex = cc({"exec", ini_, "--key-file", key_, "--", "sh", "-c", "echo ran $DB_PASSWORD"});
  expect_failure(ex, Status::kUnprotected, "no confcrypt header");
  EXPECT_EQ(ex.out.find("ran"), std::string::npos);  // the application never started

  // Tokens left in place: even asked for plain reading, the file is refused.
  cctest::write(ini_, good.substr(good.find('\n') + 1));
  expect_failure(cc({"get", ini_, "api/token", "--unprotected"}), Status::kUnprotected,
                 "holds an encrypted value");
  // A damaged header line is not a header, and not plain configuration either.
  cctest::write(ini_, "X" + good);
  expect_failure(cc({"show", ini_, "--key-file", key_, "--unprotected"}), Status::kUnprotected,
                 "damaged confcrypt header");

  // An empty file is no protected file.
  cctest::write(ini_, "");
  expect_failure(cc({"show", ini_, "--key-file", key_}), Status::kUnprotected, "no confcrypt");
  EXPECT_EQ(cc({"show", ini_, "--unprotected"}).code, 0);
  // A plain file is read when asked for.
  cctest::write(ini_, "[db]\nhost = h\n");
  EXPECT_EQ(cc({"get", ini_, "db/host", "--unprotected"}).out, "h\n");
}

// /dev/zero given by mistake must not grow memory without limit: every read has a bound.
TEST_F(Cli, ReadsAreBounded) {
  init_with_key();
  // A device is not even opened for reading: refused as not a regular file.
  expect_failure(cc({"get", ini_, "db/password", "--key-file", "/dev/zero"}), Status::kIo,
                 "a device, not a regular file");
  expect_failure(cc({"get", ini_, "db/password", "--passphrase-file", "/dev/zero"}), Status::kIo,
                 "a device, not a regular file");
  Outcome conf =
      cc({"get", ini_, "db/password", "--key-file", key_}, {"CONFCRYPT_CONFIG=/dev/zero"});
  expect_failure(conf, Status::kIo, "not a regular file");
  expect_failure(cc({"show", "/dev/zero", "--format", "ini"}), Status::kIo, "not a regular file");
  // A regular file too large is refused by its bound.
  const std::string big_key = dir_ + "/big.key";
  cctest::write(big_key, std::string(100, 'k'));
  expect_failure(cc({"get", ini_, "db/password", "--key-file", big_key}), Status::kIo,
                 "larger than 33 bytes");
  // Standard input for `set FILE KEY -` has its bound too (it read 1 GB, then bad_alloc).
  const std::string before = cctest::read(ini_);
  expect_failure(cc({"set", ini_, "db/big", "-", "--key-file", key_}, {},
                    std::string((16u << 20) + 2, 'v'), 60),
                 Status::kIo, "standard input is larger than 16777216 bytes");
  EXPECT_EQ(cctest::read(ini_), before);
}

// A FIFO without a writer where a file is expected: refused at once, never waited on.
TEST_F(Cli, AFifoWhereAFileIsExpectedIsRefusedAtOnce) {
  init_with_key();
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const double limit = 20;  // a hang is forever; the refusal takes milliseconds
  expect_failure(cc({"get", ini_, "db/password", "--key-file", fifo}, {}, "", limit), Status::kIo,
                 "a FIFO or pipe, not a regular file");
  expect_failure(cc({"get", ini_, "db/password", "--passphrase-file", fifo}, {}, "", limit),
                 Status::kIo, "a FIFO or pipe");
  expect_failure(
      cc({"get", ini_, "db/password", "--key-file", key_}, {"CONFCRYPT_CONFIG=" + fifo}, "", limit),
      Status::kIo, "a FIFO or pipe");
  expect_failure(cc({"show", fifo, "--format", "ini"}, {}, "", limit), Status::kIo,
                 "a FIFO or pipe");
  expect_failure(cc({"set", fifo, "a", "b", "--format", "ini"}, {}, "", limit), Status::kIo,
                 "a FIFO or pipe");
  expect_failure(cc({"show", ini_, "--compat", "--master-password-file", fifo}, {}, "", limit),
                 Status::kIo, "a FIFO or pipe");
  expect_failure(cc({"show", dir_, "--format", "ini"}, {}, "", limit), Status::kIo, "a directory");
}

// A file an attacker stripped (header, markers and tokens gone) must not receive a new secret in
// the clear when the key says the file is protected; nor a plaintext file put in place of a
// signed whole-file message when whole-file mode is configured. --unprotected says it is plain.
TEST_F(Cli, SetRefusesToWriteASecretInTheClearIntoAStrippedFile) {
  init_with_key();
  cctest::write(ini_, "[db]\nhost = db.example.org\npassword = attacker\n");
  const std::string stripped = cctest::read(ini_);
  expect_failure(cc({"set", ini_, "db/password", "-", "--key-file", key_}, {}, "new-secret\n"),
                 Status::kUnprotected, "refusing to write into it in the clear");
  const std::string pass_file = dir_ + "/pass";
  cctest::write(pass_file, "pw\n");
  expect_failure(cc({"set", ini_, "db/password", "x", "--passphrase-file", pass_file}),
                 Status::kUnprotected, "no confcrypt header");
  expect_failure(cc({"set", ini_, "db/password", "x"}, {"CONFCRYPT_PASSPHRASE=pw"}),
                 Status::kUnprotected, "no confcrypt header");
  // Whole-file configuration: signer, recipient or signing key, from options or environment.
  expect_failure(cc({"set", ini_, "db/password", "x", "--signer", alice_}), Status::kUnsigned,
                 "not a signed OpenPGP message");
  expect_failure(
      cc({"set", ini_, "db/password", "x", "--recipient", alice_, "--sign-with", alice_}),
      Status::kUnsigned, "whole-file signing is configured");
  expect_failure(cc({"set", ini_, "db/password", "x"}, {"CONFCRYPT_SIGNERS=" + alice_}),
                 Status::kUnsigned, "refusing to write into it in the clear");
  EXPECT_EQ(cctest::read(ini_), stripped);
  EXPECT_EQ(cctest::list_dir(dir_), (std::vector<std::string>{"app.ini", "app.key", "pass"}));

  // Said plainly, it is written; without a key or whole-file mode a plain file stays editable.
  ASSERT_EQ(cc({"set", ini_, "db/password", "x", "--key-file", key_, "--unprotected"}).code, 0);
  ASSERT_EQ(cc({"set", ini_, "db/user", "app"}).code, 0);
  EXPECT_EQ(cc({"get", ini_, "db/user", "--unprotected"}).out, "app\n");
  // A new file is created plain, as before.
  EXPECT_EQ(cc({"set", dir_ + "/new.ini", "a/b", "c", "--key-file", key_}).code, 0);
}

// The header is the first line and exactly "#@CONFCRYPT <text>", as docs/confcrypt.md says: it
// was accepted on any line and with blanks around it.
TEST_F(Cli, TheHeaderIsTheFirstLineExactly) {
  init_with_key();
  const std::string good = cctest::read(ini_);
  const size_t nl = good.find('\n');
  const std::string header = good.substr(0, nl + 1), rest = good.substr(nl + 1);
  cctest::write(ini_,
                rest.substr(0, rest.find('\n') + 1) + header + rest.substr(rest.find('\n') + 1));
  expect_failure(get("db/password"), Status::kMalformed, "must be the first line");
  cctest::write(ini_, good.substr(0, nl) + " " + good.substr(nl));
  expect_failure(get("db/password"), Status::kMalformed, "exactly '#@CONFCRYPT <text>'");
  cctest::write(ini_, " " + good);
  expect_failure(get("db/password"), Status::kMalformed, "exactly '#@CONFCRYPT <text>'");
  cctest::write(ini_, cctest::replace(good, "#@CONFCRYPT ", "#@CONFCRYPT  "));
  expect_failure(get("db/password"), Status::kMalformed, "exactly '#@CONFCRYPT <text>'");
  cctest::write(ini_, good);
  EXPECT_EQ(get("db/password").out, "hunter2\n");
}

// Two processes x 200 sets of distinct keys on one file: every update is kept (it lost 158 and
// 202 of 400 before the lock), every set exits 0.
TEST_F(Cli, ConcurrentSetsOnOneFileLoseNothing) {
  init_with_key();
  const int per_writer = 200;
  std::vector<int> failures(2, 0);
  auto writer = [&](int w) {
    for (int i = 0; i < per_writer; ++i) {
      Outcome r = cc({"set", ini_, "w" + std::to_string(w) + "/k" + std::to_string(i),
                      "v" + std::to_string(w) + "_" + std::to_string(i), "--key-file", key_});
      if (r.code != 0) ++failures[w];
    }
  };
  std::thread a(writer, 0), b(writer, 1);
  a.join();
  b.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0}));
  Outcome show = cc({"show", ini_, "--key-file", key_});
  ASSERT_EQ(show.code, 0) << show.err;
  int found = 0;
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < per_writer; ++i) {
      const std::string line =
          "k" + std::to_string(i) + " = v" + std::to_string(w) + "_" + std::to_string(i) + "\n";
      if (show.out.find(line) != std::string::npos) ++found;
    }
  }
  EXPECT_EQ(found, 2 * per_writer);
  EXPECT_EQ(cctest::list_dir(dir_), (std::vector<std::string>{"app.ini", "app.key"}));
}

// An edited header cannot make a passphrase read run scrypt at 16 GiB: the costs are refused when
// the header is parsed (exit 4), before any scrypt run.
TEST_F(Cli, AHeaderWithHugeScryptCostsIsMalformed) {
  const std::string pass_file = dir_ + "/pass";
  cctest::write(pass_file, "correct horse\n");
  ASSERT_EQ(cc({"init", ini_, "--recipient", "passphrase", "--passphrase-file", pass_file}).code,
            0);
  const std::string text = cctest::read(ini_);
  ASSERT_NE(text.find(":scrypt:32768:8:1:"), std::string::npos) << text;
  cctest::write(ini_, cctest::replace(text, ":scrypt:32768:8:1:", ":scrypt:4194304:32:1:"));
  expect_failure(cc({"get", ini_, "db/password", "--passphrase-file", pass_file}),
                 Status::kMalformed, "scrypt parameters N=4194304 r=32 p=1 out of range");
}

TEST_F(Cli, AConfiguredSignerAcceptsOnlyASignedMessage) {
  // A plaintext file put where the signed OpenPGP message was: the signer check must run.
  expect_failure(cc({"get", ini_, "db/host", "--signer", alice_}), Status::kUnsigned,
                 "not a signed OpenPGP message");
  expect_failure(cc({"show", ini_, "--unprotected"}, {"CONFCRYPT_SIGNERS=" + alice_}),
                 Status::kUnsigned, "not a signed OpenPGP message");
}

// exec builds the child's environment in one pass (setenv per key was quadratic: 100,000 keys
// took 25 s and then failed in execve) and refuses, before exec, an environment the kernel would
// refuse: one line naming the limit, its own exit code, the command never started.
TEST_F(Cli, ExecRefusesAnEnvironmentTooLargeForTheKernelBeforeExec) {
  std::string big = dir_ + "/big.env";
  std::string text;
  // 100,000 keys of about 80 bytes: above 6 MiB, the most Linux takes whatever the stack limit.
  for (int i = 0; i < 100000; ++i) {
    text += "KEY_" + std::to_string(i) + "=" + std::string(70, 'v') + "\n";
  }
  cctest::write(big, text);
  Outcome r = cc({"exec", big, "--unprotected", "--", "sh", "-c", "echo ran"});
  expect_failure(r, Status::kTooLarge, "above the kernel's limit");
  EXPECT_NE(r.err.find("variables) and arguments would take"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  // One value above the kernel's limit for a single string (32 pages) is named.
  cctest::write(big, "SMALL=1\nHUGE=" + std::string(200000, 'h') + "\n");
  expect_failure(cc({"exec", big, "--unprotected", "--", "true"}), Status::kTooLarge,
                 "the variable HUGE is");
  // Many keys that fit all reach the child.
  text.clear();
  for (int i = 0; i < 20000; ++i)
    text += "KEY_" + std::to_string(i) + "=v" + std::to_string(i) + "\n";
  cctest::write(big, text);
  Outcome ok = cc({"exec", big, "--unprotected", "--", "sh", "-c",
                   "env | grep -c '^KEY_'; echo \"$KEY_0 $KEY_19999\""});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out, "20000\nv0 v19999\n");
}

// A value `show` could not write is refused at `set`, encrypted or not (it was accepted with
// --encrypt and `show` then failed with "cannot write the file").
TEST_F(Cli, SetRefusesAValueTheFileCannotShowInTheClear) {
  init_with_key();
  const std::string before = cctest::read(ini_);
  expect_failure(cc({"set", ini_, "db/multi", "line1\nline2", "--plain", "--key-file", key_}),
                 Status::kUsage, "cannot write the file: INI cannot store a line break");
  expect_failure(cc({"set", ini_, "db/multi", "line1\nline2", "--encrypt", "--key-file", key_}),
                 Status::kUsage, "cannot write the file: INI cannot store a line break");
  expect_failure(
      cc({"set", ini_, "db/nul", "-", "--encrypt", "--key-file", key_}, {}, std::string("a\0b", 3)),
      Status::kUsage, "cannot write the file: INI cannot store a line break or NUL");
  EXPECT_EQ(cctest::read(ini_), before);
  EXPECT_EQ(cc({"show", ini_, "--key-file", key_}).code, 0);
  // dotenv stores a line break (quoted) but not a NUL byte.
  std::string env = dir_ + "/app.env";
  cctest::write(env, "#@META crypto/encrypt = 1\nTOKEN=t\n");
  ASSERT_EQ(cc({"init", env, "--recipient", "keyfile:" + key_}).code, 0);
  EXPECT_EQ(cc({"set", env, "MULTI", "-", "--encrypt", "--key-file", key_}, {}, "a\nb\n").code, 0);
  expect_failure(
      cc({"set", env, "NUL", "-", "--encrypt", "--key-file", key_}, {}, std::string("a\0b", 3)),
      Status::kUsage, "cannot write the file: dotenv cannot store a NUL byte");
  Outcome shown = cc({"show", env, "--key-file", key_});
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("MULTI=\"a\\nb\""), std::string::npos) << shown.out;
}

// gpg failing is exit 18 (gpg), whatever way it fails: it hangs (stopped after --gpg-timeout),
// it is not gpg (/bin/false gave 4, malformed), or the armour was changed (14, modified; was 4).
TEST_F(Cli, GpgFailuresHaveTheirOwnCodes) {
  ASSERT_EQ(cc({"encrypt", ini_, "--recipient", alice_, "--sign-with", alice_}).code, 0);
  expect_failure(cc({"show", ini_, "--signer", alice_, "--gpg", "/bin/false"}), Status::kGpg,
                 "'/bin/false' failed (exit status 1)");
  std::string hang = dir_ + "/hang.sh";
  cctest::write(hang, "#!/bin/sh\nsleep 300 &\nwait\n");
  chmod(hang.c_str(), 0700);
  expect_failure(cc({"show", ini_, "--signer", alice_, "--gpg", hang, "--gpg-timeout", "0.5"}),
                 Status::kGpg, "did not finish within 0.5 s");
  expect_failure(
      cc({"show", ini_, "--signer", alice_, "--gpg", hang}, {"CONFCRYPT_GPG_TIMEOUT=0.3"}),
      Status::kGpg, "did not finish within 0.3 s");
  expect_failure(cc({"show", ini_, "--signer", alice_, "--gpg-timeout", "soon"}), Status::kUsage,
                 "bad gpg timeout 'soon'");
  std::string armoured = cctest::read(ini_);
  size_t at = armoured.find("\n\n") + 12;
  armoured[at] = armoured[at] == 'A' ? 'B' : 'A';
  cctest::write(ini_, armoured);
  expect_failure(cc({"show", ini_, "--signer", alice_}), Status::kModified,
                 "the armoured file was changed: its CRC-24 checksum does not match");
}

// Each crypto library is a module loaded when it is first used: reading a file with the default
// provider brings in OpenSSL alone, not the nine libraries libcryptobench links (about 17 ms of
// every invocation before).
TEST_F(Cli, OnlyTheCryptoLibraryInUseIsLoaded) {
  init_with_key();
  Outcome r = cc({"get", ini_, "db/password", "--key-file", key_, "--verbose"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("confcrypt: crypto libraries loaded: openssl\n"), std::string::npos)
      << r.err;
  Outcome s =
      cc({"get", ini_, "db/password", "--key-file", key_, "--verbose", "--provider", "botan"});
  ASSERT_EQ(s.code, 0) << s.err;
  EXPECT_NE(s.err.find("confcrypt: crypto libraries loaded: botan\n"), std::string::npos) << s.err;
  // A module that cannot be loaded is named with the loader's reason.
  Outcome m = cc({"providers"}, {"CRYPTOBENCH_PROVIDER_DIR=/nonexistent"});
  EXPECT_EQ(m.code, 0);
  expect_failure(cc({"get", ini_, "db/password", "--key-file", key_},
                    {"CRYPTOBENCH_PROVIDER_DIR=/nonexistent"}),
                 Status::kUnknownProvider, "provider 'openssl' cannot be loaded");
}

}  // namespace
}  // namespace confcrypt
