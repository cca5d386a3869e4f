//! The case specification (docs/protocol.md, "Case specification"): its fields, their parsing
//! with the native runner's checks and messages (protocol.cpp, parse_case), and the case's own
//! input (splitmix64 bytes, as every runner makes them).

use crate::providers::{provider_by_name, provider_names};
use crate::types::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// docs/protocol.md, "Case specification". The coordinator checked every field against the
/// catalogue before sending it (plan.py): the runner resolves only what it needs, a known
/// provider, algorithm and operation.
#[derive(Clone, Debug, Deserialize)]
pub struct CaseSpec {
    pub id: String,
    pub provider: String,
    pub variant: String,
    pub operation: String,
    pub algorithm: String,
    pub size: u64,
    pub input: String,
    pub align_offset: u64,
    pub aad_bytes: u64,
    pub samples: u64,
    pub target_sample_ms: f64,
    pub warmup_ms: f64,
    pub heap_iterations: u64,
    pub seed: u64,
    pub cost: BTreeMap<String, u64>,
    pub inplace: bool,
}

impl Default for CaseSpec {
    fn default() -> Self {
        decode(&json!({})).expect("the defaults decode")
    }
}

/// A case over the defaults of docs/protocol.md, "Case specification": the fields it gives
/// replace theirs.
fn decode(raw: &Value) -> serde_json::Result<CaseSpec> {
    let mut spec = json!({"id": "", "provider": "", "variant": "", "operation": "", "algorithm": "", "size": 0,
        "input": "random", "align_offset": 0, "aad_bytes": 0, "samples": 11, "target_sample_ms": 2.0,
        "warmup_ms": 20.0, "heap_iterations": 8, "seed": 1, "cost": {}, "inplace": true});
    spec.as_object_mut().expect("an object").extend(Map::<String, Value>::deserialize(raw)?);
    CaseSpec::deserialize(spec)
}

/// A malformed request or spec: an `error` reply, and the runner carries on.
#[derive(Debug)]
pub struct SpecError(pub String);

pub fn parse_case(raw: &Value, where_: &str) -> Result<CaseSpec, SpecError> {
    let s = decode(raw).map_err(|e| SpecError(format!("{where_}: {e}")))?;
    let info = find_algorithm(&s.algorithm);
    let why = if provider_by_name(&s.provider).is_none() {
        format!("provider: unknown provider '{}' (this runner has: {})", s.provider, provider_names().join(", "))
    } else if info.is_none() {
        format!("algorithm: unknown algorithm '{}'", s.algorithm)
    } else if info.is_some_and(|i| !i.has_op(&s.operation)) {
        format!("operation: '{}' does not apply to {}", s.operation, s.algorithm)
    } else {
        return Ok(s);
    };
    Err(SpecError(format!("{where_}.{why}")))
}

/// A request's integer field `name`, from 1 to `most` (`default` when it is absent).
pub fn count(req: &Map<String, Value>, name: &str, default: u64, most: u64) -> Result<u64, SpecError> {
    let n = req.get(name).map_or(Some(default), Value::as_u64).filter(|n| (1..=most).contains(n));
    n.ok_or_else(|| SpecError(format!("{name}: must be an integer from 1 to {most}")))
}

/// splitmix64, byte for byte the native ByteStream (hexutil.cpp).
pub struct ByteStream {
    state: u64,
}

impl ByteStream {
    pub fn new(seed: u64) -> Self {
        ByteStream { state: seed }
    }
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// The case's message (engine.cpp, make_input).
pub fn make_input(kind: &str, n: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; n];
    if kind == "zeros" {
        return out;
    }
    ByteStream::new(seed ^ 0x1234567).fill(&mut out);
    if kind == "text" {
        const PRINTABLE: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_=\n";
        for b in out.iter_mut() {
            *b = PRINTABLE[*b as usize % PRINTABLE.len()];
        }
    }
    out
}

/// The case's own input: the message, or nothing for key generation and key agreement.
pub fn case_input(spec: &CaseSpec, info: &AlgorithmInfo) -> Vec<u8> {
    if spec.operation == "keygen" || info.kind == "key-agreement" {
        return Vec::new();
    }
    make_input(&spec.input, spec.size as usize, spec.seed)
}
