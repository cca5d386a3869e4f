// The protocol's parsing and error paths, in process and through the real runner executable.
#include "cryptobench/protocol.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

namespace cb {
namespace {

using nlohmann::json;

std::string spec_error(const json& doc) {
  try {
    parse_spec(doc);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

json good_case() {
  return {{"id", "a"},
          {"provider", "openssl"},
          {"operation", "encrypt"},
          {"algorithm", "aes-256-cbc"},
          {"size", 64}};
}

TEST(Spec, AcceptsArrayAndObjectWithDefaults) {
  EXPECT_EQ(parse_spec(json::array({good_case()})).size(), 1u);
  json doc = {
      {"schema", 1},
      {"defaults", {{"provider", "openssl"}, {"samples", 5}}},
      {"cases",
       json::array({{{"id", "x"}, {"operation", "hash"}, {"algorithm", "sha256"}, {"size", 16}}})}};
  auto specs = parse_spec(doc);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].provider, "openssl");
  EXPECT_EQ(specs[0].samples, 5u);
  EXPECT_EQ(specs[0].input, "random");
}

TEST(Spec, ErrorsNameTheBadField) {
  auto with = [](const char* field, json value) {
    json c = good_case();
    c[field] = value;
    return json::array({c});
  };
  EXPECT_EQ(spec_error(with("size", -1)), "cases[0].size: must be a non-negative integer");
  EXPECT_EQ(spec_error(with("size", "big")), "cases[0].size: must be a non-negative integer");
  EXPECT_NE(spec_error(with("size", 65)).find("cases[0].size: aes-256-cbc needs"),
            std::string::npos);
  EXPECT_NE(spec_error(with("algorithm", "aes-257-gcm")).find("cases[0].algorithm: unknown"),
            std::string::npos);
  EXPECT_NE(spec_error(with("provider", "nosuchlib")).find("cases[0].provider: unknown"),
            std::string::npos);
  EXPECT_NE(spec_error(with("operation", "hash")).find("cases[0].operation: hash does not apply"),
            std::string::npos);
  EXPECT_EQ(spec_error(with("colour", "red")), "cases[0].colour: unknown field");
  EXPECT_EQ(spec_error(with("input", "noise")), "cases[0].input: must be random, zeros or text");
  EXPECT_EQ(spec_error(with("align_offset", 64)),
            "cases[0].align_offset: must be between 0 and 63");
  EXPECT_EQ(spec_error(with("agreement", 1)), "cases[0].agreement: must be true or false");
  json missing = good_case();
  missing.erase("id");
  EXPECT_EQ(spec_error(json::array({missing})), "cases[0].id: missing");
  EXPECT_EQ(spec_error(json::array({good_case(), good_case()})), "cases[1].id: duplicate id 'a'");
  EXPECT_EQ(spec_error({{"schema", 9}, {"cases", json::array()}}),
            "schema: this runner speaks schema 1");
  EXPECT_EQ(spec_error(json(3)), "cases: must be an array");
}

TEST(Serve, AnswersAgreementAndCrossCheckRequests) {
  // The digest is SHA-256 of 64 zero bytes.
  const json spec = {{"id", "x"},
                     {"provider", "openssl"},
                     {"operation", "hash"},
                     {"algorithm", "sha256"},
                     {"size", 64}};
  const json material = {{"input", std::string(128, '0')}};
  const json agree = {{"cmd", "agreement"}, {"case", spec}, {"material", material}};
  json check = {{"cmd", "cross_check"}, {"case", spec}, {"material", material}};
  check["peers"] = {{"gcrypt/default", {{"digest", "00"}}}};
  std::istringstream in(agree.dump() + "\n" + check.dump() + "\n" +
                        R"({"cmd":"agreement","case":{"id":"y"}})" + "\n");
  std::ostringstream out;
  EXPECT_EQ(command_serve(in, out, -1), 0);
  std::istringstream lines(out.str());
  std::vector<json> msgs;
  for (std::string line; std::getline(lines, line);) msgs.push_back(json::parse(line));
  ASSERT_EQ(msgs.size(), 5u) << out.str();
  EXPECT_EQ(msgs[1]["type"], "agreement");
  EXPECT_EQ(msgs[1]["id"], "x");
  EXPECT_EQ(msgs[1]["status"], "ok") << msgs[1].dump();
  EXPECT_EQ(msgs[1]["kat"]["ok"], true) << msgs[1].dump();
  EXPECT_EQ(msgs[1]["artifacts"]["digest"],
            "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b");
  EXPECT_EQ(msgs[2]["type"], "cross_check");
  // Digests are compared by equality by the coordinator: not checked here.
  EXPECT_TRUE(msgs[2]["verdicts"]["gcrypt/default"]["ok"].is_null()) << msgs[2].dump();
  EXPECT_EQ(msgs[3]["type"], "error");  // a malformed request; the session goes on
  EXPECT_EQ(msgs[4]["type"], "done");
}

TEST(Serve, OpenSampleCloseAndErrorsKeepTheSessionAlive) {
  json open_req = {{"cmd", "open"}, {"case", good_case()}};
  open_req["case"]["target_sample_ms"] = 0.05;
  open_req["case"]["warmup_ms"] = 0;
  std::istringstream in(open_req.dump() + "\n" + "this is not json\n" +
                        R"({"cmd":"sample","id":"a","count":3})" + "\n" +
                        R"({"cmd":"sample","id":"nope"})" + "\n" + R"({"cmd":"close","id":"a"})" +
                        "\n" + R"({"cmd":"quit"})" + "\n");
  std::ostringstream out;
  EXPECT_EQ(command_serve(in, out, -1), 0);
  std::istringstream lines(out.str());
  std::vector<json> msgs;
  for (std::string line; std::getline(lines, line);) msgs.push_back(json::parse(line));
  ASSERT_EQ(msgs.size(), 7u) << out.str();
  EXPECT_EQ(msgs[0]["type"], "hello");
  EXPECT_EQ(msgs[1]["type"], "case");
  EXPECT_EQ(msgs[1]["status"], "ok") << msgs[1].dump();
  EXPECT_EQ(msgs[2]["type"], "error");
  EXPECT_EQ(msgs[3]["type"], "samples");
  EXPECT_EQ(msgs[3]["samples"].size(), 3u);
  EXPECT_EQ(msgs[4]["type"], "error");
  EXPECT_EQ(msgs[5]["type"], "result");
  EXPECT_EQ(msgs[5]["summary"]["n"], 3);
  EXPECT_GT(msgs[5]["summary"]["bytes_per_s"].get<double>(), 0);
  EXPECT_EQ(msgs[6]["type"], "done");
  EXPECT_EQ(msgs[6]["ok"], 1);
}

struct Output {
  int status;
  std::string out;
};

Output run_runner(const std::string& args, const std::string& stdin_text = "") {
  const std::string cmd = std::string("printf '%s' '") + stdin_text + "' | " + CB_RUNNER_PATH +
                          " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

TEST(Runner, BadSpecGivesOneErrorLineAndExitTwo) {
  Output o = run_runner("run", R"([{"id":"a","provider":"openssl","operation":"encrypt",)"
                               R"("algorithm":"aes-256-gcm","size":"x"}])");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(json::parse(o.out)["message"], "cases[0].size: must be a non-negative integer");
  o = run_runner("run", "{not json");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("spec is not valid JSON"), std::string::npos);
}

TEST(Runner, BadCommandLineExitsTwo) {
  EXPECT_EQ(run_runner("frobnicate").status, 2);
  EXPECT_EQ(run_runner("run --cpu x").status, 2);
  EXPECT_EQ(run_runner("list --variant openssl=turbo").status, 2);
  EXPECT_EQ(run_runner("list --variant nosuch=soft").status, 2);
  EXPECT_EQ(run_runner("run --spec /nonexistent/spec.json").status, 2);
}

TEST(Runner, SoftVariantChangesOpenSslCapabilityVector) {
  auto cap = [](const std::string& args) {
    json caps = json::parse(run_runner("list " + args).out);
    for (const auto& p : caps["providers"])
      if (p["name"] == "openssl") return std::make_pair(p["variant"], p["code_path"]);
    return std::make_pair(json(), json());
  };
  auto [v_default, path_default] = cap("");
  auto [v_soft, path_soft] = cap("--variant openssl=soft");
  EXPECT_EQ(v_default, "default");
  EXPECT_EQ(v_soft, "soft");
  EXPECT_EQ(path_soft["ia32cap_env"], "~0x200000200000000");
  EXPECT_NE(path_default["ia32cap"], path_soft["ia32cap"]);
  // Bit 57 of the first word is AES-NI: set by default on this CPU family, cleared when soft.
  auto aesni = [](const json& path) {
    const std::string s = path["ia32cap"];
    return (std::stoull(s.substr(0, s.find(':')), nullptr, 16) >> 57) & 1;
  };
  EXPECT_EQ(aesni(path_soft), 0u);
}

TEST(Runner, MachineRecordNamesEveryLibraryVersion) {
  json caps = json::parse(run_runner("list").out);
  const json& m = caps["machine"];
  for (const char* key : {"cpu_model", "cpu_flags", "cores", "kernel", "compiler", "tsc_hz"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_GT(m["tsc_hz"].get<double>(), 0);
  for (const auto& p : caps["providers"])
    EXPECT_EQ(m["libraries"][p["name"].get<std::string>()], p["version"]) << p["name"];
}

TEST(Runner, SharedSwitchMarksTheOtherProviderUnusable) {
  // gnutls/soft sets NETTLE_FAT_OVERRIDE=none (GnuTLS falls back to Nettle), which would silently
  // put nettle on its software path while it is labelled "default".
  json caps = json::parse(run_runner("list --variant gnutls=soft").out);
  std::map<std::string, json> by_name;
  for (const auto& p : caps["providers"]) by_name[p["name"]] = p;
  if (!by_name.count("gnutls") || !by_name.count("nettle"))
    GTEST_SKIP() << "needs the gnutls and nettle adapters";
  EXPECT_FALSE(by_name["gnutls"].contains("unusable"));
  ASSERT_TRUE(by_name["nettle"].contains("unusable"));
  EXPECT_NE(by_name["nettle"]["unusable"].get<std::string>().find("NETTLE_FAT_OVERRIDE"),
            std::string::npos);
  Output o = run_runner("run --no-pin --variant gnutls=soft",
                        R"([{"id":"n","provider":"nettle","operation":"hash",)"
                        R"("algorithm":"sha256","size":64}])");
  EXPECT_NE(o.out.find(R"("status":"unsupported")"), std::string::npos) << o.out;
}

TEST(Runner, RunProducesResultsWithSamplesAndSummary) {
  Output o = run_runner(
      "run --no-pin",
      R"({"defaults":{"samples":3,"target_sample_ms":0.2,"warmup_ms":1,"provider":"openssl"},)"
      R"("cases":[{"id":"a","operation":"hash","algorithm":"sha256","size":1024},)"
      R"({"id":"b","operation":"encrypt","algorithm":"salsa20","size":64}]})");
  EXPECT_EQ(o.status, 0) << o.out;
  std::istringstream lines(o.out);
  std::map<std::string, json> results;
  json done;
  for (std::string line; std::getline(lines, line);) {
    json m = json::parse(line);
    if (m["type"] == "result") results[m["id"]] = m;
    if (m["type"] == "done") done = m;
  }
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results["a"]["status"], "ok");
  EXPECT_EQ(results["a"]["samples"].size(), 3u);
  EXPECT_GT(results["a"]["summary"]["median_ns"].get<double>(), 0);
  EXPECT_EQ(results["b"]["status"], "unsupported");
  EXPECT_FALSE(results["b"].contains("samples"));
  EXPECT_EQ(done["cases"], 2);
}

TEST(Runner, ResultsRecordTheLayoutTheTimedCheckAndTheCaseMemory) {
  Output o = run_runner(
      "run --no-pin",
      R"({"defaults":{"samples":2,"target_sample_ms":0.2,"warmup_ms":1,"provider":"openssl",)"
      R"("operation":"encrypt","algorithm":"aes-128-ctr","size":4096},)"
      R"("cases":[{"id":"in"},{"id":"out","inplace":false}]})");
  EXPECT_EQ(o.status, 0) << o.out;
  std::istringstream lines(o.out);
  std::map<std::string, json> results;
  for (std::string line; std::getline(lines, line);) {
    json m = json::parse(line);
    if (m["type"] == "result") results[m["id"]] = m;
  }
  ASSERT_EQ(results.size(), 2u);
  const json& in = results["in"];
  ASSERT_EQ(in["status"], "ok") << in.dump();
  EXPECT_EQ(in["inplace"], true);
  EXPECT_EQ(in["layout"]["inplace"], true);
  EXPECT_EQ(in["layout"]["distance"], 0);
  EXPECT_EQ(results["out"]["layout"]["inplace"], false);
  EXPECT_EQ(results["out"]["layout"]["distance"].get<uint64_t>() % 4096, 2048u);
  EXPECT_EQ(in["gate"]["timed"], "output equals the gated instance's; canaries intact");
  for (const char* k : {"mmaps_per_op", "minor_faults_per_op", "rss_before_kb", "rss_peak_kb"})
    EXPECT_TRUE(in["heap"].contains(k)) << k;
  EXPECT_GT(in["clock"]["ghz_open"].get<double>(), 0);
}

// Through serve, as the coordinator drives it: the gate passes, the timed instance goes wrong
// after 200 operations, and the result at close says so.
TEST(Serve, ACaseWhoseTimedInstanceGoesWrongClosesAsFailed) {
  setenv("CRYPTOBENCH_TEST_PROVIDERS", "1", 1);
  Output o = run_runner(
      "serve --no-pin --variant fault=drift",
      R"({"cmd":"open","case":{"id":"d","provider":"fault","operation":"hash",)"
      R"("algorithm":"sha256","size":1024,"samples":2,"target_sample_ms":0.2,"warmup_ms":0.2,)"
      R"("agreement":false}})"
      "\n"
      R"({"cmd":"sample","id":"d","count":1})"
      "\n"
      R"({"cmd":"close","id":"d"})"
      "\n");
  unsetenv("CRYPTOBENCH_TEST_PROVIDERS");
  std::istringstream lines(o.out);
  json result;
  for (std::string line; std::getline(lines, line);)
    if (json m = json::parse(line); m["type"] == "result") result = m;
  ASSERT_FALSE(result.is_null()) << o.out;
  EXPECT_EQ(result["status"], "failed");
  EXPECT_NE(result["reason"].get<std::string>().find("check of the timed instance"),
            std::string::npos)
      << result.dump();
  EXPECT_EQ(result["gate"]["timed"], "failed");
}

TEST(Spec, InplaceIsABoolean) {
  json c = good_case();
  c["inplace"] = false;
  EXPECT_FALSE(parse_spec(json::array({c}))[0].inplace);
  EXPECT_TRUE(parse_spec(json::array({good_case()}))[0].inplace);
  c["inplace"] = "no";
  EXPECT_EQ(spec_error(json::array({c})), "cases[0].inplace: must be true or false");
}

}  // namespace
}  // namespace cb
