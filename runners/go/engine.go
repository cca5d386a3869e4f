// The timing engine: one open case, its calibration, heap pass and samples, with the semantics of
// native/src/core/engine.cpp (docs/runners.md puts the two side by side).
package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"
	"unsafe"
)

// CaseSpec: docs/protocol.md, "Case specification".
type CaseSpec struct {
	ID             string            `json:"id"`
	Provider       string            `json:"provider"`
	Variant        string            `json:"variant"`
	Operation      string            `json:"operation"`
	Algorithm      string            `json:"algorithm"`
	Size           uint64            `json:"size"`
	Input          string            `json:"input"`
	AlignOffset    uint64            `json:"align_offset"`
	AADBytes       uint64            `json:"aad_bytes"`
	Samples        uint64            `json:"samples"`
	TargetSampleMS float64           `json:"target_sample_ms"`
	WarmupMS       float64           `json:"warmup_ms"`
	HeapIterations uint64            `json:"heap_iterations"`
	Seed           uint64            `json:"seed"`
	Cost           map[string]uint64 `json:"cost"`
	Inplace        bool              `json:"inplace"`
}

type Sample struct {
	Iterations uint64 `json:"iterations"`
	NS         uint64 `json:"ns"`
	Ticks      uint64 `json:"ticks"`
}

// Heap figures from runtime.MemStats: Mallocs, Frees and TotalAlloc count every heap allocation
// of the Go runtime (the library's and the runner's alike), so they are the native heap counter's
// equivalent. Peak live heap is not tracked by the runtime and is left out. The resident set
// across the heap pass (rss.go) is null where it is not measured.
type HeapFigures struct {
	AllocsPerOp   float64 `json:"allocs_per_op"`
	FreesPerOp    float64 `json:"frees_per_op"`
	BytesPerOp    float64 `json:"bytes_per_op"`
	PrepareAllocs uint64  `json:"prepare_allocs"`
	PrepareBytes  uint64  `json:"prepare_bytes"`
	RSSBeforeKB   *int64  `json:"rss_before_kb"`
	RSSPeakKB     *int64  `json:"rss_peak_kb"`
}

// Layout: where the measured buffers lie (protocol.md, result "layout").
type Layout struct {
	Inplace      bool   `json:"inplace"`
	Distance     uint64 `json:"distance"`
	InPageOffset uint64 `json:"in_page_offset"`
	Note         string `json:"note,omitempty"`
}

const (
	statusOK          = "ok"
	statusFailed      = "failed"
	statusUnsupported = "unsupported"
	kPage             = 4096
	kSlack            = 128
	kCanary           = 64 // bytes checked after the output
	kCanaryByte       = 0xA5
	// A sample that starts this long after the previous one ended is a new visit: it re-warms for
	// about kRewarmNS first (engine.hpp, kVisitGapNs and kRewarmNs).
	kVisitGapNS = 50000
	kRewarmNS   = 750000
)

type OpenCase struct {
	Spec          CaseSpec
	Status        string
	Reason        string
	Iterations    uint64
	CalibrationNS uint64
	Samples       []Sample
	Heap          HeapFigures
	op            Op
	in, out       []byte
	sink          byte // every output's first byte ends here: results are consumed

	// The check of the timed instance (protocol.md, step 6): the pristine input, the output a
	// fresh instance gave right after the gate, and the canaries past the output.
	input         []byte
	expected      []byte
	refLen        int
	deterministic bool
	keygen        bool
	canaryAt      int // index into out
	checked       bool
	timedCheck    string
	layout        Layout
	laidOut       bool
	// In-place AEAD decryption alternates between two texts and their tags (engine.cpp).
	alternate bool
	tagAt     int
	tags      [2][]byte
	parity    int

	rewarms       uint64
	lastSampleEnd uint64
	keyNS         float64 // key generation: the mean key of the warm-up (0 for other operations)
}

// monoNS: the monotonic clock every timing reads (a variable so that tests can step it, as the
// native engine's tests step its Clock).
var monoNS = func() uint64 { return uint64(time.Since(processStart).Nanoseconds()) }

var processStart = time.Now()

// makeInput: the case's message (engine.cpp, make_input).
func makeInput(kind string, n int, seed uint64) []byte {
	out := make([]byte, n)
	if kind == "zeros" {
		return out
	}
	NewByteStream(seed ^ 0x1234567).Fill(out)
	if kind == "text" {
		const printable = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_=\n"
		for i, b := range out {
			out[i] = printable[int(b)%len(printable)]
		}
	}
	return out
}

