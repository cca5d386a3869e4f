//! The `taint` request (docs/protocol.md), as native taint.cpp: the key (and a secret input) marked undefined for
//! memcheck, the operation prepared, run and dropped between two client messages; taint.c makes the client requests.

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
    // Once with everything defined: one-time set-up (CPU detection, tables) is not the secret's doing.
    let warm = resolve(&mut spec).and_then(|(info, p)| Ok((info, p, p.prepare(info, &spec.operation, &params)?)));
    let status = |e: &Error| if matches!(e, Error::Unsupported(_)) { STATUS_UNSUPPORTED } else { STATUS_FAILED };
    let (info, p, mut warm) = match warm {
        Ok(x) => x,
        Err(e) => return Ok(json!({"type": "taint", "id": spec.id, "status": status(&e), "reason": e.to_string()})),
    };
    let mut out = vec![0u8; input.len() + output_room(info)];
    let _ = warm.run(&mut Io::separate(&input, &mut out)); // a refusal is an outcome here, not a failure
    let mark = |b: *mut u8, n: usize, defined: i32| unsafe { cb_mark(b.cast(), n, defined) };
    mark(params.key.as_mut_ptr(), params.key.len(), 0);
    mark(input.as_mut_ptr(), if req.get("secret_input") == Some(&json!(true)) { input.len() } else { 0 }, 0);
    let id = CString::new(spec.id.clone()).unwrap_or_default();
    unsafe { cb_boundary(c"begin".as_ptr(), id.as_ptr()) };
    let mut result =
        p.prepare(info, &spec.operation, &params).and_then(|mut op| op.run(&mut Io::separate(&input, &mut out)));
    mark((&raw mut result).cast(), size_of_val(&result), 1); // refused or not, and how long: the caller is told
    let n = result.as_ref().map_or(0, |&n| n.min(out.len()));
    mark(out.as_mut_ptr(), n, 1);
    let outcome = result.map_or_else(|e| json!({"error": e.to_string()}), |_| json!({"out": hex::encode(&out[..n])}));
    unsafe { cb_boundary(c"end".as_ptr(), id.as_ptr()) };
    Ok(json!({"type": "taint", "id": spec.id, "status": STATUS_OK, "reason": "", "outcome": outcome,
              "on_valgrind": unsafe { cb_on_valgrind() } > 0, "supported": unsafe { cb_on_valgrind() } >= 0}))
}
