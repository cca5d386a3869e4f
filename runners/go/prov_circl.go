// Provider `circl`: Cloudflare's CIRCL (github.com/cloudflare/circl), its post-quantum schemes:
// ML-KEM-512/768/1024 and the hybrid X25519MLKEM768 (kem.Scheme), ML-DSA-44/65/87 and the twelve
// SLH-DSA parameter sets. Keys follow docs/post-quantum.md: ML-KEM and ML-DSA from the seed (or
// the expanded key, which CIRCL also imports), SLH-DSA from the FIPS 205 private key; signing is
// hedged, pure, with an empty context.
package main

import (
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"errors"
	"runtime/debug"
	"strings"

	"github.com/cloudflare/circl/kem"
	"github.com/cloudflare/circl/kem/hybrid"
	"github.com/cloudflare/circl/kem/mlkem/mlkem1024"
	"github.com/cloudflare/circl/kem/mlkem/mlkem512"
	"github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"github.com/cloudflare/circl/sign/mldsa/mldsa87"
	"github.com/cloudflare/circl/sign/slhdsa"
)

type circl struct{}

func (circl) Name() string { return "circl" }

// CodePath: CIRCL's assembly follows the CPU features the Go runtime detects (GODEBUG), as go's.
func (circl) CodePath() map[string]string {
	m := goCodePath()
	m["pq_key"] = "seed"
	return m
}

func (circl) Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/cloudflare/circl" {
				return "github.com/cloudflare/circl " + m.Version
			}
		}
	}
	return "github.com/cloudflare/circl (version unknown)"
}

var circlKEMs = map[string]kem.Scheme{
	"ml-kem-512": mlkem512.Scheme(), "ml-kem-768": mlkem768.Scheme(), "ml-kem-1024": mlkem1024.Scheme(),
	"x25519mlkem768": hybrid.X25519MLKEM768(),
}

// circlDSA: one ML-DSA parameter set through its package's functions.
type circlDSA struct {
	fromSeed func(seed []byte) (pub, priv []byte, signer func(msg, sig []byte) ([]byte, error))
	verify   func(pub, msg, sig []byte) (bool, error)
}

func mldsa[PK interface{ Bytes() []byte }, SK interface{ Bytes() []byte }](
	sigSize int, newKey func(*[32]byte) (PK, SK), sign func(SK, []byte, []byte, bool, []byte) error,
	unpack func([]byte) (func(msg, sig []byte) bool, error)) circlDSA {
	return circlDSA{
		fromSeed: func(seed []byte) ([]byte, []byte, func(msg, sig []byte) ([]byte, error)) {
			var s [32]byte
			copy(s[:], seed)
			pk, sk := newKey(&s)
			return pk.Bytes(), sk.Bytes(), func(msg, sig []byte) ([]byte, error) {
				if cap(sig) < sigSize {
					sig = make([]byte, sigSize)
				}
				sig = sig[:sigSize]
				return sig, sign(sk, msg, nil, true, sig)
			}
		},
		verify: func(pub, msg, sig []byte) (bool, error) {
			v, err := unpack(pub)
			if err != nil {
				return false, err
			}
			return v(msg, sig), nil
		},
	}
}

var circlDSAs = map[string]circlDSA{
	"ml-dsa-44": mldsa(mldsa44.SignatureSize, mldsa44.NewKeyFromSeed, mldsa44.SignTo,
		func(b []byte) (func(msg, sig []byte) bool, error) {
			var pk mldsa44.PublicKey
			err := pk.UnmarshalBinary(b)
			return func(msg, sig []byte) bool { return mldsa44.Verify(&pk, msg, nil, sig) }, err
		}),
	"ml-dsa-65": mldsa(mldsa65.SignatureSize, mldsa65.NewKeyFromSeed, mldsa65.SignTo,
		func(b []byte) (func(msg, sig []byte) bool, error) {
			var pk mldsa65.PublicKey
			err := pk.UnmarshalBinary(b)
			return func(msg, sig []byte) bool { return mldsa65.Verify(&pk, msg, nil, sig) }, err
		}),
	"ml-dsa-87": mldsa(mldsa87.SignatureSize, mldsa87.NewKeyFromSeed, mldsa87.SignTo,
		func(b []byte) (func(msg, sig []byte) bool, error) {
			var pk mldsa87.PublicKey
			err := pk.UnmarshalBinary(b)
			return func(msg, sig []byte) bool { return mldsa87.Verify(&pk, msg, nil, sig) }, err
		}),
}

