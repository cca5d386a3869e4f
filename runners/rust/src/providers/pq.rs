//! What the post-quantum adapters of `aws-lc-rs` and `rustcrypto` share: the key parts' names and
//! the signing convention of docs/post-quantum.md, the system RNG, and the KEM's output layout.

use crate::types::*;

/// The names of a post-quantum key's parts (docs/post-quantum.md, "Keys").
pub struct KeyNames;

impl KeyNames {
    /// The FIPS 203/204 seed: ML-KEM d‖z (64 bytes), ML-DSA ξ (32 bytes).
    pub const SEED: &'static str = "seed";
    /// The public key's FIPS encoding (ML-KEM ek, ML-DSA pk, SLH-DSA PK.seed‖PK.root).
    pub const PUBLIC: &'static str = "pub";
    /// The private key's FIPS encoding (ML-KEM dk and ML-DSA sk expanded, SLH-DSA's 4n bytes).
    pub const PRIVATE: &'static str = "priv";
}

/// ML-DSA and SLH-DSA signing: hedged (fresh randomness per signature, FIPS 204/205's default).
pub const HEDGED: bool = true;

/// The operating system's RNG, infallible (the crates' `CryptoRng`).
pub fn rng() -> rand_core::UnwrapErr<getrandom::SysRng> {
    rand_core::UnwrapErr(getrandom::SysRng)
}

pub fn fill_random(b: &mut [u8]) -> Res<()> {
    getrandom::fill(b).map_err(|e| failed(format!("no randomness: {e}")))
}

/// Encapsulation's output: the ciphertext, then the shared secret.
pub fn write_two(io: &mut Io, ct: &[u8], ss: &[u8]) -> Res<usize> {
    let n = ct.len() + ss.len();
    if io.out.len() < n {
        return Err(failed("output buffer too small"));
    }
    io.out[..ct.len()].copy_from_slice(ct);
    io.out[ct.len()..n].copy_from_slice(ss);
    Ok(n)
}

/// A generated key's parts: its seed, public key and private key (each left out when empty:
/// docs/post-quantum.md exports `seed` and `pub` where the library gives the seed, else `priv`).
pub fn key_parts(seed: &[u8], public: &[u8], private: &[u8]) -> Res<KeyParts> {
    let mut k = KeyParts::new();
    for (name, v) in [(KeyNames::SEED, seed), (KeyNames::PUBLIC, public), (KeyNames::PRIVATE, private)] {
        if !v.is_empty() {
            k.insert(name.into(), v.to_vec());
        }
    }
    Ok(k)
}
