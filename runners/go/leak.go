// The `leak` request (docs/protocol.md, "`leak`: input classes timed in turns"): one prepared
// operation run on the coordinator's input classes, in a fresh random order every round, each
// measurement `batch` back-to-back runs of one class timed with monoNS (as native leak.cpp). A MAC's
// `verify` is the provider's MacVerifier (docs/leaks.md, "MAC verification").
package main

import (
	"cmp"
	"encoding/hex"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
)

const leakWarmupRounds = 16

// macVerifyCase: MAC verification is no catalogue operation (a `mac` case computes a tag): asked
// for as a MAC algorithm's `verify`, it is resolved as the `mac` it verifies (as leak.cpp does).
func macVerifyCase(raw any) (any, bool) {
	m, ok := raw.(map[string]any)
	if !ok || m["operation"] != "verify" {
		return raw, false
	}
	name, _ := m["algorithm"].(string)
	if info := findAlgorithm(name); info == nil || info.Kind != "mac" {
		return raw, false
	}
	c := maps.Clone(m)
	c["operation"] = "mac"
	return c, true
}

// prepareMacVerify: the provider's MAC verification (MacVerifier), or unsupported with the reason.
func prepareMacVerify(p Provider, alg string, params Params) (Op, error) {
	if v, ok := p.(MacVerifier); ok {
		return v.PrepareMacVerify(alg, params)
	}
	return nil, unsupported("%s offers no verification of %s", p.Name(), alg)
}

func leakRequest(req map[string]any) (msg, error) {
	rawCase, macVerify := macVerifyCase(req["case"])
	spec, err := parseCase(rawCase, "case")
	if err != nil {
		return nil, err
	}
	raw, _ := req["classes"].([]any)
	if len(raw) < 2 || len(raw) > 16 {
		return nil, specErr("classes: must be an array of 2 to 16 hex strings")
	}
	classes, longest := make([][]byte, len(raw)), 0 // each class in a buffer of its own
	for i, c := range raw {
		s, ok := c.(string)
		if classes[i], err = hex.DecodeString(s); !ok || err != nil {
			return nil, specErr("classes[%d]: not a hex string", i)
		}
		longest = max(longest, len(classes[i]))
	}
	rounds, err1 := countField(req, "rounds", 1000, 1, 1_000_000)
	batch, err2 := countField(req, "batch", 1, 1, 100_000)
	seed, err3 := countField(req, "seed", 1, 0, math.MaxInt)
	params, err4 := parseParams(req["params"], "params")
	if err := cmp.Or(err1, err2, err3, err4); err != nil {
		return nil, err
	}
	reply := msg{"type": "leak", "id": spec.ID, "status": statusOK, "reason": ""}
	info, p, err := resolve(&spec)
	var op Op
	if err == nil && macVerify {
		op, err = prepareMacVerify(p, info.Name, params)
	} else if err == nil {
		op, err = p.Prepare(info.Name, spec.Operation, params)
	}
	if err != nil {
		var u *Unsupported
		reply["status"], reply["reason"] = statusFailed, err.Error()
		if errors.As(err, &u) {
			reply["status"] = statusUnsupported
		}
		return reply, nil
	}

	out := make([]byte, longest+max(1024, info.OutputBytes+info.Ciphertext)+kSlack)
	outcomes := []msg{} // what one untimed run of each class gave: the coordinator checks them
	for _, c := range classes {
		if r, err := op.Run(c, out); err != nil {
			outcomes = append(outcomes, msg{"error": err.Error()})
		} else {
			outcomes = append(outcomes, msg{"out": hex.EncodeToString(r)})
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	order, ns := make([]int, len(classes)), make([][]uint64, len(classes))
	for k := range order {
		order[k], ns[k] = k, make([]uint64, rounds)
	}
	for r := -leakWarmupRounds; r < rounds; r++ { // the first rounds are untimed warm-up
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			t0 := monoNS()
			for b := 0; b < batch; b++ {
				_, _ = op.Run(classes[k], out) // a refused class (a wrong tag, bad padding) alike
			}
			if r >= 0 {
				ns[k][r] = monoNS() - t0
			}
		}
	}
	// A refusal is an error value, returned through the same path as a success: "status".
	reply["outcomes"], reply["batch"], reply["refusal"], reply["ns"] = outcomes, batch, "status", ns
	return reply, nil
}
