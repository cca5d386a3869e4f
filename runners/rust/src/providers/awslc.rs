//! Provider `aws-lc-rs` (aws-lc-rs over AWS-LC, built by aws-lc-sys): ring's API plus key
//! agreement with loaded keys (X25519, ECDH P-256/384); ML-KEM and ML-DSA in awslc_pq.rs.
//!
//! Variants: AWS-LC reads OPENSSL_ia32cap when it initialises (crypto/fipsmodule/cpucap/
//! cpu_intel.c): `~` clears the given bits of the probed CPUID words, the part after `:` applies
//! to the extended words (AVX2, SHA-NI, VAES, AVX-512, …); without it those are left as probed.

use crate::machine::{cpu_features, locked_version};
use crate::providers::awslc_pq;
use serde_json::{Map, Value, json};

use ::aws_lc_rs as c;

include!("ringlike.rs");

fn ecdsa_key_pair(
    alg: &'static c::signature::EcdsaSigningAlgorithm,
    d: &[u8],
    public: &[u8],
) -> Res<c::signature::EcdsaKeyPair> {
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

/// AES in CBC (no padding: the catalogue's sizes are whole blocks), CTR, CFB-128 and OFB through
/// aws-lc-rs's cipher module, in place (its API).
fn cipher_op(info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
    use c::cipher::*;
    let alg: &'static Algorithm = match info.key_bytes {
        16 => &AES_128,
        24 => &AES_192,
        _ => &AES_256,
    };
    let mode = info.name.rsplit('-').next().unwrap_or("");
    let key = || UnboundCipherKey::new(alg, &p.key).map_err(|_| failed("the key was refused"));
    let iv: [u8; 16] = p.iv.as_slice().try_into().map_err(|_| failed("the IV must be 16 bytes"))?;
    if op == "encrypt" {
        let k = match mode {
            "cbc" => EncryptingKey::cbc(key()?),
            "ctr" => EncryptingKey::ctr(key()?),
            "cfb" => EncryptingKey::cfb128(key()?),
            "ofb" => EncryptingKey::ofb(key()?),
            _ => return Err(unsupported(format!("no {}", info.name))),
        }
        .map_err(|_| failed("the key was refused"))?;
        return op_box(move |io: &mut Io| {
            let n = io.len();
            let buf = io.in_place_buf()?;
            k.less_safe_encrypt(&mut buf[..n], EncryptionContext::Iv128(iv.into()))
                .map_err(|_| failed("encryption failed"))?;
            Ok(n)
        });
    }
    let k = match mode {
        "cbc" => DecryptingKey::cbc(key()?),
        "ctr" => DecryptingKey::ctr(key()?),
        "cfb" => DecryptingKey::cfb128(key()?),
        "ofb" => DecryptingKey::ofb(key()?),
        _ => return Err(unsupported(format!("no {}", info.name))),
    }
    .map_err(|_| failed("the key was refused"))?;
    op_box(move |io: &mut Io| {
        let n = io.len();
        let buf = io.in_place_buf()?;
        k.decrypt(&mut buf[..n], DecryptionContext::Iv128(iv.into())).map_err(|_| failed("decryption failed"))?;
        Ok(n)
    })
}

/// The digests aws-lc-rs has beyond ring's: SHA-224, SHA3-256, SHA3-512.
fn more_hash_op(info: &AlgorithmInfo) -> Res<BoxOp> {
    let alg = match info.name.as_str() {
        "sha224" => &c::digest::SHA224,
        "sha3-256" => &c::digest::SHA3_256,
        _ => &c::digest::SHA3_512,
    };
    op_box(move |io: &mut Io| {
        let d = c::digest::digest(alg, io.input());
        io.write(d.as_ref())
    })
}

