"""Known-answer vectors and test keys from vectors/, read once by the coordinator for every
runner it gates (the native runner reads them itself: native/src/core/vectors.cpp)."""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

REPO_VECTORS = Path(__file__).resolve().parents[3] / "vectors"


def default_dir() -> Path:
    """$CRYPTOBENCH_VECTORS, else the repository's vectors/."""
    return Path(os.environ.get("CRYPTOBENCH_VECTORS") or REPO_VECTORS)


@dataclass
class Vector:
    """A cipher, AEAD, hash or MAC known answer: input → expected (AEAD: ciphertext ‖ tag)."""

    source: str
    key: bytes = b""
    iv: bytes = b""
    aad: bytes = b""
    input: bytes = b""
    expected: bytes = b""
    initial_counter: int = 0


@dataclass
class PkVector:
    """A public-key or KDF known answer; which fields are set depends on the kind."""

    source: str
    key: dict[str, bytes] = field(default_factory=dict)
    peer: dict[str, bytes] = field(default_factory=dict)
    message: bytes = b""
    signature: bytes = b""
    valid: bool = True
    strict_only: bool = False
    plaintext: bytes = b""
    ciphertext: bytes = b""
    shared: bytes = b""
    input: bytes = b""
    output: bytes = b""
    kdf: dict = field(default_factory=dict)  # salt, info, secret, ad, out_len, cost
    randomness: bytes = b""  # a KEM encapsulation's m (docs/post-quantum.md)
    implicit_rejection: bool = False  # an invalid KEM ciphertext: `shared` is the rejection secret


def _hex(v: dict, name: str) -> bytes:
    return bytes.fromhex(v.get(name, ""))


def parts(raw: dict | None) -> dict[str, bytes]:
    return {k: bytes.fromhex(x) for k, x in (raw or {}).items()}


class Vectors:
    """The vector files of one directory, each parsed on first use."""

    def __init__(self, directory: Path | str | None = None):
        self.dir = Path(directory) if directory else default_dir()
        self._families: dict[str, list[dict]] = {}
        self._keys: dict[str, dict[str, bytes]] | None = None

    def _family(self, family: str) -> list[dict]:
        if family not in self._families:
            path = self.dir / f"{family}.json"
            try:
                self._families[family] = json.loads(path.read_text()).get("vectors", [])
            except FileNotFoundError:
                self._families[family] = []
        return self._families[family]

    def where(self, info: dict) -> str:
        return f"{self.dir}/{info['family']}.json"

    def _of(self, info: dict) -> list[dict]:
        return [v for v in self._family(info["family"]) if v.get("algorithm") == info["name"]]

    def symmetric(self, info: dict) -> list[Vector]:
        out = []
        for v in self._of(info):
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

    def public_key(self, info: dict) -> list[PkVector]:
        out = []
        for v in self._of(info):
            x = PkVector(v.get("source", ""), parts(v.get("key")), parts(v.get("peer")))
            x.message, x.signature = _hex(v, "message"), _hex(v, "signature")
            x.valid, x.strict_only = v.get("valid", True), v.get("strict_only", False)
            x.plaintext, x.ciphertext = _hex(v, "plaintext"), _hex(v, "ciphertext")
            x.shared, x.input, x.output = _hex(v, "shared"), _hex(v, "input"), _hex(v, "output")
            x.randomness = _hex(v, "randomness")
            x.implicit_rejection = v.get("implicit_rejection", False)
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

    def test_key(self, name: str) -> dict[str, bytes]:
        if self._keys is None:
            path = self.dir / "keys.json"
            try:
                doc = json.loads(path.read_text())
            except (OSError, ValueError) as e:
                raise GateDataError(f"cannot read the test keys {path}: {e}") from None
            self._keys = {k: parts(v) for k, v in doc["keys"].items()}
        keys = self._keys
        if name not in keys:
            raise GateDataError(f"no test key {name} in {self.dir / 'keys.json'}")
        return keys[name]


class GateDataError(Exception):
    """The shared data the gate needs is missing or unreadable: the case fails with this."""


def _key_family(info: dict) -> str:
    t = info.get("key_type", "")
    if t.startswith("rsa-"):
        return "rsa"
    if t.startswith(("ecdsa-", "ecdh-")):
        return "ec"
    if t.startswith("ffdhe"):
        return "ffdhe"
    if t.startswith(POST_QUANTUM_KEY_TYPES):
        return "pq"
    return "raw"


# Post-quantum keys (docs/post-quantum.md): `seed` (the FIPS 203/204/205 key-generation seed)
# and/or `priv` (the expanded or FIPS 205 private key), and `pub`.
POST_QUANTUM_KEY_TYPES = ("ml-kem-", "ml-dsa-", "slh-dsa-", "x25519mlkem")
PUBLIC_PARTS = {
    "rsa": ("n", "e"),
    "ec": ("x", "y"),
    "ffdhe": ("y",),
    "raw": ("pub",),
    "pq": ("pub",),
}
PRIVATE_PART = {"rsa": "d", "ec": "d", "ffdhe": "x", "raw": "priv", "pq": "priv"}


def is_post_quantum(info: dict) -> bool:
    return _key_family(info) == "pq"


def public_parts(info: dict, key: dict) -> dict:
    return {n: key[n] for n in PUBLIC_PARTS[_key_family(info)] if n in key}


def public_names(info: dict) -> list[str]:
    return list(PUBLIC_PARTS[_key_family(info)])


def has_private(info: dict, key: dict) -> bool:
    if _key_family(info) == "pq" and key.get("seed"):
        return True
    return bool(key.get(PRIVATE_PART[_key_family(info)]))
