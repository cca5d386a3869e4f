//! The runner protocol (docs/protocol.md): case parsing with the native runner's checks and
//! messages, and the serve and check commands (runners/go/protocol.go).

use crate::agreement::agreement_request;
use crate::engine::*;
use crate::gate::{GateReport, run_gate};
use crate::gate_pk::run_pk_gate;
use crate::providers::{provider_by_name, provider_names, providers};
use crate::types::*;
use crate::variants::current_variant;
use crate::vectors::ByteStream;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};

pub const SCHEMA: u64 = 1;
pub const RUNNER_NAME: &str = "cryptobench-runner-rust";
pub const RUNNER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A malformed request or spec: an `error` reply, and the runner carries on.
#[derive(Debug)]
pub struct SpecError(pub String);

const CASE_FIELDS: &[&str] = &[
    "id",
    "provider",
    "variant",
    "operation",
    "algorithm",
    "size",
    "input",
    "align_offset",
    "aad_bytes",
    "samples",
    "batch",
    "target_sample_ms",
    "warmup_ms",
    "heap_iterations",
    "seed",
    "agreement",
    "cost",
    "inplace",
];

pub struct Fields<'a> {
    pub m: &'a Map<String, Value>,
    pub where_: &'a str,
}

impl Fields<'_> {
    fn fail(&self, name: &str, why: &str) -> SpecError {
        SpecError(format!("{}.{}: {}", self.where_, name, why))
    }
    fn str(&self, name: &str, fallback: Option<&str>) -> Result<String, SpecError> {
        match self.m.get(name) {
            None => fallback.map(String::from).ok_or_else(|| self.fail(name, "missing")),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(self.fail(name, "must be a string")),
        }
    }
    pub fn uint(&self, name: &str, fallback: Option<u64>, lo: u64, hi: u64) -> Result<u64, SpecError> {
        let Some(v) = self.m.get(name) else {
            return fallback.ok_or_else(|| self.fail(name, "missing"));
        };
        let x = v.as_u64().ok_or_else(|| self.fail(name, "must be a non-negative integer"))?;
        if x < lo || x > hi {
            return Err(self.fail(name, &format!("must be between {lo} and {hi}")));
        }
        Ok(x)
    }
    fn number(&self, name: &str, fallback: f64, lo: f64) -> Result<f64, SpecError> {
        let Some(v) = self.m.get(name) else { return Ok(fallback) };
        let x = v.as_f64().ok_or_else(|| self.fail(name, "must be a number"))?;
        if !(x >= lo) {
            return Err(self.fail(name, &format!("must be at least {lo}")));
        }
        Ok(x)
    }
    fn bool(&self, name: &str) -> Result<bool, SpecError> {
        match self.m.get(name) {
            None => Ok(true),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.fail(name, "must be true or false")),
        }
    }
}

/// protocol.cpp, parse_case.
pub fn parse_case(raw: &Value, where_: &str) -> Result<CaseSpec, SpecError> {
    let m = raw.as_object().ok_or_else(|| SpecError(format!("{where_}: must be an object")))?;
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    for k in keys {
        if !CASE_FIELDS.contains(&k.as_str()) {
            return Err(SpecError(format!("{where_}.{k}: unknown field")));
        }
    }
    let f = Fields { m, where_ };
    let mut s = CaseSpec { id: f.str("id", None)?, provider: f.str("provider", None)?, ..Default::default() };
    if provider_by_name(&s.provider).is_none() {
        return Err(f.fail(
            "provider",
            &format!("unknown provider '{}' (this runner has: {})", s.provider, provider_names().join(", ")),
        ));
    }
    s.variant = f.str("variant", Some(""))?;
    s.operation = f.str("operation", None)?;
    s.algorithm = f.str("algorithm", None)?;
    let info = find_algorithm(&s.algorithm)
        .ok_or_else(|| f.fail("algorithm", &format!("unknown algorithm '{}'", s.algorithm)))?;
    let ops = ["encrypt", "decrypt", "hash", "mac", "keygen", "sign", "verify", "derive"];
    if !ops.contains(&s.operation.as_str()) {
        return Err(f.fail("operation", &format!("unknown operation '{}' ({})", s.operation, ops.join(", "))));
    }
    if !info.has_op(&s.operation) {
        return Err(
            f.fail("operation", &format!("{} does not apply to {} (a {})", s.operation, s.algorithm, info.kind))
        );
    }
    s.size = f.uint("size", None, 0, 1 << 30)?;
    if (s.size as usize) < info.min_size || s.size as usize % info.block_bytes != 0 {
        return Err(f.fail(
            "size",
            &format!("{} needs at least {} bytes in multiples of {}", s.algorithm, info.min_size, info.block_bytes),
        ));
    }
    s.input = f.str("input", Some("random"))?;
    if !["random", "zeros", "text"].contains(&s.input.as_str()) {
        return Err(f.fail("input", "must be random, zeros or text"));
    }
    s.align_offset = f.uint("align_offset", Some(0), 0, 63)?;
    s.aad_bytes = f.uint("aad_bytes", Some(0), 0, 1 << 20)?;
    s.samples = f.uint("samples", Some(11), 1, 100000)?;
    s.batch = f.uint("batch", Some(1), 1, 100000)?;
    s.target_sample_ms = f.number("target_sample_ms", 2.0, 0.001)?;
    s.warmup_ms = f.number("warmup_ms", 20.0, 0.0)?;
    s.heap_iterations = f.uint("heap_iterations", Some(8), 1, 1000000)?;
    s.seed = f.uint("seed", Some(1), 0, u64::MAX)?;
    s.agreement = f.bool("agreement")?;
    s.inplace = f.bool("inplace")?;
    if let Some(v) = m.get("cost") {
        let cm = v.as_object().ok_or_else(|| f.fail("cost", "must be an object of non-negative integers"))?;
        for (name, val) in cm {
            let x = val.as_u64().ok_or_else(|| f.fail("cost", &format!("{name} must be a non-negative integer")))?;
            s.cost.insert(name.clone(), x);
        }
        if !s.cost.is_empty() && info.kind != "kdf" {
            return Err(f.fail("cost", &format!("{} takes no cost parameters (only KDFs do)", s.algorithm)));
        }
    }
    Ok(s)
}

