//! The `taint` request (docs/protocol.md), as native taint.cpp: one run with all defined, then the key (and a secret
//! input) undefined for memcheck and the operation prepared, run and dropped between two client messages (taint.c).

use crate::engine::{STATUS_FAILED, STATUS_OK, STATUS_UNSUPPORTED, resolve};
use crate::{spec::*, steps, types::*};
use serde_json::{Map, Value, json};
use std::ffi::{CString, c_char, c_void};

unsafe extern "C" {
    fn cb_on_valgrind() -> i32; // -1: built without valgrind/memcheck.h
    fn cb_mark(p: *mut c_void, n: usize, defined: i32);
    fn cb_boundary(what: *const c_char, id: *const c_char);
}

pub fn taint_request(req: &Map<String, Value>) -> Result<Value, SpecError> {
    let mut spec = parse_case(req.get("case").ok_or_else(|| SpecError("case: missing".into()))?, "case")?;
    let input = req.get("input").and_then(Value::as_str).and_then(|s| hex::decode(s).ok());
    let mut input = input.ok_or_else(|| SpecError("input: must be a hex string".into()))?;
    let mut params = steps::params(req.get("params"), "params")?;
    let vg = unsafe { cb_on_valgrind() };
    let mut reply = json!({"type": "taint", "id": spec.id, "status": STATUS_OK, "reason": "",
                           "on_valgrind": vg > 0, "supported": vg >= 0});
    let warm = resolve(&mut spec).and_then(|(info, p)| Ok((info, p, p.prepare(info, &spec.operation, &params)?)));
    let status = |e: &Error| if matches!(e, Error::Unsupported(_)) { STATUS_UNSUPPORTED } else { STATUS_FAILED };
    let warm = warm.map_err(|e| (reply["status"], reply["reason"]) = (json!(status(&e)), json!(e.to_string())));
    let Ok((info, p, mut warm)) = warm else { return Ok(reply) };
    // Once with everything defined: one-time set-up (CPU detection, tables) is not the secret's doing.
    let mut out = vec![0u8; input.len() + output_room(info)];
    let _ = warm(&mut Io::separate(&input, &mut out)); // a refusal is an outcome, not a failure
    let mark = |b: *mut u8, n: usize, defined: i32| unsafe { cb_mark(b.cast(), n, defined) };
    mark(params.key.as_mut_ptr(), params.key.len(), 0);
    mark(input.as_mut_ptr(), if req.get("secret_input") == Some(&json!(true)) { input.len() } else { 0 }, 0);
    let id = CString::new(spec.id.clone()).unwrap_or_default();
    unsafe { cb_boundary(c"begin".as_ptr(), id.as_ptr()) };
    let mut got = p.prepare(info, &spec.operation, &params).and_then(|mut op| op(&mut Io::separate(&input, &mut out)));
    // What the caller is given back is public: refused or not, the output and its length.
    mark((&raw mut got).cast(), size_of_val(&got), 1);
    let n = got.as_ref().map_or(0, |&n| n.min(out.len()));
    mark(out.as_mut_ptr(), n, 1);
    reply["outcome"] = got.map_or_else(|e| json!({"error": e.to_string()}), |_| json!({"out": hex::encode(&out[..n])}));
    unsafe { cb_boundary(c"end".as_ptr(), id.as_ptr()) };
    Ok(reply)
}