/// AES-CMAC through aws-lc-rs's cmac module (one-shot `sign` with a prepared key).
fn cmac_op(info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
    let alg = if info.name == "cmac-aes128" { c::cmac::AES_128 } else { c::cmac::AES_256 };
    let key = c::cmac::Key::new(alg, &p.key).map_err(|_| failed("the key was refused"))?;
    op_box(move |io: &mut Io| {
        let t = c::cmac::sign(&key, io.input()).map_err(|_| failed("CMAC failed"))?;
        io.write(t.as_ref())
    })
}

/// AES-CMAC verification through aws-lc-rs's `cmac::verify` (the MAC, then `CRYPTO_memcmp`).
fn cmac_verify_op(info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
    let alg = if info.name == "cmac-aes128" { c::cmac::AES_128 } else { c::cmac::AES_256 };
    let key = c::cmac::Key::new(alg, &p.key).map_err(|_| failed("the key was refused"))?;
    let tag_len = info.output_bytes;
    op_box(move |io: &mut Io| {
        let (message, tag) = message_and_tag(io.input(), tag_len).ok_or_else(mac_mismatch)?;
        c::cmac::verify(&key, message, tag).map_err(|_| mac_mismatch())?;
        Ok(0)
    })
}

fn ecdsa_p521_op(op: &str, p: &Params) -> Res<BoxOp> {
    let public = ec_point(&p.keypair, 66);
    if op == "sign" {
        let d = padded(part(&p.keypair, "d"), 66);
        let kp = ecdsa_key_pair(&c::signature::ECDSA_P521_SHA512_FIXED_SIGNING, &d, &public)?;
        let rng = c::rand::SystemRandom::new();
        return op_box(move |io: &mut Io| {
            let s = kp.sign(&rng, io.input()).map_err(|_| failed("ECDSA signing failed"))?;
            io.write(s.as_ref())
        });
    }
    let sig = p.signature.clone();
    op_box(move |io: &mut Io| {
        c::signature::UnparsedPublicKey::new(&c::signature::ECDSA_P521_SHA512_FIXED, &public)
            .verify(io.input(), &sig)
            .map_err(|_| rejected("ECDSA signature does not verify"))?;
        Ok(0)
    })
}

/// Splits an uncompressed SEC1 point 04‖x‖y into the key parts x and y.
fn point_parts(k: &mut KeyParts, point: &[u8]) {
    let n = (point.len() - 1) / 2;
    k.insert("x".into(), point[1..1 + n].to_vec());
    k.insert("y".into(), point[1 + n..].to_vec());
}

fn generate(info: &AlgorithmInfo) -> Res<KeyParts> {
    use c::encoding::{AsBigEndian, Curve25519SeedBin, EcPrivateKeyBin};
    if let Some(k) = awslc_pq::generate(info) {
        return k;
    }
    let mut k = KeyParts::new();
    let bad = |_| failed(format!("{} key generation failed", info.name));
    match info.name.as_str() {
        "ed25519" => return generate_ed25519(),
        "x25519" => {
            let key = c::agreement::PrivateKey::generate(&c::agreement::X25519).map_err(bad)?;
            let seed: Curve25519SeedBin = key.as_be_bytes().map_err(bad)?;
            k.insert("priv".into(), seed.as_ref().to_vec());
            k.insert("pub".into(), key.compute_public_key().map_err(bad)?.as_ref().to_vec());
        }
        "ecdh-p256" | "ecdh-p384" => {
            let key = c::agreement::PrivateKey::generate(agreement_alg(info)?).map_err(bad)?;
            let d: EcPrivateKeyBin = key.as_be_bytes().map_err(bad)?;
            k.insert("d".into(), d.as_ref().to_vec());
            point_parts(&mut k, key.compute_public_key().map_err(bad)?.as_ref());
        }
        "ecdsa-p256" | "ecdsa-p384" | "ecdsa-p521" => {
            let alg = match info.name.as_str() {
                "ecdsa-p256" => &c::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                "ecdsa-p384" => &c::signature::ECDSA_P384_SHA384_FIXED_SIGNING,
                _ => &c::signature::ECDSA_P521_SHA512_FIXED_SIGNING,
            };
            let kp = c::signature::EcdsaKeyPair::generate(alg).map_err(bad)?;
            let d: EcPrivateKeyBin = kp.private_key().as_be_bytes().map_err(bad)?;
            k.insert("d".into(), d.as_ref().to_vec());
            point_parts(&mut k, kp.public_key().as_ref());
        }
        _ if info.kind == "keypair" => {
            return rsa_keygen(info.key_type.trim_start_matches("rsa-").parse().unwrap_or(0));
        }
        _ => return Err(unsupported(format!("aws-lc-rs does not generate {} keys here", info.name))),
    }
    Ok(k)
}

