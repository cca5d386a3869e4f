//! The correctness gate for public-key algorithms and KDFs (native/src/core/gate_pk.cpp,
//! runners/go/gate_pk.go). Randomised operations (ECDSA and PSS signatures, OAEP, key
//! generation) are checked by round trip here and by the other providers through the
//! coordinator's cross_check request.

use crate::gate::*;
use crate::types::*;
use crate::vectors::*;

pub fn deterministic_signature(info: &AlgorithmInfo) -> bool {
    matches!(info.family.as_str(), "rsa-pkcs1" | "ed25519" | "ed448")
}

pub fn sign(p: &dyn Provider, info: &AlgorithmInfo, key: &KeyParts, msg: &[u8]) -> Res<Vec<u8>> {
    run_one(p, info, "sign", &Params { keypair: key.clone(), ..Default::default() }, msg)
}

/// Ok(true) when the signature verifies, Ok(false) when the provider rejects it; an Unsupported
/// error propagates.
pub fn verifies(p: &dyn Provider, info: &AlgorithmInfo, public: &KeyParts, msg: &[u8], sig: &[u8]) -> Res<bool> {
    let params = Params { keypair: public.clone(), signature: sig.to_vec(), ..Default::default() };
    let mut op = match p.prepare(info, "verify", &params) {
        Ok(op) => op,
        Err(Error::Unsupported(u)) => return Err(Error::Unsupported(u)),
        Err(_) => return Ok(false),
    };
    match run_once(&mut op, msg, 1024) {
        Ok(_) => Ok(true),
        Err(Error::Unsupported(u)) => Err(Error::Unsupported(u)),
        Err(_) => Ok(false),
    }
}

pub fn encrypt(p: &dyn Provider, info: &AlgorithmInfo, public: &KeyParts, msg: &[u8]) -> Res<Vec<u8>> {
    run_one(p, info, "encrypt", &Params { keypair: public.clone(), ..Default::default() }, msg)
}

pub fn decrypt(p: &dyn Provider, info: &AlgorithmInfo, key: &KeyParts, ct: &[u8]) -> Res<Vec<u8>> {
    run_one(p, info, "decrypt", &Params { keypair: key.clone(), ..Default::default() }, ct)
}

pub fn agree(p: &dyn Provider, info: &AlgorithmInfo, own: &KeyParts, peer_public: &KeyParts) -> Res<Vec<u8>> {
    let params = Params { keypair: own.clone(), peer: peer_public.clone(), ..Default::default() };
    run_one(p, info, "derive", &params, &[])
}

fn add_lax(r: &mut GateReport, what: &str) {
    if !r.lax.is_empty() {
        r.lax += "; ";
    }
    r.lax += what;
}

