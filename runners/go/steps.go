// The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
// return the outputs. Nothing here knows what an output should be: the coordinator judges. And
// what a provider offers, probed through its adapter.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

var stepOps = []string{"encrypt", "decrypt", "hash", "mac", "sign", "verify", "derive", "keygen",
	"encaps", "decaps"}

// stepOutput: one run's output, kept for later steps' references.
type stepOutput struct {
	out []byte
	key KeyParts
	ok  bool
}

func runSteps(p Provider, alg string, raw any, caseInput []byte) ([]msg, error) {
	steps, ok := raw.([]any)
	if !ok {
		return nil, specErr("steps: must be an array")
	}
	outputs := make([][]stepOutput, len(steps))
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
		r := resolver{outputs, caseInput, n}
		params, err := r.params(step["params"])
		var prepared Op
		if err == nil {
			prepared, err = p.Prepare(name, op, params)
		}
		if err != nil {
			if isSpecError(err) {
				return nil, err
			}
			results = append(results, failure(err))
			continue
		}
		digest, _ := step["digest"].(bool)
		inputs, _ := step["inputs"].([]any)
		runs := []msg{}
		for _, v := range inputs {
			var got stepOutput
			data, err := r.bytes(v)
			if err == nil && op == "keygen" && len(params.Keypair["seed"]) > 0 {
				got.key, err = keyFromSeed(p, name, params.Keypair["seed"])
			} else if err == nil && op == "keygen" {
				got.key, err = p.GenerateKey(name)
			} else if err == nil {
				var out []byte
				out, err = prepared.Run(data, make([]byte, len(data)+1024))
				got.out = append([]byte{}, out...)
			}
			if isSpecError(err) {
				return nil, err
			}
			if err != nil {
				runs = append(runs, failure(err))
			} else {
				got.ok = true
				runs = append(runs, encode(got, digest))
			}
			outputs[n] = append(outputs[n], got)
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

func isSpecError(err error) bool {
	var se *specError
	return errors.As(err, &se)
}

func failure(err error) msg {
	var u *Unsupported
	if errors.As(err, &u) {
		return msg{"unsupported": err.Error()}
	}
	return msg{"error": err.Error()}
}

func encode(o stepOutput, digest bool) msg {
	if o.key != nil {
		return msg{"key": hexParts(o.key)}
	}
	if digest {
		return outputDigest(o.out)
	}
	return msg{"out": hex.EncodeToString(o.out)}
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

// resolver reads a step's values: hex, the case's input, or an earlier run's output.
type resolver struct {
	outputs [][]stepOutput
	input   []byte
	n       int
}

func (r resolver) earlier(v map[string]any) (stepOutput, error) {
	ref, _ := v["ref"].([]any)
	if len(ref) != 2 {
		return stepOutput{}, specErr("steps[%d]: a ref is [step, run]", r.n)
	}
	s, ok1 := intOf(ref[0])
	run, ok2 := intOf(ref[1])
	if !ok1 || !ok2 {
		return stepOutput{}, specErr("steps[%d]: a ref is [step, run]", r.n)
	}
	if s < 0 || s >= r.n || run < 0 || run >= len(r.outputs[s]) || !r.outputs[s][run].ok {
		return stepOutput{}, fmt.Errorf("refers to run %d of step %d, which gave no output", run, s)
	}
	return r.outputs[s][run], nil
}

func (r resolver) hex(v any) ([]byte, error) {
	s, ok := v.(string)
	b, err := hex.DecodeString(s)
	if !ok || err != nil {
		return nil, specErr("steps[%d]: not a hex string: %v", r.n, v)
	}
	return b, nil
}

func (r resolver) bytes(v any) ([]byte, error) {
	x, ok := v.(map[string]any)
	if !ok {
		return r.hex(v)
	}
	if in, _ := x["case_input"].(bool); in {
		return r.input, nil
	}
	o, err := r.earlier(x)
	if err != nil {
		return nil, err
	}
	out := append([]byte{}, o.out...)
	if v, ok := x["prefix"]; ok {
		n, ok := intOf(v)
		if !ok || n < 0 || n > len(out) {
			return nil, fmt.Errorf("keeps %v bytes of a %d-byte output", v, len(out))
		}
		out = out[:n]
	}
	if f, ok := x["flip"].([]any); ok && len(f) == 2 {
		at, _ := intOf(f[0])
		mask, _ := intOf(f[1])
		if at < 0 {
			at += len(out)
		}
		if at < 0 || at >= len(out) {
			return nil, fmt.Errorf("flips byte %v of a %d-byte output", f[0], len(out))
		}
		out[at] ^= byte(mask)
	}
	if a, ok := x["append"]; ok {
		b, err := r.hex(a)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

func (r resolver) key(v any) (KeyParts, error) {
	x, ok := v.(map[string]any)
	if !ok {
		return nil, specErr("steps[%d]: key parts are an object", r.n)
	}
	out := KeyParts{}
	if _, isRef := x["ref"]; isRef {
		o, err := r.earlier(x)
		if err != nil {
			return nil, err
		}
		names, _ := x["parts"].([]any)
		for k, b := range o.key {
			if names == nil || slices.Contains(names, any(k)) {
				out[k] = b
			}
		}
		return out, nil
	}
	for k, h := range x {
		b, err := r.hex(h)
		if err != nil {
			return nil, err
		}
		out[k] = b
	}
	return out, nil
}

// params: a step's (or open's) parameters; open's "public" is the test key's public parts.
func (r resolver) params(v any) (Params, error) {
	var p Params
	m, _ := v.(map[string]any)
	var err error
	for name, dst := range map[string]*[]byte{"key": &p.Key, "iv": &p.IV, "aad": &p.AAD,
		"salt": &p.Salt, "info": &p.Info, "secret": &p.Secret, "ad": &p.AD, "signature": &p.Signature,
		"randomness": &p.Randomness} {
		if x, ok := m[name]; ok && err == nil {
			*dst, err = r.bytes(x)
		}
	}
	for name, dst := range map[string]*KeyParts{"keypair": &p.Keypair, "peer": &p.Peer, "public": &p.Public} {
		if x, ok := m[name]; ok && err == nil {
			*dst, err = r.key(x)
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
