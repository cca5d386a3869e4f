// The runner protocol (docs/protocol.md): case parsing with the native runner's checks and
// messages, and the list, serve and check commands.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

const (
	schema        = 1
	runnerName    = "cryptobench-runner-go"
	runnerVersion = "0.1.0"
)

// specError: a malformed request or spec (an `error` reply, the runner carries on).
type specError struct{ msg string }

func (e *specError) Error() string { return e.msg }

func specErr(format string, args ...any) error { return &specError{fmt.Sprintf(format, args...)} }

var caseFields = map[string]bool{"id": true, "provider": true, "variant": true, "operation": true,
	"algorithm": true, "size": true, "input": true, "align_offset": true, "aad_bytes": true,
	"samples": true, "batch": true, "target_sample_ms": true, "warmup_ms": true,
	"heap_iterations": true, "seed": true, "agreement": true, "cost": true, "inplace": true}

type fields struct {
	m     map[string]any
	where string
}

func (f fields) fail(name, why string) error { return specErr("%s.%s: %s", f.where, name, why) }

func (f fields) str(name string, fallback *string) (string, error) {
	v, ok := f.m[name]
	if !ok {
		if fallback != nil {
			return *fallback, nil
		}
		return "", f.fail(name, "missing")
	}
	s, ok := v.(string)
	if !ok {
		return "", f.fail(name, "must be a string")
	}
	return s, nil
}

func uintOf(v any) (uint64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	s := n.String()
	if strings.ContainsAny(s, ".eE-") {
		return 0, false
	}
	var x uint64
	_, err := fmt.Sscan(s, &x)
	return x, err == nil
}

func (f fields) uint(name string, fallback *uint64, lo, hi uint64) (uint64, error) {
	v, ok := f.m[name]
	if !ok {
		if fallback != nil {
			return *fallback, nil
		}
		return 0, f.fail(name, "missing")
	}
	x, ok := uintOf(v)
	if !ok {
		return 0, f.fail(name, "must be a non-negative integer")
	}
	if x < lo || x > hi {
		return 0, f.fail(name, fmt.Sprintf("must be between %d and %d", lo, hi))
	}
	return x, nil
}

func (f fields) number(name string, fallback, lo float64) (float64, error) {
	v, ok := f.m[name]
	if !ok {
		return fallback, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, f.fail(name, "must be a number")
	}
	x, err := n.Float64()
	if err != nil || !(x >= lo) {
		return 0, f.fail(name, fmt.Sprintf("must be at least %g", lo))
	}
	return x, nil
}

func ptr[T any](v T) *T { return &v }

