// Opening public-key and KDF cases (engine.cpp, open_public_key).
package main

import (
	"errors"
	"fmt"
)

var kdfCostNames = map[string][]string{
	"pbkdf2-sha1": {"iterations"}, "pbkdf2-sha256": {"iterations"}, "pbkdf2-sha512": {"iterations"},
	"scrypt": {"N", "r", "p"}, "argon2id": {"t", "m", "p"}, "hkdf-sha256": {},
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// caseParams: the key material of a public-key or KDF case: the test key (and the peer's public
// part for key agreement), or for a KDF the salt, info and cost.
func caseParams(info *AlgorithmInfo, spec *CaseSpec) (Params, error) {
	stream := NewByteStream(spec.Seed)
	var params Params
	if info.Kind == "kdf" {
		required, known := kdfCostNames[info.Name]
		for _, name := range required {
			if _, ok := spec.Cost[name]; !ok {
				return params, fmt.Errorf("%s needs the cost parameter '%s'", info.Name, name)
			}
		}
		for name := range spec.Cost {
			if known && !contains(required, name) {
				return params, fmt.Errorf("%s has no cost parameter '%s'", info.Name, name)
			}
		}
		saltLen := 16
		if info.Name == "hkdf-sha256" {
			saltLen = 32
		}
		params.Salt = stream.Bytes(saltLen)
		if info.Name == "hkdf-sha256" {
			params.Info = stream.Bytes(16)
		}
		params.OutLen = info.OutputBytes
		params.Cost = spec.Cost
		return params, nil
	}
	key, err := testKey(info.KeyType)
	if err != nil {
		return params, err
	}
	params.Keypair = key
	if info.Kind == "key-agreement" {
		peer, err := testKey(info.KeyType + "-peer")
		if err != nil {
			return params, err
		}
		params.Peer = publicParts(info, peer)
	}
	return params, nil
}

func (c *OpenCase) openPublicKey(p Provider, info *AlgorithmInfo) error {
	op := c.Spec.Operation
	takesMessage := op != "keygen" && info.Kind != "key-agreement"
	if !takesMessage && c.Spec.Size != 0 {
		return unsupported("%s %s takes no input: size must be 0", op, info.Name)
	}
	if info.Kind == "pk-encryption" && int(c.Spec.Size)+66 > info.OutputBytes {
		return unsupported("%s encrypts at most %d bytes", info.Name, info.OutputBytes-66)
	}
	if info.Kind != "kdf" && len(c.Spec.Cost) > 0 {
		return unsupported("%s takes no cost parameters", info.Name)
	}
	params, err := caseParams(info, &c.Spec)
	if err != nil {
		return err
	}
	size := 0
	if takesMessage {
		size = int(c.Spec.Size)
	}
	message := makeInput(c.Spec.Input, size, c.Spec.Seed)
	if c.Gate, err = runPkGate(p, info, op, message, params); err != nil {
		return err
	}
	if !c.Gate.OK {
		return errors.New(c.Gate.Reason)
	}
	input := message
	switch op {
	case "verify":
		sig, err := runOne(p, info.Name, "sign", params, message)
		if err != nil {
			return err
		}
		params.Signature = sig
		params.Keypair = publicParts(info, params.Keypair)
	case "encrypt":
		params.Keypair = publicParts(info, params.Keypair)
	case "decrypt":
		if input, err = runOne(p, info.Name, "encrypt", publicOnly(info, params), message); err != nil {
			return err
		}
	}
	if op == "decrypt" {
		c.expected, c.refLen, c.deterministic = message, len(message), true
	} else if err := c.computeReference(p, info, params, input); err != nil {
		return err
	}
	c.allocateBuffers(input, 1024+kSlack, false)
	return c.measureHeapAndCalibrate(p, info, params)
}

func publicOnly(info *AlgorithmInfo, p Params) Params {
	p.Keypair = publicParts(info, p.Keypair)
	return p
}

// runOne prepares one operation and runs it once on in.
func runOne(p Provider, alg, op string, params Params, in []byte) ([]byte, error) {
	prepared, err := p.Prepare(alg, op, params)
	if err != nil {
		return nil, err
	}
	out, err := prepared.Run(in, make([]byte, len(in)+1024))
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), out...), nil
}
