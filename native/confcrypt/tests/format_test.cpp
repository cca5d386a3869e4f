// Storage formats and atomic writes, on real files in a temporary directory.
#include "confcrypt/format.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "confcrypt/io.hpp"
#include "confcrypt/keyset.hpp"

namespace fs = std::filesystem;
using confcrypt::Document;
using confcrypt::Error;
using confcrypt::FormatError;
using confcrypt::ValueType;

namespace {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/confcrypt-test-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename());
    return out;
  }

 private:
  std::string path_;
};

std::vector<std::string> split_keep(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    size_t end = nl == std::string::npos ? s.size() : nl + 1;
    out.push_back(s.substr(start, end - start));
    start = end;
  }
  return out;
}

// The lines of `after` that differ from `before` (same number of lines expected).
std::vector<size_t> changed_lines(const std::string& before, const std::string& after) {
  auto a = split_keep(before), b = split_keep(after);
  EXPECT_EQ(a.size(), b.size());
  std::vector<size_t> diff;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) diff.push_back(i + 1);
  }
  return diff;
}

// Writes `text` to a real file, reads it back and parses it.
std::unique_ptr<Document> load(const TempDir& dir, const std::string& name,
                               const std::string& text) {
  std::string path = dir.file(name);
  confcrypt::write_file_atomic(path, text);
  auto fmt = confcrypt::format_for_path(path);
  return fmt->parse(confcrypt::read_file(path), path);
}

// Emits, writes through the atomic writer, reads back.
std::string save(const TempDir& dir, const std::string& name, const Document& doc) {
  std::string path = dir.file(name);
  confcrypt::write_file_atomic(path, doc.emit());
  return confcrypt::read_file(path);
}

size_t format_error_line(const std::string& format, const std::string& text) {
  try {
    confcrypt::format_by_name(format)->parse(text, "test." + format);
  } catch (const FormatError& e) {
    return e.line();
  }
  ADD_FAILURE() << "no FormatError for:\n" << text;
  return 0;
}

// ---------------------------------------------------------------------------------------------
// INI

const char kIni[] =
    "#@CONFCRYPT v1 opaque-header-text\n"
    "; application settings\n"
    "top   =  level value  \n"
    "\n"
    "# the database\n"
    "[database]\n"
    "host=db.example.org\n"
    "  port\t=\t5432   ; not a comment: INI values are kept as they are\n"
    "#@META crypto/encrypt = 1\n"
    "password = @BASE64IyFjcnlwdG8wMBEAAAD\n"
    "empty =\n"
    "\n"
    "[ server ]\n"
    "   name = \"quoted stays quoted\"\n"
    "url = http://x/?a=b\n"
    "\n"
    "; trailing comment\n";

TEST(Ini, UnchangedIsByteIdentical) {
  TempDir dir;
  for (std::string text :
       {std::string(kIni), std::string(kIni) + "last = no newline",
        std::string("\xEF\xBB\xBF") + kIni, std::string(), std::string("\n\n")}) {
    auto doc = load(dir, "a.ini", text);
    EXPECT_EQ(save(dir, "a.ini", *doc), text);
  }
}

TEST(Ini, CrlfIsByteIdentical) {
  TempDir dir;
  std::string crlf;
  for (char c : std::string(kIni)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto doc = load(dir, "crlf.ini", crlf);
  EXPECT_EQ(doc->keys().find("database/host")->value, "db.example.org");
  EXPECT_EQ(save(dir, "crlf.ini", *doc), crlf);
  doc->keys().set("database/new", "x");
  doc->keys().set("fresh/k", "v");
  std::string out = doc->emit();
  EXPECT_EQ(out.find("\n"), out.find("\r\n") + 1);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '\n') {
      EXPECT_EQ(out[i - 1], '\r') << "bare LF at " << i;
    }
  }
}

TEST(Ini, KeysPathsAndMeta) {
  TempDir dir;
  auto doc = load(dir, "a.ini", kIni);
  const auto& ks = doc->keys();
  ASSERT_EQ(ks.size(), 7u);
  EXPECT_EQ(ks.keys()[0].path, "top");
  EXPECT_EQ(ks.keys()[0].value, "level value");
  EXPECT_EQ(ks.find("database/port")->value,
            "5432   ; not a comment: INI values are kept as they are");
  EXPECT_EQ(ks.find("database/password")->meta.at("crypto/encrypt"), "1");
  EXPECT_TRUE(ks.find("database/host")->meta.empty());
  EXPECT_EQ(ks.find("database/empty")->value, "");
  EXPECT_EQ(ks.find("server/name")->value, "\"quoted stays quoted\"");
  EXPECT_EQ(ks.find("server/url")->value, "http://x/?a=b");
  EXPECT_EQ(doc->header().value(), "v1 opaque-header-text");
}