fn extra_aead(name: &str) -> Option<&'static c::aead::Algorithm> {
    (name == "aes-192-gcm").then_some(&c::aead::AES_192_GCM)
}

/// RSA-OAEP (SHA-256, MGF1-SHA-256) through aws-lc-rs's OaepPublicEncryptingKey /
/// OaepPrivateDecryptingKey, or RSAES-PKCS1-v1_5 (`pkcs1`) through Pkcs1PublicEncryptingKey /
/// Pkcs1PrivateDecryptingKey. aws-lc-rs loads RSA keys for encryption only from DER, so the test
/// key's parts are DER-encoded once, when the operation is prepared, with the `rsa` crate's
/// encoders (PKCS#8 for the private key, SubjectPublicKeyInfo for the public one).
fn rsa_enc_op(op: &str, p: &Params, pkcs1: bool) -> Res<BoxOp> {
    use rsa::pkcs8::{EncodePrivateKey, EncodePublicKey};
    let k = &p.keypair;
    let big = |name: &str| rsa::BoxedUint::from_be_slice_vartime(part(k, name));
    let alg = &c::rsa::OAEP_SHA256_MGF1SHA256;
    let name = if pkcs1 { "PKCS#1 v1.5" } else { "OAEP" };
    if op == "decrypt" {
        let key = rsa::PrivateKey::from_components(big("n"), big("e"), big("d"), vec![big("p"), big("q")])
            .map_err(|e| failed(format!("RSA key refused: {e}")))?;
        let der = key.to_pkcs8_der().map_err(|e| failed(format!("cannot encode the RSA key: {e}")))?;
        let private = c::rsa::PrivateDecryptingKey::from_pkcs8(der.as_bytes())
            .map_err(|e| failed(format!("RSA key refused: {e}")))?;
        let refused = |_| failed(format!("RSA key refused for {name}"));
        if pkcs1 {
            let key = c::rsa::Pkcs1PrivateDecryptingKey::new(private).map_err(refused)?;
            return op_box(move |io: &mut Io| {
                let (input, out) = io.split().ok_or_else(|| failed("decryption runs out of place"))?;
                let pt = key.decrypt(input, out).map_err(|_| rejected("PKCS#1 v1.5 decryption failed"))?;
                Ok(pt.len())
            });
        }
        let key = c::rsa::OaepPrivateDecryptingKey::new(private).map_err(refused)?;
        return op_box(move |io: &mut Io| {
            let (input, out) = io.split().ok_or_else(|| failed("OAEP decryption runs out of place"))?;
            let pt = key.decrypt(alg, input, out, None).map_err(|_| rejected("OAEP decryption failed"))?;
            Ok(pt.len())
        });
    }
    let public =
        rsa::PublicKey::new(big("n"), big("e")).map_err(|e| rejected(format!("RSA public key refused: {e}")))?;
    let der = public.to_public_key_der().map_err(|e| failed(format!("cannot encode the RSA key: {e}")))?;
    let public = c::rsa::PublicEncryptingKey::from_der(der.as_bytes())
        .map_err(|e| rejected(format!("RSA public key refused: {e}")))?;
    let refused = |_| failed(format!("RSA key refused for {name}"));
    if pkcs1 {
        let key = c::rsa::Pkcs1PublicEncryptingKey::new(public).map_err(refused)?;
        return op_box(move |io: &mut Io| {
            let (input, out) = io.split().ok_or_else(|| failed("encryption runs out of place"))?;
            let ct = key.encrypt(input, out).map_err(|_| failed("PKCS#1 v1.5 encryption failed"))?;
            Ok(ct.len())
        });
    }
    let key = c::rsa::OaepPublicEncryptingKey::new(public).map_err(refused)?;
    op_box(move |io: &mut Io| {
        let (input, out) = io.split().ok_or_else(|| failed("OAEP encryption runs out of place"))?;
        let ct = key.encrypt(alg, input, out, None).map_err(|_| failed("OAEP encryption failed"))?;
        Ok(ct.len())
    })
}

