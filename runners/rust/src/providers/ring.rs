//! Provider `ring` (ring 0.17): AES-GCM, ChaCha20-Poly1305, SHA-1/2, HMAC, Ed25519, ECDSA P-256/384,
//! RSA PKCS#1 v1.5 and PSS signatures (2048 bits and more), PBKDF2 and HKDF through ring's API.
//!
//! Not offered, and why: ring's key agreement takes ephemeral private keys only (no way to load the
//! test keys the gate and agreement need), so no X25519 or ECDH; no RSA key generation, OAEP or
//! keys under 2048 bits (ring refuses them); no AES-CBC/CTR, SHA-3 or Argon2 in its API. ring
//! detects CPU features once and reads no switch, so it has only the `default` variant.

use crate::machine::{cpu_features, locked_version};
use serde_json::{Map, Value, json};

use ::ring as c;

include!("ringlike.rs");

fn ecdsa_key_pair(
    alg: &'static c::signature::EcdsaSigningAlgorithm,
    d: &[u8],
    public: &[u8],
) -> Res<c::signature::EcdsaKeyPair> {
    c::signature::EcdsaKeyPair::from_private_key_and_public_key(alg, d, public, &c::rand::SystemRandom::new())
        .map_err(|e| failed(format!("ECDSA key refused: {e}")))
}

fn extra_aead(_: &str) -> Option<&'static c::aead::Algorithm> {
    None
}

/// ECDSA key generation: ring exports a generated key only as PKCS#8 (RFC 5915 ECPrivateKey
/// inside), so the private scalar is read from its `02 01 01 04 <len>` field and the public point
/// from the end of the document, where ring's fixed template puts them (the gate signs and
/// verifies with the parts, so a misread key fails it).
fn generate_ecdsa(info: &AlgorithmInfo) -> Res<KeyParts> {
    let (alg, size) = match info.name.as_str() {
        "ecdsa-p256" => (&c::signature::ECDSA_P256_SHA256_FIXED_SIGNING, 32),
        _ => (&c::signature::ECDSA_P384_SHA384_FIXED_SIGNING, 48),
    };
    let rng = c::rand::SystemRandom::new();
    let doc =
        c::signature::EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|_| failed("ECDSA key generation failed"))?;
    let der = doc.as_ref();
    let marker = [0x02, 0x01, 0x01, 0x04, size as u8];
    let at = der
        .windows(marker.len())
        .position(|w| w == marker)
        .ok_or_else(|| failed("ring's PKCS#8 document has no ECPrivateKey"))?
        + marker.len();
    let d = der.get(at..at + size).ok_or_else(|| failed("ring's PKCS#8 document is truncated"))?;
    let point = &der[der.len() - (1 + 2 * size)..];
    if point[0] != 4 {
        return Err(failed("ring's PKCS#8 document does not end with an uncompressed point"));
    }
    let mut k = KeyParts::new();
    k.insert("d".into(), d.to_vec());
    k.insert("x".into(), point[1..1 + size].to_vec());
    k.insert("y".into(), point[1 + size..].to_vec());
    Ok(k)
}

pub struct Ring;

const ALGORITHMS: &[&str] = &[
    "aes-128-gcm",
    "aes-256-gcm",
    "chacha20-poly1305",
    "sha1",
    "sha256",
    "sha384",
    "sha512",
    "sha512-256",
    "hmac-sha256",
    "hmac-sha512",
    "ed25519",
    "ecdsa-p256",
    "ecdsa-p384",
    "rsa-2048-pkcs1-sha256",
    "rsa-2048-pss-sha256",
    "rsa-3072-pkcs1-sha256",
    "rsa-3072-pss-sha256",
    "rsa-4096-pkcs1-sha256",
    "rsa-4096-pss-sha256",
    "pbkdf2-sha1",
    "pbkdf2-sha256",
    "pbkdf2-sha512",
    "hkdf-sha256",
];

static VARIANTS: [Variant; 1] = [Variant {
    name: "default",
    description: "ring as built: the code paths it picks from the CPU features it detects (it reads no switch)",
    env: &[],
    soft_build: false,
}];

impl Provider for Ring {
    fn name(&self) -> &'static str {
        "ring"
    }
    fn version(&self) -> String {
        format!("ring {}", locked_version("ring"))
    }
    fn prepare(&self, info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
        if !ALGORITHMS.contains(&info.name.as_str()) {
            return Err(unsupported(format!("ring does not offer {}", info.name)));
        }
        if op == "keygen" {
            return keygen_op(|i| Ring.generate_key(i), info);
        }
        prepare_shared(info, op, p).unwrap_or_else(|| Err(unsupported(format!("ring does not offer {}", info.name))))
    }
    fn prepare_mac_verify(&self, info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
        hmac_verify_op(info, p)
    }
    fn generate_key(&self, info: &AlgorithmInfo) -> Res<KeyParts> {
        match info.name.as_str() {
            "ed25519" => generate_ed25519(),
            "ecdsa-p256" | "ecdsa-p384" => generate_ecdsa(info),
            _ => Err(unsupported(format!(
                "ring does not generate {} keys in a form it can export (PKCS#8 only)",
                info.name
            ))),
        }
    }
    fn code_path(&self) -> Map<String, Value> {
        let mut m = cpu_features();
        m.insert("switch".into(), json!("none: ring detects CPU features once and reads no override"));
        m
    }
    fn variants(&self) -> &'static [Variant] {
        &VARIANTS
    }
}
