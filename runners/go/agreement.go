// Cross-provider agreement, computed in this process (contract "Agreement"): `agreement` produces
// this provider's artifacts from the coordinator's material, `cross_check` checks other
// providers' artifacts that equality cannot decide.
package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
)

type material struct {
	Key, IV, AAD, Input, Salt, Info []byte
}

func parseMaterial(req map[string]any) (material, error) {
	var m material
	raw, ok := req["material"].(map[string]any)
	if !ok {
		return m, specErr("material: missing or not an object")
	}
	for name, dst := range map[string]*[]byte{"key": &m.Key, "iv": &m.IV, "aad": &m.AAD,
		"input": &m.Input, "salt": &m.Salt, "info": &m.Info} {
		v, ok := raw[name]
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return m, specErr("material.%s: must be a hex string", name)
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return m, specErr("material.%s: %v", name, err)
		}
		*dst = b
	}
	return m, nil
}

func hexParts(k KeyParts) map[string]string {
	out := map[string]string{}
	for n, v := range k {
		out[n] = hex.EncodeToString(v)
	}
	return out
}

func (m material) password() []byte { return m.Input[:min(32, len(m.Input))] }

func kdfParams(info *AlgorithmInfo, spec CaseSpec, m material) Params {
	return Params{Salt: m.Salt, Info: m.Info, OutLen: 32, Cost: spec.Cost}
}

// artifacts: this provider's outputs for the material (the contract's table).
func artifacts(p Provider, info *AlgorithmInfo, spec CaseSpec, m material) (map[string]any, error) {
	op := spec.Operation
	switch {
	case info.Kind == "cipher" || info.Kind == "aead":
		ct, err := runOne(p, info.Name, "encrypt", Params{Key: m.Key, IV: m.IV, AAD: m.AAD}, m.Input)
		return map[string]any{"ciphertext": hex.EncodeToString(ct)}, err
	case info.Kind == "hash":
		d, err := runOne(p, info.Name, "hash", Params{}, m.Input)
		return map[string]any{"digest": hex.EncodeToString(d)}, err
	case info.Kind == "mac":
		t, err := runOne(p, info.Name, "mac", Params{Key: m.Key}, m.Input)
		return map[string]any{"mac": hex.EncodeToString(t)}, err
	case info.Kind == "kdf":
		params := kdfParams(info, spec, m)
		if _, err := caseParams(info, &spec); err != nil {
			return nil, err
		}
		d, err := runOne(p, info.Name, "derive", params, m.password())
		return map[string]any{"derived": hex.EncodeToString(d)}, err
	case op == "keygen":
		k, err := p.GenerateKey(info.Name)
		return map[string]any{"generated": hexParts(k)}, err
	}
	key, err := testKey(info.KeyType)
	if err != nil {
		return nil, err
	}
	switch info.Kind {
	case "signature":
		sig, err := sign(p, info.Name, key, m.Input)
		return map[string]any{"signature": hex.EncodeToString(sig)}, err
	case "pk-encryption":
		ct, err := encrypt(p, info.Name, publicParts(info, key), m.password())
		return map[string]any{"ciphertext": hex.EncodeToString(ct)}, err
	case "key-agreement":
		peer, err := testKey(info.KeyType + "-peer")
		if err != nil {
			return nil, err
		}
		z, err := agree(p, info.Name, key, publicParts(info, peer))
		return map[string]any{"secret": hex.EncodeToString(z)}, err
	}
	return nil, unsupported("no artifacts for %s %s", op, info.Name)
}

// ownKAT: this provider's known-answer result for the case's algorithm and operation.
func ownKAT(p Provider, info *AlgorithmInfo, op string) msg {
	var r GateReport
	var why string
	if info.Kind == "kdf" || isPublicKey(info.Kind) {
		why = runPkKAT(p, info, op, &r)
	} else {
		why = runKAT(p, info, op, &r)
	}
	if why != "" {
		return msg{"ok": false, "detail": why}
	}
	return msg{"ok": true, "detail": r.KAT}
}

func agreementRequest(cmd string, req map[string]any) (msg, error) {
	raw, ok := req["case"]
	if !ok {
		return nil, specErr("case: missing")
	}
	spec, err := parseCase(raw, "case")
	if err != nil {
		return nil, err
	}
	m, err := parseMaterial(req)
	if err != nil {
		return nil, err
	}
	info, p, err := resolve(&spec)
	if cmd == "cross_check" {
		peers, ok := req["peers"].(map[string]any)
		if !ok {
			return nil, specErr("peers: missing or not an object")
		}
		return crossCheck(spec, info, p, err, m, peers), nil
	}
	reply := msg{"type": "agreement", "id": spec.ID, "status": statusOK, "reason": ""}
	if err != nil {
		var u *Unsupported
		reply["status"] = statusFailed
		if errors.As(err, &u) {
			reply["status"] = statusUnsupported
		}
		reply["reason"] = err.Error()
		return reply, nil
	}
	reply["kat"] = ownKAT(p, info, spec.Operation)
	arts, err := artifacts(p, info, spec, m)
	if err != nil {
		var u *Unsupported
		reply["status"] = statusFailed
		if errors.As(err, &u) {
			reply["status"] = statusUnsupported
		}
		reply["reason"] = err.Error()
		return reply, nil
	}
	reply["artifacts"] = arts
	return reply, nil
}