/// RSA key generation with aws-lc-rs's KeyPair::generate; its only export is PKCS#8 DER, which the
/// `rsa` crate decodes into the key's parts (part of every timed key, a small cost beside the
/// prime search).
fn rsa_keygen(bits: usize) -> Res<KeyParts> {
    use c::encoding::AsDer;
    use rsa::pkcs8::DecodePrivateKey;
    use rsa::traits::{PrivateKeyParts, PublicKeyParts};
    let size = match bits {
        2048 => c::rsa::KeySize::Rsa2048,
        3072 => c::rsa::KeySize::Rsa3072,
        4096 => c::rsa::KeySize::Rsa4096,
        _ => return Err(unsupported(format!("aws-lc-rs does not generate {bits}-bit RSA keys"))),
    };
    let kp = c::rsa::KeyPair::generate(size).map_err(|_| failed("RSA key generation failed"))?;
    let der = kp.as_der().map_err(|_| failed("cannot export the RSA key"))?;
    let key =
        rsa::PrivateKey::from_pkcs8_der(der.as_ref()).map_err(|e| failed(format!("cannot decode the RSA key: {e}")))?;
    let be = |x: &rsa::BoxedUint| {
        let b = x.to_be_bytes();
        let skip = b.iter().take_while(|&&v| v == 0).count();
        b[skip..].to_vec()
    };
    let mut k = KeyParts::new();
    k.insert("n".into(), be(key.as_public_key().n()));
    k.insert("e".into(), be(key.as_public_key().e()));
    k.insert("d".into(), be(key.d()));
    k.insert("p".into(), be(&key.primes()[0]));
    k.insert("q".into(), be(&key.primes()[1]));
    if let (Some(dp), Some(dq), Some(qinv)) = (key.dp(), key.dq(), key.crt_coefficient()) {
        k.insert("dp".into(), be(dp));
        k.insert("dq".into(), be(dq));
        k.insert("qinv".into(), be(&qinv));
    }
    Ok(k)
}

/// Whether AWS-LC's allocations go through the counting allocator (main sets it at start; its
/// code_path records it).
pub static HEAP_COUNTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub struct AwsLc;

const ALGORITHMS: &[&str] = &[
    "aes-128-cbc",
    "aes-128-cfb",
    "aes-128-ofb",
    "aes-128-ctr",
    "aes-128-gcm",
    "aes-192-cbc",
    "aes-192-cfb",
    "aes-192-ofb",
    "aes-192-ctr",
    "aes-192-gcm",
    "aes-256-cbc",
    "aes-256-cfb",
    "aes-256-ofb",
    "aes-256-ctr",
    "aes-256-gcm",
    "chacha20-poly1305",
    "sha3-256",
    "sha3-512",
    "sha224",
    "cmac-aes128",
    "cmac-aes256",
    "ecdsa-p521",
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
    "rsa-2048",
    "rsa-3072",
    "rsa-4096",
    "rsa-2048-oaep-sha256",
    "rsa-2048-pkcs1v15-enc",
    "rsa-3072-oaep-sha256",
    "rsa-4096-oaep-sha256",
    "x25519",
    "ecdh-p256",
    "ecdh-p384",
    "pbkdf2-sha1",
    "pbkdf2-sha256",
    "pbkdf2-sha512",
    "hkdf-sha256",
];

