// confcrypt-bench: the `config` scenario's driver (python/cryptobench/scenarios/config.py).
//
// Repeats the thesis's measurement (CONFCRYPT.md, last section) with the confcrypt library
// in-process: a configuration of n string values is WRITTEN (plaintext key set in memory ->
// confcrypt::save -> atomic write of the file) and READ (read the file -> confcrypt::open ->
// plaintext key set), each timed separately with CLOCK_MONOTONIC, for these schemes:
//
//   plain      no encryption: the baseline x of h = y - x and f = y / x
//   wholefile  the whole file OpenPGP encrypted and signed by gpg; reading verifies the signer
//   compat     the thesis's per-value scheme (PBKDF2 x 15,000 + AES-256-CBC per value); as in
//              the thesis the master password is kept GnuPG-encrypted and is decrypted with gpg
//              inside every timed write and read. "compat_kdf" picks PBKDF2's hash: "thesis"
//              (the default) gives each library its variant's (gcrypt SHA-512, openssl SHA-1,
//              botan SHA-256; any other provider SHA-512, the libgcrypt variant's), or one of
//              "sha512", "sha256", "sha1" for every provider
//   confcrypt  confcrypt's per-value scheme: the data key wrapped for a gpg recipient (one gpg
//              unwrap per read), AES-256-GCM per value, file MAC
//
// Protocol: ONE JSON object on stdin
//   {"schemes": [...], "providers": [...], "n": [...], "runs": R, "dir": WORKDIR,
//    "gnupghome": PATH, "recipient": FPR, "signer": FPR, "format": "ini"|"json"|"dotenv",
//    "compat_kdf": "thesis"|"sha512"|"sha256"|"sha1"}
// and JSON lines on stdout, each flushed:
//   {"type":"info", ...}                       versions and method facts, first
//   {"type":"skip","scheme","provider","reason"} a provider lacking what a scheme needs
//   {"type":"notes","scheme","provider","notes":[...]}  what confcrypt reports it used
//   {"type":"heap","scheme","provider","n","direction","allocs","bytes","peak_live_bytes"}
//   {"type":"sample","scheme","provider","n","direction","run","ns"}
//   {"type":"error","message"}                 then exit 2 (bad input) or 1 (failure)
//   {"type":"done"}                            last
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "confcrypt/compat.hpp"
#include "confcrypt/config.hpp"
#include "confcrypt/gpg.hpp"
#include "confcrypt/io.hpp"
#include "cryptobench/heap.hpp"
#include "cryptobench/provider.hpp"

