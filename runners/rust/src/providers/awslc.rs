//! Provider `aws-lc-rs` (aws-lc-rs over AWS-LC, built by aws-lc-sys): ring's API plus key
//! agreement with loaded keys (X25519, ECDH P-256/384).
//!
//! Variants: AWS-LC reads OPENSSL_ia32cap when it initialises (crypto/fipsmodule/cpucap/
//! cpu_intel.c): `~` clears the given bits of the probed CPUID words, the part after `:` applies
//! to the extended words (AVX2, SHA-NI, VAES, AVX-512, …); without it those are left as probed.

use crate::machine::{cpu_features, locked_version};
use serde_json::{json, Map, Value};

use ::aws_lc_rs as c;

include!("ringlike.rs");

fn ecdsa_key_pair(alg: &'static c::signature::EcdsaSigningAlgorithm, d: &[u8], public: &[u8]) -> Res<c::signature::EcdsaKeyPair> {
    c::signature::EcdsaKeyPair::from_private_key_and_public_key(alg, d, public)
        .map_err(|e| failed(format!("ECDSA key refused: {e}")))
}

fn agreement_alg(info: &AlgorithmInfo) -> Res<&'static c::agreement::Algorithm> {
    Ok(match info.name.as_str() {
        "x25519" => &c::agreement::X25519,
        "ecdh-p256" => &c::agreement::ECDH_P256,
        "ecdh-p384" => &c::agreement::ECDH_P384,
        _ => return Err(unsupported(format!("no {}", info.name))),
    })
}

fn derive_op(info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
    let alg = agreement_alg(info)?;
    let (private, peer) = if info.name == "x25519" {
        (part(&p.keypair, "priv").to_vec(), part(&p.peer, "pub").to_vec())
    } else {
        let size = ec_size(info);
        (padded(part(&p.keypair, "d"), size), ec_point(&p.peer, size))
    };
    let key = c::agreement::PrivateKey::from_private_key(alg, &private)
        .map_err(|_| failed(format!("{} private key refused", info.name)))?;
    op_box(move |io: &mut Io| {
        let peer_key = c::agreement::UnparsedPublicKey::new(alg, &peer);
        let out = &mut *io.out;
        c::agreement::agree(&key, peer_key, rejected("the peer's public key was refused"), |z| {
            if out.len() < z.len() {
                return Err(failed("output buffer too small"));
            }
            out[..z.len()].copy_from_slice(z);
            Ok(z.len())
        })
    })
}

pub struct AwsLc;

const ALGORITHMS: &[&str] = &[
    "aes-128-gcm", "aes-256-gcm", "chacha20-poly1305", "sha1", "sha256", "sha384", "sha512", "hmac-sha256",
    "hmac-sha512", "ed25519", "ecdsa-p256", "ecdsa-p384", "rsa-2048-pkcs1-sha256", "rsa-2048-pss-sha256",
    "rsa-3072-pkcs1-sha256", "rsa-3072-pss-sha256", "rsa-4096-pkcs1-sha256", "rsa-4096-pss-sha256",
    "x25519", "ecdh-p256", "ecdh-p384", "pbkdf2-sha1", "pbkdf2-sha256", "pbkdf2-sha512", "hkdf-sha256",
];

static VARIANTS: [Variant; 3] = [
    Variant {
        name: "default",
        description: "AWS-LC as built, every CPU feature it detects (OPENSSL_ia32cap removed)",
        env: &[("OPENSSL_ia32cap", None)],
    },
    Variant {
        name: "soft",
        description: "no AES-NI, PCLMULQDQ, AVX2, SHA-NI, VAES or AVX-512 (OPENSSL_ia32cap=~0x200000200000000:~0xffffffffffffffff)",
        env: &[("OPENSSL_ia32cap", Some("~0x200000200000000:~0xffffffffffffffff"))],
    },
    Variant {
        name: "noaesni",
        description: "no AES-NI or PCLMULQDQ; AVX2, SHA-NI, VAES and AVX-512 kept (OPENSSL_ia32cap=~0x200000200000000)",
        env: &[("OPENSSL_ia32cap", Some("~0x200000200000000"))],
    },
];

impl Provider for AwsLc {
    fn name(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn version(&self) -> String {
        format!("aws-lc-rs {} (aws-lc-sys {})", locked_version("aws-lc-rs"), locked_version("aws-lc-sys"))
    }
    fn algorithms(&self) -> Vec<&'static str> {
        ALGORITHMS.to_vec()
    }
    fn prepare(&self, info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
        if !self.offers(&info.name) {
            return Err(unsupported(format!("aws-lc-rs does not offer {}", info.name)));
        }
        if info.kind == "key-agreement" {
            return derive_op(info, p);
        }
        prepare_shared(info, op, p)
            .unwrap_or_else(|| Err(unsupported(format!("aws-lc-rs does not offer {}", info.name))))
    }
    fn generate_key(&self, info: &AlgorithmInfo) -> Res<KeyParts> {
        match info.name.as_str() {
            "ed25519" => generate_ed25519(),
            _ => Err(unsupported(format!("aws-lc-rs: {} key generation is not wired up here", info.name))),
        }
    }
    fn code_path(&self) -> Map<String, Value> {
        let mut m = cpu_features();
        m.insert("ia32cap_env".into(), json!(std::env::var("OPENSSL_ia32cap").unwrap_or_default()));
        m
    }
    fn variants(&self) -> &'static [Variant] {
        &VARIANTS
    }
}
