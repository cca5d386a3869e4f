//! The correctness gate for symmetric algorithms, hashes and MACs (native/src/core/gate.cpp,
//! runners/go/gate.go): every known-answer vector twice on one prepared operation, an AEAD
//! decryption must reject a flipped tag, then the round trip on the case's own input.
//! Cross-provider agreement is the coordinator's (agreement.rs).

use crate::types::*;
use crate::vectors::{Vector, vectors_dir, vectors_for};

/// What initial_counter counts (ChaCha20 / Salsa20 blocks).
const STREAM_BLOCK: usize = 64;

#[derive(Clone, Default, Debug)]
pub struct GateReport {
    pub ok: bool,
    pub reason: String,
    pub kat: String,
    pub roundtrip: String,
    pub agreement: String,
    pub lax: String,
}

/// One run of a prepared operation on `input` into a fresh buffer; the output, copied.
pub fn run_once(op: &mut BoxOp, input: &[u8], extra: usize) -> Res<Vec<u8>> {
    let mut out = vec![0u8; input.len() + extra + 64];
    let n = op.run(&mut Io::separate(input, &mut out))?;
    out.truncate(n);
    Ok(out)
}

/// Prepares one operation and runs it once on `input`.
pub fn run_one(p: &dyn Provider, info: &AlgorithmInfo, op: &str, params: &Params, input: &[u8]) -> Res<Vec<u8>> {
    let mut prepared = p.prepare(info, op, params)?;
    run_once(&mut prepared, input, 1024)
}

pub fn forward(info: &AlgorithmInfo) -> &'static str {
    match info.kind.as_str() {
        "hash" => "hash",
        "mac" => "mac",
        _ => "encrypt",
    }
}

pub fn clip(b: &[u8]) -> String {
    let mut h = hex::encode(&b[..b.len().min(24)]);
    if b.len() > 24 {
        h.push_str("...");
    }
    format!("{h} ({} bytes)", b.len())
}

fn mismatch(what: &str, got: &[u8], want: &[u8]) -> String {
    format!("{what}: got {}, expected {}", clip(got), clip(want))
}

fn check_vector(p: &dyn Provider, info: &AlgorithmInfo, op: &str, v: &Vector) -> Res<String> {
    let params = Params { key: v.key.clone(), iv: v.iv.clone(), aad: v.aad.clone(), ..Default::default() };
    let prefix = vec![0u8; v.initial_counter * STREAM_BLOCK];
    let (body, want) = if op == "decrypt" { (&v.expected, &v.input) } else { (&v.input, &v.expected) };
    let mut input = prefix.clone();
    input.extend_from_slice(body);
    let mut prepared = p.prepare(info, op, &params)?;
    for round in 1..=2 {
        let got = run_once(&mut prepared, &input, info.tag_bytes)?;
        if got.len() < prefix.len() {
            return Ok(mismatch("output too short", &got, want));
        }
        let mut got = &got[prefix.len()..];
        if info.kind == "mac" && want.len() < got.len() {
            got = &got[..want.len()];
        }
        if got != want.as_slice() {
            let what = if round == 2 { "wrong output on the second run" } else { "wrong output" };
            return Ok(mismatch(what, got, want));
        }
    }
    if info.kind == "aead" && op == "decrypt" {
        let mut tampered = input.clone();
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        if run_once(&mut prepared, &tampered, 0).is_ok() {
            return Ok("accepted a ciphertext whose tag was altered".into());
        }
        let got = run_once(&mut prepared, &input, 0)?;
        if &got[prefix.len()..] != want.as_slice() {
            return Ok("wrong output after rejecting a forgery".into());
        }
    }
    Ok(String::new())
}

