// The `confcrypt` command: argument parsing, option sources (command line, environment, config
// file) and one function per command. Every failure ends as one line "confcrypt: <message>" on
// stderr and the exit code of its Status (errors.hpp, docs/confcrypt.md).
#include "confcrypt/cli.hpp"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "confcrypt/config.hpp"
#include "confcrypt/exec_env.hpp"
#include "confcrypt/format.hpp"
#include "confcrypt/io.hpp"
#include "confcrypt/wholefile.hpp"
#include "cryptobench/provider.hpp"

extern char** environ;

namespace confcrypt {

namespace {

const char kUsage[] =
    "usage: confcrypt [OPTIONS] COMMAND ...\n"
    "\n"
    "Per-value encryption (confcrypt's scheme):\n"
    "  init FILE --recipient R... [--encrypt-regex RE]...   make FILE a confcrypt file\n"
    "  set FILE KEY [VALUE|-] [--encrypt|--plain] [--encrypt-regex RE]\n"
    "                                  set a value (\"-\" or no VALUE: read it from stdin)\n"
    "  get FILE KEY                    print one value in the clear\n"
    "  unset FILE KEY                  remove a key\n"
    "  show FILE [--verbose]           print the file with every value in the clear\n"
    "  rotate FILE [--aead NAME]       new data key, re-wrapped and every value re-encrypted\n"
    "  recipients list FILE\n"
    "  recipients add FILE R\n"
    "  recipients remove FILE R [--no-rotate]\n"
    "  exec FILE [--prefix P] -- CMD [ARG...]   run CMD with the values in its environment\n"
    "Whole-file encryption (OpenPGP through gpg, signed):\n"
    "  encrypt FILE --recipient FPR... [--sign-with FPR]\n"
    "  decrypt FILE                    (reading needs --signer FPR: a trusted signer)\n"
    "Compatibility with the thesis's format:\n"
    "  migrate FILE --recipient R... (--master-password-file P | --master-password-gpg P)\n"
    "  --compat with get, show, set, exec: read and write the thesis's values\n"
    "  --compat-kdf sha512|sha256|sha1   the PBKDF2 hash of the thesis's variant that wrote\n"
    "                          them: sha512 libgcrypt (default), sha1 OpenSSL, sha256 Botan\n"
    "Other:\n"
    "  providers                       list the crypto libraries compiled in\n"
    "\n"
    "Recipients R: gpg:FINGERPRINT | passphrase | keyfile:PATH (created, mode 0600, if missing)\n"
    "Options:\n"
    "  --provider NAME         crypto library (default openssl; see 'providers')\n"
    "  --format ini|json|dotenv   (default: from the file name)\n"
    "  --aead aes-256-gcm|chacha20-poly1305   for new files and rotate\n"
    "  --passphrase-file PATH  (or CONFCRYPT_PASSPHRASE; else a prompt on the terminal)\n"
    "  --key-file PATH         a key file to unlock with (repeatable)\n"
    "  --signer FPR            trusted whole-file signer (repeatable; CONFCRYPT_SIGNERS)\n"
    "  --sign-with FPR         key to sign whole files with (default: gpg's default key)\n"
    "  --gpg PROGRAM           gpg to run (CONFCRYPT_GPG; default gpg)\n"
    "  --gpg-timeout SECONDS   stop a gpg that runs longer (CONFCRYPT_GPG_TIMEOUT; default 60)\n"
    "  --no-prompt             never ask on the terminal\n"
    "  --unprotected           read a file that has no confcrypt header as plain configuration,\n"
    "                          or let set write into it although a key or whole-file mode is\n"
    "                          given (without it such a file is refused: exit 21 or 15)\n"
    "  --verbose               say which providers and keys were used\n"
    "Exit codes and messages: docs/confcrypt.md\n";

struct Args {
  std::string command;
  std::vector<std::string> pos;
  std::vector<std::string> exec_argv;
  bool dashdash = false;
  std::optional<std::string> provider, format, aead, passphrase_file, sign_with, gpg, gpg_timeout;
  std::optional<std::string> master_password_file, master_password_gpg, prefix, compat_kdf;
  std::vector<std::string> key_files, signers, recipients, regexes;
  bool encrypt = false, plain = false, verbose = false, compat = false, no_prompt = false,
       unprotected = false, no_rotate = false, help = false;
};

Args parse_args(int argc, char** argv) {
  Args a;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (a.dashdash) {
      a.exec_argv.push_back(s);
      continue;
    }
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Failure(Status::kUsage, s + " needs a value");
      // Only an absent option means its default: an empty value is a mistake, not "unset".
      if (argv[i + 1][0] == '\0') {
        throw Failure(Status::kUsage,
                      s + ": an empty value (leave the option out for the default)");
      }
      return argv[++i];
    };
    if (s == "--") {
      a.dashdash = true;
    } else if (s == "-h" || s == "--help") {
      a.help = true;
    } else if (s == "--provider") {
      a.provider = value();
    } else if (s == "--format") {
      a.format = value();
    } else if (s == "--aead") {
      a.aead = value();
    } else if (s == "--passphrase-file") {
      a.passphrase_file = value();
    } else if (s == "--key-file") {
      a.key_files.push_back(value());
    } else if (s == "--signer") {
      a.signers.push_back(value());
    } else if (s == "--recipient" || s == "-r") {
      a.recipients.push_back(value());
    } else if (s == "--sign-with") {
      a.sign_with = value();
    } else if (s == "--gpg") {
      a.gpg = value();
    } else if (s == "--gpg-timeout") {
      a.gpg_timeout = value();
    } else if (s == "--encrypt-regex") {
      a.regexes.push_back(value());
    } else if (s == "--master-password-file") {
      a.master_password_file = value();
    } else if (s == "--master-password-gpg") {
      a.master_password_gpg = value();
    } else if (s == "--compat-kdf") {
      a.compat_kdf = value();
    } else if (s == "--prefix") {
      a.prefix = value();
    } else if (s == "--encrypt") {
      a.encrypt = true;
    } else if (s == "--plain") {
      a.plain = true;
    } else if (s == "--verbose" || s == "-v") {
      a.verbose = true;
    } else if (s == "--compat") {
      a.compat = true;
    } else if (s == "--unprotected") {
      a.unprotected = true;
    } else if (s == "--no-prompt") {
      a.no_prompt = true;
    } else if (s == "--no-rotate") {
      a.no_rotate = true;
    } else if (s.size() > 1 && s[0] == '-' && s != "-") {
      throw Failure(Status::kUsage, "unknown option '" + s + "' (see confcrypt --help)");
    } else {
      positional.push_back(s);
    }
  }
  if (!positional.empty()) {
    a.command = positional[0];
    a.pos.assign(positional.begin() + 1, positional.end());
  }
  if (a.encrypt && a.plain)
    throw Failure(Status::kUsage, "--encrypt and --plain exclude each other");
  return a;
}

