//! Cross-provider agreement, computed in this process (docs/protocol.md, "Agreement";
//! runners/go/agreement.go): `agreement` produces this provider's artifacts from the
//! coordinator's material, `cross_check` checks other providers' artifacts that equality cannot
//! decide.

use crate::engine::{CaseSpec, STATUS_FAILED, STATUS_OK, STATUS_UNSUPPORTED, case_params, resolve};
use crate::gate::*;
use crate::gate_pk::*;
use crate::protocol::{SpecError, parse_case};
use crate::types::*;
use crate::vectors::*;
use serde_json::{Map, Value, json};

#[derive(Default)]
struct Material {
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    input: Vec<u8>,
    salt: Vec<u8>,
    info: Vec<u8>,
}

impl Material {
    fn password(&self) -> &[u8] {
        &self.input[..self.input.len().min(32)]
    }
    fn symmetric(&self) -> Params {
        Params { key: self.key.clone(), iv: self.iv.clone(), aad: self.aad.clone(), ..Default::default() }
    }
}

fn parse_material(req: &Map<String, Value>) -> Result<Material, SpecError> {
    let raw = req
        .get("material")
        .and_then(Value::as_object)
        .ok_or_else(|| SpecError("material: missing or not an object".into()))?;
    let mut m = Material::default();
    for (name, dst) in [
        ("key", &mut m.key),
        ("iv", &mut m.iv),
        ("aad", &mut m.aad),
        ("input", &mut m.input),
        ("salt", &mut m.salt),
        ("info", &mut m.info),
    ] {
        let Some(v) = raw.get(name) else { continue };
        let s = v.as_str().ok_or_else(|| SpecError(format!("material.{name}: must be a hex string")))?;
        *dst = hex::decode(s).map_err(|e| SpecError(format!("material.{name}: {e}")))?;
    }
    Ok(m)
}

fn hex_parts(k: &KeyParts) -> Value {
    Value::Object(k.iter().map(|(n, v)| (n.clone(), json!(hex::encode(v)))).collect())
}

/// This provider's outputs for the material (the contract's table).
fn artifacts(p: &dyn Provider, info: &AlgorithmInfo, spec: &CaseSpec, m: &Material) -> Res<Map<String, Value>> {
    let one = |name: &str, v: Vec<u8>| -> Res<Map<String, Value>> {
        let mut out = Map::new();
        out.insert(name.into(), json!(hex::encode(v)));
        Ok(out)
    };
    match info.kind.as_str() {
        "cipher" | "aead" => return one("ciphertext", run_one(p, info, "encrypt", &m.symmetric(), &m.input)?),
        "hash" => return one("digest", run_one(p, info, "hash", &Params::default(), &m.input)?),
        "mac" => return one("mac", run_one(p, info, "mac", &m.symmetric(), &m.input)?),
        "kdf" => {
            case_params(info, spec)?;
            let params = Params {
                salt: m.salt.clone(),
                info: m.info.clone(),
                out_len: 32,
                cost: spec.cost.clone(),
                ..Default::default()
            };
            return one("derived", run_one(p, info, "derive", &params, m.password())?);
        }
        _ => {}
    }
    if spec.operation == "keygen" {
        let mut out = Map::new();
        out.insert("generated".into(), hex_parts(&p.generate_key(info)?));
        return Ok(out);
    }
    let key = test_key(&info.key_type).map_err(failed)?;
    match info.kind.as_str() {
        "signature" => one("signature", sign(p, info, &key, &m.input)?),
        "pk-encryption" => one("ciphertext", encrypt(p, info, &public_parts(info, &key), m.password())?),
        "key-agreement" => {
            let peer = test_key(&format!("{}-peer", info.key_type)).map_err(failed)?;
            one("secret", agree(p, info, &key, &public_parts(info, &peer))?)
        }
        _ => Err(unsupported(format!("no artifacts for {} {}", spec.operation, info.name))),
    }
}

/// This provider's known-answer result for the case's algorithm, every operation but keygen.
fn own_kat(p: &dyn Provider, info: &AlgorithmInfo) -> Value {
    let mut details = Vec::new();
    for op in info.operations.iter().filter(|o| *o != "keygen") {
        let mut r = GateReport::default();
        let why = if info.kind == "kdf" || is_public_key(&info.kind) {
            run_pk_kat(p, info, op, &mut r)
        } else {
            run_kat(p, info, op, &mut r)
        };
        if !why.is_empty() {
            return json!({"ok": false, "detail": format!("{op}: {why}")});
        }
        details.push(format!("{op}: {}", r.kat));
    }
    if details.is_empty() {
        return json!({"ok": true, "detail": "not applicable (random keys; checked by use)"});
    }
    json!({"ok": true, "detail": details.join("; ")})
}

fn status_of(e: &Error) -> &'static str {
    if matches!(e, Error::Unsupported(_)) { STATUS_UNSUPPORTED } else { STATUS_FAILED }
}

