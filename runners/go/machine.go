// The machine record and the runtime facts of this runner (machine.cpp's fields plus go_version).
package main

import (
	"bufio"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/cpu"
)

func cpuinfoField(key string) string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func osName() string {
	data, _ := os.ReadFile("/etc/os-release")
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return "unknown"
}

func utsString(a [65]int8) string {
	var b []byte
	for _, c := range a {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

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

func machineRecord() msg {
	flags := strings.Fields(cpuinfoField("flags"))
	var u syscall.Utsname
	_ = syscall.Uname(&u)
	m := msg{
		"cpu_model": cpuinfoField("model name"), "cpu_flags": flags, "cores": runtime.NumCPU(),
		"kernel":   utsString(u.Sysname) + " " + utsString(u.Release) + " " + utsString(u.Machine),
		"hostname": utsString(u.Nodename), "os": osName(), "compiler": runtime.Version(),
		"go_version": runtime.Version(), "tsc_invariant": contains(flags, "constant_tsc") && contains(flags, "nonstop_tsc"),
		"tsc_note": "TSC ticks count reference cycles at a constant rate, not core clock cycles",
		"governor": nil,
	}
	if hz := tscHz(); hz > 0 {
		m["tsc_hz"] = math.Round(hz)
	} else {
		m["tsc_hz"] = nil
		m["tsc_note"] = "no TSC read on " + runtime.GOARCH + ": ticks are 0"
	}
	if g, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		m["governor"] = strings.TrimSpace(string(g))
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
