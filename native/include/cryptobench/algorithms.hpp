// The algorithm catalogue: one naming scheme used by every adapter, the protocol, the store and
// the reports. Its entries are data, catalogue/algorithms.json (shared with every other runner),
// embedded at build time and parsed on first use: adding an algorithm adds one entry there.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cb {

// Symmetric kinds, then public-key kinds (key pair: RSA key generation only; signature;
// public-key encryption; key agreement), key derivation, and key encapsulation (ML-KEM and the
// hybrid X25519MLKEM768: docs/post-quantum.md).
enum class Kind {
  Cipher,
  Aead,
  Hash,
  Mac,
  KeyPair,
  Signature,
  PkEncryption,
  KeyAgreement,
  Kdf,
  Kem,
  // Decoding an encoded private key or certificate into the library's key object (keyload).
  Keyload,
  // One full TLS handshake, client and server in one process over memory buffers (handshake).
  Handshake
};
enum class OpKind {
  Encrypt,
  Decrypt,
  Hash,
  Mac,
  Keygen,
  Sign,
  Verify,
  Derive,
  Encaps,
  Decaps,
  Keyload,
  Handshake
};

struct AlgorithmInfo {
  std::string name;  // "aes-256-gcm"
  Kind kind;
  size_t key_len;      // bytes; 0 for hashes
  size_t iv_len;       // bytes; 0 when none
  size_t block_len;    // input length must be a multiple of this (1 = any length)
  size_t min_len;      // smallest message (XTS: 16)
  size_t tag_len;      // AEAD tag bytes
  size_t output_len;   // digest / MAC tag / signature / shared-secret bytes; 0 for ciphers
  std::string family;  // "aes-gcm", used to find vectors/<family>.json
  std::string description;
  // Public-key algorithms: the key type whose keys it uses ("rsa-2048" for rsa-2048-pss-sha256,
  // the algorithm's own name for ecdsa-p256, x25519, ...). Key generation is an operation of the
  // algorithm whose name equals its key type. Empty for symmetric algorithms and KDFs.
  std::string key_type;
  // Public-key algorithms: modulus / field / group size in bits (2048, 256, 255, ...).
  size_t bits = 0;
  // Digest used inside the algorithm (RSA and ECDSA signatures, OAEP, PBKDF2, HKDF); "" if none.
  std::string digest;
  // The operations that apply, in the catalogue's order (see operations_for).
  std::vector<OpKind> operations;
  // Bytes on the wire (catalogue/README.md): the public key, and what the responder sends back
  // (a KEM ciphertext, a key agreement's public share, an OAEP ciphertext); 0 when none.
  size_t public_key_len = 0;
  size_t ciphertext_len = 0;
};

// The whole catalogue, in the file's order. Throws std::runtime_error naming the entry when the
// embedded file is malformed (the Catalogue tests in native/tests/kat_test.cpp catch that).
const std::vector<AlgorithmInfo>& algorithms();
// The entries of a catalogue document ({"algorithms": [...]}, catalogue/algorithms.json's form);
// algorithms() is this applied to the embedded file. Throws json errors for text that is not
// JSON and std::runtime_error naming the entry for a missing or mistyped field, an unknown kind or
// operation, operations that do not fit the kind, or a duplicate name.
std::vector<AlgorithmInfo> parse_catalogue(const std::string& text);
// nullptr when unknown.
const AlgorithmInfo* find_algorithm(const std::string& name);

// Operations that apply to an algorithm (its entry's `operations`): ciphers, AEAD and public-key
// encryption have encrypt and decrypt, hashes hash, MACs mac, signatures sign and verify, key
// agreement and KDFs derive, KEMs encaps and decaps; an algorithm that is its own key type also
// has keygen.
std::vector<OpKind> operations_for(const AlgorithmInfo& info);
bool is_public_key(Kind kind);
// ML-KEM, X25519MLKEM768, ML-DSA and SLH-DSA (docs/post-quantum.md).
bool is_post_quantum(const AlgorithmInfo& info);
const char* to_string(OpKind op);
const char* to_string(Kind kind);
// Throws std::invalid_argument for an unknown name.
OpKind parse_op(const std::string& name);

}  // namespace cb
