//! The `steps` request (docs/protocol.md): prepare one operation per step, run it on each input,
//! return the outputs. Nothing here knows what an output should be: the coordinator judges. And
//! what a provider offers, probed through its adapter (runners/go/steps.go).

use crate::spec::SpecError;
use crate::types::*;
use serde_json::{Map, Value, json};
use sha2::Digest;

/// One run's output, kept for later steps' references.
#[derive(Clone)]
enum Output {
    Bytes(Vec<u8>),
    Key(KeyParts),
}

/// Why a value could not be read: a malformed request (an `error` reply), or a run that cannot
/// be made (a reference to a run without output: that run's `error`).
pub enum Fault {
    Spec(SpecError),
    Run(Error),
}

impl From<Error> for Fault {
    fn from(e: Error) -> Self {
        Fault::Run(e)
    }
}

/// Reads a step's (or open's) values: hex, the case's input, or an earlier run's output.
#[derive(Default)]
pub struct Resolver<'a> {
    outputs: &'a [Vec<Option<Output>>],
    input: &'a [u8],
    n: usize,
}

impl Resolver<'_> {
    fn spec(&self, why: String) -> Fault {
        Fault::Spec(SpecError(format!("steps[{}]: {why}", self.n)))
    }

    fn earlier(&self, v: &Map<String, Value>) -> Result<&Output, Fault> {
        let at: Vec<u64> =
            v.get("ref").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_u64).collect();
        let [s, run] = at[..] else { return Err(self.spec("a ref is [step, run]".into())) };
        let (s, run) = (s as usize, run as usize);
        match self.outputs.get(s).filter(|_| s < self.n).and_then(|o| o.get(run)) {
            Some(Some(o)) => Ok(o),
            _ => Err(failed(format!("refers to run {run} of step {s}, which gave no output")).into()),
        }
    }

    fn hex(&self, v: &Value) -> Result<Vec<u8>, Fault> {
        v.as_str().and_then(|s| hex::decode(s).ok()).ok_or_else(|| self.spec(format!("not a hex string: {v}")))
    }

    pub fn bytes(&self, v: &Value) -> Result<Vec<u8>, Fault> {
        let Some(x) = v.as_object() else { return self.hex(v) };
        if x.get("case_input").and_then(Value::as_bool) == Some(true) {
            return Ok(self.input.to_vec());
        }
        let Output::Bytes(out) = self.earlier(x)? else {
            return Err(failed("refers to a generated key where bytes are expected").into());
        };
        let mut out = out.clone();
        if let Some(n) = x.get("prefix") {
            match n.as_u64().map(|n| n as usize) {
                Some(n) if n <= out.len() => out.truncate(n),
                _ => return Err(failed(format!("keeps {n} bytes of a {}-byte output", out.len())).into()),
            }
        }
        if let Some([at, mask]) = x.get("flip").and_then(Value::as_array).map(Vec::as_slice) {
            let (at, mask) = (at.as_i64().unwrap_or(i64::MAX), mask.as_u64().unwrap_or(0));
            let i = if at < 0 { at + out.len() as i64 } else { at };
            if i < 0 || i >= out.len() as i64 {
                return Err(failed(format!("flips byte {at} of a {}-byte output", out.len())).into());
            }
            out[i as usize] ^= mask as u8;
        }
        if let Some(a) = x.get("append") {
            out.extend(self.hex(a)?);
        }
        Ok(out)
    }

    fn key(&self, v: &Value) -> Result<KeyParts, Fault> {
        let x = v.as_object().ok_or_else(|| self.spec("key parts are an object".into()))?;
        if !x.contains_key("ref") {
            return x.iter().map(|(k, h)| Ok((k.clone(), self.hex(h)?))).collect();
        }
        let Output::Key(key) = self.earlier(x)? else {
            return Err(failed("refers to an output that is not a generated key").into());
        };
        let names = x.get("parts").and_then(Value::as_array);
        Ok(key
            .iter()
            .filter(|(k, _)| names.is_none_or(|n| n.contains(&json!(k))))
            .map(|(k, b)| (k.clone(), b.clone()))
            .collect())
    }

    /// A step's (or open's) parameters; open's `public` is the test key's public parts.
    pub fn params(&self, v: Option<&Value>) -> Result<Params, Fault> {
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
                *dst = self.bytes(x)?;
            }
        }
        for (name, dst) in [("keypair", &mut p.keypair), ("peer", &mut p.peer), ("public", &mut p.public)] {
            if let Some(x) = m.get(name) {
                *dst = self.key(x)?;
            }
        }
        if let Some(x) = m.get("randomness") {
            p.randomness = Some(self.bytes(x)?);
        }
        p.out_len = m.get("out_len").and_then(Value::as_u64).unwrap_or(0) as usize;
        for (name, x) in m.get("cost").and_then(Value::as_object).unwrap_or(&empty) {
            p.cost.insert(name.clone(), x.as_u64().ok_or_else(|| self.spec(format!("cost.{name}: not an integer")))?);
        }
        Ok(p)
    }
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

