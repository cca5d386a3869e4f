// The correctness gate for public-key algorithms and KDFs (gate.hpp describes the three steps).
// Randomised operations (ECDSA and PSS signatures, OAEP, key generation) cannot be compared with
// a known answer: they are checked by round trip and by every other provider using their output.
#include <algorithm>
#include <map>

#include "cryptobench/gate.hpp"
#include "cryptobench/hexutil.hpp"
#include "cryptobench/vectors.hpp"
#include "gate_util.hpp"

namespace cb {

namespace {

Bytes run_op(Operation& op, const Bytes& in) {
  Bytes out(in.size() + kOutRoom);
  const size_t n = op.run(in.data(), in.size(), out.data());
  if (n > out.size()) throw Error("operation reported more output than its buffer");
  out.resize(n);
  return out;
}

std::string clip(const Bytes& b) {
  std::string h = to_hex(b.data(), std::min<size_t>(b.size(), 24));
  return (b.size() > 24 ? h + "..." : h) + " (" + std::to_string(b.size()) + " bytes)";
}

bool deterministic_signature(const AlgorithmInfo& info) {
  return info.family == "rsa-pkcs1" || info.family == "ed25519" || info.family == "ed448";
}

// The part that makes a key private: RSA and EC d, EdDSA/X25519/X448 priv, FFDH x (EC's x is
// a public coordinate).
const char* private_part(const AlgorithmInfo& info) {
  const std::string& type = info.key_type;
  if (type.rfind("ffdhe", 0) == 0) return "x";
  if (type.rfind("rsa-", 0) == 0 || type.rfind("ecdsa-", 0) == 0 || type.rfind("ecdh-", 0) == 0)
    return "d";
  return "priv";
}

bool has_private(const AlgorithmInfo& info, const KeyParts& key) {
  auto has = [&](const char* part) {
    auto it = key.find(part);
    return it != key.end() && !it->second.empty();
  };
  // A post-quantum key's private part is its seed, or the expanded key (docs/post-quantum.md).
  const std::string& type = info.key_type;
  const bool pq = type.rfind("ml-", 0) == 0 || type.rfind("slh-", 0) == 0;
  return has(private_part(info)) || (pq && has("seed"));
}

bool offers(Provider& p, const std::string& algorithm) {
  const auto algs = p.algorithms();
  return std::find(algs.begin(), algs.end(), algorithm) != algs.end();
}

// ---- one operation each, on a fresh prepared operation ------------------------------------------

Bytes sign(Provider& p, const std::string& alg, const KeyParts& key, const Bytes& msg) {
  Params params;
  params.keypair = key;
  auto op = p.prepare(alg, OpKind::Sign, params);
  return run_op(*op, msg);
}

// True when the signature verifies, false when the provider rejects it.
bool verifies(Provider& p, const std::string& alg, const KeyParts& pub, const Bytes& msg,
              const Bytes& sig) {
  Params params;
  params.keypair = pub;
  params.signature = sig;
  std::unique_ptr<Operation> op = p.prepare(alg, OpKind::Verify, params);
  try {
    run_op(*op, msg);
    return true;
  } catch (const Unsupported&) {
    throw;
  } catch (const Error&) {
    return false;
  }
}

Bytes encrypt(Provider& p, const std::string& alg, const KeyParts& pub, const Bytes& msg) {
  Params params;
  params.keypair = pub;
  auto op = p.prepare(alg, OpKind::Encrypt, params);
  return run_op(*op, msg);
}

Bytes decrypt(Provider& p, const std::string& alg, const KeyParts& key, const Bytes& ct) {
  Params params;
  params.keypair = key;
  auto op = p.prepare(alg, OpKind::Decrypt, params);
  return run_op(*op, ct);
}

// One encapsulation to `pub`: ciphertext || shared secret.
Bytes encaps(Provider& p, const std::string& alg, const KeyParts& pub) {
  Params params;
  params.keypair = pub;
  auto op = p.prepare(alg, OpKind::Encaps, params);
  return run_op(*op, {});
}

Bytes decaps(Provider& p, const std::string& alg, const KeyParts& key, const Bytes& ct) {
  Params params;
  params.keypair = key;
  auto op = p.prepare(alg, OpKind::Decaps, params);
  return run_op(*op, ct);
}

Bytes agree(Provider& p, const std::string& alg, const KeyParts& own, const KeyParts& peer_pub) {
  Params params;
  params.keypair = own;
  params.peer = peer_pub;
  auto op = p.prepare(alg, OpKind::Derive, params);
  return run_op(*op, {});
}

Bytes derive_key(Provider& p, const std::string& alg, const Params& params, const Bytes& input) {
  auto op = p.prepare(alg, OpKind::Derive, params);
  return run_op(*op, input);
}

// A verifier accepted a vector only a strict verifier rejects.
struct LaxAccept {};

void add_lax(GateReport& report, const std::string& what) {
  report.lax += (report.lax.empty() ? "" : "; ") + what;
}

// ---- known-answer vectors -----------------------------------------------------------------------

// Returns "" when the vector passes, else why not. Throws Unsupported when it does not apply.
std::string check_pk_vector(Provider& p, const AlgorithmInfo& info, OpKind op, const PkVector& v) {
  switch (info.kind) {
    case Kind::Signature:
      if (op == OpKind::Sign) {
        if (!v.valid || !has_private(info, v.key)) throw Unsupported("vector has no private key");
        Params params;
        params.keypair = v.key;
        auto prepared = p.prepare(info.name, OpKind::Sign, params);
        for (int round = 1; round <= 2; ++round) {
          const Bytes sig = run_op(*prepared, v.message);
          if (deterministic_signature(info)) {
            if (sig != v.signature)
              return "signature " + clip(sig) + ", expected " + clip(v.signature);
          } else if (!verifies(p, info.name, public_parts(info, v.key), v.message, sig)) {
            return "its own signature does not verify";
          }
        }
        return "";
      } else {
        Params params;
        params.keypair = public_parts(info, v.key);
        params.signature = v.signature;
        auto prepared = p.prepare(info.name, OpKind::Verify, params);
        for (int round = 1; round <= 2; ++round) {
          bool ok = true;
          try {
            run_op(*prepared, v.message);
          } catch (const Unsupported&) {
            throw;
          } catch (const Error&) {
            ok = false;
          }
          if (ok && !v.valid && v.strict_only) throw LaxAccept();
          if (ok != v.valid)
            return v.valid ? "rejected a valid signature" : "accepted an invalid signature";
        }
        if (v.valid) {
          Bytes bad = v.signature;
          bad[bad.size() / 2] ^= 0x01;
          if (verifies(p, info.name, public_parts(info, v.key), v.message, bad))
            return "accepted a signature with one bit flipped";
          Bytes other = v.message;
          other.push_back(0x00);
          if (verifies(p, info.name, public_parts(info, v.key), other, v.signature))
            return "accepted the signature for a different message";
        }
        return "";
      }
    case Kind::PkEncryption:
      if (op == OpKind::Decrypt) {
        // A provider that refuses to encrypt an empty message (Unsupported) does not take empty
        // messages at all, so an empty-message vector does not apply to it.
        if (v.plaintext.empty()) encrypt(p, info.name, public_parts(info, v.key), v.plaintext);
        Params params;
        params.keypair = v.key;
        auto prepared = p.prepare(info.name, OpKind::Decrypt, params);
        for (int round = 1; round <= 2; ++round) {
          const Bytes pt = run_op(*prepared, v.ciphertext);
          if (pt != v.plaintext) return "plaintext " + clip(pt) + ", expected " + clip(v.plaintext);
        }
        Bytes bad = v.ciphertext;
        bad[bad.size() / 2] ^= 0x01;
        try {
          const Bytes pt = run_op(*prepared, bad);
          // PKCS#1 v1.5 with implicit rejection (OpenSSL >= 3.2) answers a broken ciphertext
          // with a synthetic message instead of an error: not an acceptance of this one.
          if (info.family != "rsa-pkcs1v15-enc" || pt == v.plaintext)
            return "accepted a ciphertext with one bit flipped";
        } catch (const Unsupported&) {
          throw;
        } catch (const Error&) {
        }
        return "";
      } else {
        // Encryption is randomised: encrypt under the vector's key, decrypt with it.
        if (!has_private(info, v.key)) throw Unsupported("vector has no private key");
        const Bytes ct = encrypt(p, info.name, public_parts(info, v.key), v.plaintext);
        if (decrypt(p, info.name, v.key, ct) != v.plaintext)
          return "its own ciphertext does not decrypt to the plaintext";
        return "";
      }
    case Kind::KeyAgreement: {
      Params params;
      params.keypair = v.key;
      params.peer = v.peer;
      auto prepared = p.prepare(info.name, OpKind::Derive, params);
      for (int round = 1; round <= 2; ++round) {
        const Bytes z = run_op(*prepared, {});
        if (z != v.shared) return "shared secret " + clip(z) + ", expected " + clip(v.shared);
      }
      return "";
    }
    case Kind::Kem: {
      // Decapsulation known answers whichever operation the case measures (encapsulation is
      // randomised: no API here takes its randomness), with the vector's key as given (its
      // seed, so the key expansion is checked too, else its expanded `priv`).
      if (!has_private(info, v.key)) throw Unsupported("vector has no private key");
      Params params;
      params.keypair = v.key;
      auto prepared = p.prepare(info.name, OpKind::Decaps, params);
      const char* what = v.implicit_rejection ? "implicit-rejection secret " : "shared secret ";
      for (int round = 1; round <= 2; ++round) {
        Bytes ss;
        try {
          ss = run_op(*prepared, v.ciphertext);
        } catch (const Error& e) {
          if (v.implicit_rejection)
            return std::string("refused an invalid ciphertext instead of implicit rejection: ") +
                   e.what();
          throw;
        }
        if (ss != v.shared) return what + clip(ss) + ", expected " + clip(v.shared);
      }
      return "";
    }
    case Kind::Kdf: {
      auto prepared = p.prepare(info.name, OpKind::Derive, v.kdf);
      for (int round = 1; round <= 2; ++round) {
        const Bytes out = run_op(*prepared, v.input);
        if (out != v.output) return "output " + clip(out) + ", expected " + clip(v.output);
      }
      return "";
    }
    default:
      throw Unsupported("no vectors for " + info.name);
  }
}

// Two key parts are equal as unsigned integers (an export may pad or strip leading zeros).
bool same_number(const Bytes& a, const Bytes& b) {
  auto strip = [](const Bytes& v) {
    auto it = std::find_if(v.begin(), v.end(), [](uint8_t c) { return c != 0; });
    return Bytes(it, v.end());
  };
  return strip(a) == strip(b);
}

// keyload: the timed operation decodes `encoded` twice without error, and decode_key gives
// every part of the vector's key (a certificate: its public parts).
std::string check_keyload_vector(Provider& p, const AlgorithmInfo& info, const PkVector& v) {
  auto prepared = p.prepare(info.name, OpKind::Keyload, {});
  for (int i = 0; i < 2; ++i) run_op(*prepared, v.input);
  const KeyParts decoded = p.decode_key(info.name, v.input);
  for (const auto& [part, value] : v.key) {
    auto it = decoded.find(part);
    if (it == decoded.end()) return "the decoded key has no part '" + part + "'";
    if (!same_number(it->second, value))
      return "the decoded key's '" + part + "' is " + clip(it->second) + ", expected " +
             clip(value);
  }
  return "";
}

std::string run_pk_kat(Provider& p, const std::string& provider, const AlgorithmInfo& info,
                       OpKind op, GateReport& report) {
  // A KEM's keygen runs its decapsulation known answers: keys given as seeds check the expansion.
  if (op == OpKind::Keygen && info.kind != Kind::Kem) {
    report.kat = "not applicable (random keys; checked by use)";
    return "";
  }
  const auto& vectors = pk_vectors_for(info);
  if (vectors.empty()) {
    // Published OAEP-SHA-256 vectors are rare; its round trip and cross-provider decryption
    // below are then the whole check, and the report says so.
    if (info.kind == Kind::PkEncryption) {
      report.kat = "no published vector; checked by round trip and cross-provider decryption";
      return "";
    }
    return "no known-answer vector for " + info.name + " in " + vectors_dir() + "/" + info.family +
           ".json";
  }
  if (info.kind == Kind::Keyload)
    return run_vectors(vectors, provider, info, report,
                       [&](const PkVector& v) { return check_keyload_vector(p, info, v); });
  return run_vectors(vectors, provider, info, report, [&](const PkVector& v) {
    try {
      return check_pk_vector(p, info, op, v);
    } catch (const LaxAccept&) {
      add_lax(report, "accepts " + (v.source.empty() ? std::string("a vector") : v.source));
      return std::string();
    }
  });
}

// ---- round trips on the case's own key and input ----------------------------------------------

// The signature algorithm that exercises a key of `key_type` (rsa-N keys: PKCS#1 v1.5 or PSS,
// whichever the provider offers).
std::string signature_for_key(Provider& p, const AlgorithmInfo& key_info) {
  if (key_info.kind == Kind::Signature) return key_info.name;
  for (const char* scheme : {"-pkcs1-sha256", "-pss-sha256"})
    if (offers(p, key_info.name + scheme)) return key_info.name + scheme;
  return "";
}

}  // namespace

std::string check_generated_key(Provider& p, const AlgorithmInfo& info, const KeyParts& a,
                                const KeyParts& b) {
  if (a == b) return "two generated keys are identical";
  if (!has_private(info, a)) return "generated key has no private part";
  const Bytes msg = ByteStream(7).bytes(32);
  if (info.kind == Kind::Kem) {
    const auto pub = a.find("pub");
    if (pub == a.end() || pub->second.size() != info.public_key_len)
      return "generated public key is not " + std::to_string(info.public_key_len) + " bytes";
    const Bytes e = encaps(p, info.name, public_parts(info, a));
    if (e.size() != info.ciphertext_len + info.output_len) return "encapsulation is " + clip(e);
    const Bytes ct(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(info.ciphertext_len));
    const Bytes secret(e.begin() + static_cast<std::ptrdiff_t>(info.ciphertext_len), e.end());
    if (decaps(p, info.name, a, ct) != secret)
      return "a generated key does not decapsulate its own encapsulation";
    try {
      if (decaps(p, info.name, b, ct) == secret)
        return "another generated key decapsulates to the same secret";
    } catch (const Error&) {
    }
    return "";
  }
  if (info.kind == Kind::KeyAgreement) {
    const Bytes ab = agree(p, info.name, a, public_parts(info, b));
    const Bytes ba = agree(p, info.name, b, public_parts(info, a));
    if (ab != ba) return "two generated keys do not agree on a shared secret";
    if (ab.size() != info.output_len) return "shared secret is " + clip(ab);
    return "";
  }
  const std::string sig_alg = signature_for_key(p, info);
  if (sig_alg.empty()) return "";
  const Bytes sig = sign(p, sig_alg, a, msg);
  if (!verifies(p, sig_alg, public_parts(info, a), msg, sig))
    return "a signature made with a generated key does not verify";
  if (verifies(p, sig_alg, public_parts(info, b), msg, sig))
    return "a signature verifies under another generated key";
  return "";
}

namespace {

// keyload: the decoded private key signs and the signature verifies under the reference public
// key; a reference signature verifies under a certificate's decoded public key. Where the
// provider offers no signature with that key type (no native adapter today), the known-answer
// step's equality of every decoded part with the reference key is the whole check, and it says so.
std::string keyload_roundtrip(Provider& p, const AlgorithmInfo& info, const KeyParts& reference,
                              GateReport& report) {
  const AlgorithmInfo* type = find_algorithm(info.key_type);
  if (!type) return "unknown key type " + info.key_type;
  const auto& vectors = pk_vectors_for(info);
  if (vectors.empty()) return "no encoded key for " + info.name;
  const KeyParts decoded = p.decode_key(info.name, vectors.front().input);
  const std::string sig_alg = signature_for_key(p, *type);
  if (sig_alg.empty() || !offers(p, sig_alg)) {
    report.roundtrip = "not signed: " + p.name() + " offers no signature with " + info.key_type +
                       " keys; every decoded part equals the reference key's";
    return "";
  }
  const bool certificate = !has_private(*type, decoded);
  const Bytes msg = {'k', 'e', 'y', 'l', 'o', 'a', 'd'};
  const Bytes sig = sign(p, sig_alg, certificate ? reference : decoded, msg);
  if (!verifies(p, sig_alg, certificate ? decoded : public_parts(*type, reference), msg, sig))
    return certificate ? "a signature by the reference key does not verify under the "
                         "certificate's decoded key"
                       : "a signature by the decoded key does not verify under the reference key";
  report.roundtrip = certificate ? "a " + sig_alg +
                                       " signature by the reference key verifies under the "
                                       "certificate's decoded key"
                                 : "the decoded key signs (" + sig_alg +
                                       "); the signature verifies under the reference key";
  return "";
}

std::string run_pk_roundtrip(Provider& p, const AlgorithmInfo& info, OpKind op, const Bytes& input,
                             const Params& params, const KeyParts& full_key,
                             const KeyParts& peer_key, const KeyParts& generated,
                             GateReport& report) {
  switch (info.kind) {
    case Kind::KeyPair:
    case Kind::Signature:
      if (op == OpKind::Keygen) {
        return check_generated_key(p, info, generated, p.generate_key(info.name));
      } else {
        const Bytes sig = sign(p, info.name, full_key, input);
        if (sig.size() != info.output_len)
          return "signature is " + std::to_string(sig.size()) + " bytes, expected " +
                 std::to_string(info.output_len);
        if (!verifies(p, info.name, public_parts(info, full_key), input, sig))
          return "its own signature does not verify";
        // First, inner and last byte: EdDSA's last byte holds the top of S (Ed448: always 0),
        // where lax decoding hides.
        for (size_t at : {size_t{0}, sig.size() / 3, sig.size() - 1}) {
          Bytes bad = sig;
          bad[at] ^= 0x80;
          if (!verifies(p, info.name, public_parts(info, full_key), input, bad)) continue;
          // Ed448's last byte must be zero (RFC 8032 5.2.2): a verifier that ignores it accepts
          // a second encoding of the same signature -- malleable, not forged.
          if (info.name == "ed448" && at == sig.size() - 1) {
            add_lax(report, "accepts a signature whose last byte (zero in every valid Ed448 " +
                                std::string("signature) was altered"));
            continue;
          }
          return "accepted its signature with a bit of byte " + std::to_string(at) + " flipped";
        }
        return "";
      }
    case Kind::PkEncryption: {
      const Bytes c1 = encrypt(p, info.name, public_parts(info, full_key), input);
      const Bytes c2 = encrypt(p, info.name, public_parts(info, full_key), input);
      if (c1.size() != info.output_len) return "ciphertext is " + clip(c1);
      if (c1 == c2) return "two encryptions of the same message are identical (no randomness)";
      if (decrypt(p, info.name, full_key, c1) != input)
        return "decrypt(encrypt(input)) differs from the input";
      return "";
    }
    case Kind::KeyAgreement: {
      if (op == OpKind::Keygen)
        return check_generated_key(p, info, generated, p.generate_key(info.name));
      const Bytes ab = agree(p, info.name, full_key, public_parts(info, peer_key));
      const Bytes ba = agree(p, info.name, peer_key, public_parts(info, full_key));
      if (ab.size() != info.output_len)
        return "shared secret is " + std::to_string(ab.size()) + " bytes, expected " +
               std::to_string(info.output_len);
      if (ab != ba) return "the two parties compute different shared secrets";
      return "";
    }
    case Kind::Kem: {
      if (op == OpKind::Keygen)
        return check_generated_key(p, info, generated, p.generate_key(info.name));
      const size_t n_ct = info.ciphertext_len, n_ss = info.output_len;
      const Bytes c1 = encaps(p, info.name, public_parts(info, full_key));
      const Bytes c2 = encaps(p, info.name, public_parts(info, full_key));
      if (c1.size() != n_ct + n_ss)
        return "encapsulation gave " + std::to_string(c1.size()) + " bytes, expected " +
               std::to_string(n_ct) + " + " + std::to_string(n_ss);
      if (c1 == c2) return "two encapsulations are identical (no randomness)";
      Bytes ct(c1.begin(), c1.begin() + static_cast<std::ptrdiff_t>(n_ct));
      const Bytes secret(c1.begin() + static_cast<std::ptrdiff_t>(n_ct), c1.end());
      const Bytes got = decaps(p, info.name, full_key, ct);
      if (got != secret)
        return "decapsulation gave " + clip(got) + ", the encapsulation's secret is " +
               clip(secret);
      ct[0] ^= 0x01;
      Bytes rejected;
      try {
        rejected = decaps(p, info.name, full_key, ct);
      } catch (const Error& e) {
        return std::string("refused a ciphertext with one bit flipped instead of implicit ") +
               "rejection: " + e.what();
      }
      if (rejected.size() != n_ss || rejected == secret)
        return "a ciphertext with one bit flipped decapsulates to the same secret";
      return "";
    }
    case Kind::Kdf: {
      const Bytes a = derive_key(p, info.name, params, input);
      const Bytes b = derive_key(p, info.name, params, input);
      if (a.size() != params.out_len)
        return "output is " + std::to_string(a.size()) + " bytes, expected " +
               std::to_string(params.out_len);
      if (a != b) return "two derivations from the same input differ";
      return "";
    }
    case Kind::Keyload:
      return keyload_roundtrip(p, info, full_key, report);
    default:
      return "not a public-key algorithm";
  }
}

}  // namespace

Params cheap_kdf_params(const AlgorithmInfo& info) {
  ByteStream s(0xC0FFEE);
  Params params;
  params.salt = s.bytes(16);
  params.out_len = 32;
  if (info.name.rfind("pbkdf2", 0) == 0) params.cost = {{"iterations", 1000}};
  if (info.name == "scrypt") params.cost = {{"N", 1024}, {"r", 8}, {"p", 1}};
  if (info.name == "argon2id") params.cost = {{"t", 2}, {"m", 1024}, {"p", 1}};
  if (info.name == "hkdf-sha256") params.info = s.bytes(16);
  return params;
}

KeyParts public_parts(const AlgorithmInfo& info, const KeyParts& key) {
  static const std::map<std::string, std::vector<std::string>> by_family = {
      {"rsa", {"n", "e"}}, {"ec", {"x", "y"}}, {"raw", {"pub"}}, {"ffdhe", {"y"}}};
  const std::string& type = info.key_type;
  std::string family = "raw";
  if (type.rfind("rsa-", 0) == 0)
    family = "rsa";
  else if (type.rfind("ecdsa-", 0) == 0 || type.rfind("ecdh-", 0) == 0)
    family = "ec";
  else if (type.rfind("ffdhe", 0) == 0)
    family = "ffdhe";
  KeyParts out;
  for (const auto& part : by_family.at(family)) {
    auto it = key.find(part);
    if (it != key.end()) out[part] = it->second;
  }
  return out;
}

GateReport run_pk_gate(const std::string& provider, const AlgorithmInfo& info, OpKind op,
                       const Bytes& input, const Params& params, bool agreement) {
  Provider* p = get_provider(provider);
  KeyParts key, peer_key, generated;
  return run_steps(
      provider, agreement,
      [&](GateReport& r) {
        if (!info.key_type.empty()) {
          key = test_key(info.key_type);
          if (info.kind == Kind::KeyAgreement) peer_key = test_key(info.key_type + "-peer");
        }
        return run_pk_kat(*p, provider, info, op, r);
      },
      [&](GateReport& r) {
        // Key generation: one fresh key, checked here and then handed to every other provider.
        if (op == OpKind::Keygen) generated = p->generate_key(info.name);
        return run_pk_roundtrip(*p, info, op, input, params, key, peer_key, generated, r);
      });
}

GateReport run_pk_known_answers(const std::string& provider, const AlgorithmInfo& info, OpKind op) {
  Provider* p = get_provider(provider);
  return run_steps(
      provider, false, [&](GateReport& r) { return run_pk_kat(*p, provider, info, op, r); },
      [](GateReport& r) {
        r.roundtrip = "skipped";
        return std::string();
      });
}

}  // namespace cb
