"""The correctness gate for public-key algorithms and KDFs (native/src/core/gate_pk.cpp).
Randomised operations (ECDSA and PSS signatures, OAEP, key generation) are checked by round trip
here and by the other providers through the coordinator's cross_check request."""

from . import vectors
from .common import ByteStream, Params
from .errors import Unsupported
from .gate import GateReport, clip, fixed_message, run_steps, run_vectors

KDF_COSTS = {
    "pbkdf2-sha1": ("iterations",),
    "pbkdf2-sha256": ("iterations",),
    "pbkdf2-sha512": ("iterations",),
    "scrypt": ("N", "r", "p"),
    "argon2id": ("t", "m", "p"),
    "hkdf-sha256": (),
}


def deterministic_signature(info: dict) -> bool:
    return info["family"] in ("rsa-pkcs1", "ed25519", "ed448")


def _params(**kw) -> Params:
    return Params(**kw)


def run_one(p, alg: str, op: str, params, data: bytes) -> bytes:
    return bytes(p.prepare(alg, op, params)(data))


def sign(p, alg, key, msg) -> bytes:
    return run_one(p, alg, "sign", _params(keypair=key), msg)


def verifies(p, alg, pub, msg, sig) -> bool:
    """True when the signature verifies, False when the provider rejects it."""
    try:
        p.prepare(alg, "verify", _params(keypair=pub, signature=sig))(msg)
        return True
    except Unsupported:
        raise
    except Exception:
        return False


def encrypt(p, alg, pub, msg) -> bytes:
    return run_one(p, alg, "encrypt", _params(keypair=pub), msg)


def decrypt(p, alg, key, ct) -> bytes:
    return run_one(p, alg, "decrypt", _params(keypair=key), ct)


def agree(p, alg, own, peer_pub) -> bytes:
    return run_one(p, alg, "derive", _params(keypair=own, peer=peer_pub), b"")


class LaxAccept(Exception):
    pass


def add_lax(r: GateReport, what: str) -> None:
    r.lax = f"{r.lax}; {what}" if r.lax else what


def case_params(info: dict, spec: dict) -> Params:
    """The key material of a public-key or KDF case (engine.cpp, open_public_key)."""
    stream = ByteStream(spec["seed"])
    params = Params()
    if info["kind"] == "kdf":
        required = KDF_COSTS.get(info["name"], ())
        for name in required:
            if name not in spec["cost"]:
                raise RuntimeError(f"{info['name']} needs the cost parameter '{name}'")
        for name in spec["cost"]:
            if name not in required:
                raise RuntimeError(f"{info['name']} has no cost parameter '{name}'")
        hkdf = info["name"] == "hkdf-sha256"
        params.salt = stream.bytes(32 if hkdf else 16)
        if hkdf:
            params.info = stream.bytes(16)
        params.out_len = info["output_bytes"]
        params.cost = dict(spec["cost"])
        return params
    params.keypair = vectors.test_key(info["key_type"])
    if info["kind"] == "key-agreement":
        peer = vectors.test_key(info["key_type"] + "-peer")
        params.peer = vectors.public_parts(info, peer)
    return params


