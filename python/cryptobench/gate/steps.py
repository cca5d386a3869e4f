"""The steps of a case's gate and what came back (docs/protocol.md, "`steps`").

A check is planned in two halves that sit side by side in the code: it adds its steps to a
`Steps` (getting back their indices) and returns a judge, a function that reads the `Results`
once the runner has answered and says "" (passed) or why not. A step may use an earlier step's
output (`Ref`); the runner resolves no references: `Steps.exchange` sends the steps in waves, each
`steps` request holding every step whose references point at outputs already back, with those
outputs (cut, flipped, extended, or some of a key's parts) in their place.
"""

import hashlib
from collections.abc import Callable
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

    def output(self, results: list[Any]) -> Any:
        """The run's output in `results` (bytes, or a key's parts); StepError when it gave none."""
        r = results[self.step]
        runs = (r.get("runs") or []) if isinstance(r, dict) else []
        run = runs[self.run] if self.run < len(runs) and isinstance(runs[self.run], dict) else {}
        if "out" in run:
            return bytes.fromhex(run["out"])
        if isinstance(run.get("key"), dict):
            return {k: bytes.fromhex(v) for k, v in run["key"].items()}
        raise StepError(f"refers to run {self.run} of step {self.step}, which gave no output")

    def hex(self, results: list[Any]) -> str:
        out = self.output(results)
        if isinstance(out, dict):
            raise StepError("refers to a generated key where bytes are expected")
        if self.prefix is not None:
            if self.prefix > len(out):
                raise StepError(f"keeps {self.prefix} bytes of a {len(out)}-byte output")
            out = out[: self.prefix]
        if self.flip:
            at, mask = self.flip
            i = at + len(out) if at < 0 else at
            if not 0 <= i < len(out):
                raise StepError(f"flips byte {at} of a {len(out)}-byte output")
            out = out[:i] + bytes([out[i] ^ mask]) + out[i + 1 :]
        return (out + self.append).hex()

    def key(self, results: list[Any]) -> dict[str, str]:
        out = self.output(results)
        if not isinstance(out, dict):
            raise StepError("refers to an output that is not a generated key")
        return {k: v.hex() for k, v in out.items() if self.parts is None or k in self.parts}


def _value(v: Any) -> Any:
    if isinstance(v, Ref):
        return v
    if isinstance(v, bytes | bytearray):
        return bytes(v).hex()
    if v == CASE_INPUT:
        return CASE_INPUT
    raise TypeError(f"not a step value: {v!r}")


def _key(v: Any) -> Any:
    return v if isinstance(v, Ref) else {k: bytes(x).hex() for k, x in v.items()}


def _refs(step: dict[str, Any]) -> list[Ref]:
    values = [*step["inputs"], *step.get("params", {}).values()]
    return [v for v in values if isinstance(v, Ref)]


class Steps:
    """The steps of a gate, in order; a value may be a `Ref` until the step is sent."""

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
        if any(r.step >= len(self.steps) for r in _refs(step)):
            raise ValueError("a step refers to its own or a later step's output")
        self.steps.append(step)
        return len(self.steps) - 1

    def exchange(self, send: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> dict[str, Any]:
        """Sends the steps through `send` (one `steps` request each call) and returns one `steps`
        reply with every step's result, in order. Each request holds every step whose references
        point at results already back (the first holds every step without one), their outputs in
        place; a step whose output a later one uses comes back whole, not as a digest. A
        reference to a run without output makes that run (or, in params, the step) an error, as
        a runner answered before references left it."""
        used = {r.step for step in self.steps for r in _refs(step)}
        results: list[Any] = [None] * len(self.steps)
        reply: dict[str, Any] = {"type": "steps", "status": "ok", "reason": ""}
        while None in results:
            wave: list[tuple[int, dict[int, dict[str, str]]]] = []
            sent: list[dict[str, Any]] = []
            for i, step in enumerate(self.steps):
                if results[i] is not None or any(results[r.step] is None for r in _refs(step)):
                    continue
                try:
                    params = {
                        k: (v.key(results) if k in KEY_PARAMS else v.hex(results))
                        if isinstance(v, Ref)
                        else v
                        for k, v in step.get("params", {}).items()
                    }
                except StepError as e:
                    results[i] = {"error": str(e)}
                    continue
                inputs, failed = [], {}
                for n, v in enumerate(step["inputs"]):
                    try:
                        inputs.append(v.hex(results) if isinstance(v, Ref) else v)
                    except StepError as e:
                        failed[n] = {"error": str(e)}
                out = {**step, "inputs": inputs} | ({"params": params} if params else {})
                if i in used:
                    out.pop("digest", None)
                wave.append((i, failed))
                sent.append(out)
            if not sent:
                continue
            reply = send(sent)
            if reply.get("status", "ok") != "ok":
                return reply
            got = reply.get("results") or []
            for k, (i, failed) in enumerate(wave):
                r = got[k] if k < len(got) and isinstance(got[k], dict) else {}
                if not r:
                    r = {"error": "the runner returned no result for this step"}
                if "runs" in r and failed:
                    runs = list(r["runs"])
                    for n in sorted(failed):
                        runs.insert(n, failed[n])
                    r = {**r, "runs": runs}
                results[i] = r
        return {**reply, "results": results}


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
