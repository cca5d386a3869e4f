#include "confcrypt/wholefile.hpp"

#include <algorithm>
#include <optional>

namespace confcrypt {

bool is_openpgp(const std::string& bytes) {
  if (bytes.rfind("-----BEGIN PGP MESSAGE-----", 0) == 0) return true;
  if (bytes.empty()) return false;
  uint8_t b = uint8_t(bytes[0]);
  if (!(b & 0x80)) return false;
  // New-format header: tag in bits 0-5; old format: tag in bits 2-5. Tag 1 = PKESK, 3 = SKESK.
  int tag = (b & 0x40) ? (b & 0x3f) : ((b >> 2) & 0x0f);
  return tag == 1 || tag == 3;
}

std::string wholefile_seal(const Gpg& gpg, const std::string& plaintext,
                           const std::vector<std::string>& recipients, const std::string& sign_with,
                           bool armor) {
  if (recipients.empty()) {
    throw Failure(Status::kUsage,
                  "whole-file encryption needs at least one gpg recipient (--recipient FPR, "
                  "CONFCRYPT_RECIPIENTS or 'recipient = FPR' in the config file)");
  }
  return gpg.encrypt(plaintext, recipients, true, sign_with, armor);
}

namespace {

// RFC 4880, 6.1: the CRC-24 of the armour's checksum line.
uint32_t crc24(const std::string& data) {
  uint32_t crc = 0xB704CE;
  for (char ch : data) {
    crc ^= uint32_t(uint8_t(ch)) << 16;
    for (int i = 0; i < 8; ++i) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864CFB;
    }
  }
  return crc & 0xFFFFFF;
}

int b64_sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard Base64 with padding; nullopt for anything else.
std::optional<std::string> b64_decode(const std::string& text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : text) {
    if (c == '=') {
      ++pad;
      continue;
    }
    int v = b64_sextet(c);
    if (v < 0 || pad) return std::nullopt;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((acc >> bits) & 0xff);
    }
  }
  if ((text.size() % 4) != 0 || pad > 2) return std::nullopt;
  return out;
}

}  // namespace

void check_armor(const std::string& bytes) {
  auto changed = [](const std::string& why) {
    return Failure(Status::kModified, "the armoured file was changed: " + why);
  };
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < bytes.size()) {
    size_t nl = bytes.find('\n', start);
    if (nl == std::string::npos) nl = bytes.size();
    std::string line = bytes.substr(start, nl - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    lines.push_back(std::move(line));
    start = nl + 1;
  }
  size_t i = 1;  // after "-----BEGIN PGP MESSAGE-----"
  // Armour headers ("Version: ...") up to the blank line.
  while (i < lines.size() && !lines[i].empty()) {
    if (lines[i].find(": ") == std::string::npos) break;  // no headers, no blank line
    ++i;
  }
  if (i < lines.size() && lines[i].empty()) ++i;
  std::string body, checksum;
  bool ended = false;
  for (; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("-----END PGP MESSAGE-----", 0) == 0) {
      ended = true;
      break;
    }
    if (!l.empty() && l[0] == '=') {
      checksum = l.substr(1);
      continue;
    }
    body += l;
  }
  if (!ended) throw changed("its END line is missing");
  auto data = b64_decode(body);
  if (!data) throw changed("its Base64 text is damaged");
  if (checksum.empty()) return;  // the checksum is optional (RFC 9580)
  auto sum = b64_decode(checksum);
  if (!sum || sum->size() != 3) throw changed("its checksum line is damaged");
  uint32_t expected = (uint32_t(uint8_t((*sum)[0])) << 16) | (uint32_t(uint8_t((*sum)[1])) << 8) |
                      uint32_t(uint8_t((*sum)[2]));
  if (crc24(*data) != expected) throw changed("its CRC-24 checksum does not match");
}

namespace {

bool has(const std::vector<GpgStatus>& st, const char* keyword) {
  return std::any_of(st.begin(), st.end(),
                     [&](const GpgStatus& s) { return s.keyword == keyword; });
}
}  // namespace