TEST(Ini, ChangeOneValueChangesOneLine) {
  TempDir dir;
  auto doc = load(dir, "a.ini", kIni);
  doc->keys().set("database/port", "6543");
  std::string out = save(dir, "a.ini", *doc);
  EXPECT_EQ(changed_lines(kIni, out), std::vector<size_t>{8});
  EXPECT_NE(out.find("  port\t=\t6543\n"), std::string::npos);

  doc = load(dir, "b.ini", kIni);
  doc->keys().set("database/password", "ENC[new]");
  out = save(dir, "b.ini", *doc);
  EXPECT_EQ(changed_lines(kIni, out), std::vector<size_t>{10});
  EXPECT_NE(out.find("#@META crypto/encrypt = 1\npassword = ENC[new]\n"), std::string::npos);

  doc = load(dir, "c.ini", kIni);
  doc->keys().set("database/empty", "now set");
  out = save(dir, "c.ini", *doc);
  EXPECT_EQ(changed_lines(kIni, out), std::vector<size_t>{11});
  EXPECT_NE(out.find("\nempty = now set\n"), std::string::npos);
}

TEST(Ini, AddAndRemoveKeys) {
  TempDir dir;
  auto doc = load(dir, "a.ini", kIni);
  auto& ks = doc->keys();
  ks.set("database/user", "admin").meta["crypto/encrypt"] = "1";
  ks.set("server/port", "8080");
  ks.set("global2", "g");
  ks.set("cache/size", "64");
  EXPECT_TRUE(ks.remove("database/password"));
  EXPECT_TRUE(ks.remove("server/url"));
  std::string out = save(dir, "a.ini", *doc);
  EXPECT_EQ(out,
            "#@CONFCRYPT v1 opaque-header-text\n"
            "; application settings\n"
            "top   =  level value  \n"
            "global2 = g\n"
            "\n"
            "# the database\n"
            "[database]\n"
            "host=db.example.org\n"
            "  port\t=\t5432   ; not a comment: INI values are kept as they are\n"
            "empty =\n"
            "#@META crypto/encrypt = 1\n"
            "user = admin\n"
            "\n"
            "[ server ]\n"
            "   name = \"quoted stays quoted\"\n"
            "port = 8080\n"
            "\n"
            "; trailing comment\n"
            "\n"
            "[cache]\n"
            "size = 64\n");
  // What was written reads back as the same key set.
  auto again = load(dir, "again.ini", out);
  ASSERT_EQ(again->keys().size(), ks.size());
  for (const auto& k : ks.keys()) {
    const auto* r = again->keys().find(k.path);
    ASSERT_NE(r, nullptr) << k.path;
    EXPECT_EQ(r->value, k.value);
    EXPECT_EQ(r->meta, k.meta);
  }
}

TEST(Ini, GlobalKeyGoesBeforeTheFirstSectionsComments) {
  TempDir dir;
  auto doc = load(dir, "a.ini", "# file\n\n# about s\n[s]\na = 1\n");
  doc->keys().set("g", "2");
  doc->keys().set("s/b", "3");
  EXPECT_EQ(doc->emit(), "# file\n\ng = 2\n# about s\n[s]\na = 1\nb = 3\n");
}

TEST(Ini, NoTrailingNewlineStaysAbsent) {
  TempDir dir;
  auto doc = load(dir, "a.ini", "[s]\na = 1");
  doc->keys().set("s/b", "2");
  EXPECT_EQ(save(dir, "a.ini", *doc), "[s]\na = 1\nb = 2");
  doc = load(dir, "b.ini", "");
  doc->keys().set("s/b", "2");
  doc->keys().set("x", "1");
  EXPECT_EQ(doc->emit(), "x = 1\n\n[s]\nb = 2\n");
}