// slhID: "slh-dsa-sha2-128s" -> CIRCL's ID of SLH-DSA-SHA2-128s.
func slhID(alg string) (slhdsa.ID, bool) {
	if !strings.HasPrefix(alg, "slh-dsa-") {
		return 0, false
	}
	id, err := slhdsa.IDByName("SLH-DSA-" + strings.ToUpper(strings.TrimPrefix(alg, "slh-dsa-")))
	if err != nil {
		return 0, false
	}
	// IDByName upper-cases the whole name; the last letter (s/f) is matched case-insensitively.
	return id, true
}

func (c circl) Prepare(alg, op string, p Params) (Op, error) {
	if s, ok := circlKEMs[alg]; ok {
		return circlKEM(alg, s, op, p)
	}
	if d, ok := circlDSAs[alg]; ok {
		return circlMLDSA(alg, d, op, p)
	}
	if id, ok := slhID(alg); ok {
		return circlSLHDSA(alg, id, op, p)
	}
	return nil, unsupported("circl does not offer %s", alg)
}

// keygenOp: the timed key generation, one fresh key pair exported to its parts.
func keygenOp(c circl, alg string) Op {
	return OpFunc(func(in, out []byte) ([]byte, error) {
		_, err := c.GenerateKey(alg)
		return nil, err
	})
}

// circlKEMKey: the key pair of parts (seed, or else priv: CIRCL imports both).
func circlKEMKey(alg string, s kem.Scheme, k KeyParts) (kem.PrivateKey, error) {
	if seed := k["seed"]; len(seed) > 0 {
		_, sk, err := circlKEMFromSeed(alg, s, seed)
		return sk, err
	}
	if len(k["priv"]) == 0 {
		return nil, errors.New("the key has neither a seed nor a private key")
	}
	return s.UnmarshalBinaryPrivateKey(k["priv"])
}

// circlKEMFromSeed: ML-KEM's seed is d || z; the hybrid's (docs/post-quantum.md) is ML-KEM-768's
// seed then the X25519 private key, and its keys are ML-KEM's then X25519's, as CIRCL packs them.
func circlKEMFromSeed(alg string, s kem.Scheme, seed []byte) (kem.PublicKey, kem.PrivateKey, error) {
	if alg != "x25519mlkem768" {
		if len(seed) != s.SeedSize() {
			return nil, nil, errors.New("the seed must be 64 bytes")
		}
		pk, sk := s.DeriveKeyPair(seed)
		return pk, sk, nil
	}
	if len(seed) != 96 {
		return nil, nil, errors.New("the seed must be 96 bytes (ML-KEM-768 d || z, X25519 key)")
	}
	pk, sk := mlkem768.NewKeyFromSeed(seed[:64])
	x, err := ecdh.X25519().NewPrivateKey(seed[64:])
	if err != nil {
		return nil, nil, err
	}
	skb, _ := sk.MarshalBinary()
	pkb, _ := pk.MarshalBinary()
	hsk, err := s.UnmarshalBinaryPrivateKey(append(skb, seed[64:]...))
	if err != nil {
		return nil, nil, err
	}
	hpk, err := s.UnmarshalBinaryPublicKey(append(pkb, x.PublicKey().Bytes()...))
	return hpk, hsk, err
}

func circlKEM(alg string, s kem.Scheme, op string, p Params) (Op, error) {
	switch op {
	case "keygen":
		return keygenOp(circl{}, alg), nil
	case "encaps":
		pk, err := s.UnmarshalBinaryPublicKey(p.Keypair["pub"])
		if err != nil {
			return nil, err
		}
		if p.Randomness != nil {
			return OpFunc(func(in, out []byte) ([]byte, error) {
				ct, ss, err := s.EncapsulateDeterministically(pk, p.Randomness)
				return append(append(out[:0], ct...), ss...), err
			}), nil
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			ct, ss, err := s.Encapsulate(pk)
			return append(append(out[:0], ct...), ss...), err
		}), nil
	case "decaps":
		sk, err := circlKEMKey(alg, s, p.Keypair)
		if err != nil {
			return nil, err
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			ss, err := s.Decapsulate(sk, in)
			return append(out[:0], ss...), err
		}), nil
	}
	return nil, unsupported("circl does not offer %s %s", alg, op)
}