pub fn agreement_request(cmd: &str, req: &Map<String, Value>) -> Result<Value, SpecError> {
    let raw = req.get("case").ok_or_else(|| SpecError("case: missing".into()))?;
    let mut spec = parse_case(raw, "case")?;
    let m = parse_material(req)?;
    let resolved = resolve(&mut spec);
    if cmd == "cross_check" {
        let peers = req
            .get("peers")
            .and_then(Value::as_object)
            .ok_or_else(|| SpecError("peers: missing or not an object".into()))?;
        return Ok(cross_check(&spec, resolved, &m, peers));
    }
    let mut reply = json!({"type": "agreement", "id": spec.id, "status": STATUS_OK, "reason": ""});
    let (info, p) = match resolved {
        Ok(x) => x,
        Err(e) => {
            reply["status"] = json!(status_of(&e));
            reply["reason"] = json!(e.to_string());
            return Ok(reply);
        }
    };
    reply["kat"] = own_kat(p, info);
    match artifacts(p, info, &spec, &m) {
        Ok(a) => reply["artifacts"] = Value::Object(a),
        Err(e) => {
            reply["status"] = json!(status_of(&e));
            reply["reason"] = json!(e.to_string());
        }
    }
    Ok(reply)
}

fn cross_check(
    spec: &CaseSpec,
    resolved: Res<(&'static AlgorithmInfo, &'static dyn Provider)>,
    m: &Material,
    peers: &Map<String, Value>,
) -> Value {
    let mut verdicts = Map::new();
    let mut names: Vec<&String> = peers.keys().collect();
    names.sort();
    for name in names {
        let verdict = match &resolved {
            Err(e) => json!({"ok": null, "reason": format!("not checked: {e}")}),
            Ok((info, p)) => {
                let empty = Map::new();
                let arts = peers[name].as_object().unwrap_or(&empty);
                match check_peer(*p, info, spec, m, arts) {
                    Err(e) => json!({"ok": null, "reason": format!("not checked: {e}")}),
                    Ok(why) if why.is_empty() => json!({"ok": true, "reason": ""}),
                    Ok(why) => json!({"ok": false, "reason": why}),
                }
            }
        };
        verdicts.insert(name.clone(), verdict);
    }
    json!({"type": "cross_check", "id": spec.id, "verdicts": verdicts})
}

fn hex_artifact(arts: &Map<String, Value>, name: &str) -> Option<Vec<u8>> {
    arts.get(name).and_then(Value::as_str).and_then(|s| hex::decode(s).ok())
}

/// Verify the peer's signature, decrypt its ciphertext, use its generated key; for the
/// deterministic artifacts compare with ours. Ok("") accepts, Ok(reason) rejects, Err: the check
/// could not be made here.
fn check_peer(
    p: &dyn Provider,
    info: &AlgorithmInfo,
    spec: &CaseSpec,
    m: &Material,
    arts: &Map<String, Value>,
) -> Res<String> {
    if let Some(raw) = arts.get("generated").and_then(Value::as_object) {
        let mut key = KeyParts::new();
        for (n, v) in raw {
            match v.as_str().and_then(|s| hex::decode(s).ok()) {
                Some(b) => key.insert(n.clone(), b),
                None => return Ok(format!("generated.{n} is not hex")),
            };
        }
        return use_generated_key(p, info, &key);
    }
    if let Some(sig) = hex_artifact(arts, "signature") {
        let key = test_key(&info.key_type).map_err(failed)?;
        if !verifies(p, info, &public_parts(info, &key), &m.input, &sig)? {
            return Ok("its signature does not verify".into());
        }
        return Ok(String::new());
    }
    if let Some(ct) = hex_artifact(arts, "ciphertext") {
        let (pt, want) = if info.kind == "pk-encryption" {
            let key = test_key(&info.key_type).map_err(failed)?;
            (decrypt(p, info, &key, &ct), m.password())
        } else {
            (run_one(p, info, "decrypt", &m.symmetric(), &ct), &m.input[..])
        };
        return match pt {
            Err(Error::Unsupported(u)) => Err(Error::Unsupported(u)),
            Ok(pt) if pt == want => Ok(String::new()),
            _ => Ok("cannot decrypt its ciphertext".into()),
        };
    }
    for name in ["digest", "mac", "secret", "derived"] {
        let Some(theirs) = hex_artifact(arts, name) else { continue };
        let mine = artifacts(p, info, spec, m)?;
        if mine.get(name) != Some(&json!(hex::encode(theirs))) {
            return Ok(format!("its {name} differs from ours"));
        }
        return Ok(String::new());
    }
    Err(unsupported("no artifact this runner can check"))
}

fn use_generated_key(p: &dyn Provider, info: &AlgorithmInfo, key: &KeyParts) -> Res<String> {
    let msg = ByteStream::new(0xC0FFEE).bytes(32);
    if info.kind == "key-agreement" {
        let peer = test_key(&format!("{}-peer", info.key_type)).map_err(failed)?;
        let ours = match agree(p, info, key, &public_parts(info, &peer)) {
            Ok(z) => z,
            Err(e) => return Ok(format!("we cannot derive with its generated key: {e}")),
        };
        let theirs = match agree(p, info, &peer, &public_parts(info, key)) {
            Ok(z) => z,
            Err(e) => return Ok(format!("we cannot derive with its generated public key: {e}")),
        };
        if ours != theirs {
            return Ok("its generated key does not give one shared secret from both sides".into());
        }
        return Ok(String::new());
    }
    let sig_alg =
        signature_for_key(p, info).ok_or_else(|| unsupported(format!("no signature scheme for {} here", info.name)))?;
    let sig = match sign(p, sig_alg, key, &msg) {
        Ok(s) => s,
        Err(e) => return Ok(format!("we cannot sign with its generated key: {e}")),
    };
    if !verifies(p, sig_alg, &public_parts(info, key), &msg, &sig)? {
        return Ok("a signature made with its generated key does not verify".into());
    }
    Ok(String::new())
}