TEST(Ini, MetaFollowsTheKey) {
  TempDir dir;
  auto doc = load(dir, "a.ini", kIni);
  doc->keys().find("database/host")->meta["crypto/encrypt"] = "1";
  doc->keys().find("database/password")->meta.erase("crypto/encrypt");
  std::string out = doc->emit();
  EXPECT_NE(out.find("[database]\n#@META crypto/encrypt = 1\nhost=db.example.org\n"),
            std::string::npos);
  EXPECT_NE(out.find("are\npassword = @BASE64"), std::string::npos);
  EXPECT_EQ(split_keep(out).size(), split_keep(kIni).size());
  // Internal and JSON-only metadata never reach the file.
  doc = load(dir, "b.ini", "a = 1\n");
  doc->keys().find("a")->meta["internal/x"] = "y";
  doc->keys().find("a")->meta["json/literal"] = "1";
  EXPECT_EQ(doc->emit(), "a = 1\n");
}

TEST(Ini, Header) {
  TempDir dir;
  auto doc = load(dir, "a.ini", kIni);
  doc->set_header(std::string("v1 changed"));
  std::string out = doc->emit();
  EXPECT_EQ(changed_lines(kIni, out), std::vector<size_t>{1});
  doc->set_header(std::nullopt);
  EXPECT_EQ(doc->emit().find("#@CONFCRYPT"), std::string::npos);

  doc = load(dir, "b.ini", "\xEF\xBB\xBF[s]\na = 1\n");
  EXPECT_FALSE(doc->header());
  doc->set_header(std::string("new"));
  out = save(dir, "b.ini", *doc);
  EXPECT_EQ(out, "\xEF\xBB\xBF#@CONFCRYPT new\n[s]\na = 1\n");
  EXPECT_EQ(load(dir, "b.ini", out)->header().value(), "new");
  // The header is the first line, exactly "#@CONFCRYPT <text>" (docs/confcrypt.md).
  EXPECT_THROW(load(dir, "c.ini", "[s]\n#@CONFCRYPT x\na = 1\n"), FormatError);
  EXPECT_THROW(load(dir, "c.ini", "#@CONFCRYPT x \n[s]\n"), FormatError);
  EXPECT_THROW(load(dir, "c.ini", " #@CONFCRYPT x\n[s]\n"), FormatError);
  EXPECT_THROW(doc->set_header(std::string("two\nlines")), Error);
}

TEST(Ini, SlashesInNamesAreEscapedInPaths) {
  TempDir dir;
  auto doc = load(dir, "a.ini", "[a/b]\nc~d = 1\n");
  EXPECT_EQ(doc->keys().keys()[0].path, "a~1b/c~0d");
  EXPECT_EQ(confcrypt::split_path("a~1b/c~0d"), (std::vector<std::string>{"a/b", "c~d"}));
  doc->keys().set("a~1b/e", "2");
  EXPECT_EQ(doc->emit(), "[a/b]\nc~d = 1\ne = 2\n");
}

TEST(Ini, Unrepresentable) {
  TempDir dir;
  auto doc = load(dir, "a.ini", kIni);
  doc->keys().set("database/host", "two\nlines");
  try {
    doc->emit();
    FAIL() << "no error for a line break";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("database/host"), std::string::npos) << e.what();
  }
  doc = load(dir, "b.ini", kIni);
  doc->keys().set("database/host", " padded");
  EXPECT_THROW(doc->emit(), Error);
  doc = load(dir, "c.ini", kIni);
  doc->keys().set("database/host", "x", ValueType::Binary);
  EXPECT_THROW(doc->emit(), Error);
  doc = load(dir, "d.ini", kIni);
  doc->keys().set("a/b/c", "x");
  EXPECT_THROW(doc->emit(), Error);
  doc = load(dir, "e.ini", kIni);
  doc->keys().set("bad=name", "x");
  EXPECT_THROW(doc->emit(), Error);
}

