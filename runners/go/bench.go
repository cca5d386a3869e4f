// The fidelity bench: reference cases measured by this runner's engine and by Go's own harness,
// testing.B (the loop of `go test -bench`), on the same prepared operation and buffers. The two
// alternate so drift on a shared machine hits both; one JSON line per case carries both rounds'
// figures, and the coordinator's summary (python/cryptobench/runner_fidelity.py) the ratio.
package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"testing"
)

var benchCases = []CaseSpec{
	{ID: "gcm", Provider: "go", Operation: "encrypt", Algorithm: "aes-256-gcm", Size: 16384},
	{ID: "sha256", Provider: "go", Operation: "hash", Algorithm: "sha256", Size: 1024},
	{ID: "chacha", Provider: "go-x", Operation: "encrypt", Algorithm: "chacha20-poly1305", Size: 16384},
}

// symmetricParams: what the coordinator sends a symmetric case: key and IV from ByteStream(seed).
func symmetricParams(info *AlgorithmInfo, seed uint64) msg {
	s := NewByteStream(seed)
	return msg{"key": hex.EncodeToString(s.Bytes(info.KeyBytes)), "iv": hex.EncodeToString(s.Bytes(info.IVBytes))}
}

// Rounds of about 0.25 s for each harness: the engine's 11 samples of 25 ms, testing.B with
// -test.benchtime 250ms, so both see the same stretch of machine noise.
const benchRounds = 9

func commandBench(out io.Writer) int {
	testing.Init()
	if err := flag.Set("test.benchtime", "250ms"); err != nil {
		emit(out, errorMessage(err.Error()))
		return 1
	}
	for _, spec := range benchCases {
		spec.Input, spec.Samples, spec.TargetSampleMS, spec.WarmupMS = "random", 11, 25, 200
		spec.HeapIterations, spec.Seed = 1, 1
		c := openCase(spec, symmetricParams(findAlgorithm(spec.Algorithm), spec.Seed))
		if c.Status != statusOK {
			emit(out, errorMessage(fmt.Sprintf("%s: %s %s", spec.ID, c.Status, c.Reason)))
			return 1
		}
		var engine, harness []float64
		for round := 0; round < benchRounds; round++ {
			c.Samples = nil
			for i := 0; i < 11; i++ {
				if _, err := c.sample(); err != nil {
					emit(out, errorMessage(fmt.Sprintf("%s: %v", spec.ID, err)))
					return 1
				}
			}
			var perOp []float64
			for _, x := range c.Samples {
				perOp = append(perOp, float64(x.NS)/float64(x.Iterations))
			}
			engine = append(engine, median(perOp))
			r := testing.Benchmark(func(b *testing.B) {
				b.SetBytes(int64(spec.Size))
				var acc byte
				for i := 0; i < b.N; i++ {
					res, err := c.op.Run(c.in, c.out)
					if err != nil {
						b.Fatal(err)
					}
					acc ^= res[0]
				}
				c.sink ^= acc
			})
			harness = append(harness, float64(r.T.Nanoseconds())/float64(r.N))
		}
		label := fmt.Sprintf("%s %s %s %d", spec.Provider, spec.Operation, spec.Algorithm, spec.Size)
		emit(out, msg{"type": "fidelity", "case": label, "harness": "testing.B", "engine_ns": engine, "harness_ns": harness})
	}
	return 0
}
