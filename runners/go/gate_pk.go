// The correctness gate for public-key algorithms and KDFs (native/src/core/gate_pk.cpp).
// Randomised operations (ECDSA and PSS signatures, OAEP, key generation) are checked by round
// trip here and by the other providers through the coordinator's cross_check request.
package main

import (
	"bytes"
	"errors"
	"fmt"
)

func deterministicSignature(info *AlgorithmInfo) bool {
	return info.Family == "rsa-pkcs1" || info.Family == "ed25519" || info.Family == "ed448"
}

func offers(p Provider, alg string) bool { return contains(p.Algorithms(), alg) }

func sign(p Provider, alg string, key KeyParts, msg []byte) ([]byte, error) {
	return runOne(p, alg, "sign", Params{Keypair: key}, msg)
}

// verifies: true when the signature verifies, false when the provider rejects it; an
// Unsupported error propagates.
func verifies(p Provider, alg string, pub KeyParts, msg, sig []byte) (bool, error) {
	op, err := p.Prepare(alg, "verify", Params{Keypair: pub, Signature: sig})
	if err != nil {
		var u *Unsupported
		if errors.As(err, &u) {
			return false, err
		}
		return false, nil
	}
	_, err = op.Run(msg, make([]byte, len(msg)+1024))
	var u *Unsupported
	if errors.As(err, &u) {
		return false, err
	}
	return err == nil, nil
}

func encrypt(p Provider, alg string, pub KeyParts, msg []byte) ([]byte, error) {
	return runOne(p, alg, "encrypt", Params{Keypair: pub}, msg)
}

func decrypt(p Provider, alg string, key KeyParts, ct []byte) ([]byte, error) {
	return runOne(p, alg, "decrypt", Params{Keypair: key}, ct)
}

func agree(p Provider, alg string, own, peerPub KeyParts) ([]byte, error) {
	return runOne(p, alg, "derive", Params{Keypair: own, Peer: peerPub}, nil)
}

type laxAccept struct{}

func (laxAccept) Error() string { return "lax" }

func addLax(r *GateReport, what string) {
	if r.Lax != "" {
		r.Lax += "; "
	}
	r.Lax += what
}

func checkPkVector(p Provider, info *AlgorithmInfo, op string, v PkVector) (string, error) {
	switch info.Kind {
	case "signature":
		if op == "sign" {
			if !v.Valid || !hasPrivate(info, v.Key) {
				return "", unsupported("vector has no private key")
			}
			prepared, err := p.Prepare(info.Name, "sign", Params{Keypair: v.Key})
			if err != nil {
				return "", err
			}
			for round := 1; round <= 2; round++ {
				sig, err := runOnce(prepared, v.Message, 1024)
				if err != nil {
					return "", err
				}
				if deterministicSignature(info) {
					if !bytes.Equal(sig, v.Signature) {
						return fmt.Sprintf("signature %s, expected %s", clip(sig), clip(v.Signature)), nil
					}
				} else if ok, err := verifies(p, info.Name, publicParts(info, v.Key), v.Message, sig); err != nil || !ok {
					return "its own signature does not verify", err
				}
			}
			return "", nil
		}
		prepared, err := p.Prepare(info.Name, "verify", Params{Keypair: publicParts(info, v.Key), Signature: v.Signature})
		if err != nil {
			var u *Unsupported
			if errors.As(err, &u) || v.Valid {
				return "", err
			}
			prepared = nil // a key or signature refused on parsing is a rejection
		}
		for round := 1; round <= 2; round++ {
			ok := false
			if prepared != nil {
				_, err := prepared.Run(v.Message, make([]byte, 1024))
				var u *Unsupported
				if errors.As(err, &u) {
					return "", err
				}
				ok = err == nil
			}
			if ok && !v.Valid && v.StrictOnly {
				return "", laxAccept{}
			}
			if ok != v.Valid {
				if v.Valid {
					return "rejected a valid signature", nil
				}
				return "accepted an invalid signature", nil
			}
		}
		if v.Valid {
			bad := append([]byte(nil), v.Signature...)
			bad[len(bad)/2] ^= 1
			if ok, err := verifies(p, info.Name, publicParts(info, v.Key), v.Message, bad); err != nil || ok {
				return "accepted a signature with one bit flipped", err
			}
			other := append(append([]byte(nil), v.Message...), 0)
			if ok, err := verifies(p, info.Name, publicParts(info, v.Key), other, v.Signature); err != nil || ok {
				return "accepted the signature for a different message", err
			}
		}
		return "", nil
	case "pk-encryption":
		if op == "decrypt" {
			if len(v.Plaintext) == 0 {
				if _, err := encrypt(p, info.Name, publicParts(info, v.Key), v.Plaintext); err != nil {
					var u *Unsupported
					if errors.As(err, &u) {
						return "", err
					}
				}
			}
			prepared, err := p.Prepare(info.Name, "decrypt", Params{Keypair: v.Key})
			if err != nil {
				return "", err
			}
			for round := 1; round <= 2; round++ {
				pt, err := runOnce(prepared, v.Ciphertext, 1024)
				if err != nil {
					return "", err
				}
				if !bytes.Equal(pt, v.Plaintext) {
					return fmt.Sprintf("plaintext %s, expected %s", clip(pt), clip(v.Plaintext)), nil
				}
			}
			bad := append([]byte(nil), v.Ciphertext...)
			bad[len(bad)/2] ^= 1
			if _, err := runOnce(prepared, bad, 1024); err == nil {
				return "accepted a ciphertext with one bit flipped", nil
			}
			return "", nil
		}
		if !hasPrivate(info, v.Key) {
			return "", unsupported("vector has no private key")
		}
		ct, err := encrypt(p, info.Name, publicParts(info, v.Key), v.Plaintext)
		if err != nil {
			return "", err
		}
		pt, err := decrypt(p, info.Name, v.Key, ct)
		if err != nil {
			return "", err
		}
		if !bytes.Equal(pt, v.Plaintext) {
			return "its own ciphertext does not decrypt to the plaintext", nil
		}
		return "", nil
	case "key-agreement":
		prepared, err := p.Prepare(info.Name, "derive", Params{Keypair: v.Key, Peer: v.Peer})
		if err != nil {
			return "", err
		}
		for round := 1; round <= 2; round++ {
			z, err := runOnce(prepared, nil, 1024)
			if err != nil {
				return "", err
			}
			if !bytes.Equal(z, v.Shared) {
				return fmt.Sprintf("shared secret %s, expected %s", clip(z), clip(v.Shared)), nil
			}
		}
		return "", nil
	case "kdf":
		prepared, err := p.Prepare(info.Name, "derive", v.KDF)
		if err != nil {
			return "", err
		}
		for round := 1; round <= 2; round++ {
			out, err := runOnce(prepared, v.Input, 1024)
			if err != nil {
				return "", err
			}
			if !bytes.Equal(out, v.Output) {
				return fmt.Sprintf("output %s, expected %s", clip(out), clip(v.Output)), nil
			}
		}
		return "", nil
	}
	return "", unsupported("no vectors for %s", info.Name)
}