def check_pk_vector(p, info: dict, op: str, v) -> str:
    name, kind = info["name"], info["kind"]
    if kind == "signature":
        if op == "sign":
            if not v.valid or not vectors.has_private(info, v.key):
                raise Unsupported("vector has no private key")
            prepared = p.prepare(name, "sign", _params(keypair=v.key))
            for _ in (1, 2):
                sig = bytes(prepared(v.message))
                if deterministic_signature(info):
                    if sig != v.signature:
                        return f"signature {clip(sig)}, expected {clip(v.signature)}"
                elif not verifies(p, name, vectors.public_parts(info, v.key), v.message, sig):
                    return "its own signature does not verify"
            return ""
        pub = vectors.public_parts(info, v.key)
        try:
            prepared = p.prepare(name, "verify", _params(keypair=pub, signature=v.signature))
        except Unsupported:
            raise
        except Exception:
            if v.valid:
                raise
            prepared = None  # a key or signature refused on parsing is a rejection
        for _ in (1, 2):
            ok = False
            if prepared is not None:
                try:
                    prepared(v.message)
                    ok = True
                except Unsupported:
                    raise
                except Exception:
                    ok = False
            if ok and not v.valid and v.strict_only:
                raise LaxAccept()
            if ok != v.valid:
                return "rejected a valid signature" if v.valid else "accepted an invalid signature"
        if v.valid:
            bad = bytearray(v.signature)
            bad[len(bad) // 2] ^= 1
            if verifies(p, name, pub, v.message, bytes(bad)):
                return "accepted a signature with one bit flipped"
            if verifies(p, name, pub, v.message + b"\0", v.signature):
                return "accepted the signature for a different message"
        return ""
    if kind == "pk-encryption":
        if op == "decrypt":
            if not v.plaintext:
                encrypt(p, name, vectors.public_parts(info, v.key), v.plaintext)
            prepared = p.prepare(name, "decrypt", _params(keypair=v.key))
            for _ in (1, 2):
                pt = bytes(prepared(v.ciphertext))
                if pt != v.plaintext:
                    return f"plaintext {clip(pt)}, expected {clip(v.plaintext)}"
            bad = bytearray(v.ciphertext)
            bad[len(bad) // 2] ^= 1
            try:
                prepared(bytes(bad))
                return "accepted a ciphertext with one bit flipped"
            except Unsupported:
                raise
            except Exception:
                pass
            return ""
        if not vectors.has_private(info, v.key):
            raise Unsupported("vector has no private key")
        ct = encrypt(p, name, vectors.public_parts(info, v.key), v.plaintext)
        if decrypt(p, name, v.key, ct) != v.plaintext:
            return "its own ciphertext does not decrypt to the plaintext"
        return ""
    if kind == "key-agreement":
        prepared = p.prepare(name, "derive", _params(keypair=v.key, peer=v.peer))
        for _ in (1, 2):
            z = bytes(prepared(b""))
            if z != v.shared:
                return f"shared secret {clip(z)}, expected {clip(v.shared)}"
        return ""
    if kind == "kdf":
        prepared = p.prepare(name, "derive", _params(**v.kdf))
        for _ in (1, 2):
            out = bytes(prepared(v.input))
            if out != v.output:
                return f"output {clip(out)}, expected {clip(v.output)}"
        return ""
    raise Unsupported(f"no vectors for {name}")


def run_pk_kat(p, info: dict, op: str, r: GateReport) -> str:
    if op == "keygen":
        r.kat = "not applicable (random keys; checked by use)"
        return ""
    items = vectors.pk_vectors_for(info)
    if not items:
        if info["kind"] == "pk-encryption":
            r.kat = "no published vector; checked by round trip and cross-provider decryption"
            return ""
        return (
            f"no known-answer vector for {info['name']} in "
            f"{vectors.vectors_dir()}/{info['family']}.json"
        )

    def check(v):
        try:
            return check_pk_vector(p, info, op, v)
        except LaxAccept:
            add_lax(r, "accepts " + (v.source or "a vector"))
            return ""

    return run_vectors(items, p.name, info, r, check)


def signature_for_key(p, info: dict) -> str:
    if info["kind"] == "signature":
        return info["name"]
    for scheme in ("-pkcs1-sha256", "-pss-sha256"):
        if info["name"] + scheme in p.algorithms():
            return info["name"] + scheme
    return ""


def check_generated_key(p, info: dict, a: dict, b: dict) -> str:
    if a == b:
        return "two generated keys are identical"
    if not vectors.has_private(info, a):
        return "generated key has no private part"
    msg = fixed_message()
    if info["kind"] == "key-agreement":
        ab = agree(p, info["name"], a, vectors.public_parts(info, b))
        ba = agree(p, info["name"], b, vectors.public_parts(info, a))
        if ab != ba:
            return "two generated keys do not agree on a shared secret"
        if len(ab) != info["output_bytes"]:
            return "shared secret is " + clip(ab)
        return ""
    alg = signature_for_key(p, info)
    if not alg:
        return ""
    sig = sign(p, alg, a, msg)
    if not verifies(p, alg, vectors.public_parts(info, a), msg, sig):
        return "a signature made with a generated key does not verify"
    if verifies(p, alg, vectors.public_parts(info, b), msg, sig):
        return "a signature verifies under another generated key"
    return ""


def run_pk_roundtrip(p, info: dict, op: str, data: bytes, params, r: GateReport) -> str:
    name, kind, key = info["name"], info["kind"], params.keypair
    if op == "keygen":
        return check_generated_key(p, info, p.generate_key(name), p.generate_key(name))
    if kind == "signature":
        sig = sign(p, name, key, data)
        if len(sig) != info["output_bytes"]:
            return f"signature is {len(sig)} bytes, expected {info['output_bytes']}"
        pub = vectors.public_parts(info, key)
        if not verifies(p, name, pub, data, sig):
            return "its own signature does not verify"
        for at in (0, len(sig) // 3, len(sig) - 1):
            bad = bytearray(sig)
            bad[at] ^= 0x80
            if not verifies(p, name, pub, data, bytes(bad)):
                continue
            if name == "ed448" and at == len(sig) - 1:
                add_lax(
                    r,
                    "accepts a signature whose last byte (zero in every valid Ed448 signature) "
                    "was altered",
                )
                continue
            return f"accepted its signature with a bit of byte {at} flipped"
        return ""
    if kind == "pk-encryption":
        pub = vectors.public_parts(info, key)
        c1, c2 = encrypt(p, name, pub, data), encrypt(p, name, pub, data)
        if len(c1) != info["output_bytes"]:
            return "ciphertext is " + clip(c1)
        if c1 == c2:
            return "two encryptions of the same message are identical (no randomness)"
        if decrypt(p, name, key, c1) != data:
            return "decrypt(encrypt(input)) differs from the input"
        return ""
    if kind == "key-agreement":
        peer = vectors.test_key(info["key_type"] + "-peer")
        ab = agree(p, name, key, vectors.public_parts(info, peer))
        ba = agree(p, name, peer, vectors.public_parts(info, key))
        if len(ab) != info["output_bytes"]:
            return f"shared secret is {len(ab)} bytes, expected {info['output_bytes']}"
        if ab != ba:
            return "the two parties compute different shared secrets"
        return ""
    if kind == "kdf":
        a = run_one(p, name, "derive", params, data)
        b = run_one(p, name, "derive", params, data)
        if len(a) != params.out_len:
            return f"output is {len(a)} bytes, expected {params.out_len}"
        if a != b:
            return "two derivations from the same input differ"
        return ""
    return "not a public-key algorithm"


def run_pk_gate(p, info: dict, op: str, data: bytes, params) -> GateReport:
    return run_steps(
        lambda r: run_pk_kat(p, info, op, r),
        lambda r: run_pk_roundtrip(p, info, op, data, params, r),
    )
