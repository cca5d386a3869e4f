// The process's resident set across a heap pass (docs/protocol.md, result "heap"): before it
// VmRSS, then the resident high-water mark is reset (/proc/self/clear_refs, "5"); after it VmHWM.
// A figure that cannot be read is null ("not measured"), never 0. The same procedure as
// native/src/core/heap.cpp.
package main

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// lifetimePeakKB: VmHWM folded in before each reset, so max_rss_kb stays the lifetime peak.
var lifetimePeakKB int64

func statusKB(key string) *int64 {
	text, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(text), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
				return &v
			}
		}
	}
	return nil
}

// peakPass brackets a heap pass: start it before, call end after.
type peakPass struct {
	reset  bool
	before *int64
}

// startPeakPass returns the garbage collector's free pages to the system first: the Go heap
// keeps freed spans resident, so without it an operation that reuses them shows no rise.
func startPeakPass() peakPass {
	debug.FreeOSMemory()
	p := peakPass{before: statusKB("VmRSS:")}
	if hwm := statusKB("VmHWM:"); hwm != nil && *hwm > lifetimePeakKB {
		lifetimePeakKB = *hwm
	}
	if f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0); err == nil {
		_, werr := f.WriteString("5")
		p.reset = f.Close() == nil && werr == nil
	}
	return p
}

// end sets the heap figures' rss_before_kb and rss_peak_kb.
func (p peakPass) end(h *HeapFigures) {
	h.RSSBeforeKB = p.before
	h.RSSPeakKB = nil
	if p.reset {
		h.RSSPeakKB = statusKB("VmHWM:")
	}
}

// maxRSSKB: the process's peak resident set over its life, despite the heap passes' resets.
func maxRSSKB() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return max(ru.Maxrss, lifetimePeakKB)
}
