// The runtime facts of this runner: its Go, its TSC rate and the code path under its providers.
package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"golang.org/x/sys/cpu"
)

var tscHzCache float64

// tscHz: TSC ticks per second over a 50 ms window against CLOCK_MONOTONIC (machine.cpp).
func tscHz() float64 {
	if tscHzCache == 0 && ticks() != 0 {
		t0, k0 := monoNS(), ticks()
		time.Sleep(50 * time.Millisecond)
		t1, k1 := monoNS(), ticks()
		tscHzCache = float64(k1-k0) * 1e9 / float64(t1-t0)
	}
	return tscHzCache
}

// machineRecord: what only this process knows, its runtime and its clock; the machine itself
// (CPU, kernel, OS) is the native runner's record (docs/protocol.md, "capabilities").
func machineRecord() msg {
	m := msg{"compiler": runtime.Version(), "go_version": runtime.Version(),
		"tsc_note": "TSC ticks count reference cycles at a constant rate, not core clock cycles"}
	if hz := tscHz(); hz > 0 {
		m["tsc_hz"] = math.Round(hz)
	} else {
		m["tsc_hz"] = nil
		m["tsc_note"] = "no TSC read on " + runtime.GOARCH + ": ticks are 0"
	}
	return m
}

// goCodePath: what decides Go's code paths: the CPU features its assembly checks (AES-NI and
// PCLMULQDQ for AES-GCM, AVX2 for ChaCha20 and BLAKE2b), the GOAMD64 level
// the binary was built for, and GODEBUG.
func goCodePath() map[string]string {
	yes := map[bool]string{true: "yes", false: "no"}
	out := map[string]string{
		"goarch": runtime.GOARCH,
		"aes":    yes[cpu.X86.HasAES], "pclmulqdq": yes[cpu.X86.HasPCLMULQDQ],
		"avx2": yes[cpu.X86.HasAVX2], "godebug": os.Getenv("GODEBUG"),
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOAMD64" {
				out["goamd64"] = s.Value
			}
		}
	}
	return out
}