std::string getenv_str(const char* name) {
  const char* v = getenv(name);
  return v ? v : "";
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',' || c == ' ' || c == ';') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string read_input(const std::string& path, size_t max_bytes = kMaxReadBytes);

// The largest value `set FILE KEY -` reads from standard input.
constexpr size_t kMaxValueBytes = size_t(16) << 20;

// $CONFCRYPT_CONFIG, else $XDG_CONFIG_HOME/confcrypt/config, else ~/.config/confcrypt/config:
// lines "name = value" (signer, recipient, sign-with, provider, gpg), '#' comments.
std::multimap<std::string, std::string> read_user_config() {
  std::string path = getenv_str("CONFCRYPT_CONFIG");
  if (path.empty()) {
    std::string xdg = getenv_str("XDG_CONFIG_HOME");
    std::string home = getenv_str("HOME");
    if (!xdg.empty()) {
      path = xdg + "/confcrypt/config";
    } else if (!home.empty()) {
      path = home + "/.config/confcrypt/config";
    }
  }
  std::multimap<std::string, std::string> out;
  if (path.empty()) return out;
  if (::access(path.c_str(), F_OK) != 0) return out;
  std::istringstream in(read_input(path, size_t(1) << 20));  // a config file is small
  std::string line;
  size_t number = 0;
  static const std::set<std::string> kNames = {"signer",   "recipient", "sign-with",
                                               "provider", "gpg",       "gpg-timeout"};
  while (std::getline(in, line)) {
    ++number;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    size_t eq = t.find('=');
    std::string name = eq == std::string::npos ? "" : trim(t.substr(0, eq));
    if (!kNames.count(name)) {
      throw Failure(Status::kUsage, path + ":" + std::to_string(number) +
                                        ": expected 'name = value' with name signer, recipient, "
                                        "sign-with, provider, gpg or gpg-timeout");
    }
    out.emplace(name, trim(t.substr(eq + 1)));
  }
  return out;
}

