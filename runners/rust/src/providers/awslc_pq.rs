//! The post-quantum part of provider `aws-lc-rs`: ML-KEM (`aws_lc_rs::kem`) and ML-DSA
//! (`aws_lc_rs::signature`'s `PqdsaKeyPair` and `ParsedPublicKey`), both in aws-lc-rs 1.19's
//! stable API (no `unstable` feature). aws-lc-rs has no SLH-DSA (docs/post-quantum.md).
//!
//! Keys: ML-DSA private keys are imported from the 32-byte seed (`PqdsaKeyPair::from_seed`).
//! aws-lc-rs imports ML-KEM private keys only in the expanded form (`DecapsulationKey::new`, 1632 /
//! 2400 / 3168 bytes) and derives none from a seed: it takes `priv`, and a key given as a seed
//! alone is expanded once, when the operation is prepared, with the `ml-kem` crate (as the `rsa`
//! crate DER-encodes RSA keys for its OAEP). It has no derandomised encapsulation, so the gate's
//! encapsulation known answers and key generation from a seed are `unsupported` here. Signing is
//! AWS-LC's hedged ML-DSA.Sign. Every key is parsed when the operation is prepared.

use crate::providers::pq::{self, KeyNames};
use crate::types::*;
use ::aws_lc_rs as c;

fn op_box<F: FnMut(&mut Io) -> Res<usize> + 'static>(f: F) -> Res<BoxOp> {
    Ok(Box::new(f))
}

pub const ALGORITHMS: &[&str] = &["ml-kem-512", "ml-kem-768", "ml-kem-1024", "ml-dsa-44", "ml-dsa-65", "ml-dsa-87"];

fn kem_alg(name: &str) -> Option<&'static c::kem::Algorithm> {
    Some(match name {
        "ml-kem-512" => &c::kem::ML_KEM_512,
        "ml-kem-768" => &c::kem::ML_KEM_768,
        "ml-kem-1024" => &c::kem::ML_KEM_1024,
        _ => return None,
    })
}

fn dsa_algs(
    name: &str,
) -> Option<(&'static c::signature::PqdsaSigningAlgorithm, &'static c::signature::PqdsaVerificationAlgorithm)> {
    Some(match name {
        "ml-dsa-44" => (&c::signature::ML_DSA_44_SIGNING, &c::signature::ML_DSA_44),
        "ml-dsa-65" => (&c::signature::ML_DSA_65_SIGNING, &c::signature::ML_DSA_65),
        "ml-dsa-87" => (&c::signature::ML_DSA_87_SIGNING, &c::signature::ML_DSA_87),
        _ => return None,
    })
}

/// The expanded decapsulation key: `priv`, or the expansion of `seed` (the `ml-kem` crate's
/// FIPS 203 ML-KEM.KeyGen_internal).
#[allow(deprecated)]
fn expanded_dk(name: &str, k: &KeyParts) -> Res<Vec<u8>> {
    use ml_kem::ExpandedKeyEncoding;
    if !part(k, KeyNames::PRIVATE).is_empty() {
        return Ok(part(k, KeyNames::PRIVATE).to_vec());
    }
    let seed: ml_kem::Seed = part(k, KeyNames::SEED)
        .try_into()
        .map_err(|_| failed("the key has neither an expanded ML-KEM key nor a 64-byte seed"))?;
    Ok(match name {
        "ml-kem-512" => ml_kem::DecapsulationKey::<ml_kem::MlKem512>::from_seed(seed).to_expanded_bytes().to_vec(),
        "ml-kem-768" => ml_kem::DecapsulationKey::<ml_kem::MlKem768>::from_seed(seed).to_expanded_bytes().to_vec(),
        _ => ml_kem::DecapsulationKey::<ml_kem::MlKem1024>::from_seed(seed).to_expanded_bytes().to_vec(),
    })
}

fn kem_op(info: &AlgorithmInfo, alg: &'static c::kem::Algorithm, op: &str, p: &Params) -> Res<BoxOp> {
    let k = &p.keypair;
    match op {
        "encaps" => {
            if p.randomness.is_some() {
                return Err(unsupported("aws-lc-rs has no encapsulation with given randomness"));
            }
            let ek = c::kem::EncapsulationKey::new(alg, part(k, KeyNames::PUBLIC))
                .map_err(|e| rejected(format!("the ML-KEM encapsulation key was refused: {e}")))?;
            op_box(move |io: &mut Io| {
                let (ct, ss) = ek.encapsulate().map_err(|_| failed("ML-KEM encapsulation failed"))?;
                pq::write_two(io, ct.as_ref(), ss.as_ref())
            })
        }
        "decaps" => {
            let dk = c::kem::DecapsulationKey::new(alg, &expanded_dk(&info.name, k)?)
                .map_err(|e| failed(format!("the ML-KEM decapsulation key was refused: {e}")))?;
            op_box(move |io: &mut Io| {
                let ss = dk
                    .decapsulate(c::kem::Ciphertext::from(io.input()))
                    .map_err(|_| rejected("ML-KEM decapsulation failed"))?;
                io.write(ss.as_ref())
            })
        }
        _ => Err(unsupported(format!("{op} is not an ML-KEM operation"))),
    }
}