// parseCase: protocol.cpp, parse_case.
func parseCase(raw any, where string) (CaseSpec, error) {
	var s CaseSpec
	m, ok := raw.(map[string]any)
	if !ok {
		return s, specErr("%s: must be an object", where)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !caseFields[k] {
			return s, specErr("%s.%s: unknown field", where, k)
		}
	}
	f := fields{m, where}
	var err error
	if s.ID, err = f.str("id", nil); err != nil {
		return s, err
	}
	if s.Provider, err = f.str("provider", nil); err != nil {
		return s, err
	}
	if providerByName(s.Provider) == nil {
		return s, f.fail("provider", fmt.Sprintf("unknown provider '%s' (this runner has: %s)",
			s.Provider, strings.Join(providerNames(), ", ")))
	}
	if s.Variant, err = f.str("variant", ptr("")); err != nil {
		return s, err
	}
	if s.Operation, err = f.str("operation", nil); err != nil {
		return s, err
	}
	if s.Algorithm, err = f.str("algorithm", nil); err != nil {
		return s, err
	}
	info := findAlgorithm(s.Algorithm)
	if info == nil {
		return s, f.fail("algorithm", fmt.Sprintf("unknown algorithm '%s'", s.Algorithm))
	}
	ops := []string{"encrypt", "decrypt", "hash", "mac", "keygen", "sign", "verify", "derive"}
	if !contains(ops, s.Operation) {
		return s, f.fail("operation", fmt.Sprintf("unknown operation '%s' (%s)", s.Operation, strings.Join(ops, ", ")))
	}
	if !info.hasOp(s.Operation) {
		return s, f.fail("operation", fmt.Sprintf("%s does not apply to %s (a %s)", s.Operation, s.Algorithm, info.Kind))
	}
	if s.Size, err = f.uint("size", nil, 0, 1<<30); err != nil {
		return s, err
	}
	if int(s.Size) < info.MinSize || int(s.Size)%info.BlockBytes != 0 {
		return s, f.fail("size", fmt.Sprintf("%s needs at least %d bytes in multiples of %d",
			s.Algorithm, info.MinSize, info.BlockBytes))
	}
	if s.Input, err = f.str("input", ptr("random")); err != nil {
		return s, err
	}
	if s.Input != "random" && s.Input != "zeros" && s.Input != "text" {
		return s, f.fail("input", "must be random, zeros or text")
	}
	if s.AlignOffset, err = f.uint("align_offset", ptr(uint64(0)), 0, 63); err != nil {
		return s, err
	}
	if s.AADBytes, err = f.uint("aad_bytes", ptr(uint64(0)), 0, 1<<20); err != nil {
		return s, err
	}
	if s.Samples, err = f.uint("samples", ptr(uint64(11)), 1, 100000); err != nil {
		return s, err
	}
	if s.Batch, err = f.uint("batch", ptr(uint64(1)), 1, 100000); err != nil {
		return s, err
	}
	if s.TargetSampleMS, err = f.number("target_sample_ms", 2.0, 0.001); err != nil {
		return s, err
	}
	if s.WarmupMS, err = f.number("warmup_ms", 20.0, 0); err != nil {
		return s, err
	}
	if s.HeapIterations, err = f.uint("heap_iterations", ptr(uint64(8)), 1, 1000000); err != nil {
		return s, err
	}
	if s.Seed, err = f.uint("seed", ptr(uint64(1)), 0, math.MaxUint64); err != nil {
		return s, err
	}
	s.Agreement = true
	if v, ok := m["agreement"]; ok {
		b, ok := v.(bool)
		if !ok {
			return s, f.fail("agreement", "must be true or false")
		}
		s.Agreement = b
	}
	s.Inplace = true
	if v, ok := m["inplace"]; ok {
		b, ok := v.(bool)
		if !ok {
			return s, f.fail("inplace", "must be true or false")
		}
		s.Inplace = b
	}
	s.Cost = map[string]uint64{}
	if v, ok := m["cost"]; ok {
		cm, ok := v.(map[string]any)
		if !ok {
			return s, f.fail("cost", "must be an object of non-negative integers")
		}
		for name, val := range cm {
			x, ok := uintOf(val)
			if !ok {
				return s, f.fail("cost", name+" must be a non-negative integer")
			}
			s.Cost[name] = x
		}
		if len(s.Cost) > 0 && info.Kind != "kdf" {
			return s, f.fail("cost", s.Algorithm+" takes no cost parameters (only KDFs do)")
		}
	}
	return s, nil
}

type msg = map[string]any

// emit writes one message as one line.
func emit(w io.Writer, m msg) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	_, _ = w.Write(buf.Bytes())
}

func gateJSON(g GateReport) msg {
	out := msg{"kat": g.KAT, "roundtrip": g.Roundtrip, "agreement": g.Agreement}
	if g.Lax != "" {
		out["lax"] = g.Lax
	}
	return out
}

func caseMessage(c *OpenCase) msg {
	return msg{"type": "case", "id": c.Spec.ID, "status": c.Status, "reason": c.Reason,
		"gate": gateJSON(c.Gate), "iterations": c.Iterations, "calibration_ns": c.CalibrationNS}
}

func samplesMessage(id string, s []Sample) msg {
	return msg{"type": "samples", "id": id, "samples": s}
}

