// Provider `go`: the Go standard library (crypto/aes, crypto/cipher, crypto/sha256, crypto/rsa,
// crypto/ecdsa, crypto/ed25519, crypto/ecdh, crypto/hkdf, crypto/pbkdf2, …) through its normal API.
package main

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"hash"
	"math/big"
	"runtime"
	"strings"
)

type goStd struct{}

var goHashes = map[string]func() hash.Hash{
	"md5": md5.New, "sha1": sha1.New, "sha224": sha256.New224, "sha256": sha256.New,
	"sha384": sha512.New384, "sha512": sha512.New, "sha512-256": sha512.New512_256,
	"sha3-256": func() hash.Hash { return sha3.New256() }, "sha3-512": func() hash.Hash { return sha3.New512() },
}

var goAlgorithms = func() []string {
	var out []string
	for _, bits := range []string{"128", "192", "256"} {
		for _, mode := range []string{"cbc", "cfb", "ofb", "ctr", "gcm"} {
			out = append(out, "aes-"+bits+"-"+mode)
		}
	}
	out = append(out, "des-ede3-cbc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
		"sha512-256", "sha3-256", "sha3-512", "hmac-sha256", "hmac-sha512")
	for _, bits := range []string{"1024", "2048", "3072", "4096"} {
		out = append(out, "rsa-"+bits, "rsa-"+bits+"-pkcs1-sha256", "rsa-"+bits+"-pss-sha256",
			"rsa-"+bits+"-oaep-sha256")
	}
	out = append(out, "rsa-2048-pkcs1v15-enc")
	return append(out, "ecdsa-p256", "ecdsa-p384", "ecdsa-p521", "ed25519", "x25519", "ecdh-p256",
		"ecdh-p384", "pbkdf2-sha1", "pbkdf2-sha256", "pbkdf2-sha512", "hkdf-sha256", "ml-kem-768",
		"ml-kem-1024")
}()

func (goStd) Name() string                { return "go" }
func (goStd) Version() string             { return runtime.Version() }
func (goStd) CodePath() map[string]string { return goCodePath() }

func (g goStd) Prepare(alg, op string, p Params) (Op, error) {
	if !contains(goAlgorithms, alg) {
		return nil, unsupported("go does not offer %s", alg)
	}
	if op == "keygen" {
		return OpFunc(func(in, out []byte) ([]byte, error) {
			_, err := g.GenerateKey(alg)
			return nil, err
		}), nil
	}
	info := findAlgorithm(alg)
	switch info.Kind {
	case "cipher", "aead":
		return goSymmetric(info, op, p)
	case "hash":
		h := goHashes[alg]()
		return hashOp(h), nil
	case "mac":
		h := goHashes[strings.TrimPrefix(alg, "hmac-")]
		return hashOp(hmac.New(h, p.Key)), nil
	case "kdf":
		return goKDF(info, p)
	case "kem":
		return goMLKEM(alg, op, p)
	}
	return goPublicKey(info, op, p)
}

// errMacMismatch: a wrong tag, refused as a value made once, so a refusal costs no allocation.
var errMacMismatch = reject("the MAC does not verify")

// PrepareMacVerify: crypto/hmac has no verification function; its documentation tells a receiver
// to compute the MAC and compare it with hmac.Equal (crypto/subtle.ConstantTimeCompare), and that
// is what this does, into a buffer of its own (no allocation). The input is message ‖ tag.
func (goStd) PrepareMacVerify(alg string, p Params) (Op, error) {
	h, ok := goHashes[strings.TrimPrefix(alg, "hmac-")]
	if !ok || !strings.HasPrefix(alg, "hmac-") || !contains(goAlgorithms, alg) {
		return nil, unsupported("go does not offer %s", alg)
	}
	mac := hmac.New(h, p.Key)
	n := mac.Size()
	sum := make([]byte, 0, n)
	return OpFunc(func(in, out []byte) ([]byte, error) {
		if len(in) < n {
			return nil, errMacMismatch
		}
		mac.Reset()
		mac.Write(in[:len(in)-n])
		if !hmac.Equal(mac.Sum(sum[:0]), in[len(in)-n:]) {
			return nil, errMacMismatch
		}
		return out[:0], nil
	}), nil
}

