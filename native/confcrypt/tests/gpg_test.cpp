// GnuPG through the real gpg, in a throwaway GNUPGHOME: gpg recipients of the data key, and
// whole-file mode with its signature requirement. Keys are generated in the suite's setup.
#include <errno.h>
#include <signal.h>

#include <memory>

#include "confcrypt/config.hpp"
#include "confcrypt/wholefile.hpp"
#include "test_env.hpp"

namespace confcrypt {
namespace {

const char kIni[] =
    "# settings\n"
    "[db]\n"
    "host = localhost\n"
    "#@META crypto/encrypt = 1\n"
    "password = hunter2\n";

class GpgTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    home_ = new cctest::GpgHome();
    other_ = new cctest::GpgHome(false);
    alice_ = home_->generate("alice");
    bob_ = home_->generate("bob");
    // Another keyring: mallory (unknown here) and carol (only her public key is here).
    mallory_ = other_->generate("mallory");
    carol_ = other_->generate("carol");
    home_->import(other_->export_public(carol_));
    other_->import(home_->export_public(alice_));
  }
  static void TearDownTestSuite() {
    delete other_;
    delete home_;
  }
  void SetUp() override { dir_ = cctest::make_temp_dir("cc-gpgtest"); }
  void TearDown() override { cctest::remove_tree(dir_); }

  Options wholefile_options() const {
    Options o;
    o.allow_unprotected = true;  // starts from plain text on purpose
    o.allow_unsigned = true;     // reads the plain file it then encrypts and signs
    o.format = "ini";
    o.wholefile_recipients = {alice_};
    o.sign_with = alice_;
    o.signers = {alice_};
    return o;
  }
  static Status status_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Failure& e) {
      return e.status();
    }
    return Status::kOk;
  }
  Status open_status(const std::string& bytes, const std::vector<std::string>& signers) const {
    Options o = wholefile_options();
    o.signers = signers;
    return status_of([&] { Config::open(bytes, o); });
  }

  static cctest::GpgHome* home_;
  static cctest::GpgHome* other_;
  static std::string alice_, bob_, mallory_, carol_;
  std::string dir_;
};

cctest::GpgHome* GpgTest::home_ = nullptr;
cctest::GpgHome* GpgTest::other_ = nullptr;
std::string GpgTest::alice_, GpgTest::bob_, GpgTest::mallory_, GpgTest::carol_;

// ---- gpg recipients ---------------------------------------------------------------------------

// A gpg that records what its stdin and stdout are before it becomes the real gpg; returns its
// path. expect_pipes_only() then checks every recorded call.
std::string make_recording_gpg(const std::string& dir) {
  std::string wrapper = dir + "/gpg-wrapper";
  cctest::write(wrapper,
                "#!/bin/sh\necho \"in=$(readlink /proc/$$/fd/0) out=$(readlink "
                "/proc/$$/fd/1) args=$*\" >> " +
                    dir + "/gpg.log\nexec gpg \"$@\"\n");
  chmod(wrapper.c_str(), 0700);
  return wrapper;
}

void expect_pipes_only(const std::string& dir, int min_calls) {
  std::istringstream lines(cctest::read(dir + "/gpg.log"));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    EXPECT_EQ(line.rfind("in=pipe:", 0), 0u) << line;
    EXPECT_NE(line.find(" out=pipe:"), std::string::npos) << line;
    EXPECT_EQ(line.find(dir + "/"), std::string::npos) << "gpg was given a file: " << line;
  }
  EXPECT_GE(n, min_calls);
  // Nothing but the wrapper and its log: no plaintext, no key, no temp file.
  EXPECT_EQ(cctest::list_dir(dir), (std::vector<std::string>{"gpg-wrapper", "gpg.log"}));
}

TEST_F(GpgTest, DataKeyGoesThroughGpgOnPipesOnly) {
  Options o;
  o.allow_unprotected = true;  // starts from plain text on purpose
  o.format = "ini";
  o.gpg.program = make_recording_gpg(dir_);
  o.recipients = {parse_recipient_spec("gpg:" + alice_)};
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPerValue);
  EXPECT_NE(file.find("recipient=gpg:" + alice_ + ":"), std::string::npos);
  EXPECT_EQ(file.find("hunter2"), std::string::npos);
  EXPECT_EQ(open(file, o).find("db/password")->value, "hunter2");

  expect_pipes_only(dir_, 2);  // encrypt, decrypt (one recipient: no key listing)
}

