// The API ring and aws-lc-rs share (aws-lc-rs keeps ring's API), included into each provider's
// module with `c` naming the crate: AEADs, digests, HMAC, Ed25519, ECDSA, RSA signatures, PBKDF2
// and HKDF through the crate's normal API.

use crate::providers::{ec_point, ec_size, padded};
use crate::types::*;
use c::signature::KeyPair as _;

fn aead_alg(name: &str) -> Option<&'static c::aead::Algorithm> {
    Some(match name {
        "aes-128-gcm" => &c::aead::AES_128_GCM,
        "aes-256-gcm" => &c::aead::AES_256_GCM,
        "chacha20-poly1305" => &c::aead::CHACHA20_POLY1305,
        _ => return extra_aead(name),
    })
}

/// Seal and open in place (the crate's API); out of place the input is first copied to the
/// output, as a user of this API does.
fn aead_op(info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
    let alg = aead_alg(&info.name).ok_or_else(|| unsupported(format!("no AEAD {}", info.name)))?;
    let key = c::aead::LessSafeKey::new(
        c::aead::UnboundKey::new(alg, &p.key).map_err(|_| failed("the key was refused"))?,
    );
    let nonce: [u8; 12] = p.iv.as_slice().try_into().map_err(|_| failed("the nonce must be 12 bytes"))?;
    let aad = p.aad.clone();
    let tag_len = alg.tag_len();
    if op == "encrypt" {
        return op_box(move |io: &mut Io| {
            let n = io.len();
            let buf = io.in_place_buf()?;
            if buf.len() < n + tag_len {
                return Err(failed("output buffer too small"));
            }
            let (data, rest) = buf.split_at_mut(n);
            let tag = key
                .seal_in_place_separate_tag(
                    c::aead::Nonce::assume_unique_for_key(nonce),
                    c::aead::Aad::from(&aad[..]),
                    data,
                )
                .map_err(|_| failed("seal failed"))?;
            rest[..tag_len].copy_from_slice(tag.as_ref());
            Ok(n + tag_len)
        });
    }
    op_box(move |io: &mut Io| {
        let n = io.len();
        if n < tag_len {
            return Err(rejected("ciphertext shorter than its tag"));
        }
        let buf = io.in_place_buf()?;
        let pt = key
            .open_in_place(c::aead::Nonce::assume_unique_for_key(nonce), c::aead::Aad::from(&aad[..]), &mut buf[..n])
            .map_err(|_| rejected("the tag does not verify"))?;
        Ok(pt.len())
    })
}

fn op_box<F: FnMut(&mut Io) -> Res<usize> + 'static>(f: F) -> Res<BoxOp> {
    Ok(Box::new(f))
}

fn digest_alg(name: &str) -> Option<&'static c::digest::Algorithm> {
    Some(match name {
        "sha1" => &c::digest::SHA1_FOR_LEGACY_USE_ONLY,
        "sha256" => &c::digest::SHA256,
        "sha384" => &c::digest::SHA384,
        "sha512" => &c::digest::SHA512,
        "sha512-256" => &c::digest::SHA512_256,
        _ => return None,
    })
}

fn hash_op(info: &AlgorithmInfo) -> Res<BoxOp> {
    let alg = digest_alg(&info.name).ok_or_else(|| unsupported(format!("no digest {}", info.name)))?;
    op_box(move |io: &mut Io| {
        let d = c::digest::digest(alg, io.input());
        io.write(d.as_ref())
    })
}

fn hmac_op(info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
    let alg = match info.name.as_str() {
        "hmac-sha256" => c::hmac::HMAC_SHA256,
        "hmac-sha512" => c::hmac::HMAC_SHA512,
        _ => return Err(unsupported(format!("no {}", info.name))),
    };
    let key = c::hmac::Key::new(alg, &p.key);
    op_box(move |io: &mut Io| {
        let t = c::hmac::sign(&key, io.input());
        io.write(t.as_ref())
    })
}