TEST(Ini, MalformedGivesLineNumbers) {
  EXPECT_EQ(format_error_line("ini", "a = 1\n[broken\n"), 2u);
  EXPECT_EQ(format_error_line("ini", "[s]\n\njust words\n"), 3u);
  EXPECT_EQ(format_error_line("ini", "[s]\n = value\n"), 2u);
  EXPECT_EQ(format_error_line("ini", "[]\n"), 1u);
  EXPECT_EQ(format_error_line("ini", "[s]\na = 1\nb = 2\na = 3\n"), 4u);
  EXPECT_EQ(format_error_line("ini", "[s]\n#@META crypto/encrypt = 1\n\na = 1\n"), 2u);
  EXPECT_EQ(format_error_line("ini", "[s]\na = 1\n#@META crypto/encrypt = 1\n"), 3u);
  EXPECT_EQ(format_error_line("ini", "#@META crypto/encrypt\na = 1\n"), 1u);
  EXPECT_EQ(format_error_line("ini", "#@CONFCRYPT a\n#@CONFCRYPT b\n"), 2u);
  try {
    confcrypt::format_by_name("ini")->parse("x\n", "conf/app.ini");
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("conf/app.ini:1: ", 0), 0u) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// JSON

const char kJson[] =
    "{\n"
    "  \"#confcrypt\": \"v1 header\",\n"
    "  \"db\" : {\n"
    "    \"host\":\"db.example.org\",\n"
    "    \"port\": 5432 ,\n"
    "    \"password\": \"s\\u00e9cret \\\"q\\\"\",\n"
    "    \"ratio\": -1.5e3,\n"
    "    \"tls\": true,\n"
    "    \"proxy\": null\n"
    "  },\n"
    "  \"servers\": [ \"a\", {\"name\": \"b\", \"w/eird~\": 1}, [] ],\n"
    "  \"empty\": {},\n"
    "  \"caf\\u00e9\": \"\xC3\xA9t\xC3\xA9\"\n"
    "}\n";

TEST(Json, UnchangedIsByteIdentical) {
  TempDir dir;
  std::string crlf;
  for (char c : std::string(kJson)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (std::string text : {std::string(kJson), std::string(kJson, sizeof kJson - 2), crlf,
                           std::string("{\"a\":1,\"b\":[1,2,3]}"), std::string(" [ ] "),
                           std::string("\xEF\xBB\xBF{}")}) {
    auto doc = load(dir, "a.json", text);
    EXPECT_EQ(save(dir, "a.json", *doc), text);
  }
}

TEST(Json, KeysPathsAndTypes) {
  TempDir dir;
  auto doc = load(dir, "a.json", kJson);
  const auto& ks = doc->keys();
  std::vector<std::string> paths;
  for (const auto& k : ks.keys()) paths.push_back(k.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"db/host", "db/port", "db/password", "db/ratio",
                                             "db/tls", "db/proxy", "servers/0", "servers/1/name",
                                             "servers/1/w~1eird~0", "caf\xC3\xA9"}));
  EXPECT_EQ(ks.find("db/password")->value,
            "s\xC3\xA9"
            "cret \"q\"");
  EXPECT_EQ(ks.find("db/port")->value, "5432");
  EXPECT_EQ(ks.find("db/port")->type, ValueType::String);
  EXPECT_EQ(ks.find("db/port")->meta.at("json/literal"), "1");
  EXPECT_EQ(ks.find("db/ratio")->value, "-1.5e3");
  EXPECT_EQ(ks.find("db/tls")->value, "true");
  EXPECT_EQ(ks.find("db/proxy")->type, ValueType::Null);
  EXPECT_TRUE(ks.find("db/host")->meta.empty());
  EXPECT_EQ(doc->header().value(), "v1 header");
}

TEST(Json, ChangeOneValueChangesOneLine) {
  TempDir dir;
  auto doc = load(dir, "a.json", kJson);
  doc->keys().set("db/host", "tab\there \"quoted\" back\\slash \x01 \xE2\x82\xAC");
  std::string out = save(dir, "a.json", *doc);
  EXPECT_EQ(changed_lines(kJson, out), std::vector<size_t>{4});
  EXPECT_NE(out.find("\"host\":\"tab\\there \\\"quoted\\\" back\\\\slash \\u0001 \xE2\x82\xAC\","),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(out)["db"]["host"],
            "tab\there \"quoted\" back\\slash \x01 \xE2\x82\xAC");

  // A number stays a bare number while it is one; an encrypted token becomes a string.
  doc = load(dir, "b.json", kJson);
  doc->keys().set("db/port", "6543");
  out = doc->emit();
  EXPECT_EQ(changed_lines(kJson, out), std::vector<size_t>{5});
  EXPECT_NE(out.find("\"port\": 6543 ,"), std::string::npos);
  doc->keys().set("db/port", "ENC[token]");
  doc->keys().set("db/tls", "false");
  doc->keys().set("db/proxy", "now a string");
  out = doc->emit();
  EXPECT_EQ(changed_lines(kJson, out), (std::vector<size_t>{5, 8, 9}));
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["db"]["port"], "ENC[token]");
  EXPECT_EQ(j["db"]["tls"], false);
  EXPECT_EQ(j["db"]["proxy"], "now a string");
  // Dropping the literal flag writes the same text as a string.
  doc->keys().find("db/tls")->meta.clear();
  EXPECT_EQ(nlohmann::json::parse(doc->emit())["db"]["tls"], "false");
  doc->keys().set("db/host", "", ValueType::Null);
  EXPECT_TRUE(nlohmann::json::parse(doc->emit())["db"]["host"].is_null());
}