TEST_F(GpgTest, WholeFileGoesThroughGpgOnPipesOnly) {
  Options o = wholefile_options();
  o.gpg.program = make_recording_gpg(dir_);
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPlain, true);
  EXPECT_EQ(open(file, o).find("db/password")->value, "hunter2");
  expect_pipes_only(dir_, 2);  // encrypt and sign, decrypt and verify
}

TEST_F(GpgTest, GpgRecipientWithoutSecretKeyHereIsNoKey) {
  Options o;
  o.allow_unprotected = true;  // starts from plain text on purpose
  o.format = "ini";
  o.recipients = {parse_recipient_spec("gpg:" + carol_)};
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPerValue);
  try {
    open(file, o);
    FAIL() << "opened without carol's secret key";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status(), Status::kNoKey);
    EXPECT_NE(std::string(f.what()).find(carol_), std::string::npos) << f.what();
  }
}

TEST_F(GpgTest, GpgAndPassphraseRecipientsOpenTheSameFile) {
  Options o;
  o.allow_unprotected = true;  // starts from plain text on purpose
  o.format = "ini";
  o.recipients = {parse_recipient_spec("gpg:" + alice_), parse_recipient_spec("gpg:" + bob_),
                  parse_recipient_spec("passphrase")};
  o.secrets.passphrase = "pw";
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPerValue);
  Options by_gpg = o;
  by_gpg.secrets.passphrase.reset();
  EXPECT_EQ(open(file, by_gpg).find("db/password")->value, "hunter2");
  Options by_pass = o;
  by_pass.secrets.use_gpg = false;
  EXPECT_EQ(open(file, by_pass).find("db/password")->value, "hunter2");
  Options neither = by_pass;
  neither.secrets.passphrase.reset();
  EXPECT_EQ(status_of([&] { open(file, neither); }), Status::kNoKey);

  // Rotation re-wraps for every gpg recipient through gpg again.
  Config c = Config::open(file, o);
  c.remove_recipient(parse_recipient_spec("gpg:" + bob_));
  c.rotate();
  std::string rotated = c.save();
  EXPECT_EQ(rotated.find(bob_), std::string::npos);
  EXPECT_EQ(open(rotated, by_gpg).find("db/password")->value, "hunter2");
}

// ---- whole-file mode --------------------------------------------------------------------------

TEST_F(GpgTest, WholeFileRoundTripRequiresAConfiguredSigner) {
  Options o = wholefile_options();
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPlain, true);
  EXPECT_EQ(file.rfind("-----BEGIN PGP MESSAGE-----", 0), 0u);
  EXPECT_EQ(file.find("hunter2"), std::string::npos);
  Config c = Config::open(file, o);
  EXPECT_TRUE(c.whole_file());
  EXPECT_EQ(c.signer(), alice_);
  EXPECT_EQ(c.keys().find("db/password")->value, "hunter2");
  EXPECT_EQ(open_status(file, {bob_}), Status::kUnknownSigner);
  EXPECT_EQ(open_status(file, {}), Status::kUsage);
}

TEST_F(GpgTest, UnsignedWholeFileIsRejected) {
  auto r = home_->gpg({"--trust-model", "always", "--armor", "--encrypt", "-r", alice_}, kIni);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(open_status(r.out, {alice_}), Status::kUnsigned);
}

TEST_F(GpgTest, BadSignatureIsRejected) {
  // A signed message whose literal data was changed after signing, then encrypted as it is.
  auto signed_msg = home_->gpg({"--sign", "--compress-algo", "none", "-u", alice_}, kIni);
  ASSERT_EQ(signed_msg.exit_code, 0) << signed_msg.err;
  std::string forged = cctest::replace(signed_msg.out, "hunter2", "hunter3");
  auto r =
      home_->gpg({"--trust-model", "always", "--no-literal", "--encrypt", "-r", alice_}, forged);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(open_status(r.out, {alice_}), Status::kBadSignature);
}