/// Writes one message as one line.
pub fn emit(w: &mut impl Write, m: &Value) {
    let _ = writeln!(w, "{m}");
    let _ = w.flush();
}

pub use crate::rss::max_rss_kb;

pub fn gate_json(g: &GateReport) -> Value {
    let mut out = json!({"kat": g.kat, "roundtrip": g.roundtrip, "agreement": g.agreement});
    if !g.lax.is_empty() {
        out["lax"] = json!(g.lax);
    }
    out
}

fn case_message(c: &OpenCase) -> Value {
    json!({"type": "case", "id": c.spec.id, "status": c.status, "reason": c.reason,
           "gate": gate_json(&c.gate), "iterations": c.iterations, "calibration_ns": c.calibration_ns})
}

fn samples_json(s: &[Sample]) -> Value {
    Value::Array(s.iter().map(Sample::json).collect())
}

fn result_message(c: &OpenCase) -> Value {
    let s = &c.spec;
    let mut r = json!({"type": "result", "id": s.id, "status": c.status, "reason": c.reason,
        "gate": gate_json(&c.gate), "provider": s.provider, "variant": s.variant,
        "operation": s.operation, "algorithm": s.algorithm, "size": s.size, "input": s.input,
        "align_offset": s.align_offset, "aad_bytes": s.aad_bytes, "cost": s.cost});
    if c.status == STATUS_OK {
        r["samples"] = samples_json(&c.samples);
        r["summary"] = summarise(&c.samples, s.size);
        r["heap"] = c.heap.clone();
        r["rewarms"] = json!(c.rewarms);
    }
    if !c.timed_check.is_empty() {
        r["gate"]["timed"] = json!(c.timed_check);
    }
    if c.laid_out {
        r["inplace"] = json!(c.layout.inplace);
        let mut layout = json!({"inplace": c.layout.inplace, "distance": c.layout.distance,
                                "in_page_offset": c.layout.in_page_offset});
        if !c.layout.note.is_empty() {
            layout["note"] = json!(c.layout.note);
        }
        r["layout"] = layout;
    }
    r["max_rss_kb"] = json!(max_rss_kb());
    r
}

#[derive(Default)]
pub struct Totals {
    cases: u64,
    ok: u64,
    failed: u64,
    unsupported: u64,
}

impl Totals {
    pub fn count(&mut self, status: &str) {
        self.cases += 1;
        match status {
            STATUS_OK => self.ok += 1,
            STATUS_FAILED => self.failed += 1,
            STATUS_UNSUPPORTED => self.unsupported += 1,
            _ => {}
        }
    }
    pub fn message(&self) -> Value {
        json!({"type": "done", "cases": self.cases, "ok": self.ok, "failed": self.failed,
               "unsupported": self.unsupported, "max_rss_kb": max_rss_kb()})
    }
}

pub fn error_message(text: &str) -> Value {
    json!({"type": "error", "message": text})
}

fn hello(cpu: Option<usize>) -> Value {
    let variants: Map<String, Value> =
        provider_names().iter().map(|n| (n.to_string(), json!(current_variant(n)))).collect();
    json!({"type": "hello", "schema": SCHEMA, "runner": RUNNER_NAME, "runner_version": RUNNER_VERSION,
           "pid": std::process::id(), "cpu": cpu, "variants": variants})
}

pub fn command_serve(input: impl BufRead, out: &mut impl Write, cpu: Option<usize>) -> i32 {
    emit(out, &hello(cpu));
    let mut open: HashMap<String, OpenCase> = HashMap::new();
    let mut t = Totals::default();
    for line in input.lines() {
        let Ok(line) = line else { break };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                emit(out, &error_message(&format!("request is not valid JSON: {e}")));
                continue;
            }
        };
        let Some(req) = v.as_object() else {
            emit(out, &error_message("cmd: missing (open, sample, close, quit, agreement, cross_check)"));
            continue;
        };
        let cmd = req.get("cmd").and_then(Value::as_str).unwrap_or("");
        if cmd.is_empty() {
            emit(out, &error_message("cmd: missing (open, sample, close, quit, agreement, cross_check)"));
            continue;
        }
        if cmd == "quit" {
            break;
        }
        match serve_one(cmd, req, &mut open, &mut t) {
            Ok(reply) => emit(out, &reply),
            Err(SpecError(e)) => emit(out, &error_message(&e)),
        }
    }
    emit(out, &t.message());
    0
}

