"""Cross-provider agreement, computed in this process (the contract's "Agreement"): `agreement`
produces this provider's artifacts from the coordinator's material, `cross_check` checks other
providers' artifacts that equality cannot decide."""

from . import catalogue, vectors
from .common import Params
from .engine import resolve
from .errors import SpecError, Unsupported
from .gate import GateReport, fixed_message, run_kat
from .gate_pk import (
    agree,
    case_params,
    decrypt,
    encrypt,
    run_one,
    run_pk_kat,
    sign,
    signature_for_key,
    verifies,
)
from .protocol import parse_case

MATERIAL = ("key", "iv", "aad", "input", "salt", "info")


def parse_material(req: dict) -> dict[str, bytes]:
    raw = req.get("material")
    if not isinstance(raw, dict):
        raise SpecError("material: missing or not an object")
    out = {}
    for name in MATERIAL:
        v = raw.get(name, "")
        if not isinstance(v, str):
            raise SpecError(f"material.{name}: must be a hex string")
        try:
            out[name] = bytes.fromhex(v)
        except ValueError as e:
            raise SpecError(f"material.{name}: {e}") from e
    out["password"] = out["input"][:32]
    return out


def artifacts(p, info: dict, spec: dict, m: dict) -> dict:
    """This provider's outputs for the material (the contract's table)."""
    kind, name, op = info["kind"], info["name"], spec["operation"]
    if kind in ("cipher", "aead"):
        params = Params(key=m["key"], iv=m["iv"], aad=m["aad"])
        return {"ciphertext": run_one(p, name, "encrypt", params, m["input"]).hex()}
    if kind == "hash":
        return {"digest": run_one(p, name, "hash", Params(), m["input"]).hex()}
    if kind == "mac":
        return {"mac": run_one(p, name, "mac", Params(key=m["key"]), m["input"]).hex()}
    if kind == "kdf":
        case_params(info, spec)  # the case's cost must name exactly the algorithm's parameters
        params = Params(salt=m["salt"], info=m["info"], out_len=32, cost=spec["cost"])
        return {"derived": run_one(p, name, "derive", params, m["password"]).hex()}
    if op == "keygen":
        return {"generated": {k: v.hex() for k, v in p.generate_key(name).items()}}
    key = vectors.test_key(info["key_type"])
    if kind == "signature":
        return {"signature": sign(p, name, key, m["input"]).hex()}
    if kind == "pk-encryption":
        return {
            "ciphertext": encrypt(p, name, vectors.public_parts(info, key), m["password"]).hex()
        }
    if kind == "key-agreement":
        peer = vectors.test_key(info["key_type"] + "-peer")
        return {"secret": agree(p, name, key, vectors.public_parts(info, peer)).hex()}
    raise Unsupported(f"no artifacts for {op} {name}")


def own_kat(p, info: dict, op: str) -> dict:
    r = GateReport()
    try:
        why = (run_pk_kat if catalogue.is_public_key_or_kdf(info) else run_kat)(p, info, op, r)
    except Exception as e:
        why = str(e) or type(e).__name__
    return {"ok": not why, "detail": why or r.kat}


def agreement_request(cmd: str, req: dict) -> dict:
    if "case" not in req:
        raise SpecError("case: missing")
    spec = parse_case(req["case"])
    m = parse_material(req)
    try:
        info, p = resolve(spec)
        resolve_error = None
    except Unsupported as e:
        info = p = None
        resolve_error = e
    if cmd == "cross_check":
        peers = req.get("peers")
        if not isinstance(peers, dict):
            raise SpecError("peers: missing or not an object")
        return cross_check(spec, info, p, resolve_error, m, peers)
    reply = {"type": "agreement", "id": spec["id"], "status": "ok", "reason": ""}
    if resolve_error is not None:
        reply.update(status="unsupported", reason=str(resolve_error))
        return reply
    reply["kat"] = own_kat(p, info, spec["operation"])
    try:
        reply["artifacts"] = artifacts(p, info, spec, m)
    except Unsupported as e:
        reply.update(status="unsupported", reason=str(e))
    except Exception as e:
        reply.update(status="failed", reason=str(e) or type(e).__name__)
    return reply


def cross_check(spec, info, p, resolve_error, m, peers: dict) -> dict:
    verdicts = {}
    for name in sorted(peers):
        arts = peers[name] if isinstance(peers[name], dict) else {}
        if resolve_error is not None:
            verdicts[name] = {"ok": None, "reason": f"not checked: {resolve_error}"}
            continue
        try:
            why = check_peer(p, info, spec, m, arts)
            verdicts[name] = {"ok": not why, "reason": why}
        except Unsupported as e:
            verdicts[name] = {"ok": None, "reason": f"not checked: {e}"}
        except Exception as e:
            verdicts[name] = {"ok": False, "reason": str(e) or type(e).__name__}
    return {"type": "cross_check", "id": spec["id"], "verdicts": verdicts}


def check_peer(p, info: dict, spec: dict, m: dict, arts: dict) -> str:
    """Verify the peer's signature, decrypt its ciphertext, use its generated key; compare the
    deterministic artifacts with ours. "" when it agrees, else why not."""
    name = info["name"]
    if isinstance(arts.get("generated"), dict):
        return use_generated_key(
            p, info, {k: bytes.fromhex(v) for k, v in arts["generated"].items()}
        )
    if "signature" in arts:
        key = vectors.test_key(info["key_type"])
        pub = vectors.public_parts(info, key)
        if not verifies(p, name, pub, m["input"], bytes.fromhex(arts["signature"])):
            return "its signature does not verify"
        return ""
    if "ciphertext" in arts:
        ct = bytes.fromhex(arts["ciphertext"])
        try:
            if info["kind"] == "pk-encryption":
                want = m["password"]
                pt = decrypt(p, name, vectors.test_key(info["key_type"]), ct)
            else:
                want = m["input"]
                pt = run_one(p, name, "decrypt", Params(key=m["key"], iv=m["iv"], aad=m["aad"]), ct)
        except Unsupported:
            raise
        except Exception:
            return "cannot decrypt its ciphertext"
        return "" if pt == want else "cannot decrypt its ciphertext"
    for kind in ("digest", "mac", "secret", "derived"):
        if kind in arts:
            mine = artifacts(p, info, spec, m)[kind]
            return "" if mine == arts[kind].lower() else f"its {kind} differs from ours"
    raise Unsupported("no artifact this runner can check")


def use_generated_key(p, info: dict, key: dict) -> str:
    name = info["name"]
    if info["kind"] == "key-agreement":
        peer = vectors.test_key(info["key_type"] + "-peer")
        try:
            ours = agree(p, name, key, vectors.public_parts(info, peer))
            theirs = agree(p, name, peer, vectors.public_parts(info, key))
        except Unsupported:
            raise
        except Exception as e:
            return f"we cannot derive with its generated key: {e}"
        return "" if ours == theirs else "its generated key does not give one shared secret"
    alg = signature_for_key(p, info)
    if not alg:
        raise Unsupported(f"no signature scheme for {name} here")
    msg = fixed_message(0xC0FFEE)
    try:
        sig = sign(p, alg, key, msg)
    except Unsupported:
        raise
    except Exception as e:
        return f"we cannot sign with its generated key: {e}"
    if not verifies(p, alg, vectors.public_parts(info, key), msg, sig):
        return "a signature made with its generated key does not verify"
    return ""