/// HMAC verification through the crate's `hmac::verify` (its own: the MAC, then
/// `CRYPTO_memcmp`). The input is message ‖ tag.
fn hmac_verify_op(info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
    let alg = match info.name.as_str() {
        "hmac-sha256" => c::hmac::HMAC_SHA256,
        "hmac-sha512" => c::hmac::HMAC_SHA512,
        _ => return Err(unsupported(format!("no {}", info.name))),
    };
    let (key, tag_len) = (c::hmac::Key::new(alg, &p.key), info.output_bytes);
    op_box(move |io: &mut Io| {
        let (message, tag) = message_and_tag(io.input(), tag_len).ok_or_else(mac_mismatch)?;
        c::hmac::verify(&key, message, tag).map_err(|_| mac_mismatch())?;
        Ok(0)
    })
}

fn ed25519_op(op: &str, p: &Params) -> Res<BoxOp> {
    if op == "sign" {
        let kp = c::signature::Ed25519KeyPair::from_seed_and_public_key(part(&p.keypair, "priv"), part(&p.keypair, "pub"))
            .map_err(|e| failed(format!("Ed25519 key refused: {e}")))?;
        return op_box(move |io: &mut Io| {
            let s = kp.sign(io.input());
            io.write(s.as_ref())
        });
    }
    let public = part(&p.keypair, "pub").to_vec();
    if public.len() != 32 {
        return Err(rejected("Ed25519 public key must be 32 bytes"));
    }
    let sig = p.signature.clone();
    op_box(move |io: &mut Io| {
        c::signature::UnparsedPublicKey::new(&c::signature::ED25519, &public)
            .verify(io.input(), &sig)
            .map_err(|_| rejected("Ed25519 signature does not verify"))?;
        Ok(0)
    })
}

fn ecdsa_algs(info: &AlgorithmInfo) -> Res<(&'static c::signature::EcdsaSigningAlgorithm, &'static c::signature::EcdsaVerificationAlgorithm)> {
    Ok(match info.name.as_str() {
        "ecdsa-p256" => (&c::signature::ECDSA_P256_SHA256_FIXED_SIGNING, &c::signature::ECDSA_P256_SHA256_FIXED),
        "ecdsa-p384" => (&c::signature::ECDSA_P384_SHA384_FIXED_SIGNING, &c::signature::ECDSA_P384_SHA384_FIXED),
        _ => return Err(unsupported(format!("no {}", info.name))),
    })
}

fn ecdsa_op(info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
    let (signing, verification) = ecdsa_algs(info)?;
    let size = ec_size(info);
    let public = ec_point(&p.keypair, size);
    if op == "sign" {
        let d = padded(part(&p.keypair, "d"), size);
        let kp = ecdsa_key_pair(signing, &d, &public)?;
        let rng = c::rand::SystemRandom::new();
        return op_box(move |io: &mut Io| {
            let s = kp.sign(&rng, io.input()).map_err(|_| failed("ECDSA signing failed"))?;
            io.write(s.as_ref())
        });
    }
    let sig = p.signature.clone();
    op_box(move |io: &mut Io| {
        c::signature::UnparsedPublicKey::new(verification, &public)
            .verify(io.input(), &sig)
            .map_err(|_| rejected("ECDSA signature does not verify"))?;
        Ok(0)
    })
}