namespace {

using nlohmann::json;

constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

const std::vector<std::string> kSchemes = {"plain", "wholefile", "compat", "confcrypt"};
// The thesis generated a random master password of 30 characters on first use.
constexpr size_t kMasterPasswordLen = 30;
constexpr char kMasterPasswordFile[] = "master-password.gpg";
// Values of 16 to 32 bytes, like passwords and API tokens; fixed seed: every scheme and provider
// writes the same configuration.
constexpr size_t kMinValueLen = 16, kMaxValueLen = 32;
constexpr uint32_t kValueSeed = 20240601;
constexpr size_t kKeysPerSection = 25;

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void emit(const json& line) {
  std::string text = line.dump();
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct Spec {
  std::vector<std::string> schemes;
  std::vector<std::string> providers;
  std::vector<size_t> n;
  int runs = 0;
  std::string dir;
  std::string gnupghome;
  std::string recipient;
  std::string signer;
  std::string format = "ini";
  std::string compat_kdf = "thesis";
};

// The PBKDF2 hash the compat scheme uses with `provider` (see the header comment).
confcrypt::CompatKdf compat_kdf_for(const Spec& spec, const std::string& provider) {
  if (spec.compat_kdf != "thesis") return confcrypt::parse_compat_kdf(spec.compat_kdf);
  return confcrypt::thesis_compat_kdf(provider).value_or(confcrypt::kCompatDefaultKdf);
}

std::vector<std::string> string_list(const json& j, const char* name) {
  if (!j.contains(name) || !j[name].is_array()) {
    throw BadInput(std::string("\"") + name + "\" must be a list of strings");
  }
  std::vector<std::string> out;
  for (const auto& v : j[name]) {
    if (!v.is_string()) throw BadInput(std::string("\"") + name + "\" must be a list of strings");
    std::string s = v.get<std::string>();
    if (std::find(out.begin(), out.end(), s) != out.end()) {
      throw BadInput(std::string("\"") + name + "\" names '" + s + "' twice");
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string string_field(const json& j, const char* name, bool required) {
  if (!j.contains(name) || j[name].is_null()) {
    if (required) throw BadInput(std::string("\"") + name + "\" is missing");
    return "";
  }
  if (!j[name].is_string()) throw BadInput(std::string("\"") + name + "\" must be a string");
  return j[name].get<std::string>();
}

Spec parse_spec(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw BadInput(std::string("the spec on stdin is not JSON: ") + e.what());
  }
  if (!j.is_object()) throw BadInput("the spec on stdin must be one JSON object");
  static const std::set<std::string> known = {"schemes", "providers", "n",         "runs",
                                              "dir",     "gnupghome", "recipient", "signer",
                                              "format",  "compat_kdf"};
  for (const auto& item : j.items()) {
    // A misspelt field would otherwise silently fall back to a default.
    if (!known.count(item.key())) throw BadInput("unknown field \"" + item.key() + "\"");
  }
  Spec s;
  s.schemes = string_list(j, "schemes");
  if (s.schemes.empty()) throw BadInput("\"schemes\" is empty");
  for (const auto& name : s.schemes) {
    if (std::find(kSchemes.begin(), kSchemes.end(), name) == kSchemes.end()) {
      throw BadInput("unknown scheme '" + name + "' (plain, wholefile, compat, confcrypt)");
    }
  }
  s.providers = string_list(j, "providers");
  const auto compiled = cb::provider_names();
  for (const auto& p : s.providers) {
    if (std::find(compiled.begin(), compiled.end(), p) == compiled.end()) {
      std::string list;
      for (const auto& c : compiled) list += (list.empty() ? "" : ", ") + c;
      throw BadInput("unknown provider '" + p + "' (compiled in: " + list + ")");
    }
  }
  const bool per_value = std::count(s.schemes.begin(), s.schemes.end(), "compat") +
                             std::count(s.schemes.begin(), s.schemes.end(), "confcrypt") >
                         0;
  if (per_value && s.providers.empty()) {
    throw BadInput("\"providers\" is empty but a per-value scheme was asked for");
  }
  if (!j.contains("n") || !j["n"].is_array() || j["n"].empty()) {
    throw BadInput("\"n\" must be a non-empty list of positive integers");
  }
  for (const auto& v : j["n"]) {
    if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1000000) {
      throw BadInput("\"n\" must hold integers from 1 to 1000000");
    }
    size_t n = v.get<size_t>();
    if (std::find(s.n.begin(), s.n.end(), n) != s.n.end()) {
      throw BadInput("\"n\" names " + std::to_string(n) + " twice");
    }
    s.n.push_back(n);
  }
  if (!j.contains("runs") || !j["runs"].is_number_integer() || j["runs"].get<int64_t>() < 1 ||
      j["runs"].get<int64_t>() > 10000) {
    throw BadInput("\"runs\" must be an integer from 1 to 10000");
  }
  s.runs = j["runs"].get<int>();
  s.dir = string_field(j, "dir", true);
  if (s.dir.empty()) throw BadInput("\"dir\" is empty");
  s.format = string_field(j, "format", false);
  if (s.format.empty()) s.format = "ini";
  if (s.format != "ini" && s.format != "json" && s.format != "dotenv") {
    throw BadInput("unknown format '" + s.format + "' (ini, json, dotenv)");
  }
  s.compat_kdf = string_field(j, "compat_kdf", false);
  if (s.compat_kdf.empty()) s.compat_kdf = "thesis";
  if (s.compat_kdf != "thesis") {
    try {
      confcrypt::parse_compat_kdf(s.compat_kdf);
    } catch (const confcrypt::Error&) {
      throw BadInput("unknown compat_kdf '" + s.compat_kdf + "' (thesis, sha512, sha256, sha1)");
    }
  }
  const bool needs_gpg = s.schemes != std::vector<std::string>{"plain"};
  s.gnupghome = string_field(j, "gnupghome", false);
  s.recipient = string_field(j, "recipient", needs_gpg);
  const bool wholefile =
      std::find(s.schemes.begin(), s.schemes.end(), "wholefile") != s.schemes.end();
  s.signer = string_field(j, "signer", wholefile);
  try {
    if (!s.recipient.empty()) s.recipient = confcrypt::Gpg::normalize_fingerprint(s.recipient);
    if (!s.signer.empty()) s.signer = confcrypt::Gpg::normalize_fingerprint(s.signer);
  } catch (const confcrypt::Error& e) {
    throw BadInput(e.what());
  }
  return s;
}

// ---- the configuration ------------------------------------------------------------------------

// Key names as an application has them: sections of 25 keys. dotenv has no sections, so the
// section becomes a name prefix there.
std::string key_path(size_t i, const std::string& format) {
  char buf[64];
  if (format == "dotenv") {
    std::snprintf(buf, sizeof buf, "SECTION%02zu_KEY%04zu", i / kKeysPerSection, i);
  } else {
    std::snprintf(buf, sizeof buf, "section%02zu/key%04zu", i / kKeysPerSection, i);
  }
  return buf;
}

// Letters and digits only: no character a format quotes or escapes differently.
std::vector<std::string> make_values(size_t n) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::mt19937 rng(kValueSeed);
  std::uniform_int_distribution<size_t> len(kMinValueLen, kMaxValueLen);
  std::uniform_int_distribution<size_t> ch(0, sizeof alphabet - 2);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string v(len(rng), ' ');
    for (char& c : v) c = alphabet[ch(rng)];
    out.push_back(std::move(v));
  }
  return out;
}

confcrypt::KeySet make_keys(const std::vector<std::string>& values, const std::string& format,
                            bool marked) {
  confcrypt::KeySet ks;
  for (size_t i = 0; i < values.size(); ++i) {
    confcrypt::Key k;
    k.path = key_path(i, format);
    k.type = confcrypt::ValueType::String;
    k.value = values[i];
    if (marked) k.meta[confcrypt::kMetaEncrypt] = "1";
    ks.add(std::move(k));
  }
  return ks;
}

// ---- one scheme with one provider -------------------------------------------------------------

struct Bench {
  std::string scheme;
  std::string provider;  // "" for plain and wholefile
  confcrypt::Options options;
  confcrypt::Scheme kind = confcrypt::Scheme::kPlain;
  bool whole_file = false;
  bool gpg_master_password = false;  // compat: decrypt the master password on every operation