TEST_F(GpgTest, SignerMissingFromTheKeyringIsUnknown) {
  auto r = other_->gpg(
      {"--trust-model", "always", "--armor", "--encrypt", "--sign", "-u", mallory_, "-r", alice_},
      kIni);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(open_status(r.out, {alice_}), Status::kUnknownSigner);
  // Trusting mallory's fingerprint does not help while her key is not in the keyring.
  EXPECT_EQ(open_status(r.out, {alice_, mallory_}), Status::kUnknownSigner);
}

TEST_F(GpgTest, SignatureByARevokedKeyIsBad) {
  cctest::GpgHome old(false);
  std::string olly = old.generate("olly");
  old.import(home_->export_public(alice_));
  auto r = old.gpg(
      {"--trust-model", "always", "--armor", "--encrypt", "--sign", "-u", olly, "-r", alice_},
      kIni);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(open_status(r.out, {olly}), Status::kUnknownSigner);  // not in this keyring yet
  home_->import(old.export_public(olly));
  ASSERT_EQ(open_status(r.out, {olly}), Status::kOk);
  // gpg stores a revocation certificate for every new key, its armour line disarmed with ':'.
  std::string rev = cctest::read(old.dir() + "/openpgp-revocs.d/" + olly + ".rev");
  home_->import(
      cctest::replace(rev, ":-----BEGIN PGP PUBLIC KEY BLOCK", "-----BEGIN PGP PUBLIC KEY BLOCK"));
  EXPECT_EQ(open_status(r.out, {olly}), Status::kBadSignature);
}

TEST_F(GpgTest, ChangedCiphertextFailsTheIntegrityCheck) {
  Options o = wholefile_options();
  o.armor = false;
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPlain, true);
  ASSERT_TRUE(is_openpgp(file));
  // gpg checks the signature as the data streams and the integrity code at the end, so a flipped
  // bit is reported by whichever check meets it first; either way the file is refused.
  for (size_t back : {10, 30, 60, 100}) {
    std::string flipped = file;
    flipped[flipped.size() - back] ^= 0x01;
    Status st = open_status(flipped, {alice_});
    EXPECT_TRUE(st == Status::kModified || st == Status::kBadSignature) << int(st);
  }
  EXPECT_EQ(open_status(file.substr(0, file.size() - 1), {alice_}), Status::kModified);
  EXPECT_EQ(open_status(file.substr(0, file.size() / 2), {alice_}), Status::kModified);
}

TEST_F(GpgTest, WholeFileForSomeoneElseIsNoKey) {
  Options o = wholefile_options();
  o.wholefile_recipients = {carol_};
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPlain, true);
  EXPECT_EQ(open_status(file, {alice_}), Status::kNoKey);
}

TEST_F(GpgTest, SignedButNotEncryptedIsMalformed) {
  auto r = home_->gpg({"--armor", "--sign", "-u", alice_}, kIni);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(open_status(r.out, {alice_}), Status::kMalformed);
}

TEST_F(GpgTest, WholeFileAroundAPerValueFile) {
  Options o = wholefile_options();
  o.recipients = {parse_recipient_spec("gpg:" + alice_)};
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPerValue, true);
  Config c = Config::open(file, o);
  EXPECT_TRUE(c.whole_file());
  EXPECT_EQ(c.scheme(), Scheme::kPerValue);
  EXPECT_EQ(c.keys().find("db/password")->value, "hunter2");
  // The inner file is a per-value file: gpg alone shows tokens, not the password.
  auto inner = home_->gpg({"--decrypt"}, file);
  EXPECT_NE(inner.out.find("password = ENC:cc1:"), std::string::npos) << inner.out;
}

// ---- gpg failing ------------------------------------------------------------------------------

// A "gpg" that hangs: a script that records its pid and the pid of the sleep it starts, then
// waits. Returns its path.
std::string make_hanging_gpg(const std::string& dir) {
  std::string path = dir + "/hanging-gpg";
  cctest::write(path, "#!/bin/sh\necho $$ > " + dir + "/gpg.pid\nsleep 300 &\necho $! > " + dir +
                          "/sleep.pid\nwait\n");
  chmod(path.c_str(), 0700);
  return path;
}

