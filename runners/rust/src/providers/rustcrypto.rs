//! Provider `rustcrypto`: the RustCrypto crates (aes-gcm, chacha20poly1305, sha2, sha3, hmac,
//! hkdf, pbkdf2, argon2, ed25519-dalek, x25519-dalek, p256, p384; ml-kem, ml-dsa and slh-dsa in
//! rustcrypto_pq.rs) through their normal traits.
//!
//! Variants: RustCrypto picks AES-NI, CLMUL, AVX2 and SHA-NI at run time through `cpufeatures`,
//! which reads no environment variable; the portable code is chosen only at compile time (cfg
//! flags such as `aes_backend="soft"`), so `soft` is a second build of the runner (build.sh), which
//! the runner re-executes for it (variants.rs).

use crate::machine::{cpu_features, locked_version};
use crate::providers::{array32, ec_point, ec_size, padded, rustcrypto_pq};
use crate::types::*;
use aes_gcm::aead::array::Array;
use aes_gcm::aead::inout::InOutBuf;
use aes_gcm::aead::{AeadCore, AeadInOut, KeyInit};
use serde_json::{Map, Value, json};
use sha2::Digest;

pub struct RustCrypto;

const ALGORITHMS: &[&str] = &[
    "aes-128-cbc",
    "aes-128-cfb",
    "aes-128-ofb",
    "aes-128-ctr",
    "aes-192-cbc",
    "aes-192-cfb",
    "aes-192-ofb",
    "aes-192-ctr",
    "aes-192-gcm",
    "aes-256-cbc",
    "aes-256-cfb",
    "aes-256-ofb",
    "aes-256-ctr",
    "aes-128-xts",
    "aes-256-xts",
    "des-ede3-cbc",
    "chacha20",
    "xchacha20",
    "salsa20",
    "xsalsa20",
    "md5",
    "sha1",
    "blake2b-512",
    "whirlpool",
    "ripemd160",
    "cmac-aes128",
    "cmac-aes256",
    "scrypt",
    "ecdh-p256",
    "ecdh-p384",
    "pbkdf2-sha1",
    "rsa-1024",
    "rsa-2048",
    "rsa-3072",
    "rsa-4096",
    "rsa-1024-pkcs1-sha256",
    "rsa-1024-pss-sha256",
    "rsa-1024-oaep-sha256",
    "rsa-2048-pkcs1-sha256",
    "rsa-2048-pss-sha256",
    "rsa-2048-oaep-sha256",
    "rsa-2048-pkcs1v15-enc",
    "rsa-3072-pkcs1-sha256",
    "rsa-3072-pss-sha256",
    "rsa-3072-oaep-sha256",
    "rsa-4096-pkcs1-sha256",
    "rsa-4096-pss-sha256",
    "rsa-4096-oaep-sha256",
    "aes-128-gcm",
    "aes-256-gcm",
    "chacha20-poly1305",
    "xchacha20-poly1305",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha512-256",
    "sha3-256",
    "sha3-512",
    "hmac-sha256",
    "hmac-sha512",
    "ed25519",
    "x25519",
    "ecdsa-p256",
    "ecdsa-p384",
    "ecdsa-p521",
    "pbkdf2-sha256",
    "pbkdf2-sha512",
    "hkdf-sha256",
    "argon2id",
];

static VARIANTS: [Variant; 2] = [
    Variant {
        name: "default",
        description: "the RustCrypto crates as built: cpufeatures picks AES-NI/CLMUL/AVX2/SHA-NI at run time",
        env: &[],
        soft_build: false,
    },
    Variant {
        name: "soft",
        description: "a build with RustCrypto's portable backends forced at compile time (--cfg aes_backend=\"soft\", \
                      polyval_backend, chacha20_backend, poly1305_backend, sha1_backend, sha2_backend, \
                      keccak_backend = \"soft\"): cpufeatures has no run-time switch",
        env: &[],
        soft_build: true,
    },
];

fn op_box<F: FnMut(&mut Io) -> Res<usize> + 'static>(f: F) -> Res<BoxOp> {
    Ok(Box::new(f))
}