  std::string label() const { return provider.empty() ? scheme : scheme + "/" + provider; }
};

struct Context {
  Spec spec;
  confcrypt::Gpg gpg;
  std::string master_password_path;
  std::string extension;
};

std::string file_for(const Context& ctx, const Bench& b, size_t n) {
  std::string name = b.scheme;
  if (!b.provider.empty()) name += "-" + b.provider;
  return ctx.spec.dir + "/" + name + "-n" + std::to_string(n) + ctx.extension;
}

// The master password as the thesis used it: gpg-decrypted from its file each time.
std::string unwrap_master_password(const Context& ctx) {
  confcrypt::Gpg::Decrypted d = ctx.gpg.decrypt(confcrypt::read_file(ctx.master_password_path));
  if (d.exit_code != 0 || d.plaintext.size() != kMasterPasswordLen) {
    throw confcrypt::Error("gpg cannot decrypt the master password: " +
                           confcrypt::first_gpg_message(d.err));
  }
  return std::move(d.plaintext);
}

// The timed region of a write: from the key set in memory to the file on disk.
void do_write(const Context& ctx, const Bench& b, const confcrypt::KeySet& keys,
              const std::string& path) {
  if (b.gpg_master_password) {
    confcrypt::Options o = b.options;
    o.master_password = unwrap_master_password(ctx);
    confcrypt::write_file_atomic(path, confcrypt::save(keys, o, b.kind, b.whole_file));
  } else {
    confcrypt::write_file_atomic(path, confcrypt::save(keys, b.options, b.kind, b.whole_file));
  }
}

// The timed region of a read: from the file on disk to the plaintext key set.
confcrypt::KeySet do_read(const Context& ctx, const Bench& b, const std::string& path) {
  std::string bytes = confcrypt::read_file(path);
  if (b.gpg_master_password) {
    confcrypt::Options o = b.options;
    o.master_password = unwrap_master_password(ctx);
    return confcrypt::open(bytes, o);
  }
  return confcrypt::open(bytes, b.options);
}

json tag(const Bench& b, size_t n, const char* direction) {
  return {{"scheme", b.scheme}, {"provider", b.provider}, {"n", n}, {"direction", direction}};
}

// Why `provider` cannot run `scheme` as itself, or "" when it can. confcrypt would quietly take
// a missing algorithm from another provider; the benchmark must not mix libraries in one line.
std::string cannot_run(const Spec& spec, const std::string& scheme, const std::string& provider) {
  std::string unusable = cb::unusable_reason(provider);
  if (!unusable.empty()) return unusable;
  cb::Provider* p = cb::get_provider(provider);
  if (!p) return "not compiled in";
  auto algs = p->algorithms();
  auto lacks = [&](const char* name) {
    return std::find(algs.begin(), algs.end(), name) == algs.end();
  };
  std::string missing;
  auto need = [&](const char* name) {
    if (lacks(name)) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  if (scheme == "compat") {
    need(confcrypt::compat_kdf_algorithm(compat_kdf_for(spec, provider)));
    need("aes-256-cbc");
  } else if (scheme == "confcrypt") {
    need("aes-256-gcm");
    need("hmac-sha256");
  }
  return missing.empty() ? "" : provider + " does not offer " + missing;
}

// Checks that what is read back is what was written, and that the encrypted schemes leave no
// value in the clear in the file. Returns confcrypt's notes for the configuration.
std::vector<std::string> verify(const Context& ctx, const Bench& b,
                                const confcrypt::KeySet& written, const std::string& path) {
  std::string bytes = confcrypt::read_file(path);
  confcrypt::Options o = b.options;
  if (b.gpg_master_password) o.master_password = unwrap_master_password(ctx);
  // Config::open is what confcrypt::open does; it also gives the notes.
  confcrypt::Config c = confcrypt::Config::open(bytes, o);
  const auto& got = c.keys().keys();
  const auto& want = written.keys();
  if (got.size() != want.size()) {
    throw confcrypt::Error("read back " + std::to_string(got.size()) + " keys, wrote " +
                           std::to_string(want.size()));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i].path != want[i].path || got[i].value != want[i].value ||
        got[i].type != want[i].type) {
      throw confcrypt::Error("key " + std::to_string(i) + " ('" + want[i].path +
                             "') reads back as '" + got[i].path + "' = '" + got[i].value + "'");
    }
    if (b.scheme != "plain" && bytes.find(want[i].value) != std::string::npos) {
      throw confcrypt::Error("the value of '" + want[i].path + "' is in the file in the clear");
    }
  }
  if (b.scheme == "wholefile" && c.signer() != ctx.spec.signer) {
    throw confcrypt::Error("the whole-file signature was not checked against the signer");
  }
  std::vector<std::string> notes = c.notes();
  for (const auto& note : notes) {
    // The capability check should prevent this; a fallback would time another library.
    if (!b.provider.empty() && (note.find("does not offer") != std::string::npos ||
                                note.find("cannot do compatibility mode") != std::string::npos)) {
      if (note.find("hkdf") == std::string::npos) throw confcrypt::Error(note);
    }
  }
  return notes;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

json info(const Context& ctx) {
  json j = {{"type", "info"},
            {"driver", "confcrypt-bench"},
            {"heap", cb::heap::available()},
            {"format", ctx.spec.format},
            {"clock", "CLOCK_MONOTONIC"},
            {"master_password",
             "compat: the 30-character master password is stored gpg-encrypted to the recipient "
             "and decrypted with gpg inside every timed write and read, as the thesis did"},
            {"write",
             "plaintext key set in memory -> confcrypt::save -> write_file_atomic (temp "
             "file, fsync, rename, fsync dir)"},
            {"read", "read_file -> confcrypt::open -> plaintext key set"},
            {"compat_iterations", confcrypt::kCompatIterations},
            {"compat_kdf_rule", ctx.spec.compat_kdf},
            {"aead", confcrypt::kDefaultAead}};
  try {
    confcrypt::ProcessResult r =
        confcrypt::run_process({ctx.gpg.options().program, "--version"}, "", false);
    std::string out = r.out;
    j["gpg"] = first_line(out);
    auto at = out.find("libgcrypt");
    if (at != std::string::npos) j["gpg_libgcrypt"] = first_line(out.substr(at));
  } catch (const confcrypt::Error&) {
    j["gpg"] = "";
  }
  json versions = json::object(), kdfs = json::object();
  for (const auto& p : ctx.spec.providers) {
    if (cb::Provider* prov = cb::get_provider(p)) versions[p] = prov->version();
    kdfs[p] = confcrypt::compat_kdf_algorithm(compat_kdf_for(ctx.spec, p));
  }
  j["providers"] = versions;
  j["compat_kdf"] = kdfs;
  return j;
}

std::vector<Bench> plan(const Context& ctx, const confcrypt::Options& base) {
  std::vector<Bench> out;
  const Spec& s = ctx.spec;
  for (const auto& scheme : kSchemes) {
    if (std::find(s.schemes.begin(), s.schemes.end(), scheme) == s.schemes.end()) continue;
    if (scheme == "plain" || scheme == "wholefile") {
      Bench b;
      b.scheme = scheme;
      b.options = base;
      // The baseline x is an unprotected file, read as plain configuration on purpose.
      b.options.allow_unprotected = scheme == "plain";
      if (scheme == "wholefile") {
        b.whole_file = true;
        b.options.wholefile_recipients = {s.recipient};
        b.options.sign_with = s.signer;
        b.options.signers = {s.signer};
      }
      out.push_back(std::move(b));
      continue;
    }
    for (const auto& provider : s.providers) {
      std::string why = cannot_run(s, scheme, provider);
      if (!why.empty()) {
        emit({{"type", "skip"}, {"scheme", scheme}, {"provider", provider}, {"reason", why}});
        continue;
      }
      Bench b;
      b.scheme = scheme;
      b.provider = provider;
      b.options = base;
      b.options.provider = provider;
      if (scheme == "compat") {
        b.kind = confcrypt::Scheme::kCompat;
        b.options.compat = true;
        b.options.compat_kdf = compat_kdf_for(s, provider);
        b.gpg_master_password = true;
      } else {
        b.kind = confcrypt::Scheme::kPerValue;
        b.options.aead = confcrypt::kDefaultAead;
        b.options.recipients = {{confcrypt::Recipient::Kind::kGpg, s.recipient}};
      }
      out.push_back(std::move(b));
    }
  }
  return out;
}

// A master password like the thesis's: random printable characters, created on first use.
void create_master_password(const Context& ctx) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string random = confcrypt::random_bytes(kMasterPasswordLen);
  std::string password;
  for (unsigned char c : random) password += alphabet[c % (sizeof alphabet - 1)];
  std::string sealed = ctx.gpg.encrypt(password, {ctx.spec.recipient}, false, "", true);
  confcrypt::write_file_atomic(ctx.master_password_path, sealed);
}

