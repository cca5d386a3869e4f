// Provider `go-x`: golang.org/x/crypto, the packages that are its own code (chacha20,
// chacha20poly1305, salsa20, blake2b, ripemd160, scrypt, argon2). x/crypto's pbkdf2, hkdf,
// curve25519, ed25519 and sha3 only forward to the standard library, so they are `go`'s and not
// offered twice; xts takes a 64-bit sector number and no ciphertext stealing, not the catalogue's
// 128-bit tweak, so aes-xts is not offered.
package main

import (
	"runtime/debug"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/chacha20"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/ripemd160" //nolint:staticcheck // legacy, still x/crypto's API
	"golang.org/x/crypto/salsa20"
	"golang.org/x/crypto/scrypt"
)

type goX struct{}

func (goX) Name() string                { return "go-x" }
func (goX) CodePath() map[string]string { return goCodePath() }

// Version: the golang.org/x/crypto module version this binary was built with.
func (goX) Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "golang.org/x/crypto" {
				return "golang.org/x/crypto " + m.Version
			}
		}
	}
	return "golang.org/x/crypto (version unknown)"
}

func (goX) GenerateKey(alg string) (KeyParts, error) {
	return nil, unsupported("go-x generates no %s keys", alg)
}

func (goX) Prepare(alg, op string, p Params) (Op, error) {
	key, iv := p.Key, p.IV
	switch alg {
	case "chacha20", "xchacha20":
		if _, err := chacha20.NewUnauthenticatedCipher(key, iv); err != nil {
			return nil, err
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			c, err := chacha20.NewUnauthenticatedCipher(key, iv)
			if err != nil {
				return nil, err
			}
			c.XORKeyStream(out[:len(in)], in)
			return out[:len(in)], nil
		}), nil
	case "salsa20", "xsalsa20":
		if len(key) != 32 {
			return nil, reject("salsa20 needs a 32-byte key")
		}
		var k [32]byte
		copy(k[:], key)
		return OpFunc(func(in, out []byte) ([]byte, error) {
			salsa20.XORKeyStream(out[:len(in)], in, iv, &k)
			return out[:len(in)], nil
		}), nil
	case "chacha20-poly1305", "xchacha20-poly1305":
		newAEAD := chacha20poly1305.New
		if alg == "xchacha20-poly1305" {
			newAEAD = chacha20poly1305.NewX
		}
		aead, err := newAEAD(key)
		if err != nil {
			return nil, err
		}
		return aeadOp(aead, iv, p.AAD, op == "encrypt"), nil
	case "blake2b-512":
		h, err := blake2b.New512(nil)
		if err != nil {
			return nil, err
		}
		return hashOp(h), nil
	case "ripemd160":
		return hashOp(ripemd160.New()), nil
	case "scrypt":
		salt, n, r, par, outLen := p.Salt, int(p.Cost["N"]), int(p.Cost["r"]), int(p.Cost["p"]), p.OutLen
		return OpFunc(func(in, out []byte) ([]byte, error) {
			return scrypt.Key(in, salt, n, r, par, outLen)
		}), nil
	case "argon2id":
		if len(p.Secret) > 0 || len(p.AD) > 0 {
			return nil, unsupported("x/crypto/argon2 takes no secret or associated data")
		}
		t, m, par := p.Cost["t"], p.Cost["m"], p.Cost["p"]
		if par == 0 || par > 255 || t == 0 || m == 0 || t > 1<<32-1 || m > 1<<32-1 {
			return nil, reject("argon2id cost out of range (t, m >= 1, 1 <= p <= 255)")
		}
		salt, outLen := p.Salt, uint32(p.OutLen)
		return OpFunc(func(in, out []byte) ([]byte, error) {
			return argon2.IDKey(in, salt, uint32(t), uint32(m), uint8(par), outLen), nil
		}), nil
	}
	return nil, unsupported("go-x does not offer %s", alg)
}