std::string strip_newline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

std::string read_input(const std::string& path, size_t max_bytes) {
  try {
    return read_file(path, max_bytes);
  } catch (const Error& e) {
    throw Failure(Status::kIo, e.what());
  }
}

void write_output(const std::string& path, const std::string& bytes) {
  try {
    write_file_atomic(path, bytes);
  } catch (const Error& e) {
    throw Failure(Status::kIo, e.what());
  }
}

bool file_exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Reads a passphrase from the terminal without echo.
std::string ask_tty(const std::string& prompt, bool confirm) {
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    throw Failure(Status::kNoKey,
                  "no terminal to ask for the passphrase: use --passphrase-file or "
                  "CONFCRYPT_PASSPHRASE");
  }
  auto read_once = [&](const std::string& p) {
    termios old{}, quiet{};
    bool have_termios = tcgetattr(fd, &old) == 0;
    if (have_termios) {
      quiet = old;
      quiet.c_lflag &= ~tcflag_t(ECHO);
      tcsetattr(fd, TCSAFLUSH, &quiet);
    }
    if (write(fd, p.data(), p.size()) < 0) {
    }
    std::string line;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n') line += c;
    if (have_termios) tcsetattr(fd, TCSAFLUSH, &old);
    if (write(fd, "\n", 1) < 0) {
    }
    return strip_newline(line);
  };
  std::string first = read_once(prompt);
  if (confirm && read_once("Repeat: ") != first) {
    close(fd);
    throw Failure(Status::kUsage, "the passphrases do not match");
  }
  close(fd);
  return first;
}

bool have_tty() {
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  close(fd);
  return true;
}

// Seconds for --gpg-timeout: a positive number up to a day.
double parse_timeout(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(v > 0) || v > 86400) {
    throw Failure(Status::kUsage,
                  "bad gpg timeout '" + text + "': seconds, more than 0 and at most 86400");
  }
  return v;
}

struct Setup {
  Options opts;
  std::vector<std::string> plain_recipients;  // --recipient as given
};