TEST(Json, AddAndRemoveKeys) {
  TempDir dir;
  auto doc = load(dir, "a.json", kJson);
  auto& ks = doc->keys();
  ks.set("db/user", "admin");
  ks.set("empty/x", "1");
  ks.set("new/deep/key", "v");
  ks.set("new/other", "w");
  ks.set("servers/3", "d");
  ks.set("servers/2/0", "inside");
  EXPECT_TRUE(ks.remove("db/host"));
  EXPECT_TRUE(ks.remove("db/proxy"));
  EXPECT_TRUE(ks.remove("servers/1/w~1eird~0"));
  std::string out = save(dir, "a.json", *doc);
  EXPECT_EQ(out,
            "{\n"
            "  \"#confcrypt\": \"v1 header\",\n"
            "  \"db\" : {\n"
            "    \"port\": 5432 ,\n"
            "    \"password\": \"s\\u00e9cret \\\"q\\\"\",\n"
            "    \"ratio\": -1.5e3,\n"
            "    \"tls\": true,\n"
            "    \"user\":\"admin\"\n"
            "  },\n"
            "  \"servers\": [ \"a\", {\"name\": \"b\"}, [\n"
            "    \"inside\"\n"
            "  ], \"d\" ],\n"
            "  \"empty\": {\n"
            "    \"x\":\"1\"\n"
            "  },\n"
            "  \"caf\\u00e9\": \"\xC3\xA9t\xC3\xA9\",\n"
            "  \"new\":{\n"
            "    \"deep\":{\n"
            "      \"key\":\"v\"\n"
            "    },\n"
            "    \"other\":\"w\"\n"
            "  }\n"
            "}\n");
  auto again = load(dir, "again.json", out);
  ASSERT_EQ(again->keys().size(), ks.size());
  for (const auto& k : ks.keys()) {
    const auto* r = again->keys().find(k.path);
    ASSERT_NE(r, nullptr) << k.path;
    EXPECT_EQ(r->value, k.value) << k.path;
  }
}

TEST(Json, RemoveFirstLastAndAll) {
  TempDir dir;
  auto doc = load(dir, "a.json", "{ \"a\": 1, \"b\": 2, \"c\": 3 }");
  doc->keys().remove("a");
  EXPECT_EQ(doc->emit(), "{ \"b\": 2, \"c\": 3 }");
  doc->keys().remove("c");
  EXPECT_EQ(doc->emit(), "{ \"b\": 2 }");
  doc->keys().remove("b");
  EXPECT_EQ(doc->emit(), "{ }");
  doc = load(dir, "b.json", "{\"l\": [1, 2, 3]}");
  doc->keys().remove("l/2");
  EXPECT_EQ(doc->emit(), "{\"l\": [1, 2]}");
  doc->keys().remove("l/0");
  EXPECT_THROW(doc->emit(), Error);  // would renumber l/1
}

TEST(Json, CompactFilesStayCompact) {
  TempDir dir;
  auto doc = load(dir, "a.json", "{\"a\":{\"b\":1}}");
  doc->keys().set("a/c", "x");
  doc->keys().set("d/e", "y");
  EXPECT_EQ(doc->emit(), "{\"a\":{\"b\":1,\"c\":\"x\"},\"d\":{\"e\":\"y\"}}");
}

