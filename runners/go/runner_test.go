package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// The splitmix64 reference: seed 0 gives 0xe220a8397b1dcdaf first (Vigna's splitmix64.c), so the
// cases' keys and inputs are the native runner's bytes.
func TestByteStreamIsSplitmix64(t *testing.T) {
	got := NewByteStream(0).Bytes(8)
	want := make([]byte, 8)
	binary.LittleEndian.PutUint64(want, 0xe220a8397b1dcdaf)
	if !bytes.Equal(got, want) {
		t.Fatalf("ByteStream(0) = %x, want %x", got, want)
	}
}

func TestEveryOfferedAlgorithmPassesTheGate(t *testing.T) {
	vectorsDirFlag = "../../vectors"
	var out bytes.Buffer
	if rc := commandCheck(nil, &out); rc != 0 {
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.Contains(line, `"status":"failed"`) {
				t.Error(line)
			}
		}
	}
}

// flipping wraps a real provider and flips one bit of every output: the gate must refuse it.
type flipping struct{ Provider }

func (f flipping) Prepare(alg, op string, p Params) (Op, error) {
	inner, err := f.Provider.Prepare(alg, op, p)
	if err != nil {
		return nil, err
	}
	return OpFunc(func(in, out []byte) ([]byte, error) {
		r, err := inner.Run(in, out)
		if err == nil && len(r) > 0 {
			r[len(r)/2] ^= 1
		}
		return r, err
	}), nil
}

func TestGateRefusesWrongOutput(t *testing.T) {
	vectorsDirFlag = "../../vectors"
	bad := flipping{goStd{}}
	for _, c := range []struct{ alg, op string }{
		{"aes-256-gcm", "encrypt"}, {"sha256", "hash"}, {"hmac-sha256", "mac"}, {"aes-128-cbc", "decrypt"},
	} {
		info := findAlgorithm(c.alg)
		g, err := runGate(bad, info, c.op, make([]byte, 64), Params{Key: make([]byte, info.KeyBytes), IV: make([]byte, info.IVBytes)})
		if err != nil || g.OK || !strings.Contains(g.Reason, "known-answer test") {
			t.Errorf("%s %s: gate passed a provider with wrong output: %+v %v", c.alg, c.op, g, err)
		}
	}
	info := findAlgorithm("ed25519")
	key, _ := testKey("ed25519")
	g, _ := runPkGate(bad, info, "sign", []byte("m"), Params{Keypair: key})
	if g.OK {
		t.Error("gate passed wrong Ed25519 signatures")
	}
}

func TestMalformedRequestsGetErrorsAndTheRunnerCarriesOn(t *testing.T) {
	in := strings.NewReader("junk\n{\"cmd\":\"open\",\"case\":{\"id\":\"x\"}}\n{\"cmd\":\"nope\"}\n")
	var out bytes.Buffer
	if rc := commandServe(in, &out, -1); rc != 0 {
		t.Fatalf("serve returned %d", rc)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var types []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		types = append(types, m["type"].(string))
	}
	want := "hello error error error done"
	if strings.Join(types, " ") != want {
		t.Fatalf("replies %v, want %s", types, want)
	}
}