// hashOp: Reset, Write, Sum into the output buffer (no allocation for the digest).
func hashOp(h hash.Hash) Op {
	return OpFunc(func(in, out []byte) ([]byte, error) {
		h.Reset()
		h.Write(in)
		return h.Sum(out[:0]), nil
	})
}

func goSymmetric(info *AlgorithmInfo, op string, p Params) (Op, error) {
	var block cipher.Block
	var err error
	if info.Name == "des-ede3-cbc" {
		block, err = des.NewTripleDESCipher(p.Key)
	} else {
		block, err = aes.NewCipher(p.Key)
	}
	if err != nil {
		return nil, err
	}
	iv := p.IV
	enc := op == "encrypt"
	mode := info.Name[strings.LastIndex(info.Name, "-")+1:]
	switch mode {
	case "gcm":
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		return aeadOp(aead, iv, p.AAD, enc), nil
	case "cbc":
		return OpFunc(func(in, out []byte) ([]byte, error) {
			var m cipher.BlockMode
			if enc {
				m = cipher.NewCBCEncrypter(block, iv)
			} else {
				m = cipher.NewCBCDecrypter(block, iv)
			}
			m.CryptBlocks(out[:len(in)], in)
			return out[:len(in)], nil
		}), nil
	}
	newStream := map[string]func() cipher.Stream{
		"ctr": func() cipher.Stream { return cipher.NewCTR(block, iv) },
		//lint:ignore SA1019 CFB and OFB are deprecated in Go but still the standard library's API
		"ofb": func() cipher.Stream { return cipher.NewOFB(block, iv) },
		"cfb": func() cipher.Stream {
			if enc {
				return cipher.NewCFBEncrypter(block, iv)
			}
			return cipher.NewCFBDecrypter(block, iv)
		},
	}[mode]
	return streamOp(newStream), nil
}

func streamOp(newStream func() cipher.Stream) Op {
	return OpFunc(func(in, out []byte) ([]byte, error) {
		newStream().XORKeyStream(out[:len(in)], in)
		return out[:len(in)], nil
	})
}

func aeadOp(aead cipher.AEAD, nonce, aad []byte, enc bool) Op {
	if enc {
		return OpFunc(func(in, out []byte) ([]byte, error) { return aead.Seal(out[:0], nonce, in, aad), nil })
	}
	return OpFunc(func(in, out []byte) ([]byte, error) {
		pt, err := aead.Open(out[:0], nonce, in, aad)
		if err != nil {
			return nil, refused(err)
		}
		return pt, nil
	})
}

func goKDF(info *AlgorithmInfo, p Params) (Op, error) {
	if info.Name == "hkdf-sha256" {
		salt, inf, n := p.Salt, string(p.Info), p.OutLen
		return OpFunc(func(in, out []byte) ([]byte, error) {
			return hkdf.Key(sha256.New, in, salt, inf, n)
		}), nil
	}
	h := goHashes[strings.TrimPrefix(info.Name, "pbkdf2-")]
	iter, salt, n := int(p.Cost["iterations"]), p.Salt, p.OutLen
	return OpFunc(func(in, out []byte) ([]byte, error) {
		return pbkdf2.Key(h, string(in), salt, iter, n)
	}), nil
}

// ---- public key ---------------------------------------------------------------------------------

func curveOf(keyType string) elliptic.Curve {
	switch {
	case strings.HasSuffix(keyType, "p256"):
		return elliptic.P256()
	case strings.HasSuffix(keyType, "p384"):
		return elliptic.P384()
	}
	return elliptic.P521()
}

func ecdhCurve(keyType string) ecdh.Curve {
	switch keyType {
	case "x25519":
		return ecdh.X25519()
	case "ecdh-p256":
		return ecdh.P256()
	}
	return ecdh.P384()
}

func digestOf(name string, msg []byte) (crypto.Hash, []byte) {
	switch name {
	case "sha384":
		d := sha512.Sum384(msg)
		return crypto.SHA384, d[:]
	case "sha512":
		d := sha512.Sum512(msg)
		return crypto.SHA512, d[:]
	}
	d := sha256.Sum256(msg)
	return crypto.SHA256, d[:]
}

func bigOf(b []byte) *big.Int { return new(big.Int).SetBytes(b) }

