//! The `leak` request (docs/protocol.md, "`leak`: input classes timed in turns"): one prepared
//! operation run on the coordinator's input classes, in a fresh random order every round, each
//! measurement `batch` back-to-back runs of one class timed with mono_ns (as native leak.cpp). A
//! MAC's `verify` is the provider's `prepare_mac_verify` (docs/leaks.md, "MAC verification").

use crate::clock::mono_ns;
use crate::engine::{STATUS_OK, refused, resolve};
use crate::spec::{ByteStream, SpecError, count, parse_case};
use crate::steps::{self, hex_of};
use crate::types::*;
use serde_json::{Map, Value, json};
use std::hint::black_box;

const MAX_CLASSES: usize = 16;
const WARMUP_ROUNDS: usize = 16;

/// MAC verification is no catalogue operation (a `mac` case computes a tag): asked for as a MAC
/// algorithm's `verify`, it is resolved as the `mac` it verifies (as leak.cpp does).
fn mac_verify_case(raw: &Value) -> Option<Value> {
    let algorithm = raw.get("algorithm").and_then(Value::as_str)?;
    let is_mac = find_algorithm(algorithm).is_some_and(|i| i.kind == "mac");
    (raw.get("operation").and_then(Value::as_str) == Some("verify") && is_mac).then(|| {
        let mut case = raw.clone();
        case["operation"] = json!("mac");
        case
    })
}

pub fn leak_request(req: &Map<String, Value>) -> Result<Value, SpecError> {
    let raw_case = req.get("case").ok_or_else(|| SpecError("case: missing".into()))?;
    let mac_case = mac_verify_case(raw_case);
    let mut spec = parse_case(mac_case.as_ref().unwrap_or(raw_case), "case")?;
    let raw = req.get("classes").and_then(Value::as_array).filter(|c| (2..=MAX_CLASSES).contains(&c.len()));
    let raw = raw.ok_or_else(|| SpecError(format!("classes: must be an array of 2 to {MAX_CLASSES} hex strings")))?;
    // Each class in a buffer of its own.
    let classes = raw.iter().enumerate().map(|(i, c)| hex_of(c, &format!("classes[{i}]")));
    let classes = classes.collect::<Result<Vec<_>, _>>()?;
    let rounds = count(req, "rounds", 1000, 1_000_000)? as usize;
    let batch = count(req, "batch", 1, 100_000)?;
    let seed = req.get("seed").map_or(Some(1), Value::as_u64);
    let seed = seed.ok_or_else(|| SpecError("seed: must be a non-negative integer".into()))?;
    let params = steps::params(req.get("params"), "params")?;
    let mut reply = json!({"type": "leak", "id": spec.id, "status": STATUS_OK, "reason": ""});
    let prepared = resolve(&mut spec).and_then(|(info, p)| {
        let op = match mac_case {
            Some(_) => p.prepare_mac_verify(info, &params)?,
            None => p.prepare(info, &spec.operation, &params)?,
        };
        Ok((info, op))
    });
    let (info, mut op) = match prepared {
        Ok(x) => x,
        Err(e) => return Ok(refused(reply, &e)),
    };

    let longest = classes.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = vec![0u8; longest + output_room(info)];
    // What one untimed run of each class gave: the coordinator checks it.
    let mut outcomes = Vec::new();
    for c in &classes {
        let r = op(&mut Io::separate(c, &mut out));
        outcomes.push(match r {
            Ok(n) => json!({"out": hex::encode(&out[..n])}),
            Err(e) => json!({"error": e.to_string()}),
        });
    }
    let (mut rng, mut order) = (ByteStream::new(seed), (0..classes.len()).collect::<Vec<_>>());
    let mut ns = vec![vec![0u64; rounds]; classes.len()];
    for r in 0..WARMUP_ROUNDS + rounds {
        // A fresh order (Fisher-Yates on splitmix64); the first rounds are untimed warm-up.
        for i in (1..order.len()).rev() {
            order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        for &k in &order {
            let t0 = mono_ns();
            for _ in 0..batch {
                // A refused run (a wrong tag, bad padding) is timed like any other.
                let _ = black_box(op(&mut Io::separate(&classes[k], &mut out)));
            }
            let t = mono_ns() - t0;
            if r >= WARMUP_ROUNDS {
                ns[k][r - WARMUP_ROUNDS] = t;
            }
        }
    }
    reply["outcomes"] = json!(outcomes);
    reply["batch"] = json!(batch);
    // A refusal is an Err value, returned through the same path as a success: "status".
    reply["refusal"] = json!("status");
    reply["ns"] = json!(ns);
    Ok(reply)
}
