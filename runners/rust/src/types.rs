//! Shared types of the Rust runner: the catalogue, operations and the provider trait, shaped like
//! native/include/cryptobench/{algorithms,provider}.hpp and runners/go/types.go.

use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

/// One catalogue entry: the fields the runner reads of those `cryptobench-native list` prints.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct AlgorithmInfo {
    pub name: String,
    pub kind: String,
    pub operations: Vec<String>,
    pub key_bytes: usize,
    pub iv_bytes: usize,
    pub tag_bytes: usize,
    /// A signature's or KEM secret's length (0 where the output's length varies).
    pub output_bytes: usize,
    /// A KEM's ciphertext (what goes on the wire besides the public key).
    pub ciphertext_bytes: usize,
    pub family: String,
    pub key_type: String,
    /// The entry as `cryptobench-native list` prints it (what `list` sends back).
    #[serde(skip)]
    pub json: Value,
}

impl AlgorithmInfo {
    pub fn has_op(&self, op: &str) -> bool {
        self.operations.iter().any(|o| o == op)
    }
}

/// The catalogue: the repository's catalogue/algorithms.json, embedded at build time (no copy in
/// this tree); python/tests/test_catalogue.py checks that `list` prints its entries unchanged.
const CATALOGUE_JSON: &str = include_str!("../../../catalogue/algorithms.json");

pub fn catalogue() -> &'static [AlgorithmInfo] {
    static CAT: OnceLock<Vec<AlgorithmInfo>> = OnceLock::new();
    CAT.get_or_init(|| {
        let file: Value = serde_json::from_str(CATALOGUE_JSON).expect("catalogue/algorithms.json");
        let all = file["algorithms"].as_array().cloned().expect("catalogue/algorithms.json: algorithms");
        all.into_iter()
            .map(|v| {
                let mut a: AlgorithmInfo =
                    serde_json::from_value(v.clone()).expect("catalogue/algorithms.json: an entry");
                a.json = v;
                a
            })
            .collect()
    })
}

pub fn find_algorithm(name: &str) -> Option<&'static AlgorithmInfo> {
    catalogue().iter().find(|a| a.name == name)
}

/// Room an operation's output may need beyond its input: the largest output of the public-key
/// kinds (an SLH-DSA signature, a KEM's ciphertext and secret), at least 1 KiB.
pub fn output_room(info: &AlgorithmInfo) -> usize {
    (info.output_bytes + info.ciphertext_bytes).max(1024)
}

/// A key's named big-endian parts (docs/protocol.md, "Keys").
pub type KeyParts = BTreeMap<String, Vec<u8>>;

pub fn part<'a>(k: &'a KeyParts, name: &str) -> &'a [u8] {
    k.get(name).map(Vec::as_slice).unwrap_or(&[])
}

/// Parameters for preparing one operation (provider.hpp, Params).
#[derive(Clone, Default, Debug)]
pub struct Params {
    pub key: Vec<u8>,
    pub iv: Vec<u8>,
    pub aad: Vec<u8>,
    pub keypair: KeyParts,
    /// open's params: the test key's public parts
    pub public: KeyParts,
    pub peer: KeyParts,
    pub signature: Vec<u8>,
    pub salt: Vec<u8>,
    pub info: Vec<u8>,
    /// Argon2id's secret K and associated data X.
    pub secret: Vec<u8>,
    pub ad: Vec<u8>,
    pub out_len: usize,
    pub cost: BTreeMap<String, u64>,
    /// A KEM encapsulation's m, for derandomised encapsulation (the gate's known answers).
    pub randomness: Option<Vec<u8>>,
}

impl Params {
    pub fn cost(&self, name: &str) -> u64 {
        self.cost.get(name).copied().unwrap_or(0)
    }
}

/// Why an operation did not give an output.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The provider does not offer this (a case status, never a failure).
    Unsupported(String),
    /// A verifier or an AEAD decryption refused a forgery.
    Rejected(String),
    /// The library failed.
    Failed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported(s) | Error::Rejected(s) | Error::Failed(s) => f.write_str(s),
        }
    }
}

pub type Res<T> = Result<T, Error>;

pub fn unsupported(s: impl Into<String>) -> Error {
    Error::Unsupported(s.into())
}
pub fn failed(s: impl fmt::Display) -> Error {
    Error::Failed(s.to_string())
}
pub fn rejected(s: impl Into<String>) -> Error {
    Error::Rejected(s.into())
}

/// The buffers of one operation: the input in a buffer of its own (`input` is Some), or in place
/// (the first `len` bytes of `out` are the input). The output always starts at `out[0]`.
pub struct Io<'a> {
    input: Option<&'a [u8]>,
    pub out: &'a mut [u8],
    len: usize,
}