fn encode(o: &Output, digest: bool) -> Value {
    match o {
        Output::Key(k) => {
            json!({"key": Value::Object(k.iter().map(|(n, v)| (n.clone(), json!(hex::encode(v)))).collect())})
        }
        Output::Bytes(b) if digest => output_digest(b),
        Output::Bytes(b) => json!({"out": hex::encode(b)}),
    }
}

/// One run of a prepared operation on `input` into a fresh buffer; the output, copied.
pub fn run_once(op: &mut BoxOp, input: &[u8], extra: usize) -> Res<Vec<u8>> {
    let mut out = vec![0u8; input.len() + extra + 64];
    let n = op.run(&mut Io::separate(input, &mut out))?;
    out.truncate(n);
    Ok(out)
}

/// Runs the steps on `p`, `alg` unless a step names another algorithm; one result per step.
pub fn run_steps(p: &dyn Provider, alg: &str, raw: Option<&Value>, input: &[u8]) -> Result<Vec<Value>, SpecError> {
    let steps = raw.and_then(Value::as_array).ok_or_else(|| SpecError("steps: must be an array".into()))?;
    let mut outputs: Vec<Vec<Option<Output>>> = Vec::new();
    let mut results = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        // The operation is the schema's (docs/protocol.schema.json): one the provider does not
        // take is refused by its adapter, a result like any operation it does not offer.
        let op = step.get("op").and_then(Value::as_str).ok_or_else(|| SpecError(format!("steps[{n}].op: missing")))?;
        let name = step.get("algorithm").and_then(Value::as_str).unwrap_or(alg);
        let info = find_algorithm(name)
            .ok_or_else(|| SpecError(format!("steps[{n}].algorithm: unknown algorithm '{name}'")))?;
        let r = Resolver { outputs: &outputs, input, n };
        // A keygen step whose keypair holds a seed derives the key pair from it (the gate's known
        // answer for key generation: docs/protocol.md, "Keys").
        let mut seed = None;
        let prepared = match r.params(step.get("params")) {
            Ok(params) => {
                seed = params.keypair.get("seed").filter(|_| op == "keygen").cloned();
                p.prepare(info, op, &params).map_err(Fault::Run)
            }
            Err(f) => Err(f),
        };
        let mut prepared = match prepared {
            Err(Fault::Spec(e)) => return Err(e),
            Err(Fault::Run(e)) => {
                results.push(failure(&e));
                outputs.push(Vec::new());
                continue;
            }
            Ok(prepared) => prepared,
        };
        let digest = step.get("digest").and_then(Value::as_bool) == Some(true);
        let (mut runs, mut got) = (Vec::new(), Vec::new());
        for v in step.get("inputs").and_then(Value::as_array).into_iter().flatten() {
            let out = match r.bytes(v) {
                Err(Fault::Spec(e)) => return Err(e),
                Err(Fault::Run(e)) => Err(e),
                Ok(_) if op == "keygen" => match seed.as_deref() {
                    Some(seed) => p.key_from_seed(info, seed).map(Output::Key),
                    None => p.generate_key(info).map(Output::Key),
                },
                Ok(data) => run_once(&mut prepared, &data, output_room(info)).map(Output::Bytes),
            };
            runs.push(out.as_ref().map(|o| encode(o, digest)).unwrap_or_else(failure));
            got.push(out.ok());
        }
        results.push(json!({"runs": runs}));
        outputs.push(got);
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
