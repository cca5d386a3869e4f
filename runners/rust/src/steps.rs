//! The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
//! return the outputs. Nothing here knows what an output should be: the coordinator judges, and
//! puts an earlier output a step uses in its place itself. And what a provider offers, probed
//! through its adapter (runners/go/steps.go).

use crate::spec::SpecError;
use crate::types::*;
use serde_json::{Map, Value, json};
use sha2::Digest;

pub fn hex_of(v: &Value, at: &str) -> Result<Vec<u8>, SpecError> {
    v.as_str().and_then(|s| hex::decode(s).ok()).ok_or_else(|| SpecError(format!("{at}: not a hex string: {v}")))
}

/// A step's (or open's) parameters, hex; open's `public` is the test key's public parts.
pub fn params(v: Option<&Value>, at: &str) -> Result<Params, SpecError> {
    let mut p = Params::default();
    let empty = Map::new();
    let m = v.and_then(Value::as_object).unwrap_or(&empty);
    for (name, dst) in [
        ("key", &mut p.key),
        ("iv", &mut p.iv),
        ("aad", &mut p.aad),
        ("salt", &mut p.salt),
        ("info", &mut p.info),
        ("secret", &mut p.secret),
        ("ad", &mut p.ad),
        ("signature", &mut p.signature),
    ] {
        if let Some(x) = m.get(name) {
            *dst = hex_of(x, &format!("{at}.{name}"))?;
        }
    }
    for (name, dst) in [("keypair", &mut p.keypair), ("peer", &mut p.peer), ("public", &mut p.public)] {
        if let Some(x) = m.get(name) {
            let parts = x.as_object().ok_or_else(|| SpecError(format!("{at}.{name}: key parts are an object")))?;
            *dst = parts
                .iter()
                .map(|(k, h)| Ok((k.clone(), hex_of(h, &format!("{at}.{name}"))?)))
                .collect::<Result<KeyParts, SpecError>>()?;
        }
    }
    if let Some(x) = m.get("randomness") {
        p.randomness = Some(hex_of(x, &format!("{at}.randomness"))?);
    }
    p.out_len = m.get("out_len").and_then(Value::as_u64).unwrap_or(0) as usize;
    for (name, x) in m.get("cost").and_then(Value::as_object).unwrap_or(&empty) {
        p.cost.insert(name.clone(), x.as_u64().ok_or_else(|| SpecError(format!("{at}.cost.{name}: not an integer")))?);
    }
    Ok(p)
}

fn failure(e: &Error) -> Value {
    match e {
        Error::Unsupported(u) => json!({"unsupported": u}),
        e => json!({"error": e.to_string()}),
    }
}

/// Length, SHA-256 and first 16 bytes of an output, instead of its bytes.
pub fn output_digest(b: &[u8]) -> Value {
    json!({"len": b.len(), "sha256": hex::encode(sha2::Sha256::digest(b)), "head": hex::encode(&b[..b.len().min(16)])})
}

fn key_json(k: &KeyParts) -> Value {
    json!({"key": Value::Object(k.iter().map(|(n, v)| (n.clone(), json!(hex::encode(v)))).collect())})
}

/// One run of a prepared operation on `input` into a fresh buffer; the output, copied.
pub fn run_once(op: &mut BoxOp, input: &[u8], extra: usize) -> Res<Vec<u8>> {
    let mut out = vec![0u8; input.len() + extra + 64];
    let n = op(&mut Io::separate(input, &mut out))?;
    out.truncate(n);
    Ok(out)
}

/// Runs the steps on `p`, `alg` unless a step names another algorithm; one result per step.
pub fn run_steps(p: &dyn Provider, alg: &str, raw: Option<&Value>, input: &[u8]) -> Result<Vec<Value>, SpecError> {
    let steps = raw.and_then(Value::as_array).ok_or_else(|| SpecError("steps: must be an array".into()))?;
    let mut results = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        // The operation is the schema's (docs/protocol.schema.json): one the provider does not
        // take is refused by its adapter, a result like any operation it does not offer.
        let at = format!("steps[{n}]");
        let op = step.get("op").and_then(Value::as_str).ok_or_else(|| SpecError(format!("{at}.op: missing")))?;
        let name = step.get("algorithm").and_then(Value::as_str).unwrap_or(alg);
        let info =
            find_algorithm(name).ok_or_else(|| SpecError(format!("{at}.algorithm: unknown algorithm '{name}'")))?;
        let params = params(step.get("params"), &at)?;
        // A keygen step whose keypair holds a seed derives the key pair from it (the gate's known
        // answer for key generation: docs/protocol.md, "Keys").
        let seed = params.keypair.get("seed").filter(|_| op == "keygen");
        let mut prepared = match p.prepare(info, op, &params) {
            Ok(prepared) => prepared,
            Err(e) => {
                results.push(failure(&e));
                continue;
            }
        };
        let digest = step.get("digest").and_then(Value::as_bool) == Some(true);
        let mut runs = Vec::new();
        for v in step.get("inputs").and_then(Value::as_array).into_iter().flatten() {
            let whole = v.get("case_input").and_then(Value::as_bool) == Some(true);
            let data = if whole { input.to_vec() } else { hex_of(v, &at)? };
            let out = match seed {
                _ if op != "keygen" => run_once(&mut prepared, &data, output_room(info))
                    .map(|b| if digest { output_digest(&b) } else { json!({"out": hex::encode(b)}) }),
                Some(seed) => p.key_from_seed(info, seed).map(|k| key_json(&k)),
                None => p.generate_key(info).map(|k| key_json(&k)),
            };
            runs.push(out.unwrap_or_else(|e| failure(&e)));
        }
        results.push(json!({"runs": runs}));
    }
    Ok(results)
}

/// Why `p` does not offer `info` (None: it does), probed through its adapter: every operation
/// prepared with parameters made from the catalogue alone; only the adapter's Unsupported means
/// not offered (docs/protocol.md, "What a provider offers").
pub fn not_offered(p: &dyn Provider, info: &AlgorithmInfo) -> Option<String> {
    let params = Params {
        key: vec![0; info.key_bytes],
        iv: vec![0; info.iv_bytes],
        salt: vec![0; 16],
        out_len: 32,
        ..Default::default()
    };
    info.operations.iter().find_map(|op| {
        // The probe's dummy parameters may trip an adapter up: the gate judges the rest.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| p.prepare(info, op, &params)));
        std::panic::set_hook(hook);
        match r {
            Ok(Err(Error::Unsupported(why))) => Some(why),
            _ => None,
        }
    })
}