TEST(Json, Header) {
  TempDir dir;
  auto doc = load(dir, "a.json", kJson);
  doc->set_header(std::string("v1 \"changed\""));
  std::string out = doc->emit();
  EXPECT_EQ(changed_lines(kJson, out), std::vector<size_t>{2});
  EXPECT_EQ(nlohmann::json::parse(out)["#confcrypt"], "v1 \"changed\"");
  doc->set_header(std::nullopt);
  out = doc->emit();
  EXPECT_EQ(out.find("#confcrypt"), std::string::npos);
  EXPECT_NO_THROW(nlohmann::json::parse(out));

  doc = load(dir, "b.json", "{\n  \"a\": 1\n}\n");
  doc->set_header(std::string("h"));
  out = save(dir, "b.json", *doc);
  EXPECT_EQ(out, "{\n  \"#confcrypt\": \"h\",\n  \"a\": 1\n}\n");
  EXPECT_EQ(load(dir, "b.json", out)->header().value(), "h");
  EXPECT_EQ(load(dir, "b.json", out)->keys().size(), 1u);

  doc = load(dir, "c.json", "{}\n");
  doc->set_header(std::string("h"));
  EXPECT_EQ(doc->emit(), "{\"#confcrypt\":\"h\"}\n");

  doc = load(dir, "d.json", "[1]");
  EXPECT_THROW(doc->set_header(std::string("h")), Error);
  doc = load(dir, "e.json", "{\"a\": 1}");
  doc->keys().set("#confcrypt", "x");
  EXPECT_THROW(doc->emit(), Error);
}

TEST(Json, Unrepresentable) {
  TempDir dir;
  auto doc = load(dir, "a.json", kJson);
  doc->keys().set("db/host", "\xFF\xFE", ValueType::String);
  EXPECT_THROW(doc->emit(), Error);
  doc = load(dir, "b.json", kJson);
  doc->keys().set("db/host", "x", ValueType::Binary);
  EXPECT_THROW(doc->emit(), Error);
  doc = load(dir, "c.json", kJson);
  doc->keys().set("db", "x");  // an object in the file
  EXPECT_THROW(doc->emit(), Error);
  doc = load(dir, "d.json", kJson);
  doc->keys().set("db/host/x", "x");  // below a value
  EXPECT_THROW(doc->emit(), Error);
  doc = load(dir, "e.json", kJson);
  doc->keys().set("servers/7", "x");  // a gap in the array
  EXPECT_THROW(doc->emit(), Error);
}

TEST(Json, MalformedGivesLineNumbers) {
  EXPECT_EQ(format_error_line("json", "{\n  \"a\": 1,\n}\n"), 3u);
  EXPECT_EQ(format_error_line("json", "{\n  \"a\" 1\n}"), 2u);
  EXPECT_EQ(format_error_line("json", "{\n\n  \"a\": \"open\n}"), 3u);
  EXPECT_EQ(format_error_line("json", "{\"a\": 1,\n \"a\": 2}"), 2u);
  EXPECT_EQ(format_error_line("json", "\n\"just a string\""), 2u);
  EXPECT_EQ(format_error_line("json", "{\"a\": \"\\x\"}"), 1u);
  EXPECT_EQ(format_error_line("json", "{\"a\": 01}"), 1u);
  EXPECT_EQ(format_error_line("json", "{\"a\": tru}"), 1u);
  EXPECT_EQ(format_error_line("json", "{\"a\": 1}\n{}"), 2u);
  EXPECT_EQ(format_error_line("json", "{\"a\": \"\\ud800\"}"), 1u);
  EXPECT_EQ(format_error_line("json", "{\"a\": \"\xC3\"}"), 1u);
  EXPECT_EQ(format_error_line("json", "{\n\"#confcrypt\": 1}"), 2u);
  EXPECT_EQ(format_error_line("json", "{\"a\": [1, 2"), 1u);
  EXPECT_EQ(format_error_line("json", std::string(1000, '[') + std::string(1000, ']')), 1u);
}

// ---------------------------------------------------------------------------------------------
// dotenv

const char kEnv[] =
    "#@CONFCRYPT v1 env-header\n"
    "# service credentials\n"
    "export DB_HOST=db.example.org\n"
    "DB_PORT = 5432   # inline comment\n"
    "#@META crypto/encrypt = 1\n"
    "DB_PASSWORD='s3cr3t with spaces'\n"
    "GREETING=\"line one\\nline \\\"two\\\"\"  # escaped\n"
    "MULTI=\"first\n"
    "second\"\n"
    "  EMPTY=\n"
    "HASH=a#b\n"
    "\n";

