//! The providers of this runner: `ring`, `aws-lc-rs` and `rustcrypto`.

#[cfg(feature = "c-providers")]
pub mod awslc;
#[cfg(feature = "c-providers")]
pub mod awslc_pq;
pub mod pq;
#[cfg(feature = "c-providers")]
pub mod ring;
pub mod rustcrypto;
pub mod rustcrypto_pq;

use crate::types::{AlgorithmInfo, KeyParts, Provider, Res, failed};

#[cfg(feature = "c-providers")]
static PROVIDERS: [&'static dyn Provider; 3] = [&ring::Ring, &awslc::AwsLc, &rustcrypto::RustCrypto];
// The soft build: RustCrypto only (see variants.rs).
#[cfg(not(feature = "c-providers"))]
static PROVIDERS: [&'static dyn Provider; 1] = [&rustcrypto::RustCrypto];

pub fn providers() -> &'static [&'static dyn Provider] {
    &PROVIDERS
}

pub fn provider_by_name(name: &str) -> Option<&'static dyn Provider> {
    #[cfg(test)]
    if let Some(p) = EXTRA.with(|e| e.borrow().iter().copied().find(|p| p.name() == name)) {
        return Some(p);
    }
    PROVIDERS.iter().copied().find(|p| p.name() == name)
}

// Providers the unit tests add (wrappers around real ones that misbehave on purpose).
#[cfg(test)]
thread_local! {
    pub static EXTRA: std::cell::RefCell<Vec<&'static dyn Provider>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub fn provider_names() -> Vec<&'static str> {
    PROVIDERS.iter().map(|p| p.name()).collect()
}

/// A big-endian integer left-padded with zeros to `n` bytes (key parts travel unpadded).
pub fn padded(b: &[u8], n: usize) -> Vec<u8> {
    if b.len() >= n {
        return b[b.len() - n..].to_vec();
    }
    let mut out = vec![0u8; n - b.len()];
    out.extend_from_slice(b);
    out
}

/// The uncompressed SEC1 point 04‖x‖y of an EC key's parts, each padded to the field size.
pub fn ec_point(k: &KeyParts, size: usize) -> Vec<u8> {
    let mut out = vec![4u8];
    out.extend(padded(crate::types::part(k, "x"), size));
    out.extend(padded(crate::types::part(k, "y"), size));
    out
}

/// Field size in bytes of an EC key type.
pub fn ec_size(info: &AlgorithmInfo) -> usize {
    match info.key_type.rsplit('-').next().unwrap_or("") {
        "p384" => 48,
        "p521" => 66,
        _ => 32,
    }
}

pub fn array32(b: &[u8], what: &str) -> Res<[u8; 32]> {
    b.try_into().map_err(|_| failed(format!("{what} must be 32 bytes, got {}", b.len())))
}
