//! The post-quantum part of provider `rustcrypto`: ML-KEM (`ml-kem`, FIPS 203), ML-DSA (`ml-dsa`,
//! FIPS 204) and SLH-DSA (`slh-dsa`, FIPS 205), through their normal APIs (docs/post-quantum.md).
//!
//! Keys: ML-KEM and ML-DSA private keys are loaded from the FIPS seed (ML-KEM d‖z, 64 bytes;
//! ML-DSA ξ, 32 bytes), expanded when the operation is prepared (outside the timed operation);
//! public keys are the FIPS encodings, decoded when the operation is prepared. SLH-DSA keys are
//! the FIPS 205 encodings (SK.seed‖SK.prf‖PK.seed‖PK.root and PK.seed‖PK.root).

use crate::providers::pq::{self, KeyNames};
use crate::types::*;

fn op_box<F: FnMut(&mut Io) -> Res<usize> + 'static>(f: F) -> Res<BoxOp> {
    Ok(Box::new(f))
}

pub const ALGORITHMS: &[&str] = &[
    "ml-kem-512",
    "ml-kem-768",
    "ml-kem-1024",
    "ml-dsa-44",
    "ml-dsa-65",
    "ml-dsa-87",
    "slh-dsa-sha2-128s",
    "slh-dsa-sha2-128f",
    "slh-dsa-sha2-192s",
    "slh-dsa-sha2-192f",
    "slh-dsa-sha2-256s",
    "slh-dsa-sha2-256f",
    "slh-dsa-shake-128s",
    "slh-dsa-shake-128f",
    "slh-dsa-shake-192s",
    "slh-dsa-shake-192f",
    "slh-dsa-shake-256s",
    "slh-dsa-shake-256f",
];

fn sized<'a, T: TryFrom<&'a [u8]>>(b: &'a [u8], what: &str) -> Res<T> {
    T::try_from(b).map_err(|_| failed(format!("{what} has the wrong length ({} bytes)", b.len())))
}

/// ML-KEM of one parameter set: encapsulation to the public key (output ciphertext‖shared
/// secret; with `randomness`, FIPS 203's ML-KEM.Encaps_internal on that m, the crate's `hazmat`
/// API), decapsulation of the input ciphertext with the key from its seed (output the secret).
macro_rules! ml_kem_op {
    ($p:ty, $op:expr, $params:expr) => {{
        use ml_kem::{Decapsulate, EncapsulationKey, TryKeyInit};
        let k = &$params.keypair;
        match $op {
            "encaps" => {
                let ek = EncapsulationKey::<$p>::new_from_slice(part(k, KeyNames::PUBLIC))
                    .map_err(|_| rejected("the ML-KEM encapsulation key was refused"))?;
                match &$params.randomness {
                    Some(m) => {
                        let m: ml_kem::B32 = sized(m, "the encapsulation's randomness m")?;
                        op_box(move |io: &mut Io| {
                            let (ct, ss) = ek.encapsulate_deterministic(&m);
                            pq::write_two(io, &ct, &ss)
                        })
                    }
                    None => op_box(move |io: &mut Io| {
                        let (ct, ss) = ml_kem::Encapsulate::encapsulate_with_rng(&ek, &mut pq::rng());
                        pq::write_two(io, &ct, &ss)
                    }),
                }
            }
            "decaps" => {
                let dk = ml_kem_private!($p, k);
                op_box(move |io: &mut Io| {
                    let ss = dk
                        .decapsulate_slice(io.input())
                        .map_err(|_| rejected("the ciphertext has the wrong length"))?;
                    io.write(&ss)
                })
            }
            _ => Err(unsupported(format!("{} is not an ML-KEM operation", $op))),
        }
    }};
}

/// The decapsulation key from its seed, or from the expanded key where a key has no seed (the
/// crate validates it: FIPS 203's check of H(ek)).
macro_rules! ml_kem_private {
    ($p:ty, $k:expr) => {{
        #[allow(deprecated)]
        use ml_kem::ExpandedKeyEncoding;
        if !part($k, KeyNames::SEED).is_empty() {
            let seed: ml_kem::Seed = sized(part($k, KeyNames::SEED), "the ML-KEM seed")?;
            ml_kem::DecapsulationKey::<$p>::from_seed(seed)
        } else {
            let expanded = ml_kem::array::Array::try_from(part($k, KeyNames::PRIVATE))
                .map_err(|_| failed("the key has neither a seed nor an expanded ML-KEM key of the right length"))?;
            #[allow(deprecated)]
            ml_kem::DecapsulationKey::<$p>::from_expanded_bytes(&expanded)
                .map_err(|_| failed("the expanded ML-KEM key was refused"))?
        }
    }};
}