func circlMLDSA(alg string, d circlDSA, op string, p Params) (Op, error) {
	switch op {
	case "keygen":
		return keygenOp(circl{}, alg), nil
	case "sign":
		seed := p.Keypair["seed"]
		if len(seed) != 32 {
			return nil, errors.New("circl signs with the 32-byte ML-DSA seed")
		}
		_, _, sign := d.fromSeed(seed)
		return OpFunc(func(in, out []byte) ([]byte, error) { return sign(in, out) }), nil
	case "verify":
		sig := p.Signature
		return OpFunc(func(in, out []byte) ([]byte, error) {
			ok, err := d.verify(p.Keypair["pub"], in, sig)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, reject("ML-DSA signature does not verify")
			}
			return out[:0], nil
		}), nil
	}
	return nil, unsupported("circl does not offer ML-DSA %s", op)
}

func circlSLHDSA(alg string, id slhdsa.ID, op string, p Params) (Op, error) {
	switch op {
	case "keygen":
		return keygenOp(circl{}, alg), nil
	case "sign":
		priv := slhdsa.PrivateKey{ID: id}
		if err := priv.UnmarshalBinary(p.Keypair["priv"]); err != nil {
			return nil, err
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			sig, err := slhdsa.SignRandomized(&priv, rand.Reader, slhdsa.NewMessage(in), nil)
			return append(out[:0], sig...), err
		}), nil
	case "verify":
		pub := slhdsa.PublicKey{ID: id}
		if err := pub.UnmarshalBinary(p.Keypair["pub"]); err != nil {
			return nil, err
		}
		sig := p.Signature
		return OpFunc(func(in, out []byte) ([]byte, error) {
			if !slhdsa.Verify(&pub, slhdsa.NewMessage(in), sig, nil) {
				return nil, reject("SLH-DSA signature does not verify")
			}
			return out[:0], nil
		}), nil
	}
	return nil, unsupported("circl does not offer SLH-DSA %s", op)
}

func (c circl) GenerateKey(alg string) (KeyParts, error) {
	n := map[bool]int{true: 96, false: 64}[alg == "x25519mlkem768"]
	if _, ok := circlDSAs[alg]; ok {
		n = 32
	} else if id, ok := slhID(alg); ok {
		n = 3 * id.Scheme().PublicKeySize() / 2
	}
	seed := make([]byte, n)
	if _, err := rand.Read(seed); err != nil {
		return nil, err
	}
	return c.KeyFromSeed(alg, seed)
}

// KeyFromSeed: FIPS 203/204/205 key generation from its seed (docs/post-quantum.md).
func (circl) KeyFromSeed(alg string, seed []byte) (KeyParts, error) {
	if s, ok := circlKEMs[alg]; ok {
		pk, _, err := circlKEMFromSeed(alg, s, seed)
		if err != nil {
			return nil, err
		}
		pub, err := pk.MarshalBinary()
		return KeyParts{"seed": seed, "pub": pub}, err
	}
	if d, ok := circlDSAs[alg]; ok {
		if len(seed) != 32 {
			return nil, errors.New("the ML-DSA seed must be 32 bytes")
		}
		pub, _, _ := d.fromSeed(seed)
		return KeyParts{"seed": seed, "pub": pub}, nil
	}
	if id, ok := slhID(alg); ok {
		// slh_keygen reads SK.seed, SK.prf and PK.seed from its random source, in that order.
		pub, priv, err := slhdsa.GenerateKey(bytes.NewReader(seed), id)
		if err != nil {
			return nil, err
		}
		pb, _ := pub.MarshalBinary()
		sb, _ := priv.MarshalBinary()
		return KeyParts{"seed": seed, "priv": sb, "pub": pb}, nil
	}
	return nil, unsupported("circl generates no %s keys", alg)
}
