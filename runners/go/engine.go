// The timing engine: one open case, its calibration, heap pass and samples, with the semantics of
// native/src/core/engine.cpp (docs/runners.md puts the two side by side).
package main

import (
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
	Batch          uint64            `json:"batch"`
	TargetSampleMS float64           `json:"target_sample_ms"`
	WarmupMS       float64           `json:"warmup_ms"`
	HeapIterations uint64            `json:"heap_iterations"`
	Seed           uint64            `json:"seed"`
	Agreement      bool              `json:"agreement"`
	Cost           map[string]uint64 `json:"cost"`
}

type Sample struct {
	Iterations uint64 `json:"iterations"`
	NS         uint64 `json:"ns"`
	Ticks      uint64 `json:"ticks"`
}

type GateReport struct {
	OK        bool
	Reason    string
	KAT       string
	Roundtrip string
	Agreement string
	Lax       string
}

// Heap figures from runtime.MemStats: Mallocs, Frees and TotalAlloc count every heap allocation
// of the Go runtime (the library's and the runner's alike), so they are the native heap counter's
// equivalent. Peak live heap is not tracked by the runtime and is left out.
type HeapFigures struct {
	AllocsPerOp   float64 `json:"allocs_per_op"`
	FreesPerOp    float64 `json:"frees_per_op"`
	BytesPerOp    float64 `json:"bytes_per_op"`
	PrepareAllocs uint64  `json:"prepare_allocs"`
	PrepareBytes  uint64  `json:"prepare_bytes"`
}

const (
	statusOK          = "ok"
	statusFailed      = "failed"
	statusUnsupported = "unsupported"
	kAlign            = 64
	kSlack            = 128
)

type OpenCase struct {
	Spec          CaseSpec
	Status        string
	Reason        string
	Gate          GateReport
	Iterations    uint64
	CalibrationNS uint64
	Samples       []Sample
	Heap          HeapFigures
	op            Op
	in, out       []byte
	sink          byte // every output's first byte ends here: results are consumed
}

func monoNS() uint64 { return uint64(time.Since(processStart).Nanoseconds()) }

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

// alignedBuffer returns n bytes starting offset bytes past a 64-byte boundary.
func alignedBuffer(n int, offset int) []byte {
	block := make([]byte, n+offset+kAlign)
	skip := (kAlign - int(uintptr(unsafe.Pointer(&block[0]))%kAlign)) % kAlign
	return block[skip+offset : skip+offset+n]
}

