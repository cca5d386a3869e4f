"""The steps of one `steps` request and what came back (docs/protocol.md, "`steps`").

A check is planned in two halves that sit side by side in the code: it adds its steps to a
`Steps` (getting back their indices) and returns a judge, a function that reads the `Results`
once the runner has answered and says "" (passed) or why not. One request carries every step of a
case's gate, so a runner answers once per case.
"""

import hashlib
from dataclasses import dataclass
from typing import Any

CASE_INPUT = {"case_input": True}  # the case's own input, made by the runner from its spec
BYTE_PARAMS = ("key", "iv", "aad", "salt", "info", "secret", "ad", "signature", "randomness")
KEY_PARAMS = ("keypair", "peer")


class NotApplicable(Exception):
    """The provider does not offer what a step asked for (its adapter's Unsupported)."""


class StepError(Exception):
    """The library refused or failed a step or a run; the message is the runner's."""


@dataclass(frozen=True)
class Ref:
    """The output of run `run` of step `step`: cut to a prefix, flipped, extended, or (keys) some
    of its parts."""

    step: int
    run: int = 0
    prefix: int | None = None  # keep the first bytes only (a KEM ciphertext without its secret)
    flip: tuple[int, int] | None = None  # (byte, mask); a negative byte counts from the end
    append: bytes = b""
    parts: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ref": [self.step, self.run]}
        if self.prefix is not None:
            out["prefix"] = self.prefix
        if self.flip:
            out["flip"] = list(self.flip)
        if self.append:
            out["append"] = self.append.hex()
        if self.parts is not None:
            out["parts"] = list(self.parts)
        return out


def _value(v: Any) -> Any:
    if isinstance(v, Ref):
        return v.to_json()
    if isinstance(v, bytes | bytearray):
        return bytes(v).hex()
    if v == CASE_INPUT:
        return CASE_INPUT
    raise TypeError(f"not a step value: {v!r}")


def _key(v: Any) -> Any:
    return v.to_json() if isinstance(v, Ref) else {k: bytes(x).hex() for k, x in v.items()}


class Steps:
    """The steps of one request, in order."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []

    def add(
        self,
        op: str,
        inputs: list[Any],
        *,
        algorithm: str = "",
        digest: bool = False,
        **params: Any,
    ) -> int:
        step: dict[str, Any] = {"op": op, "inputs": [_value(i) for i in inputs]}
        if algorithm:
            step["algorithm"] = algorithm
        if digest:
            step["digest"] = True
        p: dict[str, Any] = {}
        for name, v in params.items():
            if v is None or (isinstance(v, bytes | dict) and not v and name != "cost"):
                continue
            if name in BYTE_PARAMS:
                p[name] = _value(v)
            elif name in KEY_PARAMS:
                p[name] = _key(v)
            elif name in ("out_len", "cost"):
                p[name] = v
            else:
                raise TypeError(f"unknown step parameter {name}")
        if p:
            step["params"] = p
        self.steps.append(step)
        return len(self.steps) - 1


@dataclass(frozen=True)
class Digest:
    """An output returned as its length, SHA-256 and first 16 bytes (`"digest": true`)."""

    len: int
    sha256: str
    head: bytes

    @classmethod
    def of(cls, run: dict[str, Any]) -> "Digest":
        if "out" in run:
            b = bytes.fromhex(run["out"])
            return cls(len(b), hashlib.sha256(b).hexdigest(), b[:16])
        return cls(int(run["len"]), str(run["sha256"]), bytes.fromhex(run.get("head", "")))


class Results:
    """The runner's `steps` reply, read by the judges. Every accessor raises NotApplicable for
    what the provider does not offer and StepError for what the library refused or failed."""

    def __init__(self, reply: dict[str, Any]):
        self.results = reply.get("results") or []
        self.input = Digest.of(reply["input"]) if reply.get("input") else Digest(0, "", b"")

    def step(self, i: int) -> dict[str, Any]:
        r = self.results[i] if i < len(self.results) else None
        if not isinstance(r, dict):
            raise StepError("the runner returned no result for this step")
        if "unsupported" in r:
            raise NotApplicable(str(r["unsupported"]))
        if "error" in r:
            raise StepError(str(r["error"]))
        return r

    def run(self, i: int, j: int) -> dict[str, Any]:
        runs = self.step(i).get("runs") or []
        r = runs[j] if j < len(runs) else None
        if not isinstance(r, dict):
            raise StepError("the runner returned no result for this run")
        if "unsupported" in r:
            raise NotApplicable(str(r["unsupported"]))
        if "error" in r:
            raise StepError(str(r["error"]))
        return r

    def out(self, i: int, j: int = 0) -> bytes:
        return bytes.fromhex(self.run(i, j).get("out", ""))

    def digest(self, i: int, j: int = 0) -> Digest:
        return Digest.of(self.run(i, j))

    def key(self, i: int, j: int = 0) -> dict[str, bytes]:
        return {k: bytes.fromhex(v) for k, v in (self.run(i, j).get("key") or {}).items()}

    def accepted(self, i: int, j: int = 0) -> bool:
        """Whether run j gave output (a verifier accepted, a decryption authenticated); an
        operation the library refused to prepare rejects too."""
        try:
            self.step(i)
        except StepError:
            return False
        try:
            self.run(i, j)
        except StepError:
            return False
        return True