fn serve_one(
    cmd: &str,
    req: &Map<String, Value>,
    open: &mut HashMap<String, OpenCase>,
    t: &mut Totals,
) -> Result<Value, SpecError> {
    match cmd {
        "open" => {
            let raw = req.get("case").ok_or_else(|| SpecError("case: missing".into()))?;
            let spec = parse_case(raw, "case")?;
            if open.contains_key(&spec.id) {
                return Err(SpecError(format!("case.id: '{}' is already open", spec.id)));
            }
            let c = open_case(spec);
            let reply = case_message(&c);
            if c.status == STATUS_OK {
                open.insert(c.spec.id.clone(), c);
            } else {
                t.count(&c.status);
            }
            return Ok(reply);
        }
        "agreement" | "cross_check" => return agreement_request(cmd, req),
        "sample" | "close" => {}
        _ => {
            return Err(SpecError(format!(
                "cmd: unknown command '{cmd}' (open, sample, close, quit, agreement, cross_check)"
            )));
        }
    }
    let id = req.get("id").and_then(Value::as_str).ok_or_else(|| SpecError("id: missing".into()))?;
    if !open.contains_key(id) {
        return Err(SpecError(format!("id: no open case '{id}'")));
    }
    if cmd == "close" {
        let mut c = open.remove(id).unwrap();
        c.check_timed_instance();
        t.count(&c.status);
        return Ok(result_message(&c));
    }
    let count = Fields { m: req, where_: "request" }.uint("count", Some(1), 1, 100000)?;
    let c = open.get_mut(id).unwrap();
    let mut batch = Vec::new();
    for _ in 0..count {
        match c.sample() {
            Err(e) => {
                c.fail(&format!("library error while sampling: {e}"));
                let c = open.remove(id).unwrap();
                t.count(STATUS_FAILED);
                return Ok(result_message(&c));
            }
            Ok(s) => batch.push(s),
        }
        if c.status != STATUS_OK {
            // the check of the timed instance failed
            let c = open.remove(id).unwrap();
            t.count(&c.status);
            return Ok(result_message(&c));
        }
    }
    Ok(json!({"type": "samples", "id": id, "samples": samples_json(&batch)}))
}

/// gate_pk.cpp, cheap_kdf_params.
fn cheap_cost(info: &AlgorithmInfo) -> BTreeMap<String, u64> {
    let pairs: &[(&str, u64)] = if info.name.starts_with("pbkdf2") {
        &[("iterations", 1000)]
    } else if info.name == "scrypt" {
        &[("N", 1024), ("r", 8), ("p", 1)]
    } else if info.name == "argon2id" {
        &[("t", 2), ("m", 1024), ("p", 1)]
    } else {
        &[]
    };
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// The gate for every provider × algorithm × operation (protocol.cpp, command_check).
pub fn command_check(names: &[String], out: &mut impl Write) -> i32 {
    let mut names: Vec<String> =
        if names.is_empty() { provider_names().iter().map(|s| s.to_string()).collect() } else { names.to_vec() };
    names.sort();
    let mut t = Totals::default();
    for name in &names {
        let p = providers().iter().copied().find(|p| p.name() == name).unwrap();
        for alg in p.algorithms() {
            let info = find_algorithm(alg).unwrap();
            let n = if info.block_bytes > 1 { 1024 } else { 1000 };
            let mut stream = ByteStream::new(7);
            let mut params =
                Params { key: stream.bytes(info.key_bytes), iv: stream.bytes(info.iv_bytes), ..Default::default() };
            let mut input = stream.bytes(n);
            let pk = info.kind == "kdf" || is_public_key(&info.kind);
            if pk {
                input.truncate(32);
                let spec = CaseSpec { seed: 1, cost: cheap_cost(info), ..Default::default() };
                params = case_params(info, &spec).unwrap_or_default();
            }
            for op in &info.operations {
                let g =
                    if pk { run_pk_gate(p, info, op, &input, &params) } else { run_gate(p, info, op, &input, &params) };
                let (status, g) = match g {
                    Err(e) => (STATUS_UNSUPPORTED, GateReport { reason: e.to_string(), ..Default::default() }),
                    Ok(g) if g.ok => (STATUS_OK, g),
                    Ok(g) => (STATUS_FAILED, g),
                };
                t.count(status);
                emit(
                    out,
                    &json!({"type": "check", "provider": name, "variant": current_variant(name),
                    "algorithm": alg, "operation": op, "status": status, "reason": g.reason,
                    "gate": gate_json(&g)}),
                );
            }
        }
    }
    emit(out, &t.message());
    if t.failed > 0 { 1 } else { 0 }
}