/// Ok(None): passed; Ok(Some(reason)): failed; the lax flag: accepted a strict-only vector.
fn check_pk_vector(p: &dyn Provider, info: &AlgorithmInfo, op: &str, v: &PkVector, lax: &mut bool) -> Res<String> {
    let pass = Ok(String::new());
    match info.kind.as_str() {
        "signature" => {
            let public = public_parts(info, &v.key);
            if op == "sign" {
                if !v.valid || !has_private(info, &v.key) {
                    return Err(unsupported("vector has no private key"));
                }
                let mut prepared = p.prepare(info, "sign", &Params { keypair: v.key.clone(), ..Default::default() })?;
                for _ in 1..=2 {
                    let sig = run_once(&mut prepared, &v.message, 1024)?;
                    if deterministic_signature(info) {
                        if sig != v.signature {
                            return Ok(format!("signature {}, expected {}", clip(&sig), clip(&v.signature)));
                        }
                    } else if !verifies(p, info, &public, &v.message, &sig)? {
                        return Ok("its own signature does not verify".into());
                    }
                }
                return pass;
            }
            let params = Params { keypair: public.clone(), signature: v.signature.clone(), ..Default::default() };
            let mut prepared = match p.prepare(info, "verify", &params) {
                Ok(op) => Some(op),
                Err(Error::Unsupported(u)) => return Err(Error::Unsupported(u)),
                Err(e) if v.valid => return Err(e),
                Err(_) => None, // a key or signature refused on parsing is a rejection
            };
            for _ in 1..=2 {
                let mut ok = false;
                if let Some(op) = prepared.as_mut() {
                    match run_once(op, &v.message, 1024) {
                        Err(Error::Unsupported(u)) => return Err(Error::Unsupported(u)),
                        r => ok = r.is_ok(),
                    }
                }
                if ok && !v.valid && v.strict_only {
                    *lax = true;
                    return pass;
                }
                if ok != v.valid {
                    return Ok(
                        if v.valid { "rejected a valid signature" } else { "accepted an invalid signature" }.into()
                    );
                }
            }
            if v.valid {
                let mut bad = v.signature.clone();
                let mid = bad.len() / 2;
                bad[mid] ^= 1;
                if verifies(p, info, &public, &v.message, &bad)? {
                    return Ok("accepted a signature with one bit flipped".into());
                }
                let mut other = v.message.clone();
                other.push(0);
                if verifies(p, info, &public, &other, &v.signature)? {
                    return Ok("accepted the signature for a different message".into());
                }
            }
            pass
        }
        "pk-encryption" => {
            if op == "decrypt" {
                let mut prepared =
                    p.prepare(info, "decrypt", &Params { keypair: v.key.clone(), ..Default::default() })?;
                for _ in 1..=2 {
                    let pt = run_once(&mut prepared, &v.ciphertext, 1024)?;
                    if pt != v.plaintext {
                        return Ok(format!("plaintext {}, expected {}", clip(&pt), clip(&v.plaintext)));
                    }
                }
                let mut bad = v.ciphertext.clone();
                let mid = bad.len() / 2;
                bad[mid] ^= 1;
                if run_once(&mut prepared, &bad, 1024).is_ok() {
                    return Ok("accepted a ciphertext with one bit flipped".into());
                }
                return pass;
            }
            if !has_private(info, &v.key) {
                return Err(unsupported("vector has no private key"));
            }
            let ct = encrypt(p, info, &public_parts(info, &v.key), &v.plaintext)?;
            let pt = decrypt(p, info, &v.key, &ct)?;
            if pt != v.plaintext {
                return Ok("its own ciphertext does not decrypt to the plaintext".into());
            }
            pass
        }
        "key-agreement" => {
            let params = Params { keypair: v.key.clone(), peer: v.peer.clone(), ..Default::default() };
            let mut prepared = p.prepare(info, "derive", &params)?;
            for _ in 1..=2 {
                let z = run_once(&mut prepared, &[], 1024)?;
                if z != v.shared {
                    return Ok(format!("shared secret {}, expected {}", clip(&z), clip(&v.shared)));
                }
            }
            pass
        }
        "kdf" => {
            let mut prepared = p.prepare(info, "derive", &v.kdf)?;
            for _ in 1..=2 {
                let out = run_once(&mut prepared, &v.input, 1024)?;
                if out != v.output {
                    return Ok(format!("output {}, expected {}", clip(&out), clip(&v.output)));
                }
            }
            pass
        }
        _ => Err(unsupported(format!("no vectors for {}", info.name))),
    }
}

pub fn run_pk_kat(p: &dyn Provider, info: &AlgorithmInfo, op: &str, r: &mut GateReport) -> String {
    if op == "keygen" {
        r.kat = "not applicable (random keys; checked by use)".into();
        return String::new();
    }
    let vectors = match pk_vectors_for(info) {
        Ok(v) => v,
        Err(e) => return e,
    };
    if vectors.is_empty() {
        if info.kind == "pk-encryption" {
            r.kat = "no published vector; checked by round trip and cross-provider decryption".into();
            return String::new();
        }
        return format!("no known-answer vector for {} in {}/{}.json", info.name, vectors_dir(), info.family);
    }
    run_vectors(
        vectors.len(),
        |i| vectors[i].source.clone(),
        p.name(),
        info,
        r,
        |i, report| {
            let mut lax = false;
            let why = check_pk_vector(p, info, op, &vectors[i], &mut lax)?;
            if lax {
                let src = if vectors[i].source.is_empty() { "a vector".to_string() } else { vectors[i].source.clone() };
                add_lax(report, &format!("accepts {src}"));
            }
            Ok(why)
        },
    )
}

/// The signature algorithm that exercises a key of info's type.
pub fn signature_for_key(p: &dyn Provider, info: &AlgorithmInfo) -> Option<&'static AlgorithmInfo> {
    if info.kind == "signature" {
        return find_algorithm(&info.name);
    }
    ["-pkcs1-sha256", "-pss-sha256"]
        .iter()
        .map(|s| format!("{}{}", info.name, s))
        .find(|n| p.offers(n))
        .and_then(|n| find_algorithm(&n))
}