// Builds the library options from the command line, the environment and the config file, in
// that order of precedence.
Setup make_options(const Args& a, const std::string& file) {
  auto conf = read_user_config();
  auto conf_all = [&](const char* name) {
    std::vector<std::string> v;
    auto range = conf.equal_range(name);
    for (auto it = range.first; it != range.second; ++it) v.push_back(it->second);
    return v;
  };
  auto conf_one = [&](const char* name) -> std::optional<std::string> {
    auto it = conf.find(name);
    if (it == conf.end()) return std::nullopt;
    return it->second;
  };
  Setup s;
  Options& o = s.opts;
  o.source = file;
  o.provider = a.provider ? *a.provider : conf_one("provider").value_or(kDefaultProvider);
  if (a.format) o.format = *a.format;
  if (a.aead) o.aead = *a.aead;
  std::string gpg = a.gpg ? *a.gpg : getenv_str("CONFCRYPT_GPG");
  if (gpg.empty()) gpg = conf_one("gpg").value_or("gpg");
  o.gpg.program = gpg;
  std::string timeout = a.gpg_timeout ? *a.gpg_timeout : getenv_str("CONFCRYPT_GPG_TIMEOUT");
  if (timeout.empty()) timeout = conf_one("gpg-timeout").value_or("");
  if (!timeout.empty()) o.gpg.timeout_seconds = parse_timeout(timeout);

  if (a.passphrase_file) {
    o.secrets.passphrase = strip_newline(read_input(*a.passphrase_file, kMaxSecretBytes));
  } else if (const char* p = getenv("CONFCRYPT_PASSPHRASE")) {
    o.secrets.passphrase = p;
  }
  if (!a.no_prompt && have_tty()) o.secrets.prompt = ask_tty;
  o.secrets.key_files = a.key_files;

  o.signers = a.signers;
  if (o.signers.empty()) o.signers = split_list(getenv_str("CONFCRYPT_SIGNERS"));
  if (o.signers.empty()) o.signers = conf_all("signer");
  o.sign_with = a.sign_with ? *a.sign_with : conf_one("sign-with").value_or("");
  // Files signed with one's own signing key are trusted when no signer is configured.
  if (o.signers.empty() && !o.sign_with.empty()) o.signers.push_back(o.sign_with);

  std::vector<std::string> wf;
  for (const auto& r : a.recipients) wf.push_back(r.rfind("gpg:", 0) == 0 ? r.substr(4) : r);
  if (wf.empty()) wf = split_list(getenv_str("CONFCRYPT_RECIPIENTS"));
  if (wf.empty()) wf = conf_all("recipient");
  o.wholefile_recipients = wf;
  s.plain_recipients = a.recipients;

  o.compat = a.compat;
  if (a.compat_kdf) {
    try {
      o.compat_kdf = parse_compat_kdf(*a.compat_kdf);
      o.compat = true;  // it means something in compatibility mode only
    } catch (const Error& e) {
      throw Failure(Status::kUsage, std::string("--compat-kdf: ") + e.what());
    }
  }
  // Commands that make a file protected read plain files by design; the others only when asked.
  const bool makes_files =
      a.command == "init" || a.command == "migrate" || a.command == "set" || a.command == "encrypt";
  o.allow_unprotected = a.unprotected || makes_files;
  o.allow_unsigned = makes_files;
  if (a.master_password_file) {
    o.master_password = strip_newline(read_input(*a.master_password_file, kMaxSecretBytes));
    o.compat = true;
  } else if (a.master_password_gpg) {
    Gpg g(o.gpg);
    Gpg::Decrypted d = g.decrypt(read_input(*a.master_password_gpg));
    if (d.exit_code != 0) {
      throw Failure(Status::kNoKey, "gpg cannot decrypt the master password in " +
                                        *a.master_password_gpg + ": " + first_gpg_message(d.err));
    }
    o.master_password = strip_newline(d.plaintext);
    o.compat = true;
  }
  for (const auto& r : a.recipients) {
    if (a.command == "init" || a.command == "migrate") {
      o.recipients.push_back(parse_recipient_spec(r));
    }
  }
  o.encrypt_regexes = a.regexes;
  return s;
}

void need(const Args& a, size_t n, const char* shape) {
  if (a.pos.size() != n) {
    throw Failure(Status::kUsage, std::string("usage: confcrypt ") + shape);
  }
}

void print_notes(const Config& c, bool verbose) {
  for (const auto& n : c.notes()) {
    // Created key files are always worth saying; the rest on request.
    if (verbose || n.rfind("created key file", 0) == 0) std::cerr << "confcrypt: " << n << "\n";
  }
}