func rsaPublic(k KeyParts) (*rsa.PublicKey, error) {
	if len(k["n"]) == 0 || len(k["e"]) == 0 {
		return nil, reject("RSA key without n and e")
	}
	return &rsa.PublicKey{N: bigOf(k["n"]), E: int(bigOf(k["e"]).Int64())}, nil
}

func rsaPrivate(k KeyParts) (*rsa.PrivateKey, error) {
	pub, err := rsaPublic(k)
	if err != nil {
		return nil, err
	}
	priv := &rsa.PrivateKey{PublicKey: *pub, D: bigOf(k["d"]), Primes: []*big.Int{bigOf(k["p"]), bigOf(k["q"])}}
	if err := priv.Validate(); err != nil {
		return nil, err
	}
	priv.Precompute()
	return priv, nil
}

func padded(b []byte, n int) []byte {
	if len(b) >= n {
		return b
	}
	return append(make([]byte, n-len(b)), b...)
}

func ecPoint(k KeyParts) []byte { return append(append([]byte{4}, k["x"]...), k["y"]...) }

func goPublicKey(info *AlgorithmInfo, op string, p Params) (Op, error) {
	k := p.Keypair
	switch {
	case strings.HasPrefix(info.Name, "rsa-"):
		return goRSA(info, op, p)
	case strings.HasPrefix(info.Name, "ecdsa-"):
		curve := curveOf(info.KeyType)
		size := (curve.Params().BitSize + 7) / 8
		if op == "sign" {
			priv, err := ecdsa.ParseRawPrivateKey(curve, padded(k["d"], size))
			if err != nil {
				return nil, err
			}
			return OpFunc(func(in, out []byte) ([]byte, error) {
				_, digest := digestOf(info.Digest, in)
				r, s, err := ecdsa.Sign(rand.Reader, priv, digest)
				if err != nil {
					return nil, err
				}
				out = append(out[:0], make([]byte, 2*size)...)
				r.FillBytes(out[:size])
				s.FillBytes(out[size:])
				return out, nil
			}), nil
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(curve, ecPoint(k))
		if err != nil {
			return nil, err
		}
		sig := p.Signature
		return OpFunc(func(in, out []byte) ([]byte, error) {
			_, digest := digestOf(info.Digest, in)
			if len(sig) != 2*size || !ecdsa.Verify(pub, digest, bigOf(sig[:size]), bigOf(sig[size:])) {
				return nil, reject("ECDSA signature does not verify")
			}
			return out[:0], nil
		}), nil
	case info.Name == "ed25519":
		if op == "sign" {
			if len(k["priv"]) != ed25519.SeedSize {
				return nil, reject("Ed25519 private key must be 32 bytes")
			}
			priv := ed25519.NewKeyFromSeed(k["priv"])
			return OpFunc(func(in, out []byte) ([]byte, error) {
				return append(out[:0], ed25519.Sign(priv, in)...), nil
			}), nil
		}
		pub, sig := ed25519.PublicKey(k["pub"]), p.Signature
		if len(pub) != ed25519.PublicKeySize {
			return nil, reject("Ed25519 public key must be 32 bytes")
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			if !ed25519.Verify(pub, in, sig) {
				return nil, reject("Ed25519 signature does not verify")
			}
			return out[:0], nil
		}), nil
	}
	// key agreement: x25519, ecdh-p256, ecdh-p384
	curve := ecdhCurve(info.KeyType)
	privBytes, peerBytes := k["priv"], p.Peer["pub"]
	if info.KeyType != "x25519" {
		size := 32
		if info.KeyType == "ecdh-p384" {
			size = 48
		}
		privBytes, peerBytes = padded(k["d"], size), ecPoint(p.Peer)
	}
	priv, err := curve.NewPrivateKey(privBytes)
	if err != nil {
		return nil, err
	}
	peer, err := curve.NewPublicKey(peerBytes)
	if err != nil {
		return nil, err
	}
	return OpFunc(func(in, out []byte) ([]byte, error) {
		z, err := priv.ECDH(peer)
		if err != nil {
			return nil, err
		}
		return append(out[:0], z...), nil
	}), nil
}

