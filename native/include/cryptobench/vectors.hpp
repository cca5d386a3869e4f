// Known-answer vectors from vectors/<family>.json (format: vectors/README.md).
#pragma once

#include <string>
#include <vector>

#include "cryptobench/provider.hpp"

namespace cb {

struct Vector {
  std::string algorithm;
  std::string source;
  Bytes key, iv, aad;
  Bytes input;     // plaintext (ciphers, AEAD) or message (hash, MAC), with `repeat` applied
  Bytes expected;  // ciphertext || tag (AEAD), ciphertext, digest, or (possibly truncated) MAC tag
  size_t initial_counter = 0;  // stream ciphers: block counter the published vector starts at
};

// A public-key or KDF vector (format: vectors/README.md); only the fields of its kind are set.
struct PkVector {
  std::string algorithm;
  std::string source;
  KeyParts key;       // signature, OAEP: the key; key agreement: own private (+public) key
  KeyParts peer;      // key agreement: the other party's public key
  Bytes message;      // signature
  Bytes signature;    // signature
  bool valid = true;  // signature: whether it verifies
  // An invalid signature only a strict verifier rejects (RFC 8032's S < L check): accepting it
  // is reported as lax (GateReport::lax), not as a failure.
  bool strict_only = false;
  Bytes plaintext;   // OAEP
  Bytes ciphertext;  // OAEP
  Bytes shared;      // key agreement, KEM: the shared secret
  // KEM: `ciphertext` is invalid and `shared` is FIPS 203's implicit-rejection secret.
  bool implicit_rejection = false;
  Params kdf;    // KDF: salt, info, key (Argon2 secret), aad (Argon2 ad), cost, out_len
  Bytes input;   // KDF: password or HKDF input keying material; keyload: the encoded key
  Bytes output;  // KDF: expected output
  // Handshake (vectors/tls13.json): the server's certificate and key (Params::certificate,
  // private_key, server_name), and what the handshake must negotiate.
  Params server;
  std::string version, suite, group;
};

// Directory searched for vector files: set_vectors_dir(), else $CRYPTOBENCH_VECTORS, else the
// repository's vectors/ directory compiled in.
void set_vectors_dir(const std::string& dir);
std::string vectors_dir();

// All vectors for an algorithm (loaded once per family and cached). Throws std::runtime_error
// naming the file for a file that exists but cannot be parsed; returns empty when there is none.
const std::vector<Vector>& vectors_for(const AlgorithmInfo& info);
// The same for public-key and KDF algorithms.
const std::vector<PkVector>& pk_vectors_for(const AlgorithmInfo& info);

// A fixed test key from vectors/keys.json ("rsa-2048", "x25519", "x25519-peer", ...), used for
// timed cases and the agreement checks. Throws Error when the file or the key is missing.
const KeyParts& test_key(const std::string& name);

}  // namespace cb