/// An AEAD through AeadInOut: truly in place, or from the input buffer into the output buffer.
fn aead_op<A: AeadInOut + KeyInit + 'static>(op: &str, p: &Params) -> Res<BoxOp> {
    let cipher = A::new_from_slice(&p.key).map_err(|_| failed("the key was refused"))?;
    let nonce = aes_gcm::aead::Nonce::<A>::try_from(&p.iv[..]).map_err(|_| failed("wrong nonce length"))?;
    let aad = p.aad.clone();
    let tag_len = <A as AeadCore>::TagSize::USIZE;
    if op == "encrypt" {
        return op_box(move |io: &mut Io| {
            let n = io.len();
            if io.out.len() < n + tag_len {
                return Err(failed("output buffer too small"));
            }
            let tag = match io.split() {
                Some((i, o)) => cipher.encrypt_inout_detached(&nonce, &aad, InOutBuf::new(i, &mut o[..n]).unwrap()),
                None => cipher.encrypt_inout_detached(&nonce, &aad, InOutBuf::from(&mut io.out[..n])),
            }
            .map_err(|_| failed("encryption failed"))?;
            io.out[n..n + tag_len].copy_from_slice(&tag);
            Ok(n + tag_len)
        });
    }
    op_box(move |io: &mut Io| {
        let n = io.len();
        if n < tag_len {
            return Err(rejected("ciphertext shorter than its tag"));
        }
        let m = n - tag_len;
        let ok = match io.split() {
            Some((i, o)) => {
                let tag = aes_gcm::aead::Tag::<A>::try_from(&i[m..]).unwrap();
                cipher.decrypt_inout_detached(&nonce, &aad, InOutBuf::new(&i[..m], &mut o[..m]).unwrap(), &tag)
            }
            None => {
                let tag = aes_gcm::aead::Tag::<A>::try_from(&io.out[m..n]).unwrap();
                cipher.decrypt_inout_detached(&nonce, &aad, InOutBuf::from(&mut io.out[..m]), &tag)
            }
        };
        ok.map_err(|_| rejected("the tag does not verify"))?;
        Ok(m)
    })
}

use aes_gcm::aead::array::typenum::Unsigned;

fn hash_op<D: Digest + 'static>() -> Res<BoxOp> {
    op_box(move |io: &mut Io| {
        let d = D::digest(io.input());
        io.write(&d)
    })
}

fn hmac_op<D>(key: &[u8]) -> Res<BoxOp>
where
    hmac::Hmac<D>: hmac::Mac + KeyInit + Clone + 'static,
    D: hmac::EagerHash,
{
    use hmac::Mac;
    let mac = <hmac::Hmac<D> as KeyInit>::new_from_slice(key).map_err(|_| failed("the key was refused"))?;
    op_box(move |io: &mut Io| {
        let mut m = mac.clone();
        m.update(io.input());
        io.write(&m.finalize().into_bytes())
    })
}

/// MAC verification the RustCrypto way: the `Mac` trait's `verify_slice` (digest 0.11's
/// constant-time comparison, `ctutils::CtEq`), on a clone of the keyed MAC per message, as
/// `hmac_op` and `cmac_op!` compute one.
fn mac_verify_op<M: hmac::Mac + hmac::KeyInit + Clone + 'static>(key: &[u8], tag_len: usize) -> Res<BoxOp> {
    let mac = <M as hmac::KeyInit>::new_from_slice(key).map_err(|_| failed("the key was refused"))?;
    op_box(move |io: &mut Io| {
        let (message, tag) = message_and_tag(io.input(), tag_len).ok_or_else(mac_mismatch)?;
        let mut m = mac.clone();
        m.update(message);
        m.verify_slice(tag).map_err(|_| mac_mismatch())?;
        Ok(0)
    })
}