/// An ML-KEM key pair from a seed (fresh where none is given): its seed and encapsulation key.
macro_rules! ml_kem_keygen {
    ($p:ty, $seed:expr) => {{
        use ml_kem::KeyExport;
        let seed: ml_kem::Seed = match $seed {
            Some(s) => sized(s, "the ML-KEM seed")?,
            None => {
                let mut s = ml_kem::Seed::default();
                pq::fill_random(&mut s)?;
                s
            }
        };
        let dk = ml_kem::DecapsulationKey::<$p>::from_seed(seed);
        pq::key_parts(&seed, &dk.encapsulation_key().to_bytes(), &[])
    }};
}

/// ML-DSA of one parameter set, pure ML-DSA with an empty context; signing hedged (FIPS 204's
/// default: 32 fresh random bytes per signature) or deterministic, as the convention says.
macro_rules! ml_dsa_op {
    ($p:ty, $op:expr, $params:expr) => {{
        let k = &$params.keypair;
        match $op {
            "sign" => {
                let xi: ml_dsa::B32 = sized(part(k, KeyNames::SEED), "the ML-DSA seed")?;
                let sk = ml_dsa::SigningKey::<$p>::from_seed(&xi);
                op_box(move |io: &mut Io| {
                    let sig = if pq::HEDGED {
                        sk.expanded_key().sign_randomized(io.input(), &[], &mut pq::rng())
                    } else {
                        sk.expanded_key().sign_deterministic(io.input(), &[])
                    }
                    .map_err(|_| failed("ML-DSA signing failed"))?;
                    io.write(&sig.encode())
                })
            }
            "verify" => {
                let enc: ml_dsa::EncodedVerifyingKey<$p> = sized(part(k, KeyNames::PUBLIC), "the ML-DSA public key")?;
                let vk = ml_dsa::VerifyingKey::<$p>::decode(&enc);
                let sig = ml_dsa::Signature::<$p>::try_from($params.signature.as_slice())
                    .map_err(|_| rejected("the ML-DSA signature cannot be decoded"));
                op_box(move |io: &mut Io| {
                    let sig = sig.as_ref().map_err(Clone::clone)?;
                    if !vk.verify_with_context(io.input(), &[], sig) {
                        return Err(rejected("ML-DSA signature does not verify"));
                    }
                    Ok(0)
                })
            }
            _ => Err(unsupported(format!("{} is not an ML-DSA operation", $op))),
        }
    }};
}

macro_rules! ml_dsa_keygen {
    ($p:ty, $seed:expr) => {{
        let xi: ml_dsa::B32 = match $seed {
            Some(s) => sized(s, "the ML-DSA seed")?,
            None => {
                let mut s = ml_dsa::B32::default();
                pq::fill_random(&mut s)?;
                s
            }
        };
        let sk = ml_dsa::SigningKey::<$p>::from_seed(&xi);
        pq::key_parts(&xi, &sk.expanded_key().verifying_key().encode(), &[])
    }};
}

/// SLH-DSA of one parameter set, pure SLH-DSA with an empty context; hedged signing takes n fresh
/// random bytes (opt_rand), deterministic signing PK.seed (FIPS 205, Algorithm 22).
#[cfg(feature = "slh-dsa")]
macro_rules! slh_dsa_op {
    ($p:ty, $op:expr, $params:expr) => {{
        let k = &$params.keypair;
        match $op {
            "sign" => {
                let sk = slh_dsa::SigningKey::<$p>::try_from(part(k, KeyNames::PRIVATE))
                    .map_err(|_| failed("the SLH-DSA private key was refused"))?;
                let n = sk.as_ref().to_bytes().len() / 2;
                op_box(move |io: &mut Io| {
                    let mut rnd = [0u8; 32];
                    let opt = if pq::HEDGED {
                        pq::fill_random(&mut rnd[..n])?;
                        Some(&rnd[..n])
                    } else {
                        None
                    };
                    let sig =
                        sk.try_sign_with_context(io.input(), &[], opt).map_err(|_| failed("SLH-DSA signing failed"))?;
                    io.write(&sig.to_bytes())
                })
            }
            "verify" => {
                let vk = slh_dsa::VerifyingKey::<$p>::try_from(part(k, KeyNames::PUBLIC))
                    .map_err(|_| rejected("the SLH-DSA public key was refused"))?;
                let sig = slh_dsa::Signature::<$p>::try_from($params.signature.as_slice())
                    .map_err(|_| rejected("the SLH-DSA signature cannot be decoded"));
                op_box(move |io: &mut Io| {
                    let sig = sig.as_ref().map_err(Clone::clone)?;
                    vk.try_verify_with_context(io.input(), &[], sig)
                        .map_err(|_| rejected("SLH-DSA signature does not verify"))?;
                    Ok(0)
                })
            }
            _ => Err(unsupported(format!("{} is not an SLH-DSA operation", $op))),
        }
    }};
}