func goRSA(info *AlgorithmInfo, op string, p Params) (Op, error) {
	scheme := "keypair"
	for _, s := range []string{"pkcs1", "pss", "oaep", "pkcs1v15"} {
		if strings.Contains(info.Name, "-"+s+"-") {
			scheme = s
		}
	}
	pss := &rsa.PSSOptions{SaltLength: 32, Hash: crypto.SHA256}
	switch op {
	case "sign", "decrypt":
		priv, err := rsaPrivate(p.Keypair)
		if err != nil {
			return nil, err
		}
		return OpFunc(func(in, out []byte) ([]byte, error) {
			var r []byte
			var err error
			switch scheme {
			case "pkcs1":
				d := sha256.Sum256(in)
				r, err = rsa.SignPKCS1v15(nil, priv, crypto.SHA256, d[:])
			case "pss":
				d := sha256.Sum256(in)
				r, err = rsa.SignPSS(rand.Reader, priv, crypto.SHA256, d[:], pss)
			case "pkcs1v15":
				// Deprecated in Go, kept for TLS 1.2's RSA key exchange; refuses with an error.
				r, err = rsa.DecryptPKCS1v15(nil, priv, in)
				if err != nil {
					return nil, refused(err)
				}
			default:
				r, err = rsa.DecryptOAEP(sha256.New(), nil, priv, in, nil)
				if err != nil {
					return nil, refused(err)
				}
			}
			if err != nil {
				return nil, err
			}
			return append(out[:0], r...), nil
		}), nil
	}
	pub, err := rsaPublic(p.Keypair)
	if err != nil {
		return nil, err
	}
	sig := p.Signature
	return OpFunc(func(in, out []byte) ([]byte, error) {
		switch scheme {
		case "oaep":
			r, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, pub, in, nil)
			if err != nil {
				return nil, err
			}
			return append(out[:0], r...), nil
		case "pkcs1v15":
			r, err := rsa.EncryptPKCS1v15(rand.Reader, pub, in)
			if err != nil {
				return nil, err
			}
			return append(out[:0], r...), nil
		case "pkcs1":
			d := sha256.Sum256(in)
			if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, d[:], sig); err != nil {
				return nil, refused(err)
			}
		default:
			d := sha256.Sum256(in)
			if err := rsa.VerifyPSS(pub, crypto.SHA256, d[:], sig, pss); err != nil {
				return nil, refused(err)
			}
		}
		return out[:0], nil
	}), nil
}

func (goStd) GenerateKey(alg string) (KeyParts, error) {
	info := findAlgorithm(alg)
	if info == nil || !contains(goAlgorithms, alg) || !info.hasOp("keygen") {
		return nil, unsupported("go does not generate %s keys", alg)
	}
	switch {
	case strings.HasPrefix(alg, "rsa-"):
		priv, err := rsa.GenerateKey(rand.Reader, info.Bits)
		if err != nil {
			return nil, err
		}
		pc := priv.Precomputed
		return KeyParts{"n": priv.N.Bytes(), "e": big.NewInt(int64(priv.E)).Bytes(), "d": priv.D.Bytes(),
			"p": priv.Primes[0].Bytes(), "q": priv.Primes[1].Bytes(), "dp": pc.Dp.Bytes(),
			"dq": pc.Dq.Bytes(), "qinv": pc.Qinv.Bytes()}, nil
	case strings.HasPrefix(alg, "ecdsa-"):
		priv, err := ecdsa.GenerateKey(curveOf(alg), rand.Reader)
		if err != nil {
			return nil, err
		}
		d, err := priv.Bytes()
		if err != nil {
			return nil, err
		}
		pt, err := priv.PublicKey.Bytes()
		if err != nil {
			return nil, err
		}
		n := (len(pt) - 1) / 2
		return KeyParts{"d": d, "x": pt[1 : 1+n], "y": pt[1+n:]}, nil
	case info.Kind == "kem":
		return goMLKEMKey(alg, nil)
	case alg == "ed25519":
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		return KeyParts{"priv": priv.Seed(), "pub": pub}, nil
	}
	priv, err := ecdhCurve(alg).GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	pub := priv.PublicKey().Bytes()
	if alg == "x25519" {
		return KeyParts{"priv": priv.Bytes(), "pub": pub}, nil
	}
	n := (len(pub) - 1) / 2
	return KeyParts{"d": priv.Bytes(), "x": pub[1 : 1+n], "y": pub[1+n:]}, nil
}