std::string format_name_of(const Options& o) {
  if (!o.format.empty()) return format_by_name(o.format)->name();
  try {
    return format_for_path(o.source)->name();
  } catch (const Error&) {
    return "";
  }
}

// The confcrypt header of a file, read without unlocking anything (whole-file files are
// decrypted first). Null when the file has none.
std::optional<std::string> peek_header(const std::string& path, const Options& o) {
  std::string bytes = read_input(path);
  if (is_openpgp(bytes)) {
    Gpg gpg(o.gpg);
    bytes = wholefile_open(gpg, bytes, o.signers).plaintext;
  }
  std::unique_ptr<Format> format;
  try {
    format = !o.format.empty() ? format_by_name(o.format) : format_for_path(path);
  } catch (const Error& e) {
    throw Failure(Status::kUsage, std::string(e.what()) + ": use --format");
  }
  try {
    return format->parse(bytes, path)->header();
  } catch (const Error& e) {
    throw Failure(Status::kMalformed, e.what());
  }
}

// Every read-modify-write of a file holds this lock from before the read to after the rename.
FileLock lock_for_update(const std::string& file) {
  try {
    return FileLock(file);
  } catch (const Error& e) {
    throw Failure(Status::kIo, e.what());
  }
}

// `set` into an existing file that carries no protection, when the user's configuration or key
// says it should (docs/confcrypt.md, threat model: "Downgrade"): a file whose header, markers and
// tokens were stripped, or a plaintext file put in place of a signed whole-file message, must not
// receive a new secret in the clear. --unprotected says the file is meant to be plain.
void refuse_plain_write(const Args& a, const Setup& s, const Config& c, const std::string& file) {
  const Options& o = s.opts;
  const bool wholefile_configured =
      !o.signers.empty() || !o.wholefile_recipients.empty() || !o.sign_with.empty();
  if (wholefile_configured && !c.whole_file()) {
    throw Failure(Status::kUnsigned,
                  file +
                      " is not a signed OpenPGP message, but whole-file signing is configured: "
                      "refusing to write into it in the clear (--unprotected if it is meant to "
                      "be plain)");
  }
  const bool key_given =
      !o.secrets.key_files.empty() || o.secrets.passphrase.has_value() || !a.regexes.empty();
  if (key_given && !c.whole_file()) {
    throw Failure(Status::kUnprotected,
                  file +
                      " has no confcrypt header, but a key was given: refusing to write into it "
                      "in the clear (it may have been stripped; --unprotected if it is meant to "
                      "be plain, `confcrypt init` protects it)");
  }
}

// ---- commands
// ------------------------------------------------------------------------------------

int cmd_init(const Args& a) {
  need(a, 1, "init FILE --recipient R... [--encrypt-regex RE]...");
  const std::string& file = a.pos[0];
  Setup s = make_options(a, file);
  FileLock lock = lock_for_update(file);
  if (file_exists(file) && peek_header(file, s.opts)) {
    throw Failure(Status::kUsage, file + " is already a confcrypt file");
  }
  Config c =
      file_exists(file) ? Config::open_file(file, s.opts) : Config::create(s.opts, Scheme::kPlain);
  if (c.scheme() == Scheme::kCompat) {
    throw Failure(Status::kUsage, "use 'confcrypt migrate' for a file in the thesis's format");
  }
  c.init_per_value(s.opts.recipients, s.opts.encrypt_regexes);
  c.save_file(file);
  print_notes(c, a.verbose);
  return 0;
}