fn ed25519_op(op: &str, p: &Params) -> Res<BoxOp> {
    use ed25519_dalek::{Signer, Verifier};
    if op == "sign" {
        let sk = ed25519_dalek::SigningKey::from_bytes(&array32(part(&p.keypair, "priv"), "Ed25519 private key")?);
        return op_box(move |io: &mut Io| {
            let s = sk.sign(io.input());
            io.write(&s.to_bytes())
        });
    }
    let vk = ed25519_dalek::VerifyingKey::from_bytes(&array32(part(&p.keypair, "pub"), "Ed25519 public key")?)
        .map_err(|_| rejected("Ed25519 public key refused"))?;
    let sig =
        ed25519_dalek::Signature::from_slice(&p.signature).map_err(|_| rejected("malformed Ed25519 signature"))?;
    op_box(move |io: &mut Io| {
        vk.verify(io.input(), &sig).map_err(|_| rejected("Ed25519 signature does not verify"))?;
        Ok(0)
    })
}

fn x25519_op(p: &Params) -> Res<BoxOp> {
    let secret = x25519_dalek::StaticSecret::from(array32(part(&p.keypair, "priv"), "X25519 private key")?);
    let peer = x25519_dalek::PublicKey::from(array32(part(&p.peer, "pub"), "X25519 public key")?);
    op_box(move |io: &mut Io| {
        let z = secret.diffie_hellman(&peer);
        io.write(z.as_bytes())
    })
}

macro_rules! ecdsa_op {
    ($curve:ident, $info:expr, $op:expr, $p:expr) => {{
        use $curve::ecdsa::signature::{Signer, Verifier};
        let size = ec_size($info);
        if $op == "sign" {
            let sk = $curve::ecdsa::SigningKey::from_slice(&padded(part(&$p.keypair, "d"), size))
                .map_err(|_| failed("ECDSA private key refused"))?;
            op_box(move |io: &mut Io| {
                let s: $curve::ecdsa::Signature = sk.sign(io.input());
                io.write(&s.to_bytes())
            })
        } else {
            let vk = $curve::ecdsa::VerifyingKey::from_sec1_bytes(&ec_point(&$p.keypair, size))
                .map_err(|_| rejected("ECDSA public key refused"))?;
            let sig = $curve::ecdsa::Signature::from_slice(&$p.signature)
                .map_err(|_| rejected("malformed ECDSA signature"))?;
            op_box(move |io: &mut Io| {
                vk.verify(io.input(), &sig).map_err(|_| rejected("ECDSA signature does not verify"))?;
                Ok(0)
            })
        }
    }};
}

fn argon2_context<'a>(secret: &'a [u8], params: &argon2::Params) -> Res<argon2::Argon2<'a>> {
    let (alg, version) = (argon2::Algorithm::Argon2id, argon2::Version::V0x13);
    if secret.is_empty() {
        return Ok(argon2::Argon2::new(alg, version, params.clone()));
    }
    argon2::Argon2::new_with_secret(secret, alg, version, params.clone())
        .map_err(|e| failed(format!("Argon2 secret refused: {e}")))
}

