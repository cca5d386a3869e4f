// The correctness gate for symmetric algorithms, hashes and MACs (native/src/core/gate.cpp):
// every known-answer vector twice on one prepared operation, an AEAD decryption must reject a
// flipped tag, then the round trip on the case's own input. Cross-provider agreement is the
// coordinator's (the agreement and cross_check requests, agreement.go).
package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
)

const streamBlock = 64 // what initial_counter counts (ChaCha20 / Salsa20 blocks)

func runOnce(op Op, in []byte, extra int) ([]byte, error) {
	out, err := op.Run(in, make([]byte, len(in)+extra+64))
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), out...), nil
}

func forward(info *AlgorithmInfo) string {
	switch info.Kind {
	case "hash":
		return "hash"
	case "mac":
		return "mac"
	}
	return "encrypt"
}

func clip(b []byte) string {
	h := hex.EncodeToString(b[:min(len(b), 24)])
	if len(b) > 24 {
		h += "..."
	}
	return fmt.Sprintf("%s (%d bytes)", h, len(b))
}

func mismatch(what string, got, want []byte) string {
	return fmt.Sprintf("%s: got %s, expected %s", what, clip(got), clip(want))
}

func checkVector(p Provider, info *AlgorithmInfo, op string, v Vector) (string, error) {
	params := Params{Key: v.Key, IV: v.IV, AAD: v.AAD}
	prefix := make([]byte, v.InitialCounter*streamBlock)
	in, want := v.Input, v.Expected
	if op == "decrypt" {
		in, want = v.Expected, v.Input
	}
	in = append(append([]byte(nil), prefix...), in...)
	prepared, err := p.Prepare(info.Name, op, params)
	if err != nil {
		return "", err
	}
	for round := 1; round <= 2; round++ {
		got, err := runOnce(prepared, in, info.TagBytes)
		if err != nil {
			return "", err
		}
		if len(got) < len(prefix) {
			return mismatch("output too short", got, want), nil
		}
		got = got[len(prefix):]
		if info.Kind == "mac" && len(want) < len(got) {
			got = got[:len(want)]
		}
		if !bytes.Equal(got, want) {
			what := "wrong output"
			if round == 2 {
				what = "wrong output on the second run"
			}
			return mismatch(what, got, want), nil
		}
	}
	if info.Kind == "aead" && op == "decrypt" {
		tampered := append([]byte(nil), in...)
		tampered[len(tampered)-1] ^= 1
		if _, err := runOnce(prepared, tampered, 0); err == nil {
			return "accepted a ciphertext whose tag was altered", nil
		}
		got, err := runOnce(prepared, in, 0)
		if err != nil {
			return "", err
		}
		if !bytes.Equal(got[len(prefix):], want) {
			return "wrong output after rejecting a forgery", nil
		}
	}
	return "", nil
}

// runVectors: gate_util.hpp, run_vectors. check returns "" (pass), a reason (fail), or an
// Unsupported error (the vector does not apply; at least one must).
func runVectors(n int, source func(int) string, provider string, info *AlgorithmInfo,
	report *GateReport, check func(int) (string, error)) string {
	passed, notApplicable := 0, 0
	naReason := ""
	for i := 0; i < n; i++ {
		why, err := check(i)
		var u *Unsupported
		if errors.As(err, &u) {
			notApplicable++
			naReason = err.Error()
			continue
		}
		if err != nil {
			why = err.Error()
		}
		if why != "" {
			name := source(i)
			if name == "" {
				name = info.Name
			}
			return fmt.Sprintf("known-answer test %s failed for %s: %s", name, provider, why)
		}
		passed++
	}
	if passed == 0 {
		return "no known-answer vector applies: " + naReason
	}
	report.KAT = fmt.Sprintf("passed %d vector%s", passed, map[bool]string{true: "", false: "s"}[passed == 1])
	if notApplicable > 0 {
		report.KAT += fmt.Sprintf(", %d not applicable (%s)", notApplicable, naReason)
	}
	return ""
}

func runKAT(p Provider, info *AlgorithmInfo, op string, report *GateReport) string {
	vectors, err := vectorsFor(info)
	if err != nil {
		return err.Error()
	}
	if len(vectors) == 0 {
		return fmt.Sprintf("no known-answer vector for %s in %s/%s.json", info.Name, vectorsDir(), info.Family)
	}
	return runVectors(len(vectors), func(i int) string { return vectors[i].Source }, p.Name(), info, report,
		func(i int) (string, error) { return checkVector(p, info, op, vectors[i]) })
}

func runRoundtrip(p Provider, info *AlgorithmInfo, input []byte, params Params) (string, error) {
	if info.Kind == "hash" || info.Kind == "mac" {
		op, err := p.Prepare(info.Name, forward(info), params)
		if err != nil {
			return "", err
		}
		a, err := runOnce(op, input, 0)
		if err != nil {
			return "", err
		}
		b, err := runOnce(op, input, 0)
		if err != nil {
			return "", err
		}
		if len(a) != info.OutputBytes {
			return fmt.Sprintf("output is %d bytes, expected %d", len(a), info.OutputBytes), nil
		}
		if !bytes.Equal(a, b) {
			return "two runs on the same input gave different outputs", nil
		}
		return "", nil
	}
	enc, err := p.Prepare(info.Name, "encrypt", params)
	if err != nil {
		return "", err
	}
	dec, err := p.Prepare(info.Name, "decrypt", params)
	if err != nil {
		return "", err
	}
	ct, err := runOnce(enc, input, info.TagBytes)
	if err != nil {
		return "", err
	}
	if len(ct) != len(input)+info.TagBytes {
		return fmt.Sprintf("ciphertext is %d bytes for %d bytes of input", len(ct), len(input)), nil
	}
	if len(input) >= 16 && bytes.Equal(ct[:16], input[:16]) {
		return "ciphertext starts with the plaintext", nil
	}
	pt, err := runOnce(dec, ct, 0)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(pt, input) {
		return "decrypt(encrypt(input)) differs from the input", nil
	}
	return "", nil
}

// runSteps: gate_util.hpp, run_steps, without the agreement step. An Unsupported error from a
// step is returned (the case is unsupported, not failed); any other error is the gate's reason.
func runSteps(kat func(*GateReport) string, roundtrip func(*GateReport) (string, error)) (GateReport, error) {
	r := GateReport{Agreement: "by the coordinator (agreement request)"}
	if why := kat(&r); why != "" {
		r.Reason = why
		return r, nil
	}
	why, err := roundtrip(&r)
	if err != nil {
		var u *Unsupported
		if errors.As(err, &u) {
			return r, err
		}
		why = err.Error()
	}
	if why != "" {
		r.Reason = "round trip failed: " + why
		return r, nil
	}
	r.Roundtrip = "passed"
	r.OK = true
	return r, nil
}

func runGate(p Provider, info *AlgorithmInfo, op string, input []byte, params Params) (GateReport, error) {
	return runSteps(func(r *GateReport) string { return runKAT(p, info, op, r) },
		func(r *GateReport) (string, error) { return runRoundtrip(p, info, input, params) })
}
