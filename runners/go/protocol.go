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

// parseCase decodes the case specification (protocol.md) over its defaults. The coordinator
// checked every field against the catalogue before sending it (plan.py), so this resolves only
// what the runner needs: a known provider, algorithm and operation.
func parseCase(raw any, where string) (CaseSpec, error) {
	s := CaseSpec{Input: "random", Samples: 11, TargetSampleMS: 2, WarmupMS: 20,
		HeapIterations: 8, Seed: 1, Inplace: true, Cost: map[string]uint64{}}
	text, _ := json.Marshal(raw)
	if err := json.Unmarshal(text, &s); err != nil {
		return s, specErr("%s: %v", where, strings.TrimPrefix(err.Error(), "json: "))
	}
	info := findAlgorithm(s.Algorithm)
	switch {
	case providerByName(s.Provider) == nil:
		return s, specErr("%s.provider: unknown provider '%s' (this runner has: %s)", where, s.Provider,
			strings.Join(providerNames(), ", "))
	case info == nil:
		return s, specErr("%s.algorithm: unknown algorithm '%s'", where, s.Algorithm)
	case !info.hasOp(s.Operation):
		return s, specErr("%s.operation: '%s' does not apply to %s", where, s.Operation, s.Algorithm)
	}
	return s, nil
}

type msg = map[string]any

const commands = "open, sample, close, steps, leak, quit"

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

func resultMessage(c *OpenCase) msg {
	s := c.Spec
	r := msg{"type": "result", "id": s.ID, "status": c.Status, "reason": c.Reason,
		"gate": msg{}, "provider": s.Provider, "variant": s.Variant,
		"operation": s.Operation, "algorithm": s.Algorithm, "size": s.Size, "input": s.Input,
		"align_offset": s.AlignOffset, "aad_bytes": s.AADBytes, "cost": s.Cost}
	if c.Status == statusOK {
		r["samples"] = append([]Sample{}, c.Samples...) // [] rather than null before any sample
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

// doneMessage: the last line of serve. The coordinator counts its cases' outcomes itself.
func doneMessage() msg { return msg{"type": "done", "max_rss_kb": maxRSSKB()} }

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
		reply, err := serveOne(cmd, req, open)
		if err != nil {
			emit(out, errorMessage(err.Error()))
			continue
		}
		emit(out, reply)
	}
	emit(out, doneMessage())
	return 0
}

func serveOne(cmd string, req map[string]any, open map[string]*OpenCase) (msg, error) {
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
		}
		return caseMessage(c), nil
	case "steps":
		return stepsRequest(req)
	case "leak":
		return leakRequest(req)
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
		return resultMessage(c), nil
	}
	count, err := countField(req, "count", 1, 1, 100_000) // as every runner bounds it
	if err != nil {
		return nil, err
	}
	var batch []Sample
	for k := 0; k < count && c.Status == statusOK; k++ {
		s, err := c.sample()
		if err != nil {
			c.fail("library error while sampling: " + err.Error())
		}
		batch = append(batch, s)
	}
	if c.Status != statusOK { // a library error, or the check of the timed instance failed
		delete(open, id)
		return resultMessage(c), nil
	}
	return msg{"type": "samples", "id": id, "samples": batch}, nil
}
