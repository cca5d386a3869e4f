"""The correctness gate for symmetric algorithms, hashes and MACs (native/src/core/gate.cpp):
every known-answer vector twice on one prepared operation, an AEAD decryption must reject a
flipped tag, then the round trip on the case's own input. Cross-provider agreement is the
coordinator's (the agreement and cross_check requests, agreement.py)."""

from dataclasses import dataclass

from . import vectors
from .common import ByteStream, Params
from .errors import Unsupported

STREAM_BLOCK = 64  # what initial_counter counts (ChaCha20 / Salsa20 blocks)


@dataclass
class GateReport:
    ok: bool = False
    reason: str = ""
    kat: str = ""
    roundtrip: str = ""
    agreement: str = ""
    lax: str = ""

    def to_json(self) -> dict:
        out = {"kat": self.kat, "roundtrip": self.roundtrip, "agreement": self.agreement}
        if self.lax:
            out["lax"] = self.lax
        return out


def fixed_message(seed: int = 7) -> bytes:
    """The gate's fixed 32-byte message: the native gate's ByteStream(seed).bytes(32)."""
    return ByteStream(seed).bytes(32)


def clip(b: bytes) -> str:
    h = b[:24].hex() + ("..." if len(b) > 24 else "")
    return f"{h} ({len(b)} bytes)"


def mismatch(what: str, got: bytes, want: bytes) -> str:
    return f"{what}: got {clip(got)}, expected {clip(want)}"


def forward(info: dict) -> str:
    return {"hash": "hash", "mac": "mac"}.get(info["kind"], "encrypt")


def check_vector(p, info: dict, op: str, v) -> str:
    prepared = p.prepare(info["name"], op, Params(key=v.key, iv=v.iv, aad=v.aad))
    prefix = bytes(v.initial_counter * STREAM_BLOCK)
    data, want = (v.expected, v.input) if op == "decrypt" else (v.input, v.expected)
    data = prefix + data
    for rnd in (1, 2):
        got = bytes(prepared(data))
        if len(got) < len(prefix):
            return mismatch("output too short", got, want)
        got = got[len(prefix) :]
        if info["kind"] == "mac" and len(want) < len(got):
            got = got[: len(want)]
        if got != want:
            return mismatch(
                "wrong output" if rnd == 1 else "wrong output on the second run", got, want
            )
    if info["kind"] == "aead" and op == "decrypt":
        tampered = data[:-1] + bytes([data[-1] ^ 1])
        try:
            prepared(tampered)
            return "accepted a ciphertext whose tag was altered"
        except Unsupported:
            raise
        except Exception:
            pass
        if bytes(prepared(data))[len(prefix) :] != want:
            return "wrong output after rejecting a forgery"
    return ""


def run_vectors(items, provider: str, info: dict, report: GateReport, check) -> str:
    """gate_util.hpp, run_vectors: "" passes, a reason fails, Unsupported skips (one must apply)."""
    passed = not_applicable = 0
    na_reason = ""
    for v in items:
        try:
            why = check(v)
        except Unsupported as e:
            not_applicable += 1
            na_reason = str(e)
            continue
        except Exception as e:
            why = str(e) or type(e).__name__
        if why:
            return f"known-answer test {v.source or info['name']} failed for {provider}: {why}"
        passed += 1
    if not passed:
        return "no known-answer vector applies: " + na_reason
    report.kat = f"passed {passed} vector" + ("" if passed == 1 else "s")
    if not_applicable:
        report.kat += f", {not_applicable} not applicable ({na_reason})"
    return ""


def run_kat(p, info: dict, op: str, report: GateReport) -> str:
    items = vectors.vectors_for(info)
    if not items:
        return (
            f"no known-answer vector for {info['name']} in "
            f"{vectors.vectors_dir()}/{info['family']}.json"
        )
    return run_vectors(items, p.name, info, report, lambda v: check_vector(p, info, op, v))


def run_roundtrip(p, info: dict, data: bytes, params) -> str:
    if info["kind"] in ("hash", "mac"):
        op = p.prepare(info["name"], forward(info), params)
        a, b = bytes(op(data)), bytes(op(data))
        if len(a) != info["output_bytes"]:
            return f"output is {len(a)} bytes, expected {info['output_bytes']}"
        if a != b:
            return "two runs on the same input gave different outputs"
        return ""
    enc = p.prepare(info["name"], "encrypt", params)
    dec = p.prepare(info["name"], "decrypt", params)
    ct = bytes(enc(data))
    if len(ct) != len(data) + info["tag_bytes"]:
        return f"ciphertext is {len(ct)} bytes for {len(data)} bytes of input"
    if len(data) >= 16 and ct[:16] == data[:16]:
        return "ciphertext starts with the plaintext"
    if bytes(dec(ct)) != data:
        return "decrypt(encrypt(input)) differs from the input"
    return ""


def run_steps(kat, roundtrip) -> GateReport:
    """gate_util.hpp, run_steps, without the agreement step; Unsupported propagates."""
    r = GateReport(agreement="by the coordinator (agreement request)")
    try:
        why = kat(r)
        if why:
            r.reason = why
            return r
        why = roundtrip(r)
    except Unsupported:
        raise
    except Exception as e:
        why = str(e) or type(e).__name__
    if why:
        r.reason = "round trip failed: " + why
        return r
    r.roundtrip = "passed"
    r.ok = True
    return r


def run_gate(p, info: dict, op: str, data: bytes, params) -> GateReport:
    return run_steps(
        lambda r: run_kat(p, info, op, r), lambda r: run_roundtrip(p, info, data, params)
    )
