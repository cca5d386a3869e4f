//! The runner protocol (docs/protocol.md): the serve command and its messages
//! (runners/go/protocol.go); a case's fields are spec.rs's, the steps request's work steps.rs's.

use crate::engine::*;
use crate::providers::provider_names;
use crate::rss::max_rss_kb;
use crate::spec::*;
use crate::steps::{output_digest, run_steps};
use crate::variants::current_variant;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::{BufRead, Write};

pub const SCHEMA: u64 = 1;
pub const RUNNER_NAME: &str = "cryptobench-runner-rust";
pub const RUNNER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// This runner is gated by the coordinator (docs/protocol.md, "Who gates").
pub const GATE: &str = "coordinator";
const COMMANDS: &str = "open, sample, close, steps, leak, taint, quit";

/// Writes one message as one line.
pub fn emit(w: &mut impl Write, m: &Value) {
    let _ = writeln!(w, "{m}");
    let _ = w.flush();
}

fn case_message(c: &OpenCase) -> Value {
    json!({"type": "case", "id": c.spec.id, "status": c.status, "reason": c.reason,
           "gate": {}, "iterations": c.iterations, "calibration_ns": c.calibration_ns})
}

fn result_message(c: &OpenCase) -> Value {
    let s = &c.spec;
    let gate = if c.timed_check.is_empty() { json!({}) } else { json!({"timed": c.timed_check}) };
    let mut r = json!({"type": "result", "id": s.id, "status": c.status, "reason": c.reason,
        "gate": gate, "provider": s.provider, "variant": s.variant,
        "operation": s.operation, "algorithm": s.algorithm, "size": s.size, "input": s.input,
        "align_offset": s.align_offset, "aad_bytes": s.aad_bytes, "cost": s.cost,
        "inplace": c.layout.inplace, "layout": c.layout, "max_rss_kb": max_rss_kb()});
    if c.status == STATUS_OK {
        r["samples"] = json!(c.samples);
        r["heap"] = c.heap.clone();
        r["rewarms"] = json!(c.rewarms);
    }
    r
}

pub fn error_message(text: &str) -> Value {
    json!({"type": "error", "message": text})
}

fn hello(cpu: Option<usize>) -> Value {
    let variants: Map<String, Value> =
        provider_names().iter().map(|n| (n.to_string(), json!(current_variant(n)))).collect();
    json!({"type": "hello", "schema": SCHEMA, "runner": RUNNER_NAME, "runner_version": RUNNER_VERSION,
           "pid": std::process::id(), "cpu": cpu, "variants": variants, "gate": GATE})
}

pub fn command_serve(input: impl BufRead, out: &mut impl Write, cpu: Option<usize>) -> i32 {
    emit(out, &hello(cpu));
    let mut open: HashMap<String, OpenCase> = HashMap::new();
    for line in input.lines().map_while(Result::ok) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let req = match serde_json::from_str::<Value>(line) {
            Err(e) => Err(SpecError(format!("request is not valid JSON: {e}"))),
            Ok(Value::Object(m)) if m.get("cmd").and_then(Value::as_str).is_some_and(|c| !c.is_empty()) => Ok(m),
            Ok(_) => Err(SpecError(format!("cmd: missing ({COMMANDS})"))),
        };
        let cmd = req.as_ref().ok().and_then(|m| m["cmd"].as_str()).unwrap_or("").to_string();
        if cmd == "quit" {
            break;
        }
        match req.and_then(|req| serve_one(&cmd, &req, &mut open)) {
            Ok(reply) => emit(out, &reply),
            Err(SpecError(e)) => emit(out, &error_message(&e)),
        }
    }
    // The last line; the coordinator counts its cases' outcomes itself.
    emit(out, &json!({"type": "done", "max_rss_kb": max_rss_kb()}));
    0
}

fn serve_one(cmd: &str, req: &Map<String, Value>, open: &mut HashMap<String, OpenCase>) -> Result<Value, SpecError> {
    match cmd {
        "open" => {
            let raw = req.get("case").ok_or_else(|| SpecError("case: missing".into()))?;
            let spec = parse_case(raw, "case")?;
            if open.contains_key(&spec.id) {
                return Err(SpecError(format!("case.id: '{}' is already open", spec.id)));
            }
            let c = open_case(spec, req.get("params"));
            let reply = case_message(&c);
            if c.status == STATUS_OK {
                open.insert(c.spec.id.clone(), c);
            }
            return Ok(reply);
        }
        "steps" => return steps_request(req),
        "leak" => return crate::leak::leak_request(req),
        "taint" => return crate::taint::taint_request(req),
        "sample" | "close" => {}
        _ => {
            return Err(SpecError(format!("cmd: unknown command '{cmd}' ({COMMANDS})")));
        }
    }
    let id = req.get("id").and_then(Value::as_str).ok_or_else(|| SpecError("id: missing".into()))?;
    let c = open.get_mut(id).ok_or_else(|| SpecError(format!("id: no open case '{id}'")))?;
    if cmd == "close" {
        c.check_timed_instance();
        return Ok(result_message(&open.remove(id).unwrap()));
    }
    let count = count(req, "count", 1, 100_000)?;
    let mut batch = Vec::new();
    while (batch.len() as u64) < count && c.status == STATUS_OK {
        match c.sample() {
            Ok(s) => batch.push(s),
            Err(e) => c.fail(&format!("library error while sampling: {e}")),
        }
    }
    if c.status != STATUS_OK {
        // a library error, or the check of the timed instance failed
        return Ok(result_message(&open.remove(id).unwrap()));
    }
    Ok(json!({"type": "samples", "id": id, "samples": batch}))
}

/// Runs the coordinator's known-answer steps on the case's provider (docs/protocol.md, "steps").
fn steps_request(req: &Map<String, Value>) -> Result<Value, SpecError> {
    let mut spec = parse_case(req.get("case").ok_or_else(|| SpecError("case: missing".into()))?, "case")?;
    let mut reply = json!({"type": "steps", "id": spec.id, "status": STATUS_OK, "reason": ""});
    let (info, p) = match resolve(&mut spec) {
        Ok(x) => x,
        Err(e) => return Ok(refused(reply, &e)),
    };
    let input = case_input(&spec, info);
    reply["input"] = output_digest(&input);
    reply["results"] = Value::Array(run_steps(p, &info.name, req.get("steps"), &input)?);
    Ok(reply)
}