fn kdf_op(info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
    let n = p.out_len;
    let salt = p.salt.clone();
    let check = move |io: &Io| if io.out.len() < n { Err(failed("output buffer too small")) } else { Ok(()) };
    match info.name.as_str() {
        "hkdf-sha256" => {
            let inf = p.info.clone();
            op_box(move |io: &mut Io| {
                check(io)?;
                let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(&salt), io.input());
                let mut okm = [0u8; 255 * 32];
                hk.expand(&inf, &mut okm[..n]).map_err(|_| failed("HKDF expand failed"))?;
                io.write(&okm[..n])
            })
        }
        "pbkdf2-sha1" | "pbkdf2-sha256" | "pbkdf2-sha512" => {
            let rounds = u32::try_from(p.cost("iterations")).map_err(|_| failed("too many iterations"))?;
            let digest = info.name.clone();
            op_box(move |io: &mut Io| {
                let (password, out) = io.parts(n)?;
                match digest.as_str() {
                    "pbkdf2-sha1" => pbkdf2::pbkdf2_hmac::<sha1::Sha1>(password, &salt, rounds, out),
                    "pbkdf2-sha512" => pbkdf2::pbkdf2_hmac::<sha2::Sha512>(password, &salt, rounds, out),
                    _ => pbkdf2::pbkdf2_hmac::<sha2::Sha256>(password, &salt, rounds, out),
                }
                Ok(n)
            })
        }
        "scrypt" => {
            let log_n = p.cost("N").checked_ilog2().filter(|l| 1u64 << l == p.cost("N"));
            let log_n = log_n.ok_or_else(|| failed("scrypt's N must be a power of two"))?;
            let params = scrypt::Params::new(log_n as u8, p.cost("r") as u32, p.cost("p") as u32)
                .map_err(|e| failed(format!("scrypt parameters refused: {e}")))?;
            op_box(move |io: &mut Io| {
                let (password, out) = io.parts(n)?;
                scrypt::scrypt(password, &salt, &params, out).map_err(|e| failed(format!("scrypt: {e}")))?;
                Ok(n)
            })
        }
        "argon2id" => {
            let mut b = argon2::ParamsBuilder::new();
            b.m_cost(p.cost("m") as u32).t_cost(p.cost("t") as u32).p_cost(p.cost("p") as u32).output_len(n);
            if !p.ad.is_empty() {
                b.data(argon2::AssociatedData::new(&p.ad).map_err(|e| failed(format!("Argon2 data: {e}")))?);
            }
            let params = b.build().map_err(|e| failed(format!("Argon2 parameters refused: {e}")))?;
            let secret = p.secret.clone();
            // Argon2 borrows its secret, so the (allocation-free) context is made per operation.
            argon2_context(&secret, &params)?;
            op_box(move |io: &mut Io| {
                let a2 = argon2_context(&secret, &params)?;
                let (password, out) = io.parts(n)?;
                a2.hash_password_into(password, &salt, out).map_err(|e| failed(format!("Argon2: {e}")))?;
                Ok(n)
            })
        }
        _ => Err(unsupported(format!("rustcrypto does not offer {}", info.name))),
    }
}

/// CBC (whole blocks, no padding) through cbc's BlockModeEncrypt/Decrypt on InOutBuf: truly in
/// place, or from the input buffer into the output buffer.
fn cbc_op<A>(op: &str, p: &Params) -> Res<BoxOp>
where
    A: aes::cipher::BlockCipherEncrypt + aes::cipher::BlockCipherDecrypt + aes::cipher::KeyInit + Clone + 'static,
{
    use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
    let (key, iv) = (p.key.clone(), p.iv.clone());
    let bad = |_| failed("the key or IV was refused");
    let enc = op == "encrypt";
    cbc::Encryptor::<A>::new_from_slices(&key, &iv).map_err(bad)?;
    let block = <A as aes::cipher::BlockSizeUser>::block_size();
    op_box(move |io: &mut Io| {
        let n = io.len();
        if n % block != 0 {
            return Err(failed("CBC input is not whole blocks"));
        }
        let buf = match io.split() {
            Some((i, o)) => InOutBuf::new(i, &mut o[..n]).unwrap(),
            None => InOutBuf::from(&mut io.out[..n]),
        };
        if enc {
            let mut m = cbc::Encryptor::<A>::new_from_slices(&key, &iv).map_err(bad)?;
            let (blocks, _) = buf.into_chunks();
            m.encrypt_blocks_inout(blocks);
        } else {
            let mut m = cbc::Decryptor::<A>::new_from_slices(&key, &iv).map_err(bad)?;
            let (blocks, _) = buf.into_chunks();
            m.decrypt_blocks_inout(blocks);
        }
        Ok(n)
    })
}

/// A stream cipher (CTR, OFB, ChaCha20, XChaCha20, Salsa20, XSalsa20): a fresh instance from key
/// and IV per operation, its keystream applied on InOutBuf.
fn stream_op<S: aes::cipher::KeyIvInit + aes::cipher::StreamCipher + 'static>(p: &Params) -> Res<BoxOp> {
    let (key, iv) = (p.key.clone(), p.iv.clone());
    let bad = |_| failed("the key or IV was refused");
    S::new_from_slices(&key, &iv).map_err(bad)?;
    op_box(move |io: &mut Io| {
        let n = io.len();
        let mut c = S::new_from_slices(&key, &iv).map_err(bad)?;
        match io.split() {
            Some((i, o)) => c.apply_keystream_inout(InOutBuf::new(i, &mut o[..n]).unwrap()),
            None => c.apply_keystream(&mut io.out[..n]),
        }
        Ok(n)
    })
}