impl<'a> Io<'a> {
    pub fn separate(input: &'a [u8], out: &'a mut [u8]) -> Self {
        Io { len: input.len(), input: Some(input), out }
    }
    pub fn in_place(buf: &'a mut [u8], len: usize) -> Self {
        Io { input: None, out: buf, len }
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn input(&self) -> &[u8] {
        match self.input {
            Some(i) => i,
            None => &self.out[..self.len],
        }
    }
    /// For APIs that only work in place: out[..len] holds the input afterwards (copied there when
    /// the input has a buffer of its own, as a user of such an API must).
    pub fn in_place_buf(&mut self) -> Res<&mut [u8]> {
        if self.out.len() < self.len {
            return Err(failed("output buffer too small"));
        }
        if let Some(i) = self.input {
            self.out[..self.len].copy_from_slice(i);
        }
        Ok(&mut *self.out)
    }
    /// Input and output as two slices when they are separate; None in place.
    pub fn split(&mut self) -> Option<(&[u8], &mut [u8])> {
        self.input.map(|i| (i, &mut *self.out))
    }
    /// The input and the first `n` bytes of the output, for operations that always run out of
    /// place (public-key and KDF cases).
    pub fn parts(&mut self, n: usize) -> Res<(&[u8], &mut [u8])> {
        let (input, out) = self.split().ok_or_else(|| failed("this operation runs out of place"))?;
        if out.len() < n {
            return Err(failed("output buffer too small"));
        }
        Ok((input, &mut out[..n]))
    }
    /// Writes a computed output (a digest, a signature) at the start of the output buffer.
    pub fn write(&mut self, data: &[u8]) -> Res<usize> {
        if self.out.len() < data.len() {
            return Err(failed("output buffer too small"));
        }
        self.out[..data.len()].copy_from_slice(data);
        Ok(data.len())
    }
}

/// One prepared operation: a call does one operation and returns the output's length (the output
/// is `io.out[..n]`). It must restart every time (the gate runs it twice).
pub type BoxOp = Box<dyn FnMut(&mut Io) -> Res<usize>>;

pub fn op<F: FnMut(&mut Io) -> Res<usize> + 'static>(f: F) -> Res<BoxOp> {
    Ok(Box::new(f))
}

/// A variant of a provider: a switch of its code path (docs/protocol.md).
pub struct Variant {
    pub name: &'static str,
    pub description: &'static str,
    /// Environment variables this variant sets (None: the variable is removed).
    pub env: &'static [(&'static str, Option<&'static str>)],
    /// Runs in the soft build (RustCrypto's portable backends, chosen at compile time).
    pub soft_build: bool,
}

/// One library binding (provider.hpp, Provider). `prepare` returns Unsupported for what the
/// provider does not offer before it reads any parameter: that is how the runner probes what it
/// offers (docs/protocol.md, "What a provider offers"); its "keygen" is `keygen_op`.
pub trait Provider: Sync {
    fn name(&self) -> &'static str;
    fn version(&self) -> String;
    fn prepare(&self, info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp>;
    fn generate_key(&self, info: &AlgorithmInfo) -> Res<KeyParts>;
    /// The key pair a FIPS 203/204/205 seed gives (KeyGen_internal): the gate's known answer for
    /// key generation (docs/post-quantum.md). Unsupported where the library takes no seed.
    fn key_from_seed(&self, info: &AlgorithmInfo, _seed: &[u8]) -> Res<KeyParts> {
        Err(unsupported(format!("{} derives no {} key from a seed", self.name(), info.name)))
    }
    /// MAC verification for the `leak` request (docs/leaks.md, "MAC verification"): the input is
    /// message ‖ tag; a valid tag gives no output, a wrong one is `Rejected`, the way the
    /// library's caller checks a tag. Unsupported where the provider offers no MAC.
    fn prepare_mac_verify(&self, info: &AlgorithmInfo, _p: &Params) -> Res<BoxOp> {
        Err(unsupported(format!("{} offers no verification of {}", self.name(), info.name)))
    }
    fn code_path(&self) -> Map<String, Value>;
    fn variants(&self) -> &'static [Variant];
}

/// A MAC verification's input split into the message and the `tag_len` bytes of its tag (None
/// when it is shorter than a tag).
pub fn message_and_tag(input: &[u8], tag_len: usize) -> Option<(&[u8], &[u8])> {
    input.len().checked_sub(tag_len).map(|n| input.split_at(n))
}

/// A wrong tag in a MAC verification.
pub fn mac_mismatch() -> Error {
    rejected("the MAC does not verify")
}

/// Key generation as a prepared operation (an adapter's `prepare` of "keygen"): preparing it
/// generates nothing, each run generates one key.
pub fn keygen_op(generate: fn(&AlgorithmInfo) -> Res<KeyParts>, info: &AlgorithmInfo) -> Res<BoxOp> {
    let info = info.clone();
    op(move |_: &mut Io| {
        std::hint::black_box(generate(&info)?);
        Ok(0)
    })
}
