//! Known-answer vectors and test keys from vectors/ (same files and parsing as
//! native/src/core/vectors.cpp and runners/go/vectors.go), and the splitmix64 byte stream.

use crate::types::{AlgorithmInfo, KeyParts, Params};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;

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

/// Where vectors/ is: --vectors, then $CRYPTOBENCH_VECTORS, then the checkout's (set at build time
/// by build.sh through CRYPTOBENCH_VECTORS_DIR), then ./vectors.
static VECTORS_FLAG: Mutex<Option<String>> = Mutex::new(None);

pub fn set_vectors_dir(dir: &str) {
    *VECTORS_FLAG.lock().unwrap() = Some(dir.to_string());
}

pub fn vectors_dir() -> String {
    if let Some(d) = VECTORS_FLAG.lock().unwrap().clone() {
        return d;
    }
    if let Ok(d) = std::env::var("CRYPTOBENCH_VECTORS") {
        if !d.is_empty() {
            return d;
        }
    }
    option_env!("CRYPTOBENCH_VECTORS_DIR").unwrap_or("vectors").to_string()
}

/// A symmetric, hash or MAC known answer.
#[derive(Clone, Default)]
pub struct Vector {
    pub source: String,
    pub key: Vec<u8>,
    pub iv: Vec<u8>,
    pub aad: Vec<u8>,
    pub input: Vec<u8>,
    pub expected: Vec<u8>,
    pub initial_counter: usize,
}

/// A public-key or KDF known answer.
#[derive(Clone, Default)]
pub struct PkVector {
    pub source: String,
    pub key: KeyParts,
    pub peer: KeyParts,
    pub message: Vec<u8>,
    pub signature: Vec<u8>,
    pub valid: bool,
    pub strict_only: bool,
    pub plaintext: Vec<u8>,
    pub ciphertext: Vec<u8>,
    pub shared: Vec<u8>,
    pub input: Vec<u8>,
    pub output: Vec<u8>,
    pub kdf: Params,
}

thread_local! {
    static FAMILIES: RefCell<HashMap<String, Vec<Value>>> = RefCell::new(HashMap::new());
    static KEYS: RefCell<Option<HashMap<String, KeyParts>>> = const { RefCell::new(None) };
}

fn family_doc(family: &str) -> Result<(Vec<Value>, String), String> {
    let path = format!("{}/{}.json", vectors_dir(), family);
    if let Some(v) = FAMILIES.with(|f| f.borrow().get(&path).cloned()) {
        return Ok((v, path));
    }
    let mut vectors = Vec::new();
    if let Ok(text) = std::fs::read_to_string(&path) {
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        vectors = doc.get("vectors").and_then(Value::as_array).cloned().unwrap_or_default();
    }
    FAMILIES.with(|f| f.borrow_mut().insert(path.clone(), vectors.clone()));
    Ok((vectors, path))
}

fn hex_field(v: &Value, field: &str, where_: &str, err: &mut Option<String>) -> Vec<u8> {
    match v.get(field) {
        None => Vec::new(),
        Some(Value::String(s)) => hex::decode(s).unwrap_or_else(|e| {
            err.get_or_insert(format!("{where_}.{field}: {e}"));
            Vec::new()
        }),
        Some(_) => {
            err.get_or_insert(format!("{where_}.{field}: not a hex string"));
            Vec::new()
        }
    }
}

pub fn key_field(v: &Value, field: &str, where_: &str) -> Result<KeyParts, String> {
    let mut parts = KeyParts::new();
    let Some(raw) = v.get(field) else { return Ok(parts) };
    let Some(m) = raw.as_object() else {
        return Err(format!("{where_}.{field}: not an object of hex strings"));
    };
    for (k, s) in m {
        let s = s.as_str().ok_or(format!("{where_}.{field}.{k}: not a hex string"))?;
        parts.insert(k.clone(), hex::decode(s).map_err(|e| format!("{where_}.{field}.{k}: {e}"))?);
    }
    Ok(parts)
}

fn each_vector(info: &AlgorithmInfo, mut f: impl FnMut(&Value, &str) -> Result<(), String>) -> Result<(), String> {
    let (doc, path) = family_doc(&info.family)?;
    for (i, v) in doc.iter().enumerate() {
        if v.get("algorithm").and_then(Value::as_str) != Some(info.name.as_str()) {
            continue;
        }
        f(v, &format!("{path}: vectors[{i}]"))?;
    }
    Ok(())
}

fn str_field(v: &Value, field: &str) -> String {
    v.get(field).and_then(Value::as_str).unwrap_or("").to_string()
}