WholeFileOpened wholefile_open(const Gpg& gpg, const std::string& data,
                               const std::vector<std::string>& signers) {
  if (signers.empty()) {
    throw Failure(Status::kUsage,
                  "reading a whole-file encrypted file needs the trusted signers: --signer FPR, "
                  "CONFCRYPT_SIGNERS or 'signer = FPR' in the config file");
  }
  std::vector<std::string> trusted;
  for (const auto& s : signers) trusted.push_back(Gpg::normalize_fingerprint(s));
  // gpg reports a bad armour checksum only on stderr, in the user's language: checked here, so
  // that a changed character is "modified" (14) like any other change to the message.
  if (data.rfind("-----BEGIN PGP MESSAGE-----", 0) == 0) check_armor(data);
  Gpg::Decrypted d = gpg.decrypt(data);
  const auto& st = d.status;

  if (!has(st, "BEGIN_DECRYPTION")) {
    if (has(st, "NEWSIG") || has(st, "GOODSIG") || has(st, "BADSIG")) {
      throw Failure(Status::kMalformed, "the file is signed but not encrypted");
    }
    if (has(st, "NO_SECKEY") || has(st, "ENC_TO")) {
      throw Failure(Status::kNoKey, "no secret key here can decrypt the file");
    }
    throw Failure(Status::kMalformed,
                  "not an encrypted OpenPGP message: " + first_gpg_message(d.err));
  }
  if (has(st, "DECRYPTION_FAILED")) {
    // DECRYPTION_KEY / DECRYPTION_INFO follow once a secret key yielded the session key.
    if (!has(st, "DECRYPTION_KEY") && !has(st, "DECRYPTION_INFO")) {
      throw Failure(Status::kNoKey, "no secret key here can decrypt the file");
    }
    throw Failure(Status::kModified,
                  "the encrypted file fails its integrity check: it was changed (" +
                      first_gpg_message(d.err) + ")");
  }

  // Signatures: each starts with NEWSIG; one of GOODSIG, EXPSIG, EXPKEYSIG, REVKEYSIG, BADSIG,
  // ERRSIG follows; VALIDSIG carries the fingerprints of a good one.
  bool any_sig = false, bad = false, missing_key = false;
  std::string good_but_foreign, bad_reason;
  for (const GpgStatus& s : st) {
    if (s.keyword == "NEWSIG" || s.keyword == "GOODSIG" || s.keyword == "BADSIG" ||
        s.keyword == "ERRSIG" || s.keyword == "EXPSIG" || s.keyword == "EXPKEYSIG" ||
        s.keyword == "REVKEYSIG") {
      any_sig = true;
    }
    if (s.keyword == "BADSIG") {
      bad = true;
      bad_reason = "the signature does not verify: the file was changed";
    } else if (s.keyword == "EXPSIG" || s.keyword == "EXPKEYSIG" || s.keyword == "REVKEYSIG") {
      bad = true;
      bad_reason = "the signature was made by an expired or revoked key";
    } else if (s.keyword == "ERRSIG") {
      missing_key = true;
      if (!s.args.empty()) good_but_foreign = s.args[0];
    }
  }
  if (bad) throw Failure(Status::kBadSignature, bad_reason);
  // gpg reports DECRYPTION_OKAY only once the whole message decrypted and passed its integrity
  // check; without it nothing else it said can be relied on.
  if (!has(st, "DECRYPTION_OKAY")) {
    throw Failure(Status::kModified,
                  "the encrypted file fails its integrity check: " + first_gpg_message(d.err));
  }
  if (!any_sig) throw Failure(Status::kUnsigned, "the file is not signed");
  for (const GpgStatus& s : st) {
    if (s.keyword != "VALIDSIG" || s.args.empty()) continue;
    std::vector<std::string> fprs = {s.args[0]};
    if (s.args.size() >= 10) fprs.push_back(s.args[9]);  // the primary key's fingerprint
    for (const auto& f : fprs) {
      if (std::find(trusted.begin(), trusted.end(), f) != trusted.end()) {
        if (!has(st, "GOODSIG")) break;
        return {std::move(d.plaintext), f};
      }
    }
    good_but_foreign = fprs.back();
  }
  if (missing_key) {
    throw Failure(Status::kUnknownSigner, "the file is signed by key " + good_but_foreign +
                                              ", which is not in the keyring");
  }
  throw Failure(Status::kUnknownSigner,
                "the file is signed by " + good_but_foreign + ", which is not a configured signer");
}

}  // namespace confcrypt