// Whether the process is dead: gone, or a zombie its new parent has not reaped yet. SIGKILL is
// delivered at once but a process dies asynchronously: up to 10 s (never that long in practice).
bool process_gone(const std::string& pid_file) {
  const std::string pid = cctest::read(pid_file);
  for (int i = 0; i < 1000; ++i) {
    if (kill(pid_t(std::stol(pid)), 0) != 0 && errno == ESRCH) return true;
    std::string stat;
    try {
      stat = cctest::read("/proc/" + pid.substr(0, pid.find('\n')) + "/stat");
    } catch (const Error&) {
      return true;
    }
    size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z')
      return true;
    usleep(10000);
  }
  return false;
}

TEST_F(GpgTest, AHangingGpgIsStoppedAfterTheTimeout) {
  Options o = wholefile_options();
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPlain, true);
  o.gpg.program = make_hanging_gpg(dir_);
  o.gpg.timeout_seconds = 0.5;
  try {
    Config::open(file, o);
    FAIL() << "opened through a gpg that never answers";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status(), Status::kGpg);
    EXPECT_NE(std::string(f.what()).find("did not finish within 0.5 s"), std::string::npos)
        << f.what();
  }
  // The script and what it started are gone (its process group was killed and reaped).
  EXPECT_TRUE(process_gone(dir_ + "/gpg.pid"));
  EXPECT_TRUE(process_gone(dir_ + "/sleep.pid"));

  // A gpg recipient of a per-value file: a hang is a gpg failure, not "no key here".
  Options pv = wholefile_options();
  pv.recipients = {parse_recipient_spec("gpg:" + alice_)};
  std::string per_value = save(Config::open(kIni, pv).keys(), pv, Scheme::kPerValue);
  pv.gpg.program = o.gpg.program;
  pv.gpg.timeout_seconds = 0.5;
  EXPECT_EQ(status_of([&] { Config::open(per_value, pv); }), Status::kGpg);
}

TEST_F(GpgTest, AGpgThatFailsWithoutAWordIsAGpgFailure) {
  Options o = wholefile_options();
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPlain, true);
  o.gpg.program = "/bin/false";
  try {
    Config::open(file, o);
    FAIL() << "opened through /bin/false";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status(), Status::kGpg) << f.what();
    EXPECT_NE(std::string(f.what()).find("'/bin/false' failed (exit status 1)"), std::string::npos)
        << f.what();
  }
  Options pv = wholefile_options();
  pv.recipients = {parse_recipient_spec("gpg:" + alice_)};
  std::string per_value = save(Config::open(kIni, pv).keys(), pv, Scheme::kPerValue);
  pv.gpg.program = "/bin/false";
  EXPECT_EQ(status_of([&] { Config::open(per_value, pv); }), Status::kGpg);
}

TEST_F(GpgTest, OneChangedCharacterOfTheArmourIsModified) {
  Options o = wholefile_options();
  std::string file = save(Config::open(kIni, o).keys(), o, Scheme::kPlain, true);
  ASSERT_EQ(file.rfind("-----BEGIN PGP MESSAGE-----", 0), 0u);
  ASSERT_EQ(open_status(file, {alice_}), Status::kOk);
  // Every character of the first Base64 lines, changed to another Base64 character: gpg alone
  // says "CRC error" on stderr and nothing on its status descriptor (exit 4 before).
  size_t body = file.find("\n\n") + 2;
  size_t checked = 0;
  for (size_t at = body; at < body + 200 && file[at] != '='; ++at) {
    if (file[at] == '\n') continue;
    std::string changed = file;
    changed[at] = file[at] == 'A' ? 'B' : 'A';
    EXPECT_EQ(open_status(changed, {alice_}), Status::kModified) << "at " << at;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
  // The checksum line itself, and a character that is not Base64.
  size_t sum = file.rfind("\n=") + 2;
  std::string bad_sum = file;
  bad_sum[sum] = file[sum] == 'A' ? 'B' : 'A';
  EXPECT_EQ(open_status(bad_sum, {alice_}), Status::kModified);
  std::string not_b64 = file;
  not_b64[body + 5] = '!';
  EXPECT_EQ(open_status(not_b64, {alice_}), Status::kModified);
}

}  // namespace
}  // namespace confcrypt
