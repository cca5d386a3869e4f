// `confcrypt exec`'s environment: built in one pass, and checked against the kernel's execve()
// limit before the exec (the limit itself is checked against the real kernel here).
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confcrypt/errors.hpp"
#include "confcrypt/exec_env.hpp"
#include "test_env.hpp"

namespace confcrypt {
namespace {

KeySet keys_of(const std::vector<std::pair<std::string, std::string>>& kv) {
  KeySet k;
  for (const auto& [path, value] : kv) k.set(path, value);
  return k;
}

TEST(ExecEnv, KeysReplaceBaseVariablesInPlaceAndNewOnesFollowInFileOrder) {
  std::vector<std::string> base = {"PATH=/bin", "DB_PASSWORD=old", "HOME=/root"};
  auto env =
      exec_environment(base, keys_of({{"db/password", "new"}, {"api/token", "t"}}), "ini", "");
  EXPECT_EQ(
      env, (std::vector<std::string>{"PATH=/bin", "DB_PASSWORD=new", "HOME=/root", "API_TOKEN=t"}));
  auto dotenv = exec_environment({}, keys_of({{"lower", "x"}, {"9x", "y"}}), "dotenv", "APP_");
  EXPECT_EQ(dotenv, (std::vector<std::string>{"APP_lower=x", "APP_9x=y"}));
}

TEST(ExecEnv, TwoKeysForOneVariableOrANulByteAreRefused) {
  try {
    exec_environment({}, keys_of({{"db/pass-word", "a"}, {"db/pass_word", "b"}}), "ini", "");
    FAIL() << "no error";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status(), Status::kUsage);
    EXPECT_STREQ(f.what(),
                 "keys 'db/pass-word' and 'db/pass_word' both map to the variable "
                 "DB_PASS_WORD");
  }
  try {
    exec_environment({}, keys_of({{"k", std::string("a\0b", 3)}}), "ini", "");
    FAIL() << "no error";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status(), Status::kUsage);
  }
}

TEST(ExecEnv, AHundredThousandKeysAreOneMapInsertEach) {
  // The environment is built in one pass: every key is in it once, in file order, after the base.
  KeySet keys;
  for (int i = 0; i < 100000; ++i) {
    Key k;
    k.path = "K" + std::to_string(i);
    k.value = "v";
    keys.keys().push_back(std::move(k));
  }
  auto env = exec_environment({"PATH=/bin"}, keys, "dotenv", "");
  ASSERT_EQ(env.size(), 100001u);
  EXPECT_EQ(env[1], "K0=v");
  EXPECT_EQ(env[100000], "K99999=v");
}

TEST(ExecEnv, TheLimitsAreTheKernels) {
  ExecLimits l = exec_limits();
  EXPECT_EQ(l.one_string, 32u * size_t(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(l.total, std::min(size_t(sysconf(_SC_ARG_MAX)), size_t(6) << 20));
}

// Runs /bin/true through execve() in a child with `env`; returns the child's errno from execve
// (0 when the exec happened).
int exec_true(const std::vector<std::string>& env) {
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  char arg0[] = "/bin/true";
  char* argv[] = {arg0, nullptr};
  pid_t pid = fork();
  if (pid == 0) {
    execve("/bin/true", argv, envp.data());
    _exit(errno == E2BIG ? 100 : 101);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return -1;
  int code = WEXITSTATUS(status);
  return code == 0 ? 0 : code == 100 ? E2BIG : -code;
}

// An environment of 1,000-byte variables whose exec_size is `target` (to within one variable's
// pointer and NUL).
std::vector<std::string> env_of_size(size_t target) {
  std::vector<std::string> env;
  const std::vector<std::string> argv = {"/bin/true"};
  while (exec_size("/bin/true", argv, env) + 1000 < target) {
    env.push_back("V" + std::to_string(env.size()) + "=" + std::string(990, 'x'));
  }
  size_t rest = target - exec_size("/bin/true", argv, env);
  if (rest > 16) env.push_back("R=" + std::string(rest - 3 - sizeof(char*), 'y'));
  return env;
}

TEST(ExecEnv, CheckAgreesWithTheRealExecve) {
  ExecLimits l = exec_limits();
  auto under = env_of_size(l.total - 64);
  auto over = env_of_size(l.total + 64);
  EXPECT_NO_THROW(check_exec_size("/bin/true", {"/bin/true"}, under, l));
  EXPECT_EQ(exec_true(under), 0);
  EXPECT_THROW(check_exec_size("/bin/true", {"/bin/true"}, over, l), Failure);
  EXPECT_EQ(exec_true(over), E2BIG);
  // One string: 32 pages with its NUL is the most the kernel takes.
  std::string just = "X=" + std::string(l.one_string - 3, 'z');
  std::string one_more = just + "z";
  EXPECT_NO_THROW(check_exec_size("/bin/true", {"/bin/true"}, {just}, l));
  EXPECT_EQ(exec_true({just}), 0);
  try {
    check_exec_size("/bin/true", {"/bin/true"}, {one_more}, l);
    FAIL() << "no error";
  } catch (const Failure& f) {
    EXPECT_EQ(f.status(), Status::kTooLarge);
    EXPECT_NE(std::string(f.what()).find("the variable X is"), std::string::npos) << f.what();
  }
  EXPECT_EQ(exec_true({one_more}), E2BIG);
}

}  // namespace
}  // namespace confcrypt