int run(const Spec& spec) {
  Context ctx{spec, confcrypt::Gpg(confcrypt::GpgOptions{"gpg", spec.gnupghome}),
              spec.dir + "/" + kMasterPasswordFile,
              spec.format == "json"     ? ".json"
              : spec.format == "dotenv" ? ".env"
                                        : ".ini"};
  emit(info(ctx));

  confcrypt::Options base;
  base.format = spec.format;
  base.gpg.homedir = spec.gnupghome;
  base.secrets.use_gpg = true;
  // plain and wholefile use no per-value crypto, but confcrypt still wants a valid provider.
  const auto compiled = cb::provider_names();
  if (std::find(compiled.begin(), compiled.end(), base.provider) == compiled.end()) {
    base.provider = spec.providers.empty() ? compiled.at(0) : spec.providers.front();
  }

  std::vector<Bench> benches = plan(ctx, base);
  if (std::any_of(benches.begin(), benches.end(),
                  [](const Bench& b) { return b.gpg_master_password; })) {
    create_master_password(ctx);
  }

  std::string where;  // for error messages
  try {
    // Setup, untimed: the first write of each configuration is a warm-up (library
    // initialisation, gpg-agent start, page cache); then the read-back check; then one pass
    // with the heap counter on.
    std::set<std::string> noted;
    for (size_t n : spec.n) {
      const auto values = make_values(n);
      const auto plain_keys = make_keys(values, spec.format, false);
      const auto marked_keys = make_keys(values, spec.format, true);
      for (const Bench& b : benches) {
        const auto& keys = b.kind == confcrypt::Scheme::kPlain ? plain_keys : marked_keys;
        const std::string path = file_for(ctx, b, n);
        where = b.label() + " n=" + std::to_string(n) + " warm-up write";
        do_write(ctx, b, keys, path);
        where = b.label() + " n=" + std::to_string(n) + " read-back check";
        auto notes = verify(ctx, b, keys, path);
        if (noted.insert(b.label()).second) {
          emit({{"type", "notes"},
                {"scheme", b.scheme},
                {"provider", b.provider},
                {"notes", notes}});
        }
        if (cb::heap::available()) {
          where = b.label() + " n=" + std::to_string(n) + " heap write";
          cb::heap::start();
          do_write(ctx, b, keys, path);
          cb::heap::Counters w = cb::heap::stop();
          where = b.label() + " n=" + std::to_string(n) + " heap read";
          cb::heap::start();
          { confcrypt::KeySet got = do_read(ctx, b, path); }
          cb::heap::Counters r = cb::heap::stop();
          for (auto [dir, c] : {std::pair{"write", w}, std::pair{"read", r}}) {
            json line = tag(b, n, dir);
            line["type"] = "heap";
            line["allocs"] = c.allocs;
            line["bytes"] = c.bytes;
            line["peak_live_bytes"] = c.peak_live;
            emit(line);
          }
        }
      }
    }

    // Timed, interleaved so that drift of the machine spreads over every line alike.
    for (int r = 0; r < spec.runs; ++r) {
      for (size_t n : spec.n) {
        const auto values = make_values(n);
        const auto plain_keys = make_keys(values, spec.format, false);
        const auto marked_keys = make_keys(values, spec.format, true);
        for (const Bench& b : benches) {
          const auto& keys = b.kind == confcrypt::Scheme::kPlain ? plain_keys : marked_keys;
          const std::string path = file_for(ctx, b, n);
          where = b.label() + " n=" + std::to_string(n) + " run " + std::to_string(r) + " write";
          int64_t t0 = now_ns();
          do_write(ctx, b, keys, path);
          int64_t t1 = now_ns();
          where = b.label() + " n=" + std::to_string(n) + " run " + std::to_string(r) + " read";
          int64_t t2, t3;
          {
            t2 = now_ns();
            confcrypt::KeySet got = do_read(ctx, b, path);
            t3 = now_ns();
            // Cheap, outside the timed region: a read that came back short is no measurement.
            if (got.size() != n) throw confcrypt::Error("read back " + std::to_string(got.size()));
          }
          for (auto [dir, ns] : {std::pair{"write", t1 - t0}, std::pair{"read", t3 - t2}}) {
            json line = tag(b, n, dir);
            line["type"] = "sample";
            line["run"] = r;
            line["ns"] = ns;
            emit(line);
          }
        }
      }
    }
  } catch (const std::exception& e) {
    emit({{"type", "error"}, {"message", where + ": " + e.what()}});
    return kExitFailure;
  }
  emit({{"type", "done"}});
  return 0;
}

}  // namespace

int main() {
  Spec spec;
  try {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    spec = parse_spec(text);
    struct stat st;
    if (stat(spec.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      throw BadInput("\"dir\": " + spec.dir + " is not a directory");
    }
  } catch (const BadInput& e) {
    emit({{"type", "error"}, {"message", e.what()}});
    return kExitBadInput;
  }
  try {
    return run(spec);
  } catch (const std::exception& e) {
    emit({{"type", "error"}, {"message", e.what()}});
    return kExitFailure;
  }
}