/// CFB-128 through cfb-mode's Encryptor/Decryptor on InOutBuf (a last partial block included).
fn cfb_op<A>(op: &str, p: &Params) -> Res<BoxOp>
where
    A: aes::cipher::BlockCipherEncrypt + aes::cipher::KeyInit + 'static,
    A: aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
{
    use aes::cipher::KeyIvInit;
    let (key, iv) = (p.key.clone(), p.iv.clone());
    let bad = |_| failed("the key or IV was refused");
    let enc = op == "encrypt";
    cfb_mode::Encryptor::<A>::new_from_slices(&key, &iv).map_err(bad)?;
    op_box(move |io: &mut Io| {
        let n = io.len();
        let buf = match io.split() {
            Some((i, o)) => InOutBuf::new(i, &mut o[..n]).unwrap(),
            None => InOutBuf::from(&mut io.out[..n]),
        };
        if enc {
            cfb_mode::Encryptor::<A>::new_from_slices(&key, &iv).map_err(bad)?.encrypt_inout(buf);
        } else {
            cfb_mode::Decryptor::<A>::new_from_slices(&key, &iv).map_err(bad)?.decrypt_inout(buf);
        }
        Ok(n)
    })
}

/// XTS (IEEE 1619, the IV is the 128-bit tweak, ciphertext stealing for a last partial block)
/// through xts-mode, which works in place only.
fn xts_op<A>(op: &str, p: &Params) -> Res<BoxOp>
where
    A: aes::cipher::BlockCipherEncrypt + aes::cipher::BlockCipherDecrypt + aes::cipher::KeyInit + 'static,
    A: aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
{
    let half = p.key.len() / 2;
    let bad = |_| failed("the key was refused");
    let xts = xts_mode::Xts128::new(
        A::new_from_slice(&p.key[..half]).map_err(bad)?,
        A::new_from_slice(&p.key[half..]).map_err(bad)?,
    );
    let tweak = Array::try_from(&p.iv[..]).map_err(|_| failed("the tweak must be 16 bytes"))?;
    let enc = op == "encrypt";
    op_box(move |io: &mut Io| {
        let n = io.len();
        if n < 16 {
            return Err(failed("XTS needs at least one block"));
        }
        let buf = &mut io.in_place_buf()?[..n];
        if enc {
            xts.encrypt_sector(buf, tweak);
        } else {
            xts.decrypt_sector(buf, tweak);
        }
        Ok(n)
    })
}

macro_rules! cmac_op {
    ($cipher:ty, $key:expr) => {{
        use cmac::Mac;
        let mac = <cmac::Cmac<$cipher> as KeyInit>::new_from_slice($key).map_err(|_| failed("the key was refused"))?;
        op_box(move |io: &mut Io| {
            let mut m = mac.clone();
            m.update(io.input());
            io.write(&m.finalize().into_bytes())
        })
    }};
}

macro_rules! ecdh_op {
    ($curve:ident, $info:expr, $p:expr) => {{
        let size = ec_size($info);
        let secret = $curve::SecretKey::from_slice(&padded(part(&$p.keypair, "d"), size))
            .map_err(|_| failed("ECDH private key refused"))?;
        let peer = $curve::PublicKey::from_sec1_bytes(&ec_point(&$p.peer, size))
            .map_err(|_| rejected("the peer's public key was refused"))?;
        op_box(move |io: &mut Io| {
            let z = $curve::ecdh::diffie_hellman(secret.to_nonzero_scalar(), peer.as_affine());
            io.write(z.raw_secret_bytes())
        })
    }};
}

