"""The parameters of a case's prepared operation, made once by the coordinator and sent with
`open` and the gate's steps (docs/protocol.md, "`open` of a coordinator-gated runner"): the
symmetric key, IV and AAD from the case's seed, a KDF's salt, info and cost, the shared test keys.
"""

from dataclasses import dataclass, field
from typing import Any

from cryptobench.gate.vectors import Vectors, public_parts

KDF_COSTS = {
    "pbkdf2-sha1": ("iterations",),
    "pbkdf2-sha256": ("iterations",),
    "pbkdf2-sha512": ("iterations",),
    "scrypt": ("N", "r", "p"),
    "argon2id": ("t", "m", "p"),
    "hkdf-sha256": (),
}


class ByteStream:
    """splitmix64, byte for byte the native ByteStream (hexutil.cpp) every runner has: keys, IVs
    and AAD of a case are `ByteStream(seed)`'s first bytes, each taken in whole 8-byte words."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int):
        self.state = seed & self.MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def bytes(self, n: int) -> bytes:
        words = (n + 7) // 8
        return b"".join(self.next().to_bytes(8, "little") for _ in range(words))[:n]


class CaseError(Exception):
    """The case cannot be made (a KDF cost that names the wrong parameters): it fails."""


@dataclass
class Params:
    """One prepared operation's parameters; `peer_key` (the whole peer key) stays here."""

    key: bytes = b""
    iv: bytes = b""
    aad: bytes = b""
    keypair: dict[str, bytes] = field(default_factory=dict)
    public: dict[str, bytes] = field(default_factory=dict)
    peer: dict[str, bytes] = field(default_factory=dict)
    peer_key: dict[str, bytes] = field(default_factory=dict)
    salt: bytes = b""
    info: bytes = b""
    out_len: int = 0
    cost: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """For `open`: every set field, bytes as hex, key parts as objects of hex."""
        out: dict[str, Any] = {}
        for name in ("key", "iv", "aad", "salt", "info"):
            if getattr(self, name):
                out[name] = getattr(self, name).hex()
        for name in ("keypair", "public", "peer"):
            if getattr(self, name):
                out[name] = {k: v.hex() for k, v in getattr(self, name).items()}
        if self.out_len:
            out["out_len"] = self.out_len
        if self.cost:
            out["cost"] = dict(self.cost)
        return out

    def symmetric(self) -> dict[str, Any]:
        """The keyword arguments of a symmetric step."""
        return {"key": self.key, "iv": self.iv, "aad": self.aad}

    def kdf(self) -> dict[str, Any]:
        return {"salt": self.salt, "info": self.info, "out_len": self.out_len, "cost": self.cost}


def check_cost(info: dict, cost: dict[str, int]) -> None:
    """A KDF case's cost must name exactly its algorithm's parameters."""
    required = KDF_COSTS.get(info["name"], ())
    for name in required:
        if name not in cost:
            raise CaseError(f"{info['name']} needs the cost parameter '{name}'")
    for name in cost:
        if name not in required:
            raise CaseError(f"{info['name']} has no cost parameter '{name}'")


def case_params(info: dict, case: dict[str, Any], vectors: Vectors) -> Params:
    """The parameters of the case's operation (engine.cpp, open and open_public_key)."""
    stream = ByteStream(int(case.get("seed", 1)))
    kind = info["kind"]
    if kind in ("cipher", "aead", "hash", "mac"):
        p = Params(key=stream.bytes(info["key_bytes"]), iv=stream.bytes(info["iv_bytes"]))
        if kind == "aead":
            p.aad = stream.bytes(int(case.get("aad_bytes", 0)))
        return p
    if kind == "kdf":
        cost = dict(case.get("cost") or {})
        check_cost(info, cost)
        hkdf = info["name"] == "hkdf-sha256"
        p = Params(salt=stream.bytes(32 if hkdf else 16), out_len=info["output_bytes"], cost=cost)
        if hkdf:
            p.info = stream.bytes(16)
        return p
    key = vectors.test_key(info["key_type"])
    p = Params(keypair=key, public=public_parts(info, key))
    if kind == "key-agreement":
        p.peer_key = vectors.test_key(info["key_type"] + "-peer")
        p.peer = public_parts(info, p.peer_key)
    return p
