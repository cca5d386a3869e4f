"""Known-answer vectors and test keys from vectors/ (native/src/core/vectors.cpp)."""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

# The wrapper in .venv/bin sets CRYPTOBENCH_VECTORS when it is not set; --vectors wins.
_dir: str | None = None


def set_dir(path: str) -> None:
    global _dir
    _dir = path


def vectors_dir() -> str:
    if _dir:
        return _dir
    if os.environ.get("CRYPTOBENCH_VECTORS"):
        return os.environ["CRYPTOBENCH_VECTORS"]
    return str(Path(__file__).resolve().parents[3] / "vectors")


@dataclass
class Vector:
    source: str
    key: bytes = b""
    iv: bytes = b""
    aad: bytes = b""
    input: bytes = b""
    expected: bytes = b""
    initial_counter: int = 0


@dataclass
class PkVector:
    source: str
    key: dict = field(default_factory=dict)
    peer: dict = field(default_factory=dict)
    message: bytes = b""
    signature: bytes = b""
    valid: bool = True
    strict_only: bool = False
    plaintext: bytes = b""
    ciphertext: bytes = b""
    shared: bytes = b""
    input: bytes = b""
    output: bytes = b""
    kdf: dict = field(default_factory=dict)


_docs: dict[str, dict] = {}


def _family(info: dict) -> list[dict]:
    path = os.path.join(vectors_dir(), info["family"] + ".json")
    if path not in _docs:
        try:
            with open(path) as f:
                _docs[path] = json.load(f)
        except FileNotFoundError:
            _docs[path] = {"vectors": []}
    return [v for v in _docs[path].get("vectors", []) if v.get("algorithm") == info["name"]]


def _hex(v: dict, name: str) -> bytes:
    return bytes.fromhex(v.get(name, ""))


def parts(raw: dict) -> dict[str, bytes]:
    return {k: bytes.fromhex(x) for k, x in (raw or {}).items()}


def vectors_for(info: dict) -> list[Vector]:
    out = []
    for v in _family(info):
        x = Vector(v.get("source", ""), _hex(v, "key"), _hex(v, "iv"), _hex(v, "aad"))
        x.initial_counter = v.get("initial_counter", 0)
        if info["kind"] in ("cipher", "aead"):
            x.input = _hex(v, "plaintext")
            x.expected = _hex(v, "ciphertext") + _hex(v, "tag")
        else:
            x.input = _hex(v, "message") * v.get("repeat", 1)
            x.expected = _hex(v, "digest" if info["kind"] == "hash" else "tag")
        out.append(x)
    return out


def pk_vectors_for(info: dict) -> list[PkVector]:
    out = []
    for v in _family(info):
        x = PkVector(v.get("source", ""), parts(v.get("key")), parts(v.get("peer")))
        x.message, x.signature = _hex(v, "message"), _hex(v, "signature")
        x.valid, x.strict_only = v.get("valid", True), v.get("strict_only", False)
        x.plaintext, x.ciphertext = _hex(v, "plaintext"), _hex(v, "ciphertext")
        x.shared, x.input, x.output = _hex(v, "shared"), _hex(v, "input"), _hex(v, "output")
        x.kdf = {
            "salt": _hex(v, "salt"),
            "info": _hex(v, "info"),
            "secret": _hex(v, "secret"),
            "ad": _hex(v, "ad"),
            "out_len": len(x.output),
            "cost": v.get("cost", {}),
        }
        out.append(x)
    return out


_keys: dict[str, dict[str, bytes]] | None = None


def test_key(name: str) -> dict[str, bytes]:
    global _keys
    path = os.path.join(vectors_dir(), "keys.json")
    if _keys is None:
        try:
            with open(path) as f:
                doc = json.load(f)
        except OSError as e:
            raise RuntimeError(f"cannot read the test keys {path}") from e
        _keys = {k: parts(v) for k, v in doc["keys"].items()}
    if name not in _keys:
        raise RuntimeError(f"no test key {name} in {path}")
    return _keys[name]


def public_parts(info: dict, key: dict) -> dict:
    t = info["key_type"]
    if t.startswith("rsa-"):
        names = ("n", "e")
    elif t.startswith(("ecdsa-", "ecdh-")):
        names = ("x", "y")
    elif t.startswith("ffdhe"):
        names = ("y",)
    else:
        names = ("pub",)
    return {n: key[n] for n in names if n in key}


def private_part(info: dict) -> str:
    t = info["key_type"]
    if t.startswith("ffdhe"):
        return "x"
    if t.startswith(("rsa-", "ecdsa-", "ecdh-")):
        return "d"
    return "priv"


def has_private(info: dict, key: dict) -> bool:
    return bool(key.get(private_part(info)))
