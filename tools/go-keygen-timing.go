//go:build ignore

// go-keygen-timing: Go's crypto/mlkem ML-KEM-768 key generation timed one key per sample, as the
// Go runner times key generation (runners/go/engine.go), in the states the runner's samples can
// meet, so the PQ fidelity ratio (docs/post-quantum.md, "Fidelity") can be split into them:
//
//	steady  after 20 ms of keys, as testing.B sees them;
//	freed   right after debug.FreeOSMemory(), which the runner's heap pass calls before the
//	        samples (rss.go): the collector's free pages went back to the kernel;
//	settled freed, then 20 ms of untimed keys and one collection (runtime.GC);
//	cold    each sample after 2 ms asleep, no warm-up (a new visit without a re-warm).
//
// Each line: state, median ns of 11 one-key samples, minor page faults per key.
// Build and run pinned (the Go runner's toolchain: runners/go/build/go-path):
//
//	go build -o /tmp/go-keygen-timing tools/go-keygen-timing.go
//	taskset -c 1 /tmp/go-keygen-timing [ROUNDS]
package main

import (
	"crypto/mlkem"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"syscall"
	"time"
)

var sink byte

// key: one key as the runner's `go` provider makes it (prov_pq.go, goMLKEMKey): the key, and its
// seed and public key as bytes.
func key() {
	dk, err := mlkem.GenerateKey768()
	if err != nil {
		panic(err)
	}
	sink ^= dk.Bytes()[0] ^ dk.EncapsulationKey().Bytes()[0]
}

func minorFaults() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Minflt
}

func warm(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
		key()
	}
}

// samples: the median ns of 11 one-key samples and the minor faults per key; nap before each.
func samples(nap time.Duration) (float64, float64) {
	per := make([]float64, 11)
	f0 := minorFaults()
	for i := range per {
		if nap > 0 {
			time.Sleep(nap)
		}
		t0 := time.Now()
		key()
		per[i] = float64(time.Since(t0).Nanoseconds())
	}
	faults := float64(minorFaults()-f0) / float64(len(per))
	sort.Float64s(per)
	return per[len(per)/2], faults
}

func main() {
	rounds := 5
	if len(os.Args) > 1 {
		if n, err := strconv.Atoi(os.Args[1]); err == nil && n > 0 {
			rounds = n
		}
	}
	warm(100 * time.Millisecond)
	for r := 0; r < rounds; r++ {
		warm(20 * time.Millisecond)
		ns, f := samples(0)
		fmt.Printf("steady %.0f %.2f\n", ns, f)
		debug.FreeOSMemory()
		ns, f = samples(0)
		fmt.Printf("freed %.0f %.2f\n", ns, f)
		debug.FreeOSMemory()
		warm(20 * time.Millisecond)
		runtime.GC()
		ns, f = samples(0)
		fmt.Printf("settled %.0f %.2f\n", ns, f)
		ns, f = samples(2 * time.Millisecond)
		fmt.Printf("cold %.0f %.2f\n", ns, f)
	}
}
