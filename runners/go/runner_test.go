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

// drifting wraps a real provider: after `after` runs of one prepared operation it corrupts its
// output (a library whose timed instance goes wrong), or with overrun writes one byte past it.
type drifting struct {
	Provider
	name    string
	after   int
	overrun bool
}

func (d drifting) Name() string { return d.name }

func (d drifting) Prepare(alg, op string, p Params) (Op, error) {
	inner, err := d.Provider.Prepare(alg, op, p)
	if err != nil {
		return nil, err
	}
	runs := 0
	return OpFunc(func(in, out []byte) ([]byte, error) {
		r, err := inner.Run(in, out)
		runs++
		if err != nil || runs <= d.after {
			return r, err
		}
		if d.overrun {
			out[len(r)] ^= 0xff // a write past the output it returns
		} else if len(r) > 0 {
			r[0] ^= 1
		}
		return r, err
	}), nil
}

// openWith opens one case on a temporary extra provider and takes its samples.
func openWith(t *testing.T, p Provider, spec CaseSpec) *OpenCase {
	t.Helper()
	vectorsDirFlag = "../../vectors"
	saved := providers
	providers = append(append([]Provider{}, providers...), p)
	defer func() { providers = saved }()
	spec.ID, spec.Provider, spec.Input, spec.Seed = "t", p.Name(), "random", 1
	spec.Samples, spec.Batch, spec.TargetSampleMS, spec.WarmupMS, spec.HeapIterations = 3, 1, 0.2, 1, 2
	c := openCase(spec)
	for c.Status == statusOK && uint64(len(c.Samples)) < spec.Samples {
		if _, err := c.sample(); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestTheTimedInstanceIsCheckedAfterSampling(t *testing.T) {
	// Runs 1-2 are the gate's (KAT and round trip use their own instances; the reference is one
	// more fresh instance): a prepared operation that goes wrong only after thousands of runs
	// passes the gate and must fail the check of the timed instance.
	for _, tc := range []struct {
		d    drifting
		spec CaseSpec
		want string
	}{
		{drifting{goStd{}, "drift", 2000, false}, CaseSpec{Operation: "encrypt", Algorithm: "aes-256-gcm", Size: 64, Inplace: true},
			"output differs from the gated instance's"},
		{drifting{goStd{}, "drift", 2000, false}, CaseSpec{Operation: "hash", Algorithm: "sha256", Size: 64},
			"output differs from the gated instance's"},
		{drifting{goStd{}, "overrun", 2000, true}, CaseSpec{Operation: "hash", Algorithm: "sha256", Size: 64},
			"wrote past its 32-byte output"},
	} {
		c := openWith(t, tc.d, tc.spec)
		if c.Status != statusFailed || !strings.Contains(c.Reason, "check of the timed instance after sampling: ") ||
			!strings.Contains(c.Reason, tc.want) || c.timedCheck != "failed" || c.Samples != nil {
			t.Errorf("%s %s: status %s reason %q timed %q", tc.d.name, tc.spec.Algorithm, c.Status, c.Reason, c.timedCheck)
		}
	}
}

func TestInPlaceDecryptionAlternatesTagsAndPassesTheCheck(t *testing.T) {
	for _, alg := range []string{"aes-128-gcm", "aes-256-gcm"} {
		c := openWith(t, drifting{goStd{}, "honest", 1 << 62, false},
			CaseSpec{Operation: "decrypt", Algorithm: alg, Size: 1024, Inplace: true})
		if c.Status != statusOK || !c.layout.Inplace || !c.alternate || c.layout.Distance != 0 ||
			c.timedCheck != "output equals the gated instance's; canaries intact" {
			t.Errorf("%s: status %s %q layout %+v alternate %v timed %q", alg, c.Status, c.Reason, c.layout, c.alternate, c.timedCheck)
		}
	}
	c := openWith(t, drifting{goStd{}, "honest", 1 << 62, false},
		CaseSpec{Operation: "decrypt", Algorithm: "aes-128-gcm", Size: 1024, Inplace: false, AlignOffset: 7})
	if c.Status != statusOK || c.layout.Inplace || c.layout.Distance < 1024 || c.layout.InPageOffset != 7 {
		t.Errorf("out of place: %s %q %+v", c.Status, c.Reason, c.layout)
	}
}

func TestTheHeapPassReportsTheResidentPeakOfAMemoryHardKDF(t *testing.T) {
	// Argon2id with m = 32 MiB takes its memory from the Go heap: the collector's free pages go
	// back to the system before the pass, so the pass's resident peak rises by the 32 MiB again
	// even though calibration has used (and freed) the same amount before.
	c := openWith(t, drifting{goX{}, "argon", 1 << 62, false}, CaseSpec{Operation: "derive",
		Algorithm: "argon2id", Size: 16, Cost: map[string]uint64{"t": 1, "m": 32768, "p": 1}})
	if c.Status != statusOK {
		t.Fatalf("status %s: %s", c.Status, c.Reason)
	}
	h := c.Heap
	if h.RSSBeforeKB == nil || h.RSSPeakKB == nil {
		t.Fatalf("resident set not measured: %+v", h)
	}
	if rise := *h.RSSPeakKB - *h.RSSBeforeKB; rise < 28*1024 {
		t.Errorf("resident peak rose by %d KiB across the heap pass, want >= %d", rise, 28*1024)
	}
	if h.BytesPerOp < 32<<20 {
		t.Errorf("bytes_per_op %.0f, want >= 32 MiB", h.BytesPerOp)
	}
}