/// An SLH-DSA key pair from SK.seed‖SK.prf‖PK.seed (slh_keygen_internal; fresh where none is
/// given): its seed, private and public key.
#[cfg(feature = "slh-dsa")]
macro_rules! slh_dsa_keygen {
    ($p:ty, $seed:expr) => {{
        let sk = match $seed {
            Some(s) => {
                let n = s.len() / 3;
                if s.len() % 3 != 0 || n == 0 {
                    return Err(failed(format!("an SLH-DSA seed is 3n bytes, not {}", s.len())));
                }
                slh_dsa::SigningKey::<$p>::slh_keygen_internal(&s[..n], &s[n..2 * n], &s[2 * n..])
            }
            None => slh_dsa::SigningKey::<$p>::new(&mut pq::rng()),
        };
        let private = sk.to_bytes();
        pq::key_parts(&private[..private.len() / 4 * 3], &sk.as_ref().to_bytes(), &private)
    }};
}

#[cfg(feature = "slh-dsa")]
macro_rules! slh_dsa_sets {
    ($m:ident, $name:expr $(, $arg:expr)*) => {
        match $name {
            "slh-dsa-sha2-128s" => $m!(slh_dsa::Sha2_128s $(, $arg)*),
            "slh-dsa-sha2-128f" => $m!(slh_dsa::Sha2_128f $(, $arg)*),
            "slh-dsa-sha2-192s" => $m!(slh_dsa::Sha2_192s $(, $arg)*),
            "slh-dsa-sha2-192f" => $m!(slh_dsa::Sha2_192f $(, $arg)*),
            "slh-dsa-sha2-256s" => $m!(slh_dsa::Sha2_256s $(, $arg)*),
            "slh-dsa-sha2-256f" => $m!(slh_dsa::Sha2_256f $(, $arg)*),
            "slh-dsa-shake-128s" => $m!(slh_dsa::Shake128s $(, $arg)*),
            "slh-dsa-shake-128f" => $m!(slh_dsa::Shake128f $(, $arg)*),
            "slh-dsa-shake-192s" => $m!(slh_dsa::Shake192s $(, $arg)*),
            "slh-dsa-shake-192f" => $m!(slh_dsa::Shake192f $(, $arg)*),
            "slh-dsa-shake-256s" => $m!(slh_dsa::Shake256s $(, $arg)*),
            "slh-dsa-shake-256f" => $m!(slh_dsa::Shake256f $(, $arg)*),
            other => Err(unsupported(format!("rustcrypto does not offer {other}"))),
        }
    };
}

// `make demo`'s build (runners/rust/build.sh, RUST_FULL=0) leaves out the feature `slh-dsa`: its
// twelve parameter sets are much of this crate's compile time and the demo suite measures none.
// Unsupported, so `list` reports them as not offered, with this reason.
#[cfg(not(feature = "slh-dsa"))]
macro_rules! slh_dsa_sets {
    ($m:ident, $name:expr $(, $arg:expr)*) => {
        Err(unsupported(format!(
            "{}: this build of the runner has no SLH-DSA (make demo's): make runner-rust builds it",
            $name
        )))
    };
}

/// Prepares one post-quantum operation; None when `info` is not one of them.
pub fn prepare(info: &AlgorithmInfo, op: &str, p: &Params) -> Option<Res<BoxOp>> {
    ALGORITHMS.contains(&info.name.as_str()).then(|| prepare_pq(info, op, p))
}

fn prepare_pq(info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
    match info.name.as_str() {
        "ml-kem-512" => ml_kem_op!(ml_kem::MlKem512, op, p),
        "ml-kem-768" => ml_kem_op!(ml_kem::MlKem768, op, p),
        "ml-kem-1024" => ml_kem_op!(ml_kem::MlKem1024, op, p),
        "ml-dsa-44" => ml_dsa_op!(ml_dsa::MlDsa44, op, p),
        "ml-dsa-65" => ml_dsa_op!(ml_dsa::MlDsa65, op, p),
        "ml-dsa-87" => ml_dsa_op!(ml_dsa::MlDsa87, op, p),
        n => slh_dsa_sets!(slh_dsa_op, n, op, p),
    }
}

/// Generates one post-quantum key pair from `seed`, or a fresh one; None when `info` is not one
/// of them.
pub fn generate(info: &AlgorithmInfo, seed: Option<&[u8]>) -> Option<Res<KeyParts>> {
    ALGORITHMS.contains(&info.name.as_str()).then(|| generate_pq(info, seed))
}

fn generate_pq(info: &AlgorithmInfo, seed: Option<&[u8]>) -> Res<KeyParts> {
    match info.name.as_str() {
        "ml-kem-512" => ml_kem_keygen!(ml_kem::MlKem512, seed),
        "ml-kem-768" => ml_kem_keygen!(ml_kem::MlKem768, seed),
        "ml-kem-1024" => ml_kem_keygen!(ml_kem::MlKem1024, seed),
        "ml-dsa-44" => ml_dsa_keygen!(ml_dsa::MlDsa44, seed),
        "ml-dsa-65" => ml_dsa_keygen!(ml_dsa::MlDsa65, seed),
        "ml-dsa-87" => ml_dsa_keygen!(ml_dsa::MlDsa87, seed),
        n => slh_dsa_sets!(slh_dsa_keygen, n, seed),
    }
}