/// gate_util.hpp, run_vectors. `check` gives "" (pass), a reason (fail), or an Unsupported error
/// (the vector does not apply; at least one must).
pub fn run_vectors(
    n: usize,
    source: impl Fn(usize) -> String,
    provider: &str,
    info: &AlgorithmInfo,
    report: &mut GateReport,
    mut check: impl FnMut(usize, &mut GateReport) -> Res<String>,
) -> String {
    let (mut passed, mut not_applicable) = (0, 0);
    let mut na_reason = String::new();
    for i in 0..n {
        let why = match check(i, report) {
            Err(Error::Unsupported(r)) => {
                not_applicable += 1;
                na_reason = r;
                continue;
            }
            Err(e) => e.to_string(),
            Ok(w) => w,
        };
        if !why.is_empty() {
            let mut name = source(i);
            if name.is_empty() {
                name = info.name.clone();
            }
            return format!("known-answer test {name} failed for {provider}: {why}");
        }
        passed += 1;
    }
    if passed == 0 {
        return format!("no known-answer vector applies: {na_reason}");
    }
    report.kat = format!("passed {passed} vector{}", if passed == 1 { "" } else { "s" });
    if not_applicable > 0 {
        report.kat += &format!(", {not_applicable} not applicable ({na_reason})");
    }
    String::new()
}

pub fn run_kat(p: &dyn Provider, info: &AlgorithmInfo, op: &str, report: &mut GateReport) -> String {
    let vectors = match vectors_for(info) {
        Ok(v) => v,
        Err(e) => return e,
    };
    if vectors.is_empty() {
        return format!("no known-answer vector for {} in {}/{}.json", info.name, vectors_dir(), info.family);
    }
    run_vectors(
        vectors.len(),
        |i| vectors[i].source.clone(),
        p.name(),
        info,
        report,
        |i, _| check_vector(p, info, op, &vectors[i]),
    )
}

fn run_roundtrip(p: &dyn Provider, info: &AlgorithmInfo, input: &[u8], params: &Params) -> Res<String> {
    if info.kind == "hash" || info.kind == "mac" {
        let mut op = p.prepare(info, forward(info), params)?;
        let a = run_once(&mut op, input, 0)?;
        let b = run_once(&mut op, input, 0)?;
        if a.len() != info.output_bytes {
            return Ok(format!("output is {} bytes, expected {}", a.len(), info.output_bytes));
        }
        if a != b {
            return Ok("two runs on the same input gave different outputs".into());
        }
        return Ok(String::new());
    }
    let mut enc = p.prepare(info, "encrypt", params)?;
    let mut dec = p.prepare(info, "decrypt", params)?;
    let ct = run_once(&mut enc, input, info.tag_bytes)?;
    if ct.len() != input.len() + info.tag_bytes {
        return Ok(format!("ciphertext is {} bytes for {} bytes of input", ct.len(), input.len()));
    }
    if input.len() >= 16 && ct[..16] == input[..16] {
        return Ok("ciphertext starts with the plaintext".into());
    }
    let pt = run_once(&mut dec, &ct, 0)?;
    if pt != input {
        return Ok("decrypt(encrypt(input)) differs from the input".into());
    }
    Ok(String::new())
}

/// gate_util.hpp, run_steps, without the agreement step. An Unsupported error from a step is
/// returned (the case is unsupported, not failed); any other error is the gate's reason.
pub fn run_steps(
    kat: impl FnOnce(&mut GateReport) -> String,
    roundtrip: impl FnOnce(&mut GateReport) -> Res<String>,
) -> Res<GateReport> {
    let mut r = GateReport { agreement: "by the coordinator (agreement request)".into(), ..Default::default() };
    let why = kat(&mut r);
    if !why.is_empty() {
        r.reason = why;
        return Ok(r);
    }
    let why = match roundtrip(&mut r) {
        Err(Error::Unsupported(u)) => return Err(Error::Unsupported(u)),
        Err(e) => e.to_string(),
        Ok(w) => w,
    };
    if !why.is_empty() {
        r.reason = format!("round trip failed: {why}");
        return Ok(r);
    }
    r.roundtrip = "passed".into();
    r.ok = true;
    Ok(r)
}

pub fn run_gate(p: &dyn Provider, info: &AlgorithmInfo, op: &str, input: &[u8], params: &Params) -> Res<GateReport> {
    run_steps(|r| run_kat(p, info, op, r), |_| run_roundtrip(p, info, input, params))
}