fn rsa_op(info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
    let pss = info.family == "rsa-pss";
    let k = &p.keypair;
    if op == "sign" {
        let comps = c::rsa::KeyPairComponents {
            public_key: c::rsa::PublicKeyComponents { n: part(k, "n"), e: part(k, "e") },
            d: part(k, "d"),
            p: part(k, "p"),
            q: part(k, "q"),
            dP: part(k, "dp"),
            dQ: part(k, "dq"),
            qInv: part(k, "qinv"),
        };
        let kp = c::rsa::KeyPair::from_components(&comps).map_err(|e| failed(format!("RSA key refused: {e}")))?;
        let rng = c::rand::SystemRandom::new();
        let padding: &'static dyn c::signature::RsaEncoding =
            if pss { &c::signature::RSA_PSS_SHA256 } else { &c::signature::RSA_PKCS1_SHA256 };
        let len = kp.public_key().modulus_len();
        return op_box(move |io: &mut Io| {
            let (msg, out) = io.parts(len)?;
            kp.sign(padding, &rng, msg, out).map_err(|_| failed("RSA signing failed"))?;
            Ok(len)
        });
    }
    let (n, e) = (part(k, "n").to_vec(), part(k, "e").to_vec());
    let params: &'static c::signature::RsaParameters =
        if pss { &c::signature::RSA_PSS_2048_8192_SHA256 } else { &c::signature::RSA_PKCS1_2048_8192_SHA256 };
    let sig = p.signature.clone();
    op_box(move |io: &mut Io| {
        c::signature::RsaPublicKeyComponents { n: &n, e: &e }
            .verify(params, io.input(), &sig)
            .map_err(|_| rejected("RSA signature does not verify"))?;
        Ok(0)
    })
}

struct Len(usize);

impl c::hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn kdf_op(info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
    let n = p.out_len;
    let salt = p.salt.clone();
    if info.name == "hkdf-sha256" {
        let inf = p.info.clone();
        return op_box(move |io: &mut Io| {
            let prk = c::hkdf::Salt::new(c::hkdf::HKDF_SHA256, &salt).extract(io.input());
            let info_parts = [&inf[..]];
            let okm = prk.expand(&info_parts, Len(n)).map_err(|_| failed("HKDF expand failed"))?;
            if io.out.len() < n {
                return Err(failed("output buffer too small"));
            }
            okm.fill(&mut io.out[..n]).map_err(|_| failed("HKDF fill failed"))?;
            Ok(n)
        });
    }
    let alg = match info.name.as_str() {
        "pbkdf2-sha1" => c::pbkdf2::PBKDF2_HMAC_SHA1,
        "pbkdf2-sha256" => c::pbkdf2::PBKDF2_HMAC_SHA256,
        "pbkdf2-sha512" => c::pbkdf2::PBKDF2_HMAC_SHA512,
        _ => return Err(unsupported(format!("no {}", info.name))),
    };
    let iterations = std::num::NonZeroU32::new(p.cost("iterations") as u32)
        .ok_or_else(|| failed("PBKDF2 needs at least one iteration"))?;
    op_box(move |io: &mut Io| {
        let (password, out) = io.parts(n)?;
        c::pbkdf2::derive(alg, iterations, &salt, password, out);
        Ok(n)
    })
}

/// Prepares one operation of the shared API; None when the algorithm is not in it.
fn prepare_shared(info: &AlgorithmInfo, op: &str, p: &Params) -> Option<Res<BoxOp>> {
    Some(match info.kind.as_str() {
        "aead" => aead_op(info, op, p),
        "hash" => hash_op(info),
        "mac" => hmac_op(info, p),
        "kdf" => kdf_op(info, p),
        "signature" if info.name == "ed25519" => ed25519_op(op, p),
        "signature" if info.family == "ecdsa" => ecdsa_op(info, op, p),
        "signature" if info.family == "rsa-pkcs1" || info.family == "rsa-pss" => rsa_op(info, op, p),
        _ => return None,
    })
}

/// Ed25519 key generation: a random seed and the key pair made from it (what the crates'
/// generate_pkcs8 does before encoding), exported as its parts.
fn generate_ed25519() -> Res<KeyParts> {
    use c::rand::SecureRandom;
    let mut seed = [0u8; 32];
    c::rand::SystemRandom::new().fill(&mut seed).map_err(|_| failed("no randomness"))?;
    let kp = c::signature::Ed25519KeyPair::from_seed_unchecked(&seed).map_err(|e| failed(e.to_string()))?;
    let mut k = KeyParts::new();
    k.insert("priv".into(), seed.to_vec());
    k.insert("pub".into(), kp.public_key().as_ref().to_vec());
    Ok(k)
}