func runPkKAT(p Provider, info *AlgorithmInfo, op string, r *GateReport) string {
	if op == "keygen" {
		r.KAT = "not applicable (random keys; checked by use)"
		return ""
	}
	vectors, err := pkVectorsFor(info)
	if err != nil {
		return err.Error()
	}
	if len(vectors) == 0 {
		if info.Kind == "pk-encryption" {
			r.KAT = "no published vector; checked by round trip and cross-provider decryption"
			return ""
		}
		return fmt.Sprintf("no known-answer vector for %s in %s/%s.json", info.Name, vectorsDir(), info.Family)
	}
	return runVectors(len(vectors), func(i int) string { return vectors[i].Source }, p.Name(), info, r,
		func(i int) (string, error) {
			why, err := checkPkVector(p, info, op, vectors[i])
			if errors.As(err, new(laxAccept)) {
				src := vectors[i].Source
				if src == "" {
					src = "a vector"
				}
				addLax(r, "accepts "+src)
				return "", nil
			}
			return why, err
		})
}

// signatureForKey: the signature algorithm that exercises a key of info's type.
func signatureForKey(p Provider, info *AlgorithmInfo) string {
	if info.Kind == "signature" {
		return info.Name
	}
	for _, scheme := range []string{"-pkcs1-sha256", "-pss-sha256"} {
		if offers(p, info.Name+scheme) {
			return info.Name + scheme
		}
	}
	return ""
}

func keysEqual(a, b KeyParts) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func checkGeneratedKey(p Provider, info *AlgorithmInfo, a, b KeyParts) (string, error) {
	if keysEqual(a, b) {
		return "two generated keys are identical", nil
	}
	if !hasPrivate(info, a) {
		return "generated key has no private part", nil
	}
	msg := NewByteStream(7).Bytes(32)
	if info.Kind == "key-agreement" {
		ab, err := agree(p, info.Name, a, publicParts(info, b))
		if err != nil {
			return "", err
		}
		ba, err := agree(p, info.Name, b, publicParts(info, a))
		if err != nil {
			return "", err
		}
		if !bytes.Equal(ab, ba) {
			return "two generated keys do not agree on a shared secret", nil
		}
		if len(ab) != info.OutputBytes {
			return "shared secret is " + clip(ab), nil
		}
		return "", nil
	}
	sigAlg := signatureForKey(p, info)
	if sigAlg == "" {
		return "", nil
	}
	sig, err := sign(p, sigAlg, a, msg)
	if err != nil {
		return "", err
	}
	if ok, err := verifies(p, sigAlg, publicParts(info, a), msg, sig); err != nil || !ok {
		return "a signature made with a generated key does not verify", err
	}
	if ok, err := verifies(p, sigAlg, publicParts(info, b), msg, sig); err != nil || ok {
		return "a signature verifies under another generated key", err
	}
	return "", nil
}

