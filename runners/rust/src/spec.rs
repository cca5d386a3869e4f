//! The case specification (docs/protocol.md, "Case specification"): its fields, their parsing
//! with the native runner's checks and messages (protocol.cpp, parse_case), and the case's own
//! input (splitmix64 bytes, as every runner makes them).

use crate::providers::{provider_by_name, provider_names};
use crate::types::*;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// docs/protocol.md, "Case specification": decoded strictly over its defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
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
    pub batch: u64,
    pub target_sample_ms: f64,
    pub warmup_ms: f64,
    pub heap_iterations: u64,
    pub seed: u64,
    pub agreement: bool,
    pub cost: BTreeMap<String, u64>,
    pub inplace: bool,
}

impl Default for CaseSpec {
    fn default() -> Self {
        CaseSpec {
            id: String::new(),
            provider: String::new(),
            variant: String::new(),
            operation: String::new(),
            algorithm: String::new(),
            size: 0,
            input: "random".into(),
            align_offset: 0,
            aad_bytes: 0,
            samples: 11,
            batch: 1,
            target_sample_ms: 2.0,
            warmup_ms: 20.0,
            heap_iterations: 8,
            seed: 1,
            agreement: true,
            cost: BTreeMap::new(),
            inplace: true,
        }
    }
}

/// A malformed request or spec: an `error` reply, and the runner carries on.
#[derive(Debug)]
pub struct SpecError(pub String);

/// protocol.cpp, parse_case: the fields, then their values against the catalogue and this
/// runner's providers.
pub fn parse_case(raw: &Value, where_: &str) -> Result<CaseSpec, SpecError> {
    let m = raw.as_object().ok_or_else(|| SpecError(format!("{where_}: must be an object")))?;
    if let Some(k) = ["id", "provider", "operation", "algorithm", "size"].iter().find(|k| !m.contains_key(**k)) {
        return Err(SpecError(format!("{where_}.{k}: missing")));
    }
    let s = CaseSpec::deserialize(raw).map_err(|e| SpecError(format!("{where_}: {e}")))?;
    let info = find_algorithm(&s.algorithm);
    let (min, block) = info.map(|i| (i.min_size as u64, i.block_bytes as u64)).unwrap_or((0, 1));
    let ops = ["encrypt", "decrypt", "hash", "mac", "keygen", "sign", "verify", "derive", "encaps", "decaps"];
    let checks = [
        (
            "provider",
            provider_by_name(&s.provider).is_none(),
            format!("unknown provider '{}' (this runner has: {})", s.provider, provider_names().join(", ")),
        ),
        ("algorithm", info.is_none(), format!("unknown algorithm '{}'", s.algorithm)),
        (
            "operation",
            !ops.contains(&s.operation.as_str()),
            format!("unknown operation '{}' ({})", s.operation, ops.join(", ")),
        ),
        (
            "operation",
            info.is_some_and(|i| !i.has_op(&s.operation)),
            format!("{} does not apply to {}", s.operation, s.algorithm),
        ),
        (
            "size",
            s.size > 1 << 30 || s.size < min || s.size % block != 0,
            format!("{} needs at least {min} bytes in multiples of {block}", s.algorithm),
        ),
        ("input", !["random", "zeros", "text"].contains(&s.input.as_str()), "must be random, zeros or text".into()),
        ("align_offset", s.align_offset > 63, "must be between 0 and 63".into()),
        ("aad_bytes", s.aad_bytes > 1 << 20, "must be between 0 and 1048576".into()),
        (
            "samples",
            s.samples < 1 || s.batch < 1 || s.heap_iterations < 1,
            "samples, batch and heap_iterations must be at least 1".into(),
        ),
        (
            "target_sample_ms",
            s.target_sample_ms < 0.001 || s.warmup_ms < 0.0,
            "must be at least 0.001 (warmup_ms: 0)".into(),
        ),
        (
            "cost",
            !s.cost.is_empty() && info.is_some_and(|i| i.kind != "kdf"),
            format!("{} takes no cost parameters (only KDFs do)", s.algorithm),
        ),
    ];
    match checks.into_iter().find(|c| c.1) {
        Some((field, _, why)) => Err(SpecError(format!("{where_}.{field}: {why}"))),
        None => Ok(s),
    }
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
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = vec![0; n];
        self.fill(&mut out);
        out
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

/// The case's own input: the message, or nothing for key generation, key agreement and KEMs.
pub fn case_input(spec: &CaseSpec, info: &AlgorithmInfo) -> Vec<u8> {
    if spec.operation == "keygen" || info.kind == "key-agreement" || info.kind == "kem" {
        return Vec::new();
    }
    make_input(&spec.input, spec.size as usize, spec.seed)
}

/// What the coordinator sends a symmetric case (gate/material.py): key and IV from
/// ByteStream(seed); for the fidelity bench and the unit tests, which have no coordinator.
pub fn symmetric_params(info: &AlgorithmInfo, seed: u64) -> Value {
    let mut s = ByteStream::new(seed);
    json!({"key": hex::encode(s.bytes(info.key_bytes)), "iv": hex::encode(s.bytes(info.iv_bytes))})
}