fn dsa_op(name: &str, op: &str, p: &Params) -> Res<BoxOp> {
    let (signing, verification) = dsa_algs(name).ok_or_else(|| unsupported(format!("no {name}")))?;
    let k = &p.keypair;
    match op {
        "sign" => {
            let kp = c::signature::PqdsaKeyPair::from_seed(signing, part(k, KeyNames::SEED))
                .map_err(|e| failed(format!("the ML-DSA seed was refused: {e}")))?;
            let len = signing.signature_len();
            op_box(move |io: &mut Io| {
                let (msg, out) = io.parts(len)?;
                kp.sign(msg, out).map_err(|_| failed("ML-DSA signing failed"))
            })
        }
        "verify" => {
            let key = c::signature::ParsedPublicKey::new(verification, part(k, KeyNames::PUBLIC))
                .map_err(|e| rejected(format!("the ML-DSA public key was refused: {e}")))?;
            let sig = p.signature.clone();
            op_box(move |io: &mut Io| {
                key.verify_sig(io.input(), &sig).map_err(|_| rejected("ML-DSA signature does not verify"))?;
                Ok(0)
            })
        }
        _ => Err(unsupported(format!("{op} is not an ML-DSA operation"))),
    }
}

/// Prepares one post-quantum operation; None when `info` is not one of them.
pub fn prepare(info: &AlgorithmInfo, op: &str, p: &Params) -> Option<Res<BoxOp>> {
    if !ALGORITHMS.contains(&info.name.as_str()) {
        return None;
    }
    Some(match kem_alg(&info.name) {
        Some(alg) => kem_op(info, alg, op, p),
        None => dsa_op(&info.name, op, p),
    })
}

/// The 32-byte seed inside aws-lc-rs's PKCS#8 v1 encoding of a generated ML-DSA key, whose
/// private key is the seed form `[0] IMPLICIT OCTET STRING (SIZE (32))` (its last 34 bytes).
fn seed_of_pkcs8(der: &[u8]) -> Res<&[u8]> {
    match der.len().checked_sub(34).map(|at| (&der[at..at + 2], &der[at + 2..])) {
        Some(([0x80, 0x20], seed)) => Ok(seed),
        _ => Err(failed("aws-lc-rs's PKCS#8 of the ML-DSA key does not end in its seed")),
    }
}

/// One fresh key pair: ML-KEM as `priv` (expanded) and `pub`, since aws-lc-rs exports no ML-KEM
/// seed; ML-DSA as `seed` and `pub`.
pub fn generate(info: &AlgorithmInfo) -> Option<Res<KeyParts>> {
    if !ALGORITHMS.contains(&info.name.as_str()) {
        return None;
    }
    let bad = |_| failed(format!("{} key generation failed", info.name));
    Some((|| match kem_alg(&info.name) {
        Some(alg) => {
            let dk = c::kem::DecapsulationKey::generate(alg).map_err(bad)?;
            let ek = dk.encapsulation_key().map_err(bad)?;
            let (ek, dk) = (ek.key_bytes().map_err(bad)?, dk.key_bytes().map_err(bad)?);
            pq::key_parts(&[], ek.as_ref(), dk.as_ref())
        }
        None => {
            use c::signature::KeyPair as _;
            let (signing, _) = dsa_algs(&info.name).ok_or_else(|| unsupported(format!("no {}", info.name)))?;
            let kp = c::signature::PqdsaKeyPair::generate(signing).map_err(bad)?;
            let der = kp.to_pkcs8v1().map_err(bad)?;
            pq::key_parts(seed_of_pkcs8(der.as_ref())?, kp.public_key().as_ref(), &[])
        }
    })())
}

/// The key pair an ML-DSA seed gives (`PqdsaKeyPair::from_seed`); aws-lc-rs derives no ML-KEM
/// key from a seed.
pub fn from_seed(info: &AlgorithmInfo, seed: &[u8]) -> Option<Res<KeyParts>> {
    use c::signature::KeyPair as _;
    let (signing, _) = dsa_algs(&info.name)?;
    Some(
        c::signature::PqdsaKeyPair::from_seed(signing, seed)
            .map_err(|e| failed(format!("the ML-DSA seed was refused: {e}")))
            .and_then(|kp| pq::key_parts(seed, kp.public_key().as_ref(), &[])),
    )
}