func crossCheck(spec CaseSpec, info *AlgorithmInfo, p Provider, resolveErr error, m material,
	peers map[string]any) msg {
	verdicts := msg{}
	names := make([]string, 0, len(peers))
	for n := range peers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if resolveErr != nil {
			verdicts[name] = msg{"ok": nil, "reason": "not checked: " + resolveErr.Error()}
			continue
		}
		arts, _ := peers[name].(map[string]any)
		ok, why, err := checkPeer(p, info, spec, m, arts)
		switch {
		case err != nil:
			verdicts[name] = msg{"ok": nil, "reason": "not checked: " + err.Error()}
		default:
			verdicts[name] = msg{"ok": ok, "reason": why}
		}
	}
	return msg{"type": "cross_check", "id": spec.ID, "verdicts": verdicts}
}

func hexArtifact(arts map[string]any, name string) ([]byte, bool) {
	s, ok := arts[name].(string)
	if !ok {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// checkPeer: verify the peer's signature, decrypt its ciphertext, use its generated key; for the
// deterministic artifacts compare with ours. err means the check could not be made here.
func checkPeer(p Provider, info *AlgorithmInfo, spec CaseSpec, m material, arts map[string]any) (bool, string, error) {
	if raw, ok := arts["generated"].(map[string]any); ok {
		key := KeyParts{}
		for n, v := range raw {
			s, _ := v.(string)
			b, err := hex.DecodeString(s)
			if err != nil {
				return false, "generated." + n + " is not hex", nil
			}
			key[n] = b
		}
		return useGeneratedKey(p, info, key)
	}
	if sig, ok := hexArtifact(arts, "signature"); ok {
		key, err := testKey(info.KeyType)
		if err != nil {
			return false, "", err
		}
		good, err := verifies(p, info.Name, publicParts(info, key), m.Input, sig)
		if err != nil {
			return false, "", err
		}
		if !good {
			return false, "its signature does not verify", nil
		}
		return true, "", nil
	}
	if ct, ok := hexArtifact(arts, "ciphertext"); ok {
		var pt []byte
		var err error
		want := m.Input
		if info.Kind == "pk-encryption" {
			key, kerr := testKey(info.KeyType)
			if kerr != nil {
				return false, "", kerr
			}
			want = m.password()
			pt, err = decrypt(p, info.Name, key, ct)
		} else {
			pt, err = runOne(p, info.Name, "decrypt", Params{Key: m.Key, IV: m.IV, AAD: m.AAD}, ct)
		}
		var u *Unsupported
		if errors.As(err, &u) {
			return false, "", err
		}
		if err != nil || !bytes.Equal(pt, want) {
			return false, "cannot decrypt its ciphertext", nil
		}
		return true, "", nil
	}
	for _, name := range []string{"digest", "mac", "secret", "derived"} {
		theirs, ok := hexArtifact(arts, name)
		if !ok {
			continue
		}
		mine, err := artifacts(p, info, spec, m)
		if err != nil {
			return false, "", err
		}
		if mine[name] != hex.EncodeToString(theirs) {
			return false, fmt.Sprintf("its %s differs from ours", name), nil
		}
		return true, "", nil
	}
	return false, "", unsupported("no artifact this runner can check")
}

func useGeneratedKey(p Provider, info *AlgorithmInfo, key KeyParts) (bool, string, error) {
	msgBytes := NewByteStream(0xC0FFEE).Bytes(32)
	if info.Kind == "key-agreement" {
		peer, err := testKey(info.KeyType + "-peer")
		if err != nil {
			return false, "", err
		}
		ours, err := agree(p, info.Name, key, publicParts(info, peer))
		if err != nil {
			return false, "we cannot derive with its generated key: " + err.Error(), nil
		}
		theirs, err := agree(p, info.Name, peer, publicParts(info, key))
		if err != nil {
			return false, "we cannot derive with its generated public key: " + err.Error(), nil
		}
		if !bytes.Equal(ours, theirs) {
			return false, "its generated key does not give one shared secret from both sides", nil
		}
		return true, "", nil
	}
	sigAlg := signatureForKey(p, info)
	if sigAlg == "" {
		return false, "", unsupported("no signature scheme for %s here", info.Name)
	}
	sig, err := sign(p, sigAlg, key, msgBytes)
	if err != nil {
		return false, "we cannot sign with its generated key: " + err.Error(), nil
	}
	good, err := verifies(p, sigAlg, publicParts(info, key), msgBytes, sig)
	if err != nil {
		return false, "", err
	}
	if !good {
		return false, "a signature made with its generated key does not verify", nil
	}
	return true, "", nil
}
