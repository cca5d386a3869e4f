// Command cryptobench-mlkembench is Go's own harness, testing.B, timing crypto/mlkem directly:
// ML-KEM-768 and ML-KEM-1024 key generation, encapsulation and decapsulation, as Go's
// crypto/mlkem benchmarks do. The PQ fidelity check (python/cryptobench/pq_fidelity.py, make
// bench-fidelity-pq) runs it alternately with the go provider's cases and compares the medians.
//
//	cryptobench-mlkembench [-benchtime 20ms] [-rounds 11] [-param 768|1024]
//
// prints one JSON object: {"keygen": ns/op, "encaps": ns/op, "decaps": ns/op, "param": "768"},
// each the median over -rounds runs of testing.B of -benchtime each: the shape of cryptobench's
// own figure (the median of 11 samples of about 20 ms), so preemption on a shared machine, which
// inflates a single long mean, weighs the same on both sides.
package main

import (
	"crypto/mlkem"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"testing"
)

var (
	sink   byte
	rounds int
)

func main() {
	testing.Init()
	benchtime := flag.String("benchtime", "20ms", "testing.B's -test.benchtime, per round")
	flag.IntVar(&rounds, "rounds", 11, "testing.B runs per operation; the median is reported")
	param := flag.String("param", "768", "768 or 1024")
	flag.Parse()
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		fmt.Fprintln(os.Stderr, "cryptobench-mlkembench:", err)
		os.Exit(2)
	}
	var res map[string]float64
	switch *param {
	case "768":
		res = bench(mlkem.GenerateKey768, func(dk *mlkem.DecapsulationKey768) encapsulator {
			return dk.EncapsulationKey()
		})
	case "1024":
		res = bench(mlkem.GenerateKey1024, func(dk *mlkem.DecapsulationKey1024) encapsulator {
			return dk.EncapsulationKey()
		})
	default:
		fmt.Fprintln(os.Stderr, "cryptobench-mlkembench: -param must be 768 or 1024")
		os.Exit(2)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"param": *param, "keygen": res["keygen"], "encaps": res["encaps"], "decaps": res["decaps"],
	})
}

type encapsulator interface{ Encapsulate() ([]byte, []byte) }

type decapsulator interface {
	Decapsulate([]byte) ([]byte, error)
}

func nsPerOp(f func(b *testing.B)) float64 {
	per := make([]float64, 0, rounds)
	for i := 0; i < max(1, rounds); i++ {
		r := testing.Benchmark(f)
		per = append(per, float64(r.T.Nanoseconds())/float64(r.N))
	}
	sort.Float64s(per)
	return per[len(per)/2]
}

func bench[DK decapsulator](gen func() (DK, error), ek func(DK) encapsulator) map[string]float64 {
	dk, err := gen()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cryptobench-mlkembench:", err)
		os.Exit(1)
	}
	pub := ek(dk)
	_, ct := pub.Encapsulate()
	return map[string]float64{
		"keygen": nsPerOp(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				k, err := gen()
				if err != nil {
					b.Fatal(err)
				}
				sink ^= byte(len(ek(k).(interface{ Bytes() []byte }).Bytes()))
			}
		}),
		"encaps": nsPerOp(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				key, c := pub.Encapsulate()
				sink ^= key[0] ^ c[0]
			}
		}),
		"decaps": nsPerOp(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				key, err := dk.Decapsulate(ct)
				if err != nil {
					b.Fatal(err)
				}
				sink ^= key[0]
			}
		}),
	}
}