static VARIANTS: [Variant; 3] = [
    Variant {
        name: "default",
        description: "AWS-LC as built, every CPU feature it detects (OPENSSL_ia32cap removed)",
        env: &[("OPENSSL_ia32cap", None)],
        soft_build: false,
    },
    Variant {
        name: "soft",
        description: "no AES-NI, PCLMULQDQ, AVX2, SHA-NI, VAES or AVX-512 (OPENSSL_ia32cap=~0x200000200000000:~0xffffffffffffffff)",
        env: &[("OPENSSL_ia32cap", Some("~0x200000200000000:~0xffffffffffffffff"))],
        soft_build: false,
    },
    Variant {
        name: "noaesni",
        description: "no AES-NI or PCLMULQDQ; AVX2, SHA-NI, VAES and AVX-512 kept (OPENSSL_ia32cap=~0x200000200000000)",
        env: &[("OPENSSL_ia32cap", Some("~0x200000200000000"))],
        soft_build: false,
    },
];

impl Provider for AwsLc {
    fn name(&self) -> &'static str {
        "aws-lc-rs"
    }
    fn version(&self) -> String {
        format!("aws-lc-rs {} (aws-lc-sys {})", locked_version("aws-lc-rs"), locked_version("aws-lc-sys"))
    }
    fn prepare(&self, info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
        let pq = awslc_pq::ALGORITHMS.contains(&info.name.as_str());
        if !pq && !ALGORITHMS.contains(&info.name.as_str()) {
            return Err(unsupported(format!("aws-lc-rs does not offer {}", info.name)));
        }
        if op == "keygen" {
            return keygen_op(generate, info);
        }
        if let Some(r) = awslc_pq::prepare(info, op, p) {
            return r;
        }
        match info.name.as_str() {
            _ if info.kind == "key-agreement" => return derive_op(info, p),
            _ if info.kind == "cipher" => return cipher_op(info, op, p),
            "sha224" | "sha3-256" | "sha3-512" => return more_hash_op(info),
            "cmac-aes128" | "cmac-aes256" => return cmac_op(info, p),
            "ecdsa-p521" => return ecdsa_p521_op(op, p),
            _ if info.family == "rsa-oaep" => return rsa_enc_op(op, p, false),
            _ if info.family == "rsa-pkcs1v15-enc" => return rsa_enc_op(op, p, true),
            _ => {}
        }
        prepare_shared(info, op, p)
            .unwrap_or_else(|| Err(unsupported(format!("aws-lc-rs does not offer {}", info.name))))
    }
    fn prepare_mac_verify(&self, info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
        match info.name.as_str() {
            "cmac-aes128" | "cmac-aes256" => cmac_verify_op(info, p),
            _ => hmac_verify_op(info, p),
        }
    }
    fn generate_key(&self, info: &AlgorithmInfo) -> Res<KeyParts> {
        generate(info)
    }
    fn key_from_seed(&self, info: &AlgorithmInfo, seed: &[u8]) -> Res<KeyParts> {
        awslc_pq::from_seed(info, seed)
            .unwrap_or_else(|| Err(unsupported(format!("aws-lc-rs derives no {} key from a seed", info.name))))
    }
    fn code_path(&self) -> Map<String, Value> {
        let mut m = cpu_features();
        m.insert("pq_key".into(), json!("expanded for ML-KEM (aws-lc-rs imports no ML-KEM seed), seed for ML-DSA"));
        m.insert("ia32cap_env".into(), json!(std::env::var("OPENSSL_ia32cap").unwrap_or_default()));
        let counted = HEAP_COUNTED.load(std::sync::atomic::Ordering::Relaxed);
        m.insert(
            "heap".into(),
            json!(if counted {
                "AWS-LC's OPENSSL_malloc goes through the counting allocator (CRYPTO_set_mem_functions)"
            } else {
                "AWS-LC's own allocations are not counted"
            }),
        );
        m
    }
    fn variants(&self) -> &'static [Variant] {
        &VARIANTS
    }
}