/// An EC key: a random scalar (rejection sampling, as the crates' own generators do) and its
/// public point, as parts d, x, y.
macro_rules! ec_keygen {
    ($curve:ident, $size:expr) => {{
        let mut k = KeyParts::new();
        let secret = loop {
            let mut d = [0u8; $size];
            getrandom::fill(&mut d).map_err(|e| failed(format!("no randomness: {e}")))?;
            if let Ok(s) = $curve::SecretKey::from_slice(&d) {
                break s;
            }
        };
        let point = secret.public_key().to_sec1_bytes();
        k.insert("d".into(), secret.to_bytes().to_vec());
        k.insert("x".into(), point[1..1 + $size].to_vec());
        k.insert("y".into(), point[1 + $size..].to_vec());
        k
    }};
}

fn big(b: &[u8]) -> rsa::BoxedUint {
    rsa::BoxedUint::from_be_slice_vartime(b)
}

fn rsa_public(k: &KeyParts) -> Res<rsa::PublicKey> {
    rsa::PublicKey::new(big(part(k, "n")), big(part(k, "e")))
        .map_err(|e| rejected(format!("RSA public key refused: {e}")))
}

fn rsa_op(info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
    use sha2::Sha256;
    let k = &p.keypair;
    let family = info.family.clone();
    if op == "sign" || op == "decrypt" {
        let key = rsa::PrivateKey::from_components(
            big(part(k, "n")),
            big(part(k, "e")),
            big(part(k, "d")),
            vec![big(part(k, "p")), big(part(k, "q"))],
        )
        .map_err(|e| failed(format!("RSA key refused: {e}")))?;
        return op_box(move |io: &mut Io| {
            let r = match family.as_str() {
                "rsa-pkcs1" => key.pkcs1v15_sign::<Sha256>(io.input()).map_err(|e| failed(e.to_string()))?,
                "rsa-pss" => key.pss_sign::<Sha256>(io.input()).map_err(|e| failed(e.to_string()))?,
                "rsa-pkcs1v15-enc" => key.pkcs1v15_decrypt(io.input()).map_err(|e| rejected(e.to_string()))?,
                _ => key.oaep_decrypt::<Sha256>(io.input()).map_err(|e| rejected(e.to_string()))?,
            };
            io.write(&r)
        });
    }
    let public = rsa_public(k)?;
    let sig = p.signature.clone();
    op_box(move |io: &mut Io| {
        match family.as_str() {
            "rsa-oaep" => {
                let ct = public.oaep_encrypt::<Sha256>(io.input()).map_err(|e| failed(e.to_string()))?;
                return io.write(&ct);
            }
            "rsa-pkcs1v15-enc" => {
                let ct = public.pkcs1v15_encrypt(io.input()).map_err(|e| failed(e.to_string()))?;
                return io.write(&ct);
            }
            "rsa-pkcs1" => public.pkcs1v15_verify::<Sha256>(io.input(), &sig),
            _ => public.pss_verify::<Sha256>(io.input(), &sig),
        }
        .map_err(|_| rejected("RSA signature does not verify"))?;
        Ok(0)
    })
}

fn rsa_keygen(bits: usize) -> Res<KeyParts> {
    use rsa::traits::{PrivateKeyParts, PublicKeyParts};
    let mut rng = getrandom::SysRng;
    let key = rsa::PrivateKey::new(&mut rng, bits).map_err(|e| failed(format!("RSA key generation failed: {e}")))?;
    let be = |x: &rsa::BoxedUint| {
        let b = x.to_be_bytes();
        let skip = b.iter().take_while(|&&v| v == 0).count();
        b[skip..].to_vec()
    };
    let mut k = KeyParts::new();
    let public = key.as_public_key();
    k.insert("n".into(), be(public.n()));
    k.insert("e".into(), be(public.e()));
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

fn random32() -> Res<[u8; 32]> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| failed(format!("no randomness: {e}")))?;
    Ok(seed)
}

