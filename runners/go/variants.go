package main

// Variants: the Go runtime chooses its assembly (AES-NI, PCLMULQDQ, AVX2, SHA-NI, …) from the CPU
// features internal/cpu detects at start-up, and GODEBUG=cpu.<feature>=off hides a feature from
// it. Both providers of this runner share one runtime, so a variant is a property of the process:
// selecting one re-executes the runner with GODEBUG set before the runtime starts, as the native
// runner does for its library switches.

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// currentVariant: the variant this process runs (set by main before any command).
var currentVariant = "default"

type variant struct {
	name, description, godebug string
}

var variants = []variant{
	{"default", "the library as built, every CPU feature the runtime detects", ""},
	{"soft", "every CPU feature hidden from the Go runtime (portable Go code paths)", "cpu.all=off"},
	{"noaesni", "AES-NI and PCLMULQDQ hidden from the Go runtime; other features kept",
		"cpu.aes=off,cpu.pclmulqdq=off"},
}

func findVariant(name string) *variant {
	for i := range variants {
		if variants[i].name == name {
			return &variants[i]
		}
	}
	return nil
}

func variantNames() string {
	var names []string
	for _, v := range variants {
		names = append(names, v.name)
	}
	return strings.Join(names, ", ")
}

// cpuSettings: GODEBUG's cpu.* entries, the part the variants set, and the rest, kept as given.
func splitGodebug(value string) (cpu, rest []string) {
	for _, kv := range strings.Split(value, ",") {
		switch {
		case kv == "":
		case strings.HasPrefix(kv, "cpu."):
			cpu = append(cpu, kv)
		default:
			rest = append(rest, kv)
		}
	}
	return cpu, rest
}

// processVariant: the variant this process runs, read from its GODEBUG. A cpu.* setting that is
// not exactly one variant's is no variant: the runner refuses to start rather than mislabel it.
func processVariant() (string, error) {
	cpu, _ := splitGodebug(os.Getenv("GODEBUG"))
	got := strings.Join(cpu, ",")
	for _, v := range variants {
		if got == v.godebug {
			return v.name, nil
		}
	}
	return "", fmt.Errorf("GODEBUG=%s changes the Go runtime's CPU features in a way no variant "+
		"(%s) names; unset its cpu.* entries", os.Getenv("GODEBUG"), variantNames())
}

// godebugFor: the GODEBUG value that runs the variant, keeping the non-cpu entries the caller set.
func godebugFor(v *variant) string {
	_, rest := splitGodebug(os.Getenv("GODEBUG"))
	if v.godebug != "" {
		rest = append(rest, v.godebug)
	}
	return strings.Join(rest, ",")
}

// selectVariant re-executes the runner when the requested variant is not the one it runs; it
// returns only when the process already runs it.
func selectVariant(requested string) error {
	v := findVariant(requested)
	if current, err := processVariant(); err == nil && current == v.name {
		os.Unsetenv("CRYPTOBENCH_REEXEC")
		return nil
	}
	if os.Getenv("CRYPTOBENCH_REEXEC") != "" {
		return fmt.Errorf("variant %s: GODEBUG did not stick after re-executing", v.name)
	}
	env := []string{"CRYPTOBENCH_REEXEC=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GODEBUG=") && !strings.HasPrefix(kv, "CRYPTOBENCH_REEXEC=") {
			env = append(env, kv)
		}
	}
	if g := godebugFor(v); g != "" {
		env = append(env, "GODEBUG="+g)
	}
	err := syscall.Exec("/proc/self/exe", os.Args, env)
	return fmt.Errorf("cannot re-execute the runner for variant %s: %v", v.name, err)
}

func variantsJSON() []msg {
	var out []msg
	for _, v := range variants {
		env := msg{}
		if v.godebug != "" {
			env["GODEBUG"] = v.godebug
		}
		out = append(out, msg{"name": v.name, "description": v.description, "env": env})
	}
	return out
}