int cmd_set(const Args& a) {
  if (a.pos.size() != 2 && a.pos.size() != 3) {
    throw Failure(Status::kUsage, "usage: confcrypt set FILE KEY [VALUE|-] [--encrypt|--plain]");
  }
  const std::string& file = a.pos[0];
  std::string value;
  if (a.pos.size() == 3 && a.pos[2] != "-") {
    value = a.pos[2];
  } else {
    try {
      value = strip_newline(read_stdin(kMaxValueBytes));
    } catch (const Error& e) {
      throw Failure(Status::kIo, e.what());
    }
  }
  Setup s = make_options(a, file);
  FileLock lock = lock_for_update(file);
  const bool existed = file_exists(file);
  Config c = existed ? Config::open_file(file, s.opts)
                     : Config::create(s.opts, a.compat ? Scheme::kCompat : Scheme::kPlain);
  if (a.encrypt && c.scheme() == Scheme::kPlain) {
    throw Failure(Status::kUsage,
                  file + " is not a confcrypt file: run 'confcrypt init " + file + "' first");
  }
  if (existed && c.scheme() == Scheme::kPlain && !a.unprotected) refuse_plain_write(a, s, c, file);
  for (const auto& re : a.regexes) c.add_regex(re);
  std::optional<bool> encrypt;
  if (a.encrypt) encrypt = true;
  if (a.plain) encrypt = false;
  ValueType type = ValueType::String;
  if (const Key* k = c.keys().find(a.pos[1])) {
    if (k->type == ValueType::Binary) type = ValueType::Binary;
  }
  c.set(a.pos[1], value, type, encrypt);
  c.save_file(file);
  print_notes(c, a.verbose);
  return 0;
}

int cmd_get(const Args& a) {
  need(a, 2, "get FILE KEY");
  Setup s = make_options(a, a.pos[0]);
  Config c = Config::open_file(a.pos[0], s.opts);
  const Key* k = c.keys().find(a.pos[1]);
  if (!k) throw Failure(Status::kNoSuchKey, "no key '" + a.pos[1] + "' in " + a.pos[0]);
  print_notes(c, a.verbose);
  std::cout << k->value;
  if (k->type != ValueType::Binary) std::cout << "\n";
  return 0;
}

int cmd_unset(const Args& a) {
  need(a, 2, "unset FILE KEY");
  Setup s = make_options(a, a.pos[0]);
  FileLock lock = lock_for_update(a.pos[0]);
  Config c = Config::open_file(a.pos[0], s.opts);
  if (!c.remove(a.pos[1])) {
    throw Failure(Status::kNoSuchKey, "no key '" + a.pos[1] + "' in " + a.pos[0]);
  }
  c.save_file(a.pos[0]);
  return 0;
}

int cmd_show(const Args& a) {
  need(a, 1, "show FILE");
  Setup s = make_options(a, a.pos[0]);
  Config c = Config::open_file(a.pos[0], s.opts);
  print_notes(c, a.verbose);
  std::cout << c.view();
  return 0;
}

int cmd_encrypt(const Args& a) {
  need(a, 1, "encrypt FILE --recipient FPR... [--sign-with FPR]");
  const std::string& file = a.pos[0];
  Setup s = make_options(a, file);
  FileLock lock = lock_for_update(file);
  std::string bytes = read_input(file);
  if (is_openpgp(bytes)) throw Failure(Status::kUsage, file + " is already encrypted as a whole");
  Gpg gpg(s.opts.gpg);
  write_output(file, wholefile_seal(gpg, bytes, s.opts.wholefile_recipients, s.opts.sign_with,
                                    s.opts.armor));
  return 0;
}

int cmd_decrypt(const Args& a) {
  need(a, 1, "decrypt FILE --signer FPR");
  const std::string& file = a.pos[0];
  Setup s = make_options(a, file);
  FileLock lock = lock_for_update(file);
  std::string bytes = read_input(file);
  if (!is_openpgp(bytes)) {
    throw Failure(Status::kUsage, file + " is not encrypted as a whole (no OpenPGP message)");
  }
  Gpg gpg(s.opts.gpg);
  WholeFileOpened w = wholefile_open(gpg, bytes, s.opts.signers);
  if (a.verbose) std::cerr << "confcrypt: signed by " << w.signer << "\n";
  write_output(file, w.plaintext);
  return 0;
}