impl Provider for RustCrypto {
    fn name(&self) -> &'static str {
        "rustcrypto"
    }
    fn version(&self) -> String {
        let crates = [
            "aes-gcm",
            "chacha20poly1305",
            "sha2",
            "sha3",
            "hmac",
            "ed25519-dalek",
            "x25519-dalek",
            "p256",
            "argon2",
            "ml-kem",
            "ml-dsa",
            "slh-dsa",
        ];
        let list: Vec<String> = crates.iter().map(|c| format!("{c} {}", locked_version(c))).collect();
        format!("RustCrypto ({})", list.join(", "))
    }
    fn prepare(&self, info: &AlgorithmInfo, op: &str, p: &Params) -> Res<BoxOp> {
        let pq = rustcrypto_pq::ALGORITHMS.contains(&info.name.as_str());
        if !pq && !ALGORITHMS.contains(&info.name.as_str()) {
            return Err(unsupported(format!("rustcrypto does not offer {}", info.name)));
        }
        if op == "keygen" {
            return keygen_op(|i| RustCrypto.generate_key(i), info);
        }
        if let Some(r) = rustcrypto_pq::prepare(info, op, p) {
            return r;
        }
        match info.name.as_str() {
            "aes-128-gcm" => aead_op::<aes_gcm::Aes128Gcm>(op, p),
            "aes-192-gcm" => aead_op::<aes_gcm::AesGcm<aes::Aes192, aes_gcm::aead::consts::U12>>(op, p),
            "aes-128-cbc" => cbc_op::<aes::Aes128>(op, p),
            "aes-192-cbc" => cbc_op::<aes::Aes192>(op, p),
            "aes-256-cbc" => cbc_op::<aes::Aes256>(op, p),
            "des-ede3-cbc" => cbc_op::<des::TdesEde3>(op, p),
            "aes-128-ctr" => stream_op::<ctr::Ctr128BE<aes::Aes128>>(p),
            "aes-192-ctr" => stream_op::<ctr::Ctr128BE<aes::Aes192>>(p),
            "aes-256-ctr" => stream_op::<ctr::Ctr128BE<aes::Aes256>>(p),
            "aes-128-ofb" => stream_op::<ofb::Ofb<aes::Aes128>>(p),
            "aes-192-ofb" => stream_op::<ofb::Ofb<aes::Aes192>>(p),
            "aes-256-ofb" => stream_op::<ofb::Ofb<aes::Aes256>>(p),
            "aes-128-cfb" => cfb_op::<aes::Aes128>(op, p),
            "aes-192-cfb" => cfb_op::<aes::Aes192>(op, p),
            "aes-256-cfb" => cfb_op::<aes::Aes256>(op, p),
            "aes-128-xts" => xts_op::<aes::Aes128>(op, p),
            "aes-256-xts" => xts_op::<aes::Aes256>(op, p),
            "chacha20" => stream_op::<chacha20::ChaCha20>(p),
            "xchacha20" => stream_op::<chacha20::XChaCha20>(p),
            "salsa20" => stream_op::<salsa20::Salsa20>(p),
            "xsalsa20" => stream_op::<salsa20::XSalsa20>(p),
            "md5" => hash_op::<md5::Md5>(),
            "sha1" => hash_op::<sha1::Sha1>(),
            "ripemd160" => hash_op::<ripemd::Ripemd160>(),
            "blake2b-512" => hash_op::<blake2::Blake2b512>(),
            "whirlpool" => hash_op::<whirlpool::Whirlpool>(),
            "cmac-aes128" => cmac_op!(aes::Aes128, &p.key),
            "cmac-aes256" => cmac_op!(aes::Aes256, &p.key),
            "ecdh-p256" => ecdh_op!(p256, info, p),
            "ecdh-p384" => ecdh_op!(p384, info, p),
            _ if info.name.starts_with("rsa-") => rsa_op(info, op, p),
            "aes-256-gcm" => aead_op::<aes_gcm::Aes256Gcm>(op, p),
            "chacha20-poly1305" => aead_op::<chacha20poly1305::ChaCha20Poly1305>(op, p),
            "xchacha20-poly1305" => aead_op::<chacha20poly1305::XChaCha20Poly1305>(op, p),
            "sha224" => hash_op::<sha2::Sha224>(),
            "sha256" => hash_op::<sha2::Sha256>(),
            "sha384" => hash_op::<sha2::Sha384>(),
            "sha512" => hash_op::<sha2::Sha512>(),
            "sha512-256" => hash_op::<sha2::Sha512_256>(),
            "sha3-256" => hash_op::<sha3::Sha3_256>(),
            "sha3-512" => hash_op::<sha3::Sha3_512>(),
            "hmac-sha256" => hmac_op::<sha2::Sha256>(&p.key),
            "hmac-sha512" => hmac_op::<sha2::Sha512>(&p.key),
            "ed25519" => ed25519_op(op, p),
            "x25519" => x25519_op(p),
            "ecdsa-p256" => ecdsa_op!(p256, info, op, p),
            "ecdsa-p384" => ecdsa_op!(p384, info, op, p),
            "ecdsa-p521" => ecdsa_op!(p521, info, op, p),
            _ => kdf_op(info, p),
        }
    }
    fn prepare_mac_verify(&self, info: &AlgorithmInfo, p: &Params) -> Res<BoxOp> {
        let n = info.output_bytes;
        match info.name.as_str() {
            "hmac-sha256" => mac_verify_op::<hmac::Hmac<sha2::Sha256>>(&p.key, n),
            "hmac-sha512" => mac_verify_op::<hmac::Hmac<sha2::Sha512>>(&p.key, n),
            "cmac-aes128" => mac_verify_op::<cmac::Cmac<aes::Aes128>>(&p.key, n),
            "cmac-aes256" => mac_verify_op::<cmac::Cmac<aes::Aes256>>(&p.key, n),
            _ => Err(unsupported(format!("rustcrypto offers no verification of {}", info.name))),
        }
    }
    fn generate_key(&self, info: &AlgorithmInfo) -> Res<KeyParts> {
        if let Some(r) = rustcrypto_pq::generate(info, None) {
            return r;
        }
        let mut k = KeyParts::new();
        match info.name.as_str() {
            "ed25519" => {
                let seed = random32()?;
                let sk = ed25519_dalek::SigningKey::from_bytes(&seed);
                k.insert("priv".into(), seed.to_vec());
                k.insert("pub".into(), sk.verifying_key().to_bytes().to_vec());
            }
            "x25519" => {
                let secret = x25519_dalek::StaticSecret::from(random32()?);
                k.insert("pub".into(), x25519_dalek::PublicKey::from(&secret).to_bytes().to_vec());
                k.insert("priv".into(), secret.to_bytes().to_vec());
            }
            "ecdsa-p256" | "ecdh-p256" => k = ec_keygen!(p256, 32),
            "ecdsa-p384" | "ecdh-p384" => k = ec_keygen!(p384, 48),
            "ecdsa-p521" => k = ec_keygen!(p521, 66),
            _ if info.kind == "keypair" => {
                k = rsa_keygen(info.key_type.trim_start_matches("rsa-").parse().unwrap_or(2048))?
            }
            _ => return Err(unsupported(format!("rustcrypto does not generate {} keys", info.name))),
        }
        Ok(k)
    }
    fn key_from_seed(&self, info: &AlgorithmInfo, seed: &[u8]) -> Res<KeyParts> {
        rustcrypto_pq::generate(info, Some(seed))
            .unwrap_or_else(|| Err(unsupported(format!("rustcrypto derives no {} key from a seed", info.name))))
    }
    fn code_path(&self) -> Map<String, Value> {
        let mut m = cpu_features();
        m.insert("pq_key".into(), json!("seed"));
        m.insert("switch".into(), json!("none at run time (cpufeatures reads no environment variable); the soft build forces the portable backends at compile time"));
        m.insert(
            "backends".into(),
            json!(if cfg!(cryptobench_soft) { "soft (forced at compile time)" } else { "run-time detection" }),
        );
        m
    }
    fn variants(&self) -> &'static [Variant] {
        &VARIANTS
    }
}
