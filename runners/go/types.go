// Shared types of the Go runner: the catalogue, operations and the provider interface, shaped like
// native/include/cryptobench/{algorithms,provider}.hpp so the two read side by side.
package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
)

// AlgorithmInfo is one catalogue entry, exactly the fields `cryptobench-native list` prints.
type AlgorithmInfo struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Operations  []string `json:"operations"`
	KeyBytes    int      `json:"key_bytes"`
	IVBytes     int      `json:"iv_bytes"`
	BlockBytes  int      `json:"block_bytes"`
	MinSize     int      `json:"min_size"`
	TagBytes    int      `json:"tag_bytes"`
	OutputBytes int      `json:"output_bytes"`
	PublicKey   int      `json:"public_key_bytes"`
	Ciphertext  int      `json:"ciphertext_bytes"`
	Family      string   `json:"family"`
	KeyType     string   `json:"key_type"`
	Bits        int      `json:"bits"`
	Digest      string   `json:"digest"`
	Description string   `json:"description"`
}

// The catalogue is the repository's catalogue/algorithms.json, copied by `go generate` (build.sh
// runs it) into build/, which git ignores, and embedded from there: no copy in the tree.
// python/tests/test_catalogue.py checks that `list` prints its entries unchanged.
//
//go:generate sh -c "mkdir -p build && cp ../../catalogue/algorithms.json build/catalogue.json"
//go:embed build/catalogue.json
var catalogueJSON []byte

var catalogue = func() []AlgorithmInfo {
	var file struct{ Algorithms []AlgorithmInfo }
	if err := json.Unmarshal(catalogueJSON, &file); err != nil {
		panic("catalogue/algorithms.json: " + err.Error())
	}
	return file.Algorithms
}()

func findAlgorithm(name string) *AlgorithmInfo {
	for i := range catalogue {
		if catalogue[i].Name == name {
			return &catalogue[i]
		}
	}
	return nil
}

func (a *AlgorithmInfo) hasOp(op string) bool {
	for _, o := range a.Operations {
		if o == op {
			return true
		}
	}
	return false
}

func isPublicKey(kind string) bool {
	return kind == "keypair" || kind == "signature" || kind == "pk-encryption" ||
		kind == "key-agreement" || kind == "kem"
}

// KeyParts are a key's named big-endian parts (docs/protocol.md, "Keys").
type KeyParts map[string][]byte

// Params for preparing one operation (provider.hpp, Params).
type Params struct {
	Key, IV, AAD []byte
	Keypair      KeyParts
	Public       KeyParts // open's params: the test key's public parts
	Peer         KeyParts
	Signature    []byte
	Salt, Info   []byte
	Secret, AD   []byte // Argon2id K and X
	OutLen       int
	Cost         map[string]uint64
	Randomness   []byte // a KEM encapsulation's m, for derandomised encapsulation (known answers)
}

// Op is one prepared operation: Run does one operation on in, writing into out when it can, and
// returns the output (keygen: generates one key, returns nothing). It must restart every time
// (the gate runs it twice).
type Op interface {
	Run(in, out []byte) ([]byte, error)
}

// OpFunc adapts a function to Op.
type OpFunc func(in, out []byte) ([]byte, error)

func (f OpFunc) Run(in, out []byte) ([]byte, error) { return f(in, out) }

// Provider is one library binding (provider.hpp, Provider). Prepare returns an Unsupported error
// for what the provider does not offer before it reads any parameter: that is how the runner
// probes what it offers (docs/protocol.md, "What a provider offers").
type Provider interface {
	Name() string
	Version() string
	Prepare(alg string, op string, p Params) (Op, error)
	GenerateKey(alg string) (KeyParts, error)
	CodePath() map[string]string
}

// MacVerifier is what a provider offering a MAC adds for the `leak` request's MAC verification
// (docs/leaks.md, "MAC verification"): an Op whose input is message ‖ tag, which gives no output
// for a valid tag and a rejected error value for a wrong one, the way the provider's caller checks
// a tag. A provider without it answers such a request `unsupported`.
type MacVerifier interface {
	PrepareMacVerify(alg string, p Params) (Op, error)
}

// SeedKeys is what a post-quantum provider adds: the key pair a FIPS 203/204/205 seed gives
// (docs/post-quantum.md), for the gate's `keygen` step whose key holds only `seed`.
type SeedKeys interface {
	KeyFromSeed(alg string, seed []byte) (KeyParts, error)
}

// Unsupported: the provider does not offer this (a case status, never a failure).
type Unsupported struct{ msg string }

func (u *Unsupported) Error() string { return u.msg }

func unsupported(format string, args ...any) error {
	return &Unsupported{fmt.Sprintf(format, args...)}
}

// errReject is what a verifier or an AEAD decryption returns for a forgery.
type rejected struct{ msg string }

func (r *rejected) Error() string { return r.msg }

func reject(format string, args ...any) error { return &rejected{fmt.Sprintf(format, args...)} }

// refusals: one rejected value per error a library refuses with (crypto/rsa's ErrDecryption,
// crypto/cipher's authentication failure: each a value made once), so that a refused decryption
// costs no formatting or allocation inside a timed call, where a valid one costs none either.
// A library that made a new error value per refusal would fill the map: past a few values, each
// refusal is formatted as before.
var (
	refusals     sync.Map
	refusalCount atomic.Int32
)

func refused(err error) error {
	if r, ok := refusals.Load(err); ok {
		return r.(error)
	}
	if refusalCount.Load() >= 16 {
		return &rejected{err.Error()}
	}
	r, loaded := refusals.LoadOrStore(err, &rejected{err.Error()})
	if !loaded {
		refusalCount.Add(1)
	}
	return r.(error)
}