func openCase(spec CaseSpec) *OpenCase {
	c := &OpenCase{Spec: spec}
	err := c.open()
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

// resolve checks what makes a case unsupported before any library work (engine.cpp, open()).
func resolve(spec *CaseSpec) (*AlgorithmInfo, Provider, error) {
	info := findAlgorithm(spec.Algorithm)
	if info == nil {
		return nil, nil, unsupported("unknown algorithm %s", spec.Algorithm)
	}
	if !info.hasOp(spec.Operation) {
		return nil, nil, unsupported("%s does not apply to %s", spec.Operation, spec.Algorithm)
	}
	p := providerByName(spec.Provider)
	if p == nil {
		return nil, nil, unsupported("unknown provider %s", spec.Provider)
	}
	if spec.Variant != "" && spec.Variant != "default" {
		return nil, nil, unsupported("this runner runs %s as variant 'default'; start one with "+
			"--variant %s=%s", spec.Provider, spec.Provider, spec.Variant)
	}
	spec.Variant = "default"
	if !offers(p, spec.Algorithm) {
		return nil, nil, unsupported("%s does not offer %s", spec.Provider, spec.Algorithm)
	}
	return info, p, nil
}

func (c *OpenCase) open() error {
	info, p, err := resolve(&c.Spec)
	if err != nil {
		return err
	}
	if info.Kind == "kdf" || isPublicKey(info.Kind) {
		return c.openPublicKey(p, info)
	}
	size := int(c.Spec.Size)
	if size < info.MinSize || size%info.BlockBytes != 0 {
		return unsupported("%s needs messages of at least %d bytes in multiples of %d",
			info.Name, info.MinSize, info.BlockBytes)
	}
	if len(c.Spec.Cost) > 0 {
		return unsupported("%s takes no cost parameters", info.Name)
	}
	stream := NewByteStream(c.Spec.Seed)
	params := Params{Key: stream.Bytes(info.KeyBytes), IV: stream.Bytes(info.IVBytes)}
	if info.Kind == "aead" {
		params.AAD = stream.Bytes(int(c.Spec.AADBytes))
	}
	plaintext := makeInput(c.Spec.Input, size, c.Spec.Seed)
	if c.Gate, err = runGate(p, info, c.Spec.Operation, plaintext, params); err != nil {
		return err
	}
	if !c.Gate.OK {
		return errors.New(c.Gate.Reason)
	}
	input := plaintext
	if c.Spec.Operation == "decrypt" {
		enc, err := p.Prepare(info.Name, "encrypt", params)
		if err != nil {
			return err
		}
		ct, err := enc.Run(plaintext, make([]byte, size+info.TagBytes+kSlack))
		if err != nil {
			return err
		}
		input = append([]byte(nil), ct...)
	}
	c.allocateBuffers(input, kSlack)
	return c.measureHeapAndCalibrate(p, info, params)
}

func (c *OpenCase) allocateBuffers(input []byte, room int) {
	off := int(c.Spec.AlignOffset)
	c.in = alignedBuffer(len(input), off)
	copy(c.in, input)
	c.out = alignedBuffer(len(input)+room, off)
}

func readMem() runtime.MemStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

func (c *OpenCase) measureHeapAndCalibrate(p Provider, info *AlgorithmInfo, params Params) error {
	before := readMem()
	var err error
	if c.Spec.Operation == "keygen" {
		alg := info.Name
		c.op = OpFunc(func(in, out []byte) ([]byte, error) {
			_, err := p.GenerateKey(alg)
			return nil, err
		})
	} else if c.op, err = p.Prepare(info.Name, c.Spec.Operation, params); err != nil {
		return err
	}
	after := readMem()
	c.Heap.PrepareAllocs = after.Mallocs - before.Mallocs
	c.Heap.PrepareBytes = after.TotalAlloc - before.TotalAlloc

	t0 := monoNS()
	if c.Spec.Operation == "keygen" {
		// One key per sample (every key takes a different time); one untimed key first.
		if err := c.runOps(1); err != nil {
			return err
		}
		c.Iterations = 1
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
	before = readMem()
	if err := c.runOps(heapOps); err != nil {
		return err
	}
	after = readMem()
	n := float64(heapOps)
	c.Heap.AllocsPerOp = float64(after.Mallocs-before.Mallocs) / n
	c.Heap.FreesPerOp = float64(after.Frees-before.Frees) / n
	c.Heap.BytesPerOp = float64(after.TotalAlloc-before.TotalAlloc) / n
	return nil
}

// runOps: n back-to-back operations on the case's buffers; the first byte of every output is
// folded into sink, so no result is dead.
func (c *OpenCase) runOps(n uint64) error {
	op, in, out := c.op, c.in, c.out
	var acc byte
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
	return s, nil
}

func (c *OpenCase) fail(reason string) {
	c.Status, c.Reason = statusFailed, reason
	c.Samples = nil
	c.op = nil
}

// Summary: stats.cpp, summarise (linear-interpolation quantiles, MAD around the median).
type Summary struct {
	N            int     `json:"n"`
	MedianNS     float64 `json:"median_ns"`
	Q1NS         float64 `json:"q1_ns"`
	Q3NS         float64 `json:"q3_ns"`
	MinNS        float64 `json:"min_ns"`
	MaxNS        float64 `json:"max_ns"`
	MadNS        float64 `json:"mad_ns"`
	BytesPerS    float64 `json:"bytes_per_s"`
	OpsPerS      float64 `json:"ops_per_s"`
	MedianTicks  float64 `json:"median_ticks"`
	TicksPerByte float64 `json:"ticks_per_byte"`
}

func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := lo + 1
	if hi > len(sorted)-1 {
		hi = len(sorted) - 1
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return quantile(s, 0.5)
}

func summarise(samples []Sample, bytesPerOp uint64) Summary {
	s := Summary{N: len(samples)}
	if len(samples) == 0 {
		return s
	}
	var ns, tk []float64
	for _, x := range samples {
		ns = append(ns, float64(x.NS)/float64(x.Iterations))
		tk = append(tk, float64(x.Ticks)/float64(x.Iterations))
	}
	sort.Float64s(ns)
	s.MedianNS, s.Q1NS, s.Q3NS = quantile(ns, 0.5), quantile(ns, 0.25), quantile(ns, 0.75)
	s.MinNS, s.MaxNS = ns[0], ns[len(ns)-1]
	dev := make([]float64, len(ns))
	for i, v := range ns {
		dev[i] = math.Abs(v - s.MedianNS)
	}
	s.MadNS = median(dev)
	if s.MedianNS > 0 {
		s.OpsPerS = 1e9 / s.MedianNS
		s.BytesPerS = float64(bytesPerOp) * s.OpsPerS
	}
	s.MedianTicks = median(tk)
	if bytesPerOp > 0 {
		s.TicksPerByte = s.MedianTicks / float64(bytesPerOp)
	}
	return s
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