pub fn vectors_for(info: &AlgorithmInfo) -> Result<Vec<Vector>, String> {
    let mut out = Vec::new();
    each_vector(info, |v, where_| {
        let mut err = None;
        let mut get = |f: &str| hex_field(v, f, where_, &mut err);
        let mut x = Vector {
            source: str_field(v, "source"),
            key: get("key"),
            iv: get("iv"),
            aad: get("aad"),
            initial_counter: v.get("initial_counter").and_then(Value::as_u64).unwrap_or(0) as usize,
            ..Default::default()
        };
        match info.kind.as_str() {
            "cipher" => {
                x.input = get("plaintext");
                x.expected = get("ciphertext");
            }
            "aead" => {
                x.input = get("plaintext");
                x.expected = get("ciphertext");
                x.expected.extend(get("tag"));
            }
            "hash" | "mac" => {
                let msg = get("message");
                let repeat = v.get("repeat").and_then(Value::as_u64).unwrap_or(1) as usize;
                x.input = msg.repeat(repeat);
                x.expected = if info.kind == "hash" { get("digest") } else { get("tag") };
            }
            _ => {}
        }
        if let Some(e) = err {
            return Err(e);
        }
        out.push(x);
        Ok(())
    })?;
    Ok(out)
}

pub fn pk_vectors_for(info: &AlgorithmInfo) -> Result<Vec<PkVector>, String> {
    let mut out = Vec::new();
    each_vector(info, |v, where_| {
        let mut err = None;
        let mut get = |f: &str| hex_field(v, f, where_, &mut err);
        let mut x = PkVector {
            source: str_field(v, "source"),
            valid: v.get("valid").and_then(Value::as_bool).unwrap_or(true),
            strict_only: v.get("strict_only").and_then(Value::as_bool).unwrap_or(false),
            message: get("message"),
            signature: get("signature"),
            plaintext: get("plaintext"),
            ciphertext: get("ciphertext"),
            shared: get("shared"),
            input: get("input"),
            output: get("output"),
            ..Default::default()
        };
        x.kdf = Params {
            salt: get("salt"),
            info: get("info"),
            secret: get("secret"),
            ad: get("ad"),
            out_len: x.output.len(),
            ..Default::default()
        };
        if let Some(e) = err {
            return Err(e);
        }
        x.key = key_field(v, "key", where_)?;
        x.peer = key_field(v, "peer", where_)?;
        if let Some(cost) = v.get("cost") {
            let m: &Map<String, Value> = cost.as_object().ok_or(format!("{where_}.cost: not an object"))?;
            for (k, n) in m {
                let n = n.as_u64().ok_or(format!("{where_}.cost.{k}: not an integer"))?;
                x.kdf.cost.insert(k.clone(), n);
            }
        }
        out.push(x);
        Ok(())
    })?;
    Ok(out)
}

pub fn test_key(name: &str) -> Result<KeyParts, String> {
    let loaded = KEYS.with(|k| k.borrow().is_some());
    if !loaded {
        let path = format!("{}/keys.json", vectors_dir());
        let text = std::fs::read_to_string(&path).map_err(|_| format!("cannot read the test keys {path}"))?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        let keys = doc.get("keys").cloned().unwrap_or(Value::Null);
        let mut all = HashMap::new();
        if let Some(m) = keys.as_object() {
            for k in m.keys() {
                all.insert(k.clone(), key_field(&keys, k, &format!("{path}: keys"))?);
            }
        }
        KEYS.with(|k| *k.borrow_mut() = Some(all));
    }
    KEYS.with(|k| k.borrow().as_ref().unwrap().get(name).cloned())
        .ok_or_else(|| format!("no test key {name} in {}/keys.json", vectors_dir()))
}

/// The public parts of a key (gate_pk.cpp, public_parts).
pub fn public_parts(info: &AlgorithmInfo, key: &KeyParts) -> KeyParts {
    let t = info.key_type.as_str();
    let names: &[&str] = if t.starts_with("rsa-") {
        &["n", "e"]
    } else if t.starts_with("ecdsa-") || t.starts_with("ecdh-") {
        &["x", "y"]
    } else if t.starts_with("ffdhe") {
        &["y"]
    } else {
        &["pub"]
    };
    names.iter().filter_map(|n| key.get(*n).map(|b| (n.to_string(), b.clone()))).collect()
}

/// The part that makes a key private (EC's x is a public coordinate).
pub fn private_part(info: &AlgorithmInfo) -> &'static str {
    let t = info.key_type.as_str();
    if t.starts_with("ffdhe") {
        "x"
    } else if t.starts_with("rsa-") || t.starts_with("ecdsa-") || t.starts_with("ecdh-") {
        "d"
    } else {
        "priv"
    }
}

pub fn has_private(info: &AlgorithmInfo, key: &KeyParts) -> bool {
    key.get(private_part(info)).is_some_and(|v| !v.is_empty())
}
