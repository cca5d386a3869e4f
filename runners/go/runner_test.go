package main

import (
	"bytes"
	"crypto/rsa"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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

// steps runs what the coordinator asks on the prepared operations and reports every output,
// refusal and unsupported step as it was; a later request carries an earlier output as hex (the
// coordinator resolves references).
func TestStepsReportOutputsRefusalsAndUnsupported(t *testing.T) {
	key, iv, pt := make([]byte, 32), make([]byte, 12), []byte("sixteen byte msg")
	sym := map[string]any{"key": hex.EncodeToString(key), "iv": hex.EncodeToString(iv)}
	steps := func(s ...any) []msg {
		results, err := runSteps(goStd{}, "aes-256-gcm", s, []byte("the case's input"))
		if err != nil {
			t.Fatal(err)
		}
		return results
	}
	run := func(r []msg, i, j int) msg { return r[i]["runs"].([]msg)[j] }
	first := steps(
		map[string]any{"op": "encrypt", "params": sym, "inputs": []any{hex.EncodeToString(pt), map[string]any{"case_input": true}}},
		map[string]any{"op": "derive", "algorithm": "x448", "inputs": []any{""}},
		map[string]any{"op": "keygen", "algorithm": "ed25519", "inputs": []any{""}})
	ct, _ := hex.DecodeString(run(first, 0, 0)["out"].(string))
	whole, _ := hex.DecodeString(run(first, 0, 1)["out"].(string))
	bad := append([]byte{}, ct...)
	bad[len(bad)-1] ^= 1
	k := run(first, 2, 0)["key"].(map[string]string)
	second := steps(
		map[string]any{"op": "decrypt", "params": sym, "inputs": []any{hex.EncodeToString(ct), hex.EncodeToString(bad)}},
		map[string]any{"op": "sign", "algorithm": "ed25519", "params": map[string]any{"keypair": map[string]any{"priv": k["priv"], "pub": k["pub"]}}, "inputs": []any{"00"}})
	third := steps(map[string]any{"op": "verify", "algorithm": "ed25519", "inputs": []any{"00"},
		"params": map[string]any{"keypair": map[string]any{"pub": k["pub"]}, "signature": run(second, 1, 0)["out"]}})
	if len(ct) != len(pt)+16 || len(whole) != len("the case's input")+16 || run(second, 0, 0)["out"] != hex.EncodeToString(pt) {
		t.Errorf("encrypt/decrypt: %v %v", first[0], second[0])
	}
	if _, refused := run(second, 0, 1)["error"]; !refused {
		t.Errorf("a flipped tag was not refused: %v", run(second, 0, 1))
	}
	if _, ok := first[1]["unsupported"]; !ok {
		t.Errorf("x448 is not offered by go: %v", first[1])
	}
	if run(third, 0, 0)["out"] != "" {
		t.Errorf("a generated key did not sign and verify: %v %v %v", first[2], second[1], third[0])
	}
}

func TestWhatIsOfferedIsProbedThroughTheAdapter(t *testing.T) {
	missing := notOffered(goStd{})
	if missing["aes-256-gcm"] != "" || missing["rsa-2048"] != "" || missing["x448"] == "" {
		t.Errorf("probe: aes-256-gcm %q, rsa-2048 %q, x448 %q", missing["aes-256-gcm"], missing["rsa-2048"], missing["x448"])
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
	return openWithParams(t, p, spec, nil)
}

// openWithParams: openWith with the params the coordinator sends in open (nil: a symmetric key
// and IV from the case's seed).
func openWithParams(t *testing.T, p Provider, spec CaseSpec, params msg) *OpenCase {
	t.Helper()
	saved := providers
	providers = append(append([]Provider{}, providers...), p)
	defer func() { providers = saved }()
	spec.ID, spec.Provider, spec.Input, spec.Seed = "t", p.Name(), "random", 1
	spec.Samples, spec.TargetSampleMS, spec.WarmupMS, spec.HeapIterations = 3, 0.2, 1, 2
	if params == nil {
		params = symmetricParams(findAlgorithm(spec.Algorithm), spec.Seed)
	}
	c := openCase(spec, params)
	for c.Status == statusOK && uint64(len(c.Samples)) < spec.Samples {
		if _, err := c.sample(); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestTheTimedInstanceIsCheckedAfterSampling(t *testing.T) {
	// The gate (the coordinator's steps) and the reference use their own instances: a prepared
	// operation that goes wrong only after thousands of runs must fail the check of the timed
	// instance.
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
	// The coordinator opens a KDF case with its salt, output length and cost (docs/protocol.md).
	kdf := msg{"salt": "000102030405060708090a0b0c0d0e0f", "out_len": json.Number("32"),
		"cost": map[string]any{"t": json.Number("1"), "m": json.Number("32768"), "p": json.Number("1")}}
	c := openWithParams(t, drifting{goX{}, "argon", 1 << 62, false}, CaseSpec{Operation: "derive",
		Algorithm: "argon2id", Size: 16, Cost: map[string]uint64{"t": 1, "m": 32768, "p": 1}}, kdf)
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

func TestPostQuantumKeyGenerationDoesTheWork(t *testing.T) {
	// The timed keygen is the prepared operation, which writes nothing the check of the timed
	// instance could compare: each one must generate a fresh key (it allocates its parts).
	for _, p := range []Provider{goStd{}, circl{}} {
		for _, alg := range []string{"ml-kem-768", "x25519mlkem768", "ml-dsa-65", "slh-dsa-sha2-128f"} {
			op, err := p.Prepare(alg, "keygen", Params{})
			var u *Unsupported
			if errors.As(err, &u) {
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", p.Name(), alg, err)
			}
			if n := testing.AllocsPerRun(2, func() { _, _ = op.Run(nil, nil) }); n < 2 {
				t.Errorf("%s %s keygen made %.0f allocations: it generates no key", p.Name(), alg, n)
			}
		}
	}
}

func TestAKEMCaseMeasuresDecapsulationOfItsOwnCiphertext(t *testing.T) {
	raw, err := os.ReadFile("../../vectors/keys.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Keys map[string]map[string]string }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	keys := doc.Keys
	key := msg{}
	for k, v := range keys["ml-kem-768"] {
		key[k] = v
	}
	params := msg{"keypair": key, "public": msg{"pub": keys["ml-kem-768"]["pub"]}}
	for _, p := range []Provider{goStd{}, circl{}} {
		c := openWithParams(t, p, CaseSpec{Operation: "decaps", Algorithm: "ml-kem-768"}, params)
		if c.Status != statusOK || len(c.input) != 1088 || len(c.expected) != 32 || !c.deterministic {
			t.Errorf("%s: %s %q input %d expected %d", p.Name(), c.Status, c.Reason, len(c.input),
				len(c.expected))
		}
	}
}

// steppingClock makes every read of monoNS advance 1 µs, as the native engine's tests step their
// Clock; it returns the clock's time so a test can let time pass.
func steppingClock(t *testing.T) *uint64 {
	t.Helper()
	saved := monoNS
	now := uint64(1) << 30
	monoNS = func() uint64 {
		now += 1000
		return now
	}
	t.Cleanup(func() { monoNS = saved })
	return &now
}

// countingKeys wraps a real provider and counts the keys its prepared keygen makes.
type countingKeys struct {
	Provider
	keys *int
}

func (c countingKeys) Name() string { return "counting-keys" }

func (c countingKeys) Prepare(alg, op string, p Params) (Op, error) {
	inner, err := c.Provider.Prepare(alg, op, p)
	if err != nil || op != "keygen" {
		return inner, err
	}
	return OpFunc(func(in, out []byte) ([]byte, error) {
		*c.keys++
		return inner.Run(in, out)
	}), nil
}

// openKeygen opens an ML-KEM-768 keygen case of `go` behind countingKeys; no sample is taken.
func openKeygen(t *testing.T, keys *int, targetMS, warmupMS float64) *OpenCase {
	t.Helper()
	p := countingKeys{goStd{}, keys}
	saved := providers
	providers = append(append([]Provider{}, providers...), p)
	t.Cleanup(func() { providers = saved })
	spec := CaseSpec{ID: "t", Provider: p.Name(), Operation: "keygen", Algorithm: "ml-kem-768",
		Input: "random", Seed: 1, Samples: 11, TargetSampleMS: targetMS, WarmupMS: warmupMS,
		HeapIterations: 2}
	c := openCase(spec, msg{})
	if c.Status != statusOK {
		t.Fatalf("status %s: %s", c.Status, c.Reason)
	}
	return c
}

func TestKeyGenerationWarmsUpAndIsReWarmedPerVisit(t *testing.T) {
	// engine.cpp's rules: untimed keys for warmup_ms, not one key; and a sample request that
	// follows a gap (another case or process had the CPU) begins with about 0.75 ms of untimed
	// keys when a key is shorter than half a sample. Every clock read here advances 1 µs, so a key
	// of the warm-up takes about 1 µs and a sample 50 µs.
	now := steppingClock(t)
	keys := 0
	c := openKeygen(t, &keys, 0.05, 0.02)
	if keys < 15 || c.keyNS <= 0 {
		t.Fatalf("open made %d keys (key %.0f ns): the warm-up is 20 us of keys, not one", keys, c.keyNS)
	}
	before := keys
	if _, err := c.sample(); err != nil {
		t.Fatal(err)
	}
	if c.rewarms != 0 || keys != before+1 {
		t.Errorf("the first sample follows the warm-up: %d re-warms, %d keys", c.rewarms, keys-before)
	}
	*now += 10_000_000 // another case or process had the CPU for 10 ms
	before = keys
	if _, err := c.sample(); err != nil {
		t.Fatal(err)
	}
	if c.rewarms != 1 || keys-before < 500 {
		t.Errorf("a new visit: %d re-warms, %d keys (want 1 and about 0.75 ms of 1-us keys)",
			c.rewarms, keys-before)
	}
}

// A refused decryption returns one value made once per library error (no formatting inside a
// timed call), with the library's message; past the bound, a fresh value each time.
func TestARefusalIsMadeOncePerLibraryError(t *testing.T) {
	a, b := refused(rsa.ErrDecryption), refused(rsa.ErrDecryption)
	if a != b || a.Error() != rsa.ErrDecryption.Error() {
		t.Fatalf("refused(ErrDecryption) gave %p %q and %p", a, a, b)
	}
	if _, ok := a.(*rejected); !ok {
		t.Fatalf("refused gave %T, not a refusal", a)
	}
	for i := 0; i < 40; i++ {
		refused(fmt.Errorf("new error %d", i))
	}
	if n := refusalCount.Load(); n > 16 {
		t.Fatalf("%d errors kept, more than the bound", n)
	}
	if x := fmt.Errorf("one more"); refused(x) == refused(x) {
		t.Fatal("an error past the bound was kept")
	}
}