// pageAligned returns n zero bytes starting at a page boundary.
func pageAligned(n int) []byte {
	block := make([]byte, n+kPage)
	skip := (kPage - int(uintptr(unsafe.Pointer(&block[0]))%kPage)) % kPage
	return block[skip : skip+n]
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// openCase: a case the coordinator gated, opened with its params (docs/protocol.md, "Who gates").
func openCase(spec CaseSpec, params any) *OpenCase {
	c := &OpenCase{Spec: spec}
	err := c.open(params)
	var u *Unsupported
	switch {
	case err == nil:
		c.Status = statusOK
	case errors.As(err, &u):
		c.Status, c.Reason = statusUnsupported, err.Error()
	default:
		c.Status, c.Reason = statusFailed, err.Error()
	}
	if c.Status != statusOK {
		c.op = nil
	}
	return c
}

// resolve checks what makes a parsed case unsupported before any library work (engine.cpp).
func resolve(spec *CaseSpec) (*AlgorithmInfo, Provider, error) {
	p := providerByName(spec.Provider)
	if spec.Variant != "" && spec.Variant != currentVariant {
		return nil, nil, unsupported("this runner runs %s as variant '%s'; start one with "+
			"--variant %s=%s", spec.Provider, currentVariant, spec.Provider, spec.Variant)
	}
	spec.Variant = currentVariant
	if why := notOffered(p)[spec.Algorithm]; why != "" {
		return nil, nil, unsupported("%s", why)
	}
	return findAlgorithm(spec.Algorithm), p, nil
}

// caseInput: the case's own input: the message, or nothing for key generation and agreement.
func caseInput(spec CaseSpec, info *AlgorithmInfo) []byte {
	if spec.Operation == "keygen" || info.Kind == "key-agreement" || info.Kind == "kem" {
		return []byte{}
	}
	return makeInput(spec.Input, int(spec.Size), spec.Seed)
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

func (c *OpenCase) open(raw any) error {
	info, p, err := resolve(&c.Spec)
	if err != nil {
		return err
	}
	if _, ok := raw.(map[string]any); !ok {
		return errors.New("params: missing (the coordinator sends the case's parameters)")
	}
	params, err := parseParams(raw, "params")
	if err != nil {
		return err
	}
	publicKey := info.Kind == "kdf" || isPublicKey(info.Kind)
	plaintext := caseInput(c.Spec, info)
	size := len(plaintext)
	room := kSlack + info.TagBytes
	encrypting := params
	if publicKey {
		// Room for the largest output: an SLH-DSA signature, a KEM's ciphertext and secret.
		room, encrypting.Keypair = max(1024, info.OutputBytes+info.Ciphertext)+kSlack, params.Public
	}
	switch {
	case c.Spec.Operation == "verify": // this provider's signature of the message
		if params.Signature, err = runOne(p, info.Name, "sign", params, plaintext); err != nil {
			return err
		}
		params.Keypair = params.Public
	case (c.Spec.Operation == "encrypt" && publicKey) || c.Spec.Operation == "encaps":
		params.Keypair = params.Public
	case c.Spec.Operation == "decaps": // this provider's own ciphertext of the test key
		enc, err := p.Prepare(info.Name, "encaps", encrypting)
		if err != nil {
			return err
		}
		ct, err := enc.Run(nil, make([]byte, room))
		if err != nil {
			return err
		}
		if len(ct) != info.Ciphertext+info.OutputBytes {
			return fmt.Errorf("encapsulation gave %d bytes, expected %d", len(ct),
				info.Ciphertext+info.OutputBytes)
		}
		plaintext = append([]byte(nil), ct[:info.Ciphertext]...)
	}
	// The measured input: the plaintext, or for decryption this provider's ciphertext of it.
	input := plaintext
	inplace := c.Spec.Inplace && (info.Kind == "cipher" || info.Kind == "aead")
	if c.Spec.Operation == "decrypt" {
		enc, err := p.Prepare(info.Name, "encrypt", encrypting)
		if err != nil {
			return err
		}
		ct, err := enc.Run(plaintext, make([]byte, size+room))
		if err != nil {
			return err
		}
		input = append([]byte(nil), ct...)
		if inplace && info.Kind == "aead" {
			// Decrypting in place leaves the plaintext where the ciphertext was, and the next run
			// would fail its tag check. For CTR-based AEADs encrypting the ciphertext gives back the
			// plaintext as ciphertext, with its own tag: the runs alternate between the two texts,
			// each preceded by the tag that belongs to the text in the buffer (engine.cpp).
			again, err := enc.Run(input[:size], make([]byte, size+info.TagBytes+kSlack))
			if err == nil && len(again) == len(input) && bytes.Equal(again[:size], plaintext) {
				c.alternate, c.tagAt = true, size
				c.tags[0] = append([]byte(nil), input[size:]...)
				c.tags[1] = append([]byte(nil), again[size:]...)
			} else {
				inplace = false
				c.layout.Note = info.Name + " decryption is not an involution, so it cannot " +
					"repeat in place: measured out of place"
			}
		}
		c.expected, c.refLen, c.deterministic = plaintext, len(plaintext), true
	} else if err := c.computeReference(p, info, params, input); err != nil {
		return err
	}
	if inplace {
		// An API that cannot work in place is measured out of place, and says so.
		why := ""
		trial, err := p.Prepare(info.Name, c.Spec.Operation, params)
		if err == nil {
			buf := make([]byte, len(input)+info.TagBytes+kSlack)
			copy(buf, input)
			var r []byte
			if r, err = trial.Run(buf[:len(input)], buf); err == nil &&
				(!bytes.Equal(r, c.expected) || (len(r) > 0 && &r[0] != &buf[0])) {
				why = "gives a different output in place"
			}
		}
		if err != nil {
			why = "fails in place (" + err.Error() + ")"
		}
		if why != "" {
			inplace, c.alternate = false, false
			c.layout.Note = c.Spec.Provider + " " + c.Spec.Operation + " " + info.Name + " " + why +
				": measured out of place"
		}
	}
	c.allocateBuffers(input, room, inplace)
	return c.measureHeapAndCalibrate(p, info, params)
}

// computeReference: the output of a fresh instance on the case's input, which the timed instance
// must still give after sampling (engine.cpp, compute_reference).
func (c *OpenCase) computeReference(p Provider, info *AlgorithmInfo, params Params, input []byte) error {
	if c.Spec.Operation == "keygen" {
		c.keygen = true // nothing to compare; the canaries are still checked
		return nil
	}
	once := func() ([]byte, error) {
		fresh, err := p.Prepare(info.Name, c.Spec.Operation, params)
		if err != nil {
			return nil, err
		}
		r, err := fresh.Run(input, make([]byte, len(input)+1024+kSlack))
		return append([]byte(nil), r...), err
	}
	var err error
	if c.expected, err = once(); err != nil {
		return err
	}
	c.refLen = len(c.expected)
	if (c.Spec.Operation == "encrypt" && info.Kind == "pk-encryption") || c.Spec.Operation == "encaps" {
		return nil // randomised (OAEP, KEM encapsulation)
	}
	// Signatures are deterministic for some schemes (PKCS#1 v1.5, EdDSA) and not for others.
	c.deterministic = true
	if c.Spec.Operation == "sign" {
		again, err := once()
		if err != nil {
			return err
		}
		c.deterministic = bytes.Equal(again, c.expected)
	}
	return nil
}

// allocateBuffers lays out the input align_offset bytes past a page boundary and the output on
// it (in place) or half a page past the next page boundary after the input (engine.cpp,
// allocate_buffers), with canaries after the bytes a correct run writes.
func (c *OpenCase) allocateBuffers(input []byte, room int, inplace bool) {
	off := int(c.Spec.AlignOffset)
	n := len(input)
	c.input = input
	written := c.refLen
	if inplace && n > written {
		written = n
	}
	outCap := n + room
	if written+kCanary > outCap {
		outCap = written + kCanary
	}
	distance := 0
	if !inplace {
		distance = roundUp(off+n, kPage) + kPage/2
	}
	block := pageAligned(roundUp(off+distance+outCap, kPage))
	c.in = block[off : off+n : off+n]
	c.out = block[off+distance : off+distance+outCap]
	copy(c.in, input)
	c.canaryAt = written
	for i := 0; i < kCanary; i++ {
		c.out[written+i] = kCanaryByte
	}
	c.layout.Inplace = inplace
	c.layout.Distance = uint64(distance)
	c.layout.InPageOffset = uint64(uintptr(unsafe.Pointer(&block[0]))+uintptr(off)) % kPage
	c.laidOut = true
}

func (c *OpenCase) canariesIntact() bool {
	for _, b := range c.out[c.canaryAt : c.canaryAt+kCanary] {
		if b != kCanaryByte {
			return false
		}
	}
	return true
}

func readMem() runtime.MemStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

func (c *OpenCase) measureHeapAndCalibrate(p Provider, info *AlgorithmInfo, params Params) error {
	before := readMem()
	var err error
	if c.op, err = p.Prepare(info.Name, c.Spec.Operation, params); err != nil {
		return err
	}
	after := readMem()
	c.Heap.PrepareAllocs = after.Mallocs - before.Mallocs
	c.Heap.PrepareBytes = after.TotalAlloc - before.TotalAlloc

	t0 := monoNS()
	if c.Spec.Operation == "keygen" {
		// One key per sample (every key takes a different time: RSA's prime search); untimed keys
		// for WarmupMS first, at least one (engine.cpp). One key alone left the first samples of
		// an ML-KEM case cold.
		keys := uint64(0)
		for {
			if err := c.runOps(1); err != nil {
				return err
			}
			keys++
			if float64(monoNS()-t0) >= c.Spec.WarmupMS*1e6 {
				break
			}
		}
		c.Iterations = 1
		c.keyNS = float64(monoNS()-t0) / float64(keys)
	} else {
		c.Iterations, err = calibrate(c.runOps, c.Spec.TargetSampleMS*1e6, c.Spec.WarmupMS*1e6)
		if err != nil {
			return err
		}
	}
	c.CalibrationNS = monoNS() - t0

	heapOps := c.Spec.HeapIterations
	if c.Spec.Operation == "keygen" && heapOps > 2 {
		heapOps = 2
	}
	resident := startPeakPass()
	before = readMem()
	if err := c.runOps(heapOps); err != nil {
		return err
	}
	after = readMem()
	resident.end(&c.Heap)
	n := float64(heapOps)
	c.Heap.AllocsPerOp = float64(after.Mallocs-before.Mallocs) / n
	c.Heap.FreesPerOp = float64(after.Frees-before.Frees) / n
	c.Heap.BytesPerOp = float64(after.TotalAlloc-before.TotalAlloc) / n
	c.lastSampleEnd = monoNS()
	return nil
}

// perOpNS: what one operation takes, from calibration or, for key generation, from the warm-up's
// keys; 0 when an operation fills a sample alone and was not timed apart.
func (c *OpenCase) perOpNS() float64 {
	if c.Iterations >= 2 {
		return c.Spec.TargetSampleMS * 1e6 / float64(c.Iterations)
	}
	return c.keyNS
}

// runOps: n back-to-back operations on the case's buffers; the first byte of every output is
// folded into sink, so no result is dead.
func (c *OpenCase) runOps(n uint64) error {
	op, in, out := c.op, c.in, c.out
	var acc byte
	if c.alternate {
		tagLen := len(c.tags[0])
		whole := in[:c.tagAt+tagLen]
		for i := uint64(0); i < n; i++ {
			copy(whole[c.tagAt:], c.tags[c.parity])
			c.parity ^= 1
			r, err := op.Run(whole, out)
			if err != nil {
				return err
			}
			if len(r) > 0 {
				acc ^= r[0]
			}
		}
		c.sink ^= acc
		return nil
	}
	for i := uint64(0); i < n; i++ {
		r, err := op.Run(in, out)
		if err != nil {
			return err
		}
		if len(r) > 0 {
			acc ^= r[0]
		}
	}
	c.sink ^= acc
	return nil
}

// calibrate: warm-up for warmupNS, then the count doubles until a batch lasts a quarter of the
// target, the fastest of three timings of that count is scaled to the target (engine.cpp).
func calibrate(body func(uint64) error, targetNS, warmupNS float64) (uint64, error) {
	start := monoNS()
	for {
		if err := body(1); err != nil {
			return 0, err
		}
		if float64(monoNS()-start) >= warmupNS {
			break
		}
	}
	const maxIter = uint64(1) << 40
	timed := func(n uint64) (float64, error) {
		t0 := monoNS()
		err := body(n)
		return float64(monoNS() - t0), err
	}
	n := uint64(1)
	elapsed, err := timed(n)
	for err == nil && elapsed < targetNS/4 && n < maxIter {
		n *= 2
		elapsed, err = timed(n)
	}
	for i := 0; i < 2 && err == nil; i++ {
		var e float64
		if e, err = timed(n); err == nil {
			elapsed = math.Min(elapsed, e)
		}
	}
	if err != nil {
		return 0, err
	}
	if elapsed <= 0 {
		return n, nil
	}
	scaled := math.Round(float64(n) * targetNS / elapsed)
	return uint64(math.Max(1, math.Min(scaled, float64(maxIter)))), nil
}

func (c *OpenCase) sample() (Sample, error) {
	if c.Status != statusOK {
		return Sample{}, fmt.Errorf("sample on a case that is not ok")
	}
	if err := c.rewarmIfVisitBegan(); err != nil {
		return Sample{}, err
	}
	s := Sample{Iterations: c.Iterations}
	t0 := monoNS()
	k0 := ticks()
	err := c.runOps(c.Iterations)
	k1 := ticks()
	t1 := monoNS()
	if err != nil {
		return s, err
	}
	s.NS, s.Ticks = t1-t0, k1-k0
	c.Samples = append(c.Samples, s)
	c.lastSampleEnd = t1
	if uint64(len(c.Samples)) >= c.Spec.Samples {
		c.checkTimedInstance()
	}
	return s, nil
}

// rewarmIfVisitBegan: a sample that begins more than kVisitGapNS after the previous one ended
// (another case or process had the CPU) is preceded by about kRewarmNS of untimed operations;
// operations longer than half a sample warm themselves. Key generation (one key per sample) is
// re-warmed with untimed keys when a key is shorter than half a sample (engine.cpp).
func (c *OpenCase) rewarmIfVisitBegan() error {
	if monoNS()-c.lastSampleEnd <= kVisitGapNS {
		return nil
	}
	perOp := c.perOpNS()
	if perOp <= 0 || perOp > c.Spec.TargetSampleMS*1e6/2 {
		return nil
	}
	if err := c.runOps(uint64(math.Ceil(kRewarmNS / perOp))); err != nil {
		return err
	}
	c.rewarms++
	return nil
}

// checkTimedInstance (protocol.md, step 6): once the case has its samples, and at the latest at
// close, the canaries are intact, out of place the input is unchanged, and one more run of the
// timed operation in the timed buffers gives the output a fresh instance gave after the gate.
func (c *OpenCase) checkTimedInstance() {
	if c.checked || c.Status != statusOK {
		return
	}
	c.checked = true
	why := ""
	switch {
	case !c.canariesIntact():
		why = fmt.Sprintf("the timed operation wrote past its %d-byte output", c.refLen)
	case !c.layout.Inplace && !bytes.Equal(c.in, c.input):
		why = "the timed operation changed its input buffer"
	case c.keygen:
		// Key generation writes nothing to the buffers: the canaries are its whole check.
	default:
		copy(c.in, c.input) // in place, the buffer holds a later text
		c.parity = 0
		run := c.in
		if c.alternate {
			run = c.in[:c.tagAt+len(c.tags[0])]
			copy(run[c.tagAt:], c.tags[0])
			c.parity = 1
		}
		r, err := c.op.Run(run, c.out)
		switch {
		case err != nil:
			why = "the timed instance failed on the case's input: " + err.Error()
		case !c.canariesIntact():
			why = fmt.Sprintf("the timed operation wrote past its %d-byte output", c.refLen)
		case c.deterministic && len(r) != len(c.expected):
			why = fmt.Sprintf("the timed instance returned %d bytes, the gated one %d", len(r), len(c.expected))
		case c.deterministic && !bytes.Equal(r, c.expected):
			at := 0
			for at < len(r) && r[at] == c.expected[at] {
				at++
			}
			why = fmt.Sprintf("the timed instance's output differs from the gated instance's (byte %d)", at)
		}
	}
	if why != "" {
		c.fail("check of the timed instance after sampling: " + why)
		c.timedCheck = "failed"
		return
	}
	c.timedCheck = "canaries intact (randomised output: not compared)"
	if c.deterministic {
		c.timedCheck = "output equals the gated instance's; canaries intact"
	}
	if !c.keygen {
		// More samples may be asked for (adaptive sampling): the buffer goes back to the state
		// sampling starts from.
		copy(c.in, c.input)
		c.parity = 0
	}
}

func (c *OpenCase) fail(reason string) {
	if c.Status == statusFailed && c.Reason != "" {
		return // the first reason is the one to report
	}
	c.Status, c.Reason = statusFailed, reason
	c.Samples = nil
	c.op = nil
}

// median of v, for the fidelity bench (the coordinator summarises a case's samples: stats.py).
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

// ByteStream: splitmix64, byte for byte the native ByteStream (hexutil.cpp).
type ByteStream struct{ state uint64 }

func NewByteStream(seed uint64) *ByteStream { return &ByteStream{seed} }

func (b *ByteStream) Next() uint64 {
	b.state += 0x9e3779b97f4a7c15
	z := b.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (b *ByteStream) Fill(out []byte) {
	for i := 0; i < len(out); {
		v := b.Next()
		for k := 0; k < 8 && i < len(out); k, i = k+1, i+1 {
			out[i] = byte(v >> (8 * k))
		}
	}
}

func (b *ByteStream) Bytes(n int) []byte {
	out := make([]byte, n)
	b.Fill(out)
	return out
}
