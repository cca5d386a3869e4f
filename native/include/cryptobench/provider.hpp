// The provider adapter interface: the one contract between the measurement engine and a crypto
// library. Each library is one adapter in one source file (src/providers/<name>.cpp) that includes
// only its own library's headers and this file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cryptobench/algorithms.hpp"

namespace cb {

using Bytes = std::vector<uint8_t>;

// An adapter throws Unsupported when it cannot do what was asked (algorithm, parameter, size),
// and Error when the library itself reported a failure.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A public-key algorithm's key as named components, the one key format every adapter reads and
// writes so that any provider can use a key another made (docs/protocol.md, "Keys"):
//  * RSA (rsa-N):           n, e, d, p, q, dp, dq, qinv   (big-endian unsigned integers)
//  * ECDSA / ECDH (P-curves): d (private scalar), x, y    (big-endian, padded to the field size:
//                                                          32, 48 or 66 bytes)
//  * ed25519, ed448, x25519, x448: priv, pub              (the RFC 8032 / RFC 7748 encodings)
//  * ffdhe2048/3072/4096:   x (private exponent), y (public value, padded to the group size)
// A public key carries only its public parts (RSA n, e; EC x, y; pub; y). Integers read from a
// key may have leading zero bytes. Adapters use the group and curve the algorithm name fixes.
using KeyParts = std::map<std::string, Bytes>;

// Parameters fixed when an operation is prepared (outside the timed region).
struct Params {
  Bytes key;  // cipher/AEAD/MAC key; empty for hashes
  Bytes iv;   // IV, nonce or XTS tweak; empty when the algorithm has none
  Bytes aad;  // AEAD associated data, processed by every run() call

  // Public-key operations.
  KeyParts keypair;  // own key: private parts for sign/decrypt/derive, public parts suffice for
                     // verify/encrypt (an adapter must not require the private parts there)
  KeyParts peer;     // key agreement: the other party's public key
  Bytes signature;   // verify: the signature every run() checks

  // Key derivation (Kind::Kdf).
  Bytes salt;          // PBKDF2, scrypt, Argon2id salt; HKDF salt (may be empty)
  Bytes info;          // HKDF info
  size_t out_len = 0;  // bytes of derived key material
  // Cost parameters by name: pbkdf2-*: iterations; scrypt: N, r, p; argon2id: t (passes),
  // m (memory in KiB), p (lanes). HKDF has none.
  std::map<std::string, uint64_t> cost;