pub fn check_generated_key(p: &dyn Provider, info: &AlgorithmInfo, a: &KeyParts, b: &KeyParts) -> Res<String> {
    if a == b {
        return Ok("two generated keys are identical".into());
    }
    if !has_private(info, a) {
        return Ok("generated key has no private part".into());
    }
    let msg = ByteStream::new(7).bytes(32);
    if info.kind == "key-agreement" {
        let ab = agree(p, info, a, &public_parts(info, b))?;
        let ba = agree(p, info, b, &public_parts(info, a))?;
        if ab != ba {
            return Ok("two generated keys do not agree on a shared secret".into());
        }
        if ab.len() != info.output_bytes {
            return Ok(format!("shared secret is {}", clip(&ab)));
        }
        return Ok(String::new());
    }
    let Some(sig_alg) = signature_for_key(p, info) else { return Ok(String::new()) };
    let sig = sign(p, sig_alg, a, &msg)?;
    if !verifies(p, sig_alg, &public_parts(info, a), &msg, &sig)? {
        return Ok("a signature made with a generated key does not verify".into());
    }
    if verifies(p, sig_alg, &public_parts(info, b), &msg, &sig)? {
        return Ok("a signature verifies under another generated key".into());
    }
    Ok(String::new())
}

fn check_fresh_keys(p: &dyn Provider, info: &AlgorithmInfo) -> Res<String> {
    let a = p.generate_key(info)?;
    let b = p.generate_key(info)?;
    check_generated_key(p, info, &a, &b)
}

fn run_pk_roundtrip(
    p: &dyn Provider,
    info: &AlgorithmInfo,
    op: &str,
    input: &[u8],
    params: &Params,
    r: &mut GateReport,
) -> Res<String> {
    let key = &params.keypair;
    match info.kind.as_str() {
        "keypair" | "signature" => {
            if op == "keygen" {
                return check_fresh_keys(p, info);
            }
            let sig = sign(p, info, key, input)?;
            if sig.len() != info.output_bytes {
                return Ok(format!("signature is {} bytes, expected {}", sig.len(), info.output_bytes));
            }
            let public = public_parts(info, key);
            if !verifies(p, info, &public, input, &sig)? {
                return Ok("its own signature does not verify".into());
            }
            for at in [0, sig.len() / 3, sig.len() - 1] {
                let mut bad = sig.clone();
                bad[at] ^= 0x80;
                if !verifies(p, info, &public, input, &bad)? {
                    continue;
                }
                if info.name == "ed448" && at == sig.len() - 1 {
                    add_lax(r, "accepts a signature whose last byte (zero in every valid Ed448 signature) was altered");
                    continue;
                }
                return Ok(format!("accepted its signature with a bit of byte {at} flipped"));
            }
            Ok(String::new())
        }
        "pk-encryption" => {
            let public = public_parts(info, key);
            let c1 = encrypt(p, info, &public, input)?;
            let c2 = encrypt(p, info, &public, input)?;
            if c1.len() != info.output_bytes {
                return Ok(format!("ciphertext is {}", clip(&c1)));
            }
            if c1 == c2 {
                return Ok("two encryptions of the same message are identical (no randomness)".into());
            }
            if decrypt(p, info, key, &c1)? != input {
                return Ok("decrypt(encrypt(input)) differs from the input".into());
            }
            Ok(String::new())
        }
        "key-agreement" => {
            if op == "keygen" {
                return check_fresh_keys(p, info);
            }
            let peer = test_key(&format!("{}-peer", info.key_type)).map_err(failed)?;
            let ab = agree(p, info, key, &public_parts(info, &peer))?;
            let ba = agree(p, info, &peer, &public_parts(info, key))?;
            if ab.len() != info.output_bytes {
                return Ok(format!("shared secret is {} bytes, expected {}", ab.len(), info.output_bytes));
            }
            if ab != ba {
                return Ok("the two parties compute different shared secrets".into());
            }
            Ok(String::new())
        }
        "kdf" => {
            let a = run_one(p, info, "derive", params, input)?;
            let b = run_one(p, info, "derive", params, input)?;
            if a.len() != params.out_len {
                return Ok(format!("output is {} bytes, expected {}", a.len(), params.out_len));
            }
            if a != b {
                return Ok("two derivations from the same input differ".into());
            }
            Ok(String::new())
        }
        _ => Ok("not a public-key algorithm".into()),
    }
}

pub fn run_pk_gate(p: &dyn Provider, info: &AlgorithmInfo, op: &str, input: &[u8], params: &Params) -> Res<GateReport> {
    run_steps(|r| run_pk_kat(p, info, op, r), |r| run_pk_roundtrip(p, info, op, input, params, r))
}