int cmd_rotate(const Args& a) {
  need(a, 1, "rotate FILE [--aead NAME]");
  Setup s = make_options(a, a.pos[0]);
  FileLock lock = lock_for_update(a.pos[0]);
  Config c = Config::open_file(a.pos[0], s.opts);
  c.rotate(a.aead);
  c.save_file(a.pos[0]);
  print_notes(c, a.verbose);
  return 0;
}

int cmd_recipients(const Args& a) {
  if (a.pos.empty())
    throw Failure(Status::kUsage, "usage: confcrypt recipients list|add|remove FILE [R]");
  const std::string& sub = a.pos[0];
  if (sub == "list") {
    if (a.pos.size() != 2) throw Failure(Status::kUsage, "usage: confcrypt recipients list FILE");
    Setup s = make_options(a, a.pos[1]);
    // Listing needs no key: the header names the recipients (unverified until a key opens it).
    auto header = peek_header(a.pos[1], s.opts);
    if (!header) throw Failure(Status::kUsage, a.pos[1] + " is not a confcrypt file");
    for (const auto& r : Header::from_text(*header).recipients) {
      std::cout << describe(r) << "\n";
    }
    return 0;
  }
  if (sub != "add" && sub != "remove") {
    throw Failure(Status::kUsage, "unknown recipients command '" + sub + "' (list, add, remove)");
  }
  if (a.pos.size() != 3) {
    throw Failure(Status::kUsage, "usage: confcrypt recipients " + sub + " FILE R");
  }
  const std::string& file = a.pos[1];
  Setup s = make_options(a, file);
  RecipientSpec spec = parse_recipient_spec(a.pos[2]);
  FileLock lock = lock_for_update(file);
  Config c = Config::open_file(file, s.opts);
  if (sub == "add") {
    c.add_recipient(spec);
  } else {
    c.remove_recipient(spec);
    // A removed recipient may have kept the data key: without a new one it could still read
    // every value written from now on.
    if (!a.no_rotate) c.rotate();
  }
  c.save_file(file);
  print_notes(c, a.verbose);
  return 0;
}

// The path execvp() would run for `name` (PATH searched when it has no '/'): the kernel copies it
// with the arguments, so it counts against the limit. `name` itself when nothing is found.
std::string program_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::string path = getenv_str("PATH");
  if (path.empty()) path = "/bin:/usr/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