  // TLS handshake (Kind::Handshake): the server's certificate (X.509, DER) and its private key
  // (unencrypted PKCS#8, DER), and the host name the certificate is for. The client trusts that
  // certificate alone and verifies the server's against it (vectors/tls13.json).
  Bytes certificate;
  Bytes private_key;
  std::string server_name;
};

// The cost parameter `name`; throws Unsupported when it is missing.
uint64_t cost_param(const Params& params, const std::string& name);
// A key's part `name` ("n", "d", "pub", ...); throws Error when it is missing or empty.
const Bytes& key_part(const KeyParts& key, const std::string& name);

// A prepared operation: key schedule done, ready to process whole messages.
//
// One run() is one complete message, the unit every figure is reported per:
//  * encrypt: (re)start with the prepared IV, process `len` bytes, finish; AEAD appends the tag,
//    so out receives len + tag_len bytes;
//  * decrypt: the inverse; for AEAD `in` is ciphertext || tag and a wrong tag is a failure;
//  * hash: init, absorb `len` bytes, finalise; out receives the digest;
//  * mac: restart with the prepared key, absorb `len` bytes, finalise; out receives the tag.
//  * sign: `in` is the message (the algorithm hashes it, Ed25519 signs it as is); out receives
//    the signature (RSA: k bytes; ECDSA: r||s, each padded to the field size; EdDSA: RFC 8032);
//  * verify: `in` is the message, the signature is Params::signature; returns 0 when it is valid
//    and throws Error when it is not;
//  * encrypt / decrypt for public-key encryption: one OAEP encryption of `in` (randomised, so
//    every call differs) / one decryption of a k-byte ciphertext;
//  * derive, key agreement: `in` is ignored (len 0); out receives the shared secret computed from
//    Params::keypair's private part and Params::peer (ECDH: the x-coordinate, field-size bytes;
//    FFDH: padded to the group size);
//  * derive, KDF: `in` is the password (PBKDF2, scrypt, Argon2id) or input keying material
//    (HKDF); out receives Params::out_len bytes.
//  * keyload: `in` is an encoded private key or certificate (the algorithm names which and how:
//    PKCS#8 PEM or DER, X.509 PEM or DER; vectors/encoded-keys.json); one run decodes it into
//    the library's key or certificate object and frees that object; out receives nothing
//    (returns 0). What the object holds is checked by Provider::decode_key.
//  * handshake: `in` is ignored (len 0); one run is one complete TLS handshake, client and server
//    in this thread over memory buffers (HandshakeOperation below); out receives nothing
//    (returns 0). A handshake that does not complete throws Error.
// Returns the number of bytes written to out, or throws Error (including on a bad AEAD tag or
// signature). `out` has room for len + kOutRoom bytes. Buffers may be misaligned on purpose.
// Room past `len` in every output buffer: the largest output the catalogue has beyond its input,
// an SLH-DSA-*-256f signature (49,856 bytes; docs/post-quantum.md), with room to spare.
constexpr size_t kOutRoom = 64 * 1024;

class Operation {
 public:
  virtual ~Operation() = default;
  virtual size_t run(const uint8_t* in, size_t len, uint8_t* out) = 0;
  // AEAD, optional: a new nonce and associated data (the nonce as long as the prepared one) for
  // the following run() calls, the key schedule kept -- what a caller sealing or opening many
  // messages under one key does instead of preparing each (confcrypt: one per value). Returns
  // false, changing nothing, when the adapter does not offer it: prepare again then. The runner
  // never calls it; the figures stay per prepared operation.
  virtual bool rebind(const Bytes& /*iv*/, const Bytes& /*aad*/) { return false; }
  // For `leak` (docs/leaks.md, "Valid against invalid"): run(), except that a refused input (a
  // wrong tag, bad padding) returns false instead of throwing, so a refusal and a success take
  // the same path through the runner. Adapters that override it say so in refuses_by_status();
  // the default catches run()'s Error, whose unwinding costs microseconds.
  virtual bool try_run(const uint8_t* in, size_t len, uint8_t* out, size_t& out_len) {
    try {
      out_len = run(in, len, out);
      return true;
    } catch (const Error&) {
      return false;
    }
  }
  virtual bool refuses_by_status() const { return false; }
};

// The handshake kind: what the last completed run() of a HandshakeOperation negotiated and
// derived, read from both sides after it (outside any timed region), for the gate.
struct HandshakeFacts {
  std::string version;  // "TLSv1.3" (adapters spell it so, whatever their library's own name)
  std::string suite;    // RFC 8446 B.4 name: "TLS_AES_128_GCM_SHA256"
  std::string group;    // key exchange group, lower case: "x25519"
  // How the client verified the server's certificate (the library's verdict in words); empty
  // when it did not.
  std::string verified;
  // Each side's RFC 8446 7.5 exporter value for kExporterLabel, no context, kExporterBytes long:
  // equal when both derived the same secrets from the same transcript.
  Bytes client_exporter, server_exporter;
};
constexpr const char* kExporterLabel = "EXPORTER-cryptobench-handshake";
constexpr size_t kExporterBytes = 32;

// A prepared handshake: contexts (certificate, key, trust anchor, suite, group) set up once;
// run() makes a new client and server connection, completes one full handshake between them in
// this thread (no resumption) and keeps the pair until the next run() frees it.
class HandshakeOperation : public Operation {
 public:
  // The facts of the last run() that completed; throws Error when none did.
  virtual HandshakeFacts facts() = 0;
  // The next run() only: flips byte `offset` of the server's first flight (ServerHello to
  // Finished, as written) before the client reads it, so that run must throw Error. An offset
  // past the flight flips its last byte.
  virtual void tamper_next(size_t offset) = 0;
  // CPU time of this thread inside the server's calls (CLOCK_THREAD_CPUTIME_ID) over every run()
  // so far, ns: the server's share of the handshakes, creating and freeing its connection
  // included.
  virtual uint64_t server_cpu_ns() const = 0;
  // The bytes of the client's first flight (its ClientHello, TLS record headers included) in the
  // last run() that got that far; 0 where the adapter does not count them.
  virtual uint64_t client_hello_bytes() const { return 0; }
};

// A variant is the same library on a different code path (e.g. hardware acceleration off).
// `env` is applied by re-executing the runner before any library is loaded or initialised, for
// switches that a library reads from the environment (OPENSSL_ia32cap, NETTLE_FAT_OVERRIDE).
struct Variant {
  std::string name;         // "default", "soft", ...
  std::string description;  // one line for humans
  std::vector<std::pair<std::string, std::string>> env;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string name() const = 0;  // "openssl", "gcrypt", "botan", ...
  // Library version as the library reports it at run time.
  virtual std::string version() const = 0;
  // All variants; the first is "default". Must not touch the library (called before init()).
  virtual std::vector<Variant> variants() const = 0;
  // Called exactly once per process, before anything below, with one of variants()' names.
  virtual void init(const std::string& variant) = 0;
  // Catalogue names (see algorithms.hpp) this library offers. Operations follow from the kind.
  virtual std::vector<std::string> algorithms() const = 0;
  // Prepare an operation; throws Unsupported or Error.
  // (Key generation is not prepared: it is generate_key() below.)
  virtual std::unique_ptr<Operation> prepare(const std::string& algorithm, OpKind op,
                                             const Params& params) = 0;
  // Generates one fresh key pair of a key type (an algorithm whose key_type is its own name:
  // rsa-2048, ecdsa-p256, ed25519, x25519, ffdhe2048, ...) and returns all its parts. This is what
  // the keygen operation times, export included. Throws Unsupported by default.
  virtual KeyParts generate_key(const std::string& algorithm);
  // Decodes `encoded` as the keyload operation of `algorithm` does (the same decoder) and
  // returns the key's parts: all of them for a private key, the public parts of a certificate's
  // key. The gate compares them with the reference key and signs with them. Throws Unsupported
  // by default.
  virtual KeyParts decode_key(const std::string& algorithm, const Bytes& encoded);
  // MAC verification, asked for only by the `leak` request (a `verify` of a MAC algorithm; the
  // catalogue has no such operation: a `mac` case computes a tag). run()'s input is message ||
  // tag (the algorithm's output_len bytes); it returns 0 for a valid tag and throws Error for a
  // wrong one, and try_run() returns false instead (refuses_by_status). By the library's own
  // verification where it has one (gcry_mac_verify, Botan's verify_mac, Crypto++'s Verify), else
  // its tag and its own constant-time comparison (mac_verify.hpp). Throws Unsupported by default
  // (docs/leaks.md, "MAC verification").
  virtual std::unique_ptr<Operation> prepare_mac_verify(const std::string& algorithm,
                                                        const Params& params);
  // The handshake kind: prepare() of OpKind::Handshake returns this (the engine and the gate call
  // it directly, for the facts and the server's CPU time). Throws Unsupported by default.
  virtual std::unique_ptr<HandshakeOperation> prepare_handshake(const std::string& algorithm,
                                                                const Params& params);
  // What the library says about its code path: a flat map of strings, e.g.
  // {"hwfeatures": "intel-aesni:intel-pclmul", "ia32cap": "0x...:0x..."}.
  virtual std::map<std::string, std::string> code_path() const = 0;
  // A baseline (the built-in "null" provider) measures the harness, not a library: it takes no
  // part in cross-provider agreement or in recommendations.
  virtual bool baseline() const { return false; }
};

// For prepare(): the catalogue entry of `algorithm`; throws Unsupported for an unknown name or an
// operation that does not apply to its kind (a hash has no "encrypt").
const AlgorithmInfo& checked_algorithm(const std::string& algorithm, OpKind op);

// For prepare(): throws Unsupported unless the key and IV have the catalogue's lengths (HMAC keys
// may have any length: RFC 4231's vectors use 4 to 131 bytes).
void check_param_sizes(const AlgorithmInfo& info, const Params& params);

// ---- registry --------------------------------------------------------------------------------

using ProviderFactory = std::function<std::unique_ptr<Provider>()>;

// Adapters register themselves at static-initialisation time:
//   CB_REGISTER_PROVIDER(OpensslProvider);
struct Registrar {
  Registrar(const char* name, ProviderFactory factory);
};

#define CB_CONCAT_INNER(a, b) a##b
#define CB_CONCAT(a, b) CB_CONCAT_INNER(a, b)
#define CB_REGISTER_PROVIDER(name_literal, Class)            \
  static ::cb::Registrar CB_CONCAT(cb_registrar_, __LINE__)( \
      name_literal, [] { return std::unique_ptr<::cb::Provider>(new Class()); })

// Names of all compiled-in providers, sorted (with a provider loader: also those not loaded yet).
std::vector<std::string> provider_names();

// Lazy providers (libcryptobench_core.so, used by confcrypt): `names` can be loaded on demand;
// `load(name)` makes the provider register itself (dlopen of its module) and returns an empty
// string, or the reason it cannot. get_provider() and peek_provider() call it for a name not
// registered yet, once per name.
void set_provider_loader(std::vector<std::string> names,
                         std::function<std::string(const std::string&)> load);
// Why a known provider could not be loaded; empty when it was, or was never tried.
std::string provider_load_error(const std::string& name);
// Names of the providers registered (loaded) so far: what a process has actually brought in.
std::vector<std::string> loaded_provider_names();
// The process-wide instance of a provider, initialised on first use with the variant selected
// for it (select_variant, default "default"). Returns nullptr for an unknown name.
Provider* get_provider(const std::string& name);
// Choose the variant a provider will be initialised with. Throws Unsupported if the provider is
// already initialised with another variant, or the variant does not exist.
void select_variant(const std::string& provider, const std::string& variant);
// The variant a provider is (or will be) initialised with.
std::string selected_variant(const std::string& provider);
// The provider object without initialising it (for variants(), name()).
Provider* peek_provider(const std::string& name);
// A provider whose code path in this process is not the one its variant names (another
// provider's variant changed a shared switch): its cases are unsupported, with this reason.
void mark_unusable(const std::string& provider, const std::string& reason);
// Empty when the provider is usable.
std::string unusable_reason(const std::string& provider);

}  // namespace cb