TEST(Dotenv, UnchangedIsByteIdentical) {
  TempDir dir;
  std::string crlf;
  for (char c : std::string(kEnv)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (std::string text : {std::string(kEnv), std::string(kEnv) + "LAST=1", crlf}) {
    auto doc = load(dir, "app.env", text);
    EXPECT_EQ(save(dir, "app.env", *doc), text);
  }
}

TEST(Dotenv, Values) {
  TempDir dir;
  auto doc = load(dir, ".env", kEnv);
  const auto& ks = doc->keys();
  ASSERT_EQ(ks.size(), 7u);
  EXPECT_EQ(ks.find("DB_HOST")->value, "db.example.org");
  EXPECT_EQ(ks.find("DB_PORT")->value, "5432");
  EXPECT_EQ(ks.find("DB_PASSWORD")->value, "s3cr3t with spaces");
  EXPECT_EQ(ks.find("DB_PASSWORD")->meta.at("crypto/encrypt"), "1");
  EXPECT_EQ(ks.find("GREETING")->value, "line one\nline \"two\"");
  EXPECT_EQ(ks.find("MULTI")->value, "first\nsecond");
  EXPECT_EQ(ks.find("EMPTY")->value, "");
  EXPECT_EQ(ks.find("HASH")->value, "a#b");
  EXPECT_EQ(doc->header().value(), "v1 env-header");
}

TEST(Dotenv, ChangeOneValueChangesOneLine) {
  TempDir dir;
  auto doc = load(dir, ".env", kEnv);
  doc->keys().set("DB_PORT", "6543");
  std::string out = save(dir, ".env", *doc);
  EXPECT_EQ(changed_lines(kEnv, out), std::vector<size_t>{4});
  EXPECT_NE(out.find("\nDB_PORT = 6543   # inline comment\n"), std::string::npos);

  doc = load(dir, ".env", kEnv);
  doc->keys().set("GREETING", "it's");
  doc->keys().set("DB_HOST", "ENC[cc1,aes-256-gcm,AAAA,BB+/==]");
  out = doc->emit();
  EXPECT_EQ(changed_lines(kEnv, out), (std::vector<size_t>{3, 7}));
  EXPECT_NE(out.find("export DB_HOST='ENC[cc1,aes-256-gcm,AAAA,BB+/==]'\n"), std::string::npos);
  EXPECT_NE(out.find("GREETING=\"it's\"  # escaped\n"), std::string::npos);

  // A multi-line value becomes one line.
  doc = load(dir, ".env", kEnv);
  doc->keys().set("MULTI", "x");
  out = doc->emit();
  EXPECT_NE(out.find("\nMULTI=x\n  EMPTY=\n"), std::string::npos);
}

TEST(Dotenv, TrickyValuesRoundTrip) {
  TempDir dir;
  const std::vector<std::string> values = {
      "",      "plain",       "with space", "it's",  "back\\slash", "line\nbreak", "cr\rlf",
      "tab\t", " lead",       "trail ",     "#hash", "a #b",        "\"dq\"",      "$HOME",
      "'",     "ENC[a,b+/=]", "\xC3\xA9",   "`cmd`", "x=y",         "\\n"};
  auto doc = load(dir, ".env", "");
  for (size_t i = 0; i < values.size(); ++i) doc->keys().set("V" + std::to_string(i), values[i]);
  std::string out = save(dir, ".env", *doc);
  auto again = load(dir, ".env", out);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(again->keys().find("V" + std::to_string(i))->value, values[i]) << out;
  }
}

TEST(Dotenv, AddRemoveMeta) {
  TempDir dir;
  auto doc = load(dir, ".env", kEnv);
  doc->keys().remove("DB_PASSWORD");
  doc->keys().remove("MULTI");
  doc->keys().set("API_TOKEN", "t0k").meta["crypto/encrypt"] = "1";
  doc->keys().find("HASH")->meta["crypto/encrypt"] = "1";
  EXPECT_EQ(doc->emit(),
            "#@CONFCRYPT v1 env-header\n"
            "# service credentials\n"
            "export DB_HOST=db.example.org\n"
            "DB_PORT = 5432   # inline comment\n"
            "GREETING=\"line one\\nline \\\"two\\\"\"  # escaped\n"
            "  EMPTY=\n"
            "#@META crypto/encrypt = 1\n"
            "HASH=a#b\n"
            "#@META crypto/encrypt = 1\n"
            "export API_TOKEN=t0k\n"
            "\n");
  doc->keys().set("bad/name", "x");
  EXPECT_THROW(doc->emit(), Error);
}