int cmd_exec(const Args& a) {
  need(a, 1, "exec FILE [--prefix P] -- CMD [ARG...]");
  if (a.exec_argv.empty())
    throw Failure(Status::kUsage, "usage: confcrypt exec FILE -- CMD [ARG...]");
  Setup s = make_options(a, a.pos[0]);
  Config c = Config::open_file(a.pos[0], s.opts);
  print_notes(c, a.verbose);
  std::vector<std::string> base;
  for (char** e = environ; *e; ++e) base.emplace_back(*e);
  std::vector<std::string> env =
      exec_environment(base, c.keys(), format_name_of(s.opts), a.prefix.value_or(""));
  // E2BIG from execve() would come only after confcrypt is gone: checked here, with the limit
  // the kernel applies, so the message names what is too large.
  check_exec_size(program_path(a.exec_argv[0]), a.exec_argv, env, exec_limits());
  std::vector<char*> argv, envp;
  for (const auto& s2 : a.exec_argv) argv.push_back(const_cast<char*>(s2.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  std::cout.flush();
  execvpe(argv[0], argv.data(), envp.data());
  throw Failure(Status::kExec, "cannot run '" + a.exec_argv[0] + "': " + strerror(errno));
}

int cmd_migrate(const Args& a) {
  need(a, 1, "migrate FILE --recipient R... (--master-password-file P | --master-password-gpg P)");
  const std::string& file = a.pos[0];
  Setup s = make_options(a, file);
  s.opts.compat = true;
  FileLock lock = lock_for_update(file);
  if (peek_header(file, s.opts))
    throw Failure(Status::kUsage, file + " is already a confcrypt file");
  Config c = Config::open_file(file, s.opts);
  c.init_per_value(s.opts.recipients, s.opts.encrypt_regexes);
  c.save_file(file);
  print_notes(c, a.verbose);
  return 0;
}

int cmd_providers() {
  for (const auto& name : cb::provider_names()) {
    std::cout << name << (name == kDefaultProvider ? " (default)" : "") << "\n";
  }
  return 0;
}

// Options that mean something to some commands only are refused elsewhere, rather than ignored
// (`show --prefix X`, `get --encrypt`): a user who gives one expects it to act.
void check_options_apply(const Args& a) {
  auto only = [&](bool given, const char* option, std::set<std::string> commands) {
    if (given && !commands.count(a.command)) {
      std::string list;
      for (const auto& c : commands) list += (list.empty() ? "" : ", ") + c;
      throw Failure(Status::kUsage,
                    std::string(option) + " is for " + list + ", not '" + a.command + "'");
    }
  };
  only(a.prefix.has_value(), "--prefix", {"exec"});
  only(!a.regexes.empty(), "--encrypt-regex", {"init", "migrate", "set"});
  only(a.encrypt, "--encrypt", {"set"});
  only(a.plain, "--plain", {"set"});
  only(a.no_rotate, "--no-rotate", {"recipients"});
  // Recipients are for writing: new per-value files, and whole-file messages sealed again.
  only(!a.recipients.empty(), "--recipient",
       {"init", "migrate", "encrypt", "set", "unset", "rotate", "recipients"});
  only(a.compat_kdf.has_value(), "--compat-kdf", {"get", "show", "set", "exec", "migrate"});
  only(a.master_password_file.has_value() || a.master_password_gpg.has_value(),
       "--master-password-file/--master-password-gpg", {"get", "show", "set", "exec", "migrate"});
}

int dispatch(const Args& a) {
  if (a.help || a.command.empty() || a.command == "help") {
    std::cout << kUsage;
    return a.command.empty() && !a.help ? int(Status::kUsage) : 0;
  }
  if (a.dashdash && a.command != "exec") {
    throw Failure(Status::kUsage, "'--' is only for 'confcrypt exec FILE -- CMD'");
  }
  check_options_apply(a);
  if (a.command == "init") return cmd_init(a);
  if (a.command == "set") return cmd_set(a);
  if (a.command == "get") return cmd_get(a);
  if (a.command == "unset") return cmd_unset(a);
  if (a.command == "show") return cmd_show(a);
  if (a.command == "encrypt") return cmd_encrypt(a);
  if (a.command == "decrypt") return cmd_decrypt(a);
  if (a.command == "rotate") return cmd_rotate(a);
  if (a.command == "recipients") return cmd_recipients(a);
  if (a.command == "exec") return cmd_exec(a);
  if (a.command == "migrate") return cmd_migrate(a);
  if (a.command == "providers") return cmd_providers();
  throw Failure(Status::kUsage, "unknown command '" + a.command + "' (see confcrypt --help)");
}

// The message as one line: a line break or other control byte the user typed (a file name, a key,
// an argument) is shown escaped, so every failure stays one line.
std::string one_line(const std::string& message) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : message) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  return out;
}

}  // namespace

int run_cli(int argc, char** argv) {
  try {
    return dispatch(parse_args(argc, argv));
  } catch (const Failure& f) {
    std::cerr << "confcrypt: " << one_line(f.what()) << "\n";
    return int(f.status());
  } catch (const FormatError& e) {
    std::cerr << "confcrypt: " << one_line(e.what()) << "\n";
    return int(Status::kMalformed);
  } catch (const std::exception& e) {
    std::cerr << "confcrypt: internal error: " << one_line(e.what()) << "\n";
    return int(Status::kInternal);
  }
}

}  // namespace confcrypt