func runPkRoundtrip(p Provider, info *AlgorithmInfo, op string, input []byte, params Params,
	r *GateReport) (string, error) {
	key, peerKey := params.Keypair, KeyParts(nil)
	switch info.Kind {
	case "keypair", "signature":
		if op == "keygen" {
			return checkFreshKeys(p, info)
		}
		sig, err := sign(p, info.Name, key, input)
		if err != nil {
			return "", err
		}
		if len(sig) != info.OutputBytes {
			return fmt.Sprintf("signature is %d bytes, expected %d", len(sig), info.OutputBytes), nil
		}
		pub := publicParts(info, key)
		if ok, err := verifies(p, info.Name, pub, input, sig); err != nil || !ok {
			return "its own signature does not verify", err
		}
		for _, at := range []int{0, len(sig) / 3, len(sig) - 1} {
			bad := append([]byte(nil), sig...)
			bad[at] ^= 0x80
			ok, err := verifies(p, info.Name, pub, input, bad)
			if err != nil {
				return "", err
			}
			if !ok {
				continue
			}
			if info.Name == "ed448" && at == len(sig)-1 {
				addLax(r, "accepts a signature whose last byte (zero in every valid Ed448 signature) was altered")
				continue
			}
			return fmt.Sprintf("accepted its signature with a bit of byte %d flipped", at), nil
		}
		return "", nil
	case "pk-encryption":
		pub := publicParts(info, key)
		c1, err := encrypt(p, info.Name, pub, input)
		if err != nil {
			return "", err
		}
		c2, err := encrypt(p, info.Name, pub, input)
		if err != nil {
			return "", err
		}
		if len(c1) != info.OutputBytes {
			return "ciphertext is " + clip(c1), nil
		}
		if bytes.Equal(c1, c2) {
			return "two encryptions of the same message are identical (no randomness)", nil
		}
		pt, err := decrypt(p, info.Name, key, c1)
		if err != nil {
			return "", err
		}
		if !bytes.Equal(pt, input) {
			return "decrypt(encrypt(input)) differs from the input", nil
		}
		return "", nil
	case "key-agreement":
		if op == "keygen" {
			return checkFreshKeys(p, info)
		}
		full, err := testKey(info.KeyType + "-peer")
		if err != nil {
			return "", err
		}
		peerKey = full
		ab, err := agree(p, info.Name, key, publicParts(info, peerKey))
		if err != nil {
			return "", err
		}
		ba, err := agree(p, info.Name, peerKey, publicParts(info, key))
		if err != nil {
			return "", err
		}
		if len(ab) != info.OutputBytes {
			return fmt.Sprintf("shared secret is %d bytes, expected %d", len(ab), info.OutputBytes), nil
		}
		if !bytes.Equal(ab, ba) {
			return "the two parties compute different shared secrets", nil
		}
		return "", nil
	case "kdf":
		a, err := runOne(p, info.Name, "derive", params, input)
		if err != nil {
			return "", err
		}
		b, err := runOne(p, info.Name, "derive", params, input)
		if err != nil {
			return "", err
		}
		if len(a) != params.OutLen {
			return fmt.Sprintf("output is %d bytes, expected %d", len(a), params.OutLen), nil
		}
		if !bytes.Equal(a, b) {
			return "two derivations from the same input differ", nil
		}
		return "", nil
	}
	return "not a public-key algorithm", nil
}

// checkFreshKeys: two fresh keys, each usable and different (the first is what the native gate
// hands to the other providers; here the coordinator's cross_check does that).
func checkFreshKeys(p Provider, info *AlgorithmInfo) (string, error) {
	a, err := p.GenerateKey(info.Name)
	if err != nil {
		return "", err
	}
	b, err := p.GenerateKey(info.Name)
	if err != nil {
		return "", err
	}
	return checkGeneratedKey(p, info, a, b)
}

func runPkGate(p Provider, info *AlgorithmInfo, op string, input []byte, params Params) (GateReport, error) {
	return runSteps(func(r *GateReport) string { return runPkKAT(p, info, op, r) },
		func(r *GateReport) (string, error) { return runPkRoundtrip(p, info, op, input, params, r) })
}