TEST(Dotenv, MalformedGivesLineNumbers) {
  EXPECT_EQ(format_error_line("dotenv", "A=1\nnot an assignment\n"), 2u);
  EXPECT_EQ(format_error_line("dotenv", "A=1\n\nB=\"open\nstill open\n"), 3u);
  EXPECT_EQ(format_error_line("dotenv", "A='x' trailing\n"), 1u);
  EXPECT_EQ(format_error_line("dotenv", "A=1\n9LIVES=2\n"), 2u);
  EXPECT_EQ(format_error_line("dotenv", "A=1\nA=2\n"), 2u);
  EXPECT_EQ(format_error_line("dotenv", "#@META crypto/encrypt = 1\n# comment\nA=1\n"), 1u);
  EXPECT_EQ(format_error_line("dotenv", "A=1\nB\n"), 2u);
}

TEST(Formats, ByName) {
  EXPECT_EQ(confcrypt::format_for_path("/etc/app.ini")->name(), "ini");
  EXPECT_EQ(confcrypt::format_for_path("app.conf")->name(), "ini");
  EXPECT_EQ(confcrypt::format_for_path("x/settings.json")->name(), "json");
  EXPECT_EQ(confcrypt::format_for_path("/srv/.env")->name(), "dotenv");
  EXPECT_EQ(confcrypt::format_for_path(".env.production")->name(), "dotenv");
  EXPECT_EQ(confcrypt::format_for_path("prod.env")->name(), "dotenv");
  EXPECT_THROW(confcrypt::format_for_path("README"), Error);
  EXPECT_THROW(confcrypt::format_by_name("yaml"), Error);
}

// ---------------------------------------------------------------------------------------------
// Atomic writes

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

TEST(AtomicWrite, NewFileAndExistingMode) {
  TempDir dir;
  std::string p = dir.file("new.ini");
  confcrypt::write_file_atomic(p, "a = 1\n");
  EXPECT_EQ(confcrypt::read_file(p), "a = 1\n");
  EXPECT_EQ(mode_of(p), 0600u);
  ASSERT_EQ(chmod(p.c_str(), 0640), 0);
  confcrypt::write_file_atomic(p, "a = 2\n");
  EXPECT_EQ(confcrypt::read_file(p), "a = 2\n");
  EXPECT_EQ(mode_of(p), 0640u);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"new.ini"});
  confcrypt::write_file_atomic(p, "");
  EXPECT_EQ(confcrypt::read_file(p), "");
}

TEST(AtomicWrite, FollowsSymlinks) {
  TempDir dir;
  std::string target = dir.file("real.env"), link = dir.file("link.env");
  confcrypt::write_file_atomic(target, "A=1\n");
  ASSERT_EQ(symlink("real.env", link.c_str()), 0);
  confcrypt::write_file_atomic(link, "A=2\n");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(confcrypt::read_file(target), "A=2\n");
}

TEST(AtomicWrite, FailuresLeaveNothingBehind) {
  TempDir dir;
  std::string file = dir.file("plain");
  confcrypt::write_file_atomic(file, "x");
  // A path whose "directory" is a regular file.
  EXPECT_THROW(confcrypt::write_file_atomic(file + "/sub.ini", "y"), Error);
  // A directory where the file should be.
  fs::create_directory(dir.file("adir"));
  EXPECT_THROW(confcrypt::write_file_atomic(dir.file("adir"), "y"), Error);
  EXPECT_THROW(confcrypt::read_file(dir.file("missing")), Error);
  auto entries = dir.entries();
  std::sort(entries.begin(), entries.end());
  EXPECT_EQ(entries, (std::vector<std::string>{"adir", "plain"}));
  EXPECT_EQ(confcrypt::read_file(file), "x");
}

// The write itself fails half way (file size limit, as on a full disk): the original is intact
// and the temp file is gone. In a child process, so the limit cannot touch the test runner.
TEST(AtomicWrite, FailedWriteKeepsTheOriginal) {
  TempDir dir;
  std::string p = dir.file("app.ini");
  const std::string original = "[db]\npassword = old\n";
  confcrypt::write_file_atomic(p, original);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {};
    getrlimit(RLIMIT_FSIZE, &lim);
    lim.rlim_cur = 8;
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(3);
    try {
      confcrypt::write_file_atomic(p, std::string(4096, 'n'));
    } catch (const Error&) {
      _exit(0);
    }
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the write did not fail";
  EXPECT_EQ(confcrypt::read_file(p), original);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"app.ini"});
}

}  // namespace