func resultMessage(c *OpenCase) msg {
	s := c.Spec
	r := msg{"type": "result", "id": s.ID, "status": c.Status, "reason": c.Reason,
		"gate": gateJSON(c.Gate), "provider": s.Provider, "variant": s.Variant,
		"operation": s.Operation, "algorithm": s.Algorithm, "size": s.Size, "input": s.Input,
		"align_offset": s.AlignOffset, "aad_bytes": s.AADBytes, "cost": s.Cost}
	if c.Status == statusOK {
		r["samples"] = append([]Sample{}, c.Samples...) // [] rather than null before any sample
		r["summary"] = summarise(c.Samples, s.Size)
		r["heap"] = c.Heap
		r["rewarms"] = c.rewarms
	}
	if c.timedCheck != "" {
		r["gate"].(msg)["timed"] = c.timedCheck
	}
	if c.laidOut {
		r["inplace"] = c.layout.Inplace
		r["layout"] = c.layout
	}
	r["max_rss_kb"] = maxRSSKB()
	return r
}

type totals struct{ cases, ok, failed, unsupported int }

func (t *totals) count(status string) {
	t.cases++
	switch status {
	case statusOK:
		t.ok++
	case statusFailed:
		t.failed++
	case statusUnsupported:
		t.unsupported++
	}
}

func (t *totals) message() msg {
	return msg{"type": "done", "cases": t.cases, "ok": t.ok, "failed": t.failed,
		"unsupported": t.unsupported, "max_rss_kb": maxRSSKB()}
}

func errorMessage(text string) msg { return msg{"type": "error", "message": text} }

func decodeJSON(line []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func hello(cpu int) msg {
	variants := msg{}
	for _, n := range providerNames() {
		variants[n] = currentVariant
	}
	var c any
	if cpu >= 0 {
		c = cpu
	}
	return msg{"type": "hello", "schema": schema, "runner": runnerName, "runner_version": runnerVersion,
		"pid": os.Getpid(), "cpu": c, "variants": variants}
}

func commandServe(in io.Reader, out io.Writer, cpu int) int {
	emit(out, hello(cpu))
	open := map[string]*OpenCase{}
	var t totals
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		v, err := decodeJSON(line)
		if err != nil {
			emit(out, errorMessage("request is not valid JSON: "+err.Error()))
			continue
		}
		req, _ := v.(map[string]any)
		cmd, _ := req["cmd"].(string)
		if req == nil || cmd == "" {
			emit(out, errorMessage("cmd: missing (open, sample, close, quit, agreement, cross_check)"))
			continue
		}
		if cmd == "quit" {
			break
		}
		reply, err := serveOne(cmd, req, open, &t)
		if err != nil {
			emit(out, errorMessage(err.Error()))
			continue
		}
		emit(out, reply)
	}
	emit(out, t.message())
	return 0
}

func serveOne(cmd string, req map[string]any, open map[string]*OpenCase, t *totals) (msg, error) {
	switch cmd {
	case "open":
		raw, ok := req["case"]
		if !ok {
			return nil, specErr("case: missing")
		}
		spec, err := parseCase(raw, "case")
		if err != nil {
			return nil, err
		}
		if _, dup := open[spec.ID]; dup {
			return nil, specErr("case.id: '%s' is already open", spec.ID)
		}
		c := openCase(spec)
		if c.Status == statusOK {
			open[spec.ID] = c
		} else {
			t.count(c.Status)
		}
		return caseMessage(c), nil
	case "agreement", "cross_check":
		return agreementRequest(cmd, req)
	case "sample", "close":
	default:
		return nil, specErr("cmd: unknown command '%s' (open, sample, close, quit, agreement, cross_check)", cmd)
	}
	id, ok := req["id"].(string)
	if !ok {
		return nil, specErr("id: missing")
	}
	c, ok := open[id]
	if !ok {
		return nil, specErr("id: no open case '%s'", id)
	}
	if cmd == "close" {
		c.checkTimedInstance()
		delete(open, id)
		t.count(c.Status)
		return resultMessage(c), nil
	}
	count, err := fields{req, "request"}.uint("count", ptr(uint64(1)), 1, 100000)
	if err != nil {
		return nil, err
	}
	var batch []Sample
	for k := uint64(0); k < count; k++ {
		s, err := c.sample()
		if err != nil {
			c.fail("library error while sampling: " + err.Error())
			delete(open, id)
			t.count(statusFailed)
			return resultMessage(c), nil
		}
		batch = append(batch, s)
		if c.Status != statusOK { // the check of the timed instance failed
			delete(open, id)
			t.count(c.Status)
			return resultMessage(c), nil
		}
	}
	return samplesMessage(id, batch), nil
}
