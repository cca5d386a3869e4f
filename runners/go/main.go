// cryptobench-runner-go: the Go runner (providers `go` and `go-x`). It speaks the runner protocol
// of docs/protocol.md like cryptobench-native; docs/runners.md describes its measurement.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

const usage = `usage: cryptobench-runner-go list  [--variant P=V]...
       cryptobench-runner-go serve [--variant P=V]... [--cpu N|--no-pin]
       cryptobench-runner-go bench [--no-pin]   (fidelity against testing.B)
Protocol and message formats: docs/protocol.md
`

var providers = []Provider{goStd{}, goX{}, circl{}}

func providerByName(name string) Provider {
	for _, p := range providers {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

func providerNames() []string {
	var out []string
	for _, p := range providers {
		out = append(out, p.Name())
	}
	return out
}

type options struct {
	command string
	cpu     int
	pin     bool
	variant string // "" when no --variant was given
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func parseArgs(args []string) (options, error) {
	o := options{cpu: -1, pin: true}
	if len(args) < 1 {
		return o, &usageError{"missing command (list, serve, bench)"}
	}
	o.command = args[0]
	switch o.command {
	case "-h", "--help":
		return o, nil
	case "list", "serve", "bench":
	default:
		return o, &usageError{fmt.Sprintf("unknown command '%s' (list, serve, bench)", o.command)}
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", &usageError{a + " needs a value"}
			}
			i++
			return args[i], nil
		}
		switch {
		case a == "--variant":
			v, err := value()
			if err != nil {
				return o, err
			}
			p, variant, ok := strings.Cut(v, "=")
			if !ok || p == "" || variant == "" {
				return o, &usageError{fmt.Sprintf("--variant takes PROVIDER=VARIANT, got '%s'", v)}
			}
			if providerByName(p) == nil {
				return o, &usageError{fmt.Sprintf("--variant: unknown provider '%s'", p)}
			}
			if findVariant(variant) == nil {
				return o, &usageError{fmt.Sprintf("--variant: %s has no variant '%s' (%s)", p, variant,
					variantNames())}
			}
			if o.variant != "" && o.variant != variant {
				return o, &usageError{fmt.Sprintf("--variant: go and go-x share one Go runtime, so "+
					"one runner runs both as one variant, not %s and %s; use separate runners",
					o.variant, variant)}
			}
			o.variant = variant
		case a == "--cpu":
			v, err := value()
			if err != nil {
				return o, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n >= 1024 {
				return o, &usageError{fmt.Sprintf("--cpu takes a CPU number, got '%s'", v)}
			}
			o.cpu = n
		case a == "--no-pin":
			o.pin = false
		case a == "-h" || a == "--help":
			o.command = "--help"
		default:
			return o, &usageError{fmt.Sprintf("unknown option '%s' for %s", a, o.command)}
		}
	}
	return o, nil
}

type cpuSet [1024 / 64]uint64

func schedAffinity(tid int, set *cpuSet, get bool) error {
	call := uintptr(syscall.SYS_SCHED_SETAFFINITY)
	if get {
		call = syscall.SYS_SCHED_GETAFFINITY
	}
	_, _, e := syscall.RawSyscall(call, uintptr(tid), unsafe.Sizeof(*set), uintptr(unsafe.Pointer(set)))
	if e != 0 {
		return e
	}
	return nil
}

// pin: every thread of the process onto one CPU (by default the last one allowed; CPU 0 takes
// more interrupts). Threads the Go runtime starts later inherit it. Returns the CPU or -1.
func pin(o options) (int, error) {
	if !o.pin {
		return -1, nil
	}
	runtime.LockOSThread()
	var allowed cpuSet
	if err := schedAffinity(0, &allowed, true); err != nil {
		return -1, nil
	}
	isSet := func(c int) bool { return allowed[c/64]&(1<<(c%64)) != 0 }
	cpu := o.cpu
	if cpu >= 0 {
		if !isSet(cpu) {
			return -1, &usageError{fmt.Sprintf("--cpu %d: not available to this process", cpu)}
		}
	} else {
		for c := 1023; c >= 0; c-- {
			if isSet(c) {
				cpu = c
				break
			}
		}
	}
	var one cpuSet
	one[cpu/64] |= 1 << (cpu % 64)
	tasks, _ := filepath.Glob("/proc/self/task/*")
	for _, t := range tasks {
		if tid, err := strconv.Atoi(filepath.Base(t)); err == nil {
			if err := schedAffinity(tid, &one, false); err != nil {
				return -1, nil
			}
		}
	}
	return cpu, nil
}

func capabilities() msg {
	names := map[string]bool{}
	var provs []msg
	machine := machineRecord()
	libs := msg{}
	for _, p := range providers {
		algs, missing := []msg{}, msg{}
		for _, a := range offered(p) {
			names[a] = true
			algs = append(algs, msg{"name": a, "operations": findAlgorithm(a).Operations})
		}
		for a, why := range notOffered(p) {
			if why != "" {
				missing[a] = why
			}
		}
		provs = append(provs, msg{"name": p.Name(), "version": p.Version(), "variant": currentVariant,
			"variants": variantsJSON(), "algorithms": algs, "not_offered": missing,
			"code_path": p.CodePath()})
		libs[p.Name()] = p.Version()
	}
	machine["libraries"] = libs
	var algs []AlgorithmInfo
	for _, a := range catalogue {
		if names[a.Name] {
			algs = append(algs, a)
		}
	}
	return msg{"type": "capabilities", "schema": schema, "runner": runnerName, "gate": gate,
		"runner_version": runnerVersion, "machine": machine, "algorithms": algs, "providers": provs}
}

func main() {
	o, err := parseArgs(os.Args[1:])
	if err == nil && o.command == "--help" {
		fmt.Print(usage)
		return
	}
	if err == nil {
		// Every command runs as one variant; without --variant that is 'default', whatever
		// GODEBUG the caller's environment had.
		currentVariant = o.variant
		if currentVariant == "" {
			currentVariant = "default"
		}
		err = selectVariant(currentVariant)
	}
	if err == nil {
		switch o.command {
		case "list":
			emit(os.Stdout, capabilities())
			return
		}
		var cpu int
		if cpu, err = pin(o); err == nil {
			if o.command == "bench" {
				os.Exit(commandBench(os.Stdout))
			}
			os.Exit(commandServe(os.Stdin, os.Stdout, cpu))
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", runnerName, err)
	if _, ok := err.(*usageError); ok {
		fmt.Fprint(os.Stderr, usage)
	}
	os.Exit(2)
}
