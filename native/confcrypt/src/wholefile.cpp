#include "confcrypt/wholefile.hpp"

#include <algorithm>

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
