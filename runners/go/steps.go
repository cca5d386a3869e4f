// The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
// return the outputs. Nothing here knows what an output should be: the coordinator judges, and
// puts an earlier output a step uses in its place itself. And what a provider offers, probed
// through its adapter.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

var stepOps = []string{"encrypt", "decrypt", "hash", "mac", "sign", "verify", "derive", "keygen",
	"encaps", "decaps"}

func runSteps(p Provider, alg string, raw any, caseInput []byte) ([]msg, error) {
	steps, ok := raw.([]any)
	if !ok {
		return nil, specErr("steps: must be an array")
	}
	results := []msg{}
	for n, s := range steps {
		step, _ := s.(map[string]any)
		op, _ := step["op"].(string)
		if !contains(stepOps, op) {
			return nil, specErr("steps[%d].op: must be one of %s", n, strings.Join(stepOps, ", "))
		}
		name := alg
		if a, ok := step["algorithm"].(string); ok && a != "" {
			name = a
		}
		where := fmt.Sprintf("steps[%d]", n)
		params, err := parseParams(step["params"], where)
		if err != nil {
			return nil, err
		}
		prepared, err := p.Prepare(name, op, params)
		if err != nil {
			results = append(results, failure(err))
			continue
		}
		digest, _ := step["digest"].(bool)
		inputs, _ := step["inputs"].([]any)
		runs := []msg{}
		for _, v := range inputs {
			data := caseInput
			if x, ok := v.(map[string]any); !ok || x["case_input"] != true {
				if data, err = hexOf(v, where); err != nil {
					return nil, err
				}
			}
			var got msg
			if op == "keygen" && len(params.Keypair["seed"]) > 0 {
				var k KeyParts
				k, err = keyFromSeed(p, name, params.Keypair["seed"])
				got = msg{"key": hexParts(k)}
			} else if op == "keygen" {
				var k KeyParts
				k, err = p.GenerateKey(name)
				got = msg{"key": hexParts(k)}
			} else {
				var out []byte
				out, err = prepared.Run(data, make([]byte, len(data)+1024))
				got = msg{"out": hex.EncodeToString(out)}
				if digest {
					got = outputDigest(out)
				}
			}
			if err != nil {
				got = failure(err)
			}
			runs = append(runs, got)
		}
		results = append(results, msg{"runs": runs})
	}
	return results, nil
}

// keyFromSeed: the gate's key generation from a published seed (docs/protocol.md, "Keys").
func keyFromSeed(p Provider, alg string, seed []byte) (KeyParts, error) {
	if s, ok := p.(SeedKeys); ok {
		return s.KeyFromSeed(alg, seed)
	}
	return nil, unsupported("%s derives no %s key from a seed", p.Name(), alg)
}

func failure(err error) msg {
	var u *Unsupported
	if errors.As(err, &u) {
		return msg{"unsupported": err.Error()}
	}
	return msg{"error": err.Error()}
}

func outputDigest(b []byte) msg {
	sum := sha256.Sum256(b)
	return msg{"len": len(b), "sha256": hex.EncodeToString(sum[:]),
		"head": hex.EncodeToString(b[:min(16, len(b))])}
}

func hexParts(k KeyParts) map[string]string {
	out := map[string]string{}
	for n, v := range k {
		out[n] = hex.EncodeToString(v)
	}
	return out
}

func intOf(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	x, err := n.Int64()
	return int(x), err == nil
}

// countField: a request's integer field `name` from least to most, fallback when absent (the
// `sample` count, the `leak` rounds and batch); anything else is an error naming the field.
func countField(req map[string]any, name string, fallback, least, most int) (int, error) {
	v, given := req[name]
	if n, ok := intOf(v); ok && n >= least && n <= most {
		return n, nil
	} else if !given {
		return fallback, nil
	}
	return 0, specErr("%s: must be an integer from %d to %d", name, least, most)
}

func hexOf(v any, where string) ([]byte, error) {
	s, ok := v.(string)
	b, err := hex.DecodeString(s)
	if !ok || err != nil {
		return nil, specErr("%s: not a hex string: %v", where, v)
	}
	return b, nil
}

// parseParams: a step's (or open's) parameters; open's "public" is the test key's public parts.
func parseParams(v any, where string) (Params, error) {
	var p Params
	m, _ := v.(map[string]any)
	var err error
	for name, dst := range map[string]*[]byte{"key": &p.Key, "iv": &p.IV, "aad": &p.AAD,
		"salt": &p.Salt, "info": &p.Info, "secret": &p.Secret, "ad": &p.AD, "signature": &p.Signature,
		"randomness": &p.Randomness} {
		if x, ok := m[name]; ok && err == nil {
			*dst, err = hexOf(x, where+"."+name)
		}
	}
	for name, dst := range map[string]*KeyParts{"keypair": &p.Keypair, "peer": &p.Peer, "public": &p.Public} {
		x, given := m[name]
		if !given || err != nil {
			continue
		}
		parts, ok := x.(map[string]any)
		if !ok {
			err = specErr("%s.%s: key parts are an object", where, name)
			continue
		}
		*dst = KeyParts{}
		for k, h := range parts {
			if (*dst)[k], err = hexOf(h, where+"."+name); err != nil {
				break
			}
		}
	}
	p.OutLen, _ = intOf(m["out_len"])
	p.Cost = map[string]uint64{}
	cost, _ := m["cost"].(map[string]any)
	for name, x := range cost {
		n, _ := intOf(x)
		p.Cost[name] = uint64(n)
	}
	return p, err
}

var probed = map[string]map[string]string{}

// notOffered: algorithm -> why the provider does not offer it ("" when it does), probed once
// through the adapter: every operation of every catalogue algorithm prepared with parameters made
// from the catalogue alone; only the adapter's Unsupported means not offered (docs/protocol.md,
// "What a provider offers").
func notOffered(p Provider) map[string]string {
	if m, ok := probed[p.Name()]; ok {
		return m
	}
	m := map[string]string{}
	for i := range catalogue {
		info := &catalogue[i]
		params := Params{Key: make([]byte, info.KeyBytes), IV: make([]byte, info.IVBytes),
			Salt: make([]byte, 16), OutLen: 32, Cost: map[string]uint64{}}
		m[info.Name] = ""
		for _, op := range info.Operations {
			if why := probeOne(p, info.Name, op, params); why != "" {
				m[info.Name] = why
				break
			}
		}
	}
	probed[p.Name()] = m
	return m
}

func probeOne(p Provider, alg, op string, params Params) (why string) {
	defer func() { _ = recover() }() // the probe's dummy parameters: the gate judges the rest
	_, err := p.Prepare(alg, op, params)
	var u *Unsupported
	if errors.As(err, &u) {
		return err.Error()
	}
	return ""
}

func offered(p Provider) []string {
	var out []string
	for _, a := range catalogue {
		if notOffered(p)[a.Name] == "" {
			out = append(out, a.Name)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
