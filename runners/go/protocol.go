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
	"os"
	"strings"
)

const (
	schema        = 1
	runnerName    = "cryptobench-runner-go"
	runnerVersion = "0.1.0"
	gate          = "coordinator" // this runner is gated by the coordinator (protocol.md, "Who gates")
)

// specError: a malformed request or spec (an `error` reply, the runner carries on).
type specError struct{ msg string }

func (e *specError) Error() string { return e.msg }

func specErr(format string, args ...any) error { return &specError{fmt.Sprintf(format, args...)} }

// parseCase: the case specification (protocol.md), decoded strictly over its defaults, then
// checked against the catalogue and this runner's providers.
func parseCase(raw any, where string) (CaseSpec, error) {
	s := CaseSpec{Input: "random", Samples: 11, Batch: 1, TargetSampleMS: 2, WarmupMS: 20,
		HeapIterations: 8, Seed: 1, Agreement: true, Inplace: true, Cost: map[string]uint64{}}
	m, ok := raw.(map[string]any)
	if !ok {
		return s, specErr("%s: must be an object", where)
	}
	for _, k := range []string{"id", "provider", "operation", "algorithm", "size"} {
		if _, ok := m[k]; !ok {
			return s, specErr("%s.%s: missing", where, k)
		}
	}
	text, _ := json.Marshal(m)
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, specErr("%s: %v", where, strings.TrimPrefix(err.Error(), "json: "))
	}
	info := findAlgorithm(s.Algorithm)
	ops := []string{"encrypt", "decrypt", "hash", "mac", "keygen", "sign", "verify", "derive",
		"encaps", "decaps"}
	for _, c := range []struct {
		field string
		bad   bool
		why   string
	}{
		{"provider", providerByName(s.Provider) == nil, fmt.Sprintf("unknown provider '%s' (this runner has: %s)",
			s.Provider, strings.Join(providerNames(), ", "))},
		{"algorithm", info == nil, fmt.Sprintf("unknown algorithm '%s'", s.Algorithm)},
		{"operation", !contains(ops, s.Operation), fmt.Sprintf("unknown operation '%s' (%s)", s.Operation, strings.Join(ops, ", "))},
		{"operation", info != nil && !info.hasOp(s.Operation), fmt.Sprintf("%s does not apply to %s", s.Operation, s.Algorithm)},
		{"size", s.Size > 1<<30 || info != nil && (int(s.Size) < info.MinSize || int(s.Size)%info.BlockBytes != 0),
			fmt.Sprintf("%s needs at least %d bytes in multiples of %d", s.Algorithm, info.minSize(), info.block())},
		{"input", s.Input != "random" && s.Input != "zeros" && s.Input != "text", "must be random, zeros or text"},
		{"align_offset", s.AlignOffset > 63, "must be between 0 and 63"},
		{"aad_bytes", s.AADBytes > 1<<20, "must be between 0 and 1048576"},
		{"samples", s.Samples < 1 || s.Batch < 1 || s.HeapIterations < 1, "samples, batch and heap_iterations must be at least 1"},
		{"target_sample_ms", !(s.TargetSampleMS >= 0.001) || !(s.WarmupMS >= 0), "must be at least 0.001 (warmup_ms: 0)"},
		{"cost", len(s.Cost) > 0 && info != nil && info.Kind != "kdf", s.Algorithm + " takes no cost parameters (only KDFs do)"},
	} {
		if c.bad {
			return s, specErr("%s.%s: %s", where, c.field, c.why)
		}
	}
	return s, nil
}

type msg = map[string]any

const commands = "open, sample, close, steps, quit"

// stepsRequest runs the coordinator's known-answer steps on the case's provider.
func stepsRequest(req map[string]any) (msg, error) {
	spec, err := parseCase(req["case"], "case")
	if err != nil {
		return nil, err
	}
	reply := msg{"type": "steps", "id": spec.ID, "status": statusOK, "reason": ""}
	info, p, err := resolve(&spec)
	if err != nil {
		reply["status"], reply["reason"] = statusUnsupported, err.Error()
		return reply, nil
	}
	input := caseInput(spec, info)
	reply["input"] = outputDigest(input)
	if reply["results"], err = runSteps(p, info.Name, req["steps"], input); err != nil {
		return nil, err
	}
	return reply, nil
}

// emit writes one message as one line.
func emit(w io.Writer, m msg) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	_, _ = w.Write(buf.Bytes())
}

func caseMessage(c *OpenCase) msg {
	return msg{"type": "case", "id": c.Spec.ID, "status": c.Status, "reason": c.Reason,
		"gate": msg{}, "iterations": c.Iterations, "calibration_ns": c.CalibrationNS}
}

func samplesMessage(id string, s []Sample) msg {
	return msg{"type": "samples", "id": id, "samples": s}
}

func resultMessage(c *OpenCase) msg {
	s := c.Spec
	r := msg{"type": "result", "id": s.ID, "status": c.Status, "reason": c.Reason,
		"gate": msg{}, "provider": s.Provider, "variant": s.Variant,
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
		"pid": os.Getpid(), "cpu": c, "variants": variants, "gate": gate}
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
			emit(out, errorMessage("cmd: missing ("+commands+")"))
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
		c := openCase(spec, req["params"])
		if c.Status == statusOK {
			open[spec.ID] = c
		} else {
			t.count(c.Status)
		}
		return caseMessage(c), nil
	case "steps":
		return stepsRequest(req)
	case "sample", "close":
	default:
		return nil, specErr("cmd: unknown command '%s' (%s)", cmd, commands)
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
	count := uint64(1)
	if v, ok := req["count"]; ok {
		n, ok := intOf(v)
		if !ok || n < 1 || n > 100000 {
			return nil, specErr("request.count: must be between 1 and 100000")
		}
		count = uint64(n)
	}
	var batch []Sample
	for k := uint64(0); k < count && c.Status == statusOK; k++ {
		s, err := c.sample()
		if err != nil {
			c.fail("library error while sampling: " + err.Error())
		}
		batch = append(batch, s)
	}
	if c.Status != statusOK { // a library error, or the check of the timed instance failed
		delete(open, id)
		t.count(c.Status)
		return resultMessage(c), nil
	}
	return samplesMessage(id, batch), nil
}
