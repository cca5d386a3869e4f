"""The gate of one case in a coordinator-gated runner (docs/protocol.md, "Who gates"): plan the
known-answer steps of the case's operation and the round trip of its own input, send them in `steps`
requests, judge the outputs, and say whether the case may be opened (and with which
`params`). The messages are the native gate's, word for word."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptobench.gate import pq, publickey, symmetric
from cryptobench.gate.material import CaseError, Params, case_params
from cryptobench.gate.steps import NotApplicable, Results, StepError, Steps
from cryptobench.gate.vectors import GateDataError, Vectors

SYMMETRIC_KINDS = ("cipher", "aead", "hash", "mac")
# Sends one `steps` request for the case, returns the runner's `steps` reply.
Send = Callable[[list[dict[str, Any]]], dict[str, Any]]


@dataclass
class Report:
    """What the gate found; `record()` is the `gate` object stored with the case."""

    ok: bool = False
    reason: str = ""
    kat: str = ""
    roundtrip: str = ""
    lax: list[str] = field(default_factory=list)

    def record(self) -> dict[str, str]:
        out = {"kat": self.kat, "roundtrip": self.roundtrip}
        if self.lax:
            out["lax"] = "; ".join(self.lax)
        return out


@dataclass
class Gated:
    """The gate's verdict on a case: `ok` (open it with `params`), `failed` or `unsupported`."""

    status: str
    reason: str = ""
    record: dict[str, str] = field(default_factory=dict)
    params: Params | None = None


def run_vectors(
    judges: list[tuple[str, publickey.Judge]], provider: str, info: dict, report: Report, r
) -> str:
    """Every vector's judge: "" passes, a reason fails, NotApplicable skips (one must apply);
    fills report.kat (gate_util.hpp, run_vectors)."""
    passed = not_applicable = 0
    na_reason = ""
    for source, judge in judges:
        try:
            why = judge(r)
        except NotApplicable as e:
            not_applicable += 1
            na_reason = str(e)
            continue
        except publickey.LaxAccept:
            report.lax.append("accepts " + (source or "a vector"))
            why = ""
        except StepError as e:
            why = str(e)
        if why:
            return f"known-answer test {source or info['name']} failed for {provider}: {why}"
        passed += 1
    if not passed:
        return "no known-answer vector applies: " + na_reason
    report.kat = f"passed {passed} vector" + ("" if passed == 1 else "s")
    if not_applicable:
        report.kat += f", {not_applicable} not applicable ({na_reason})"
    return ""


def plan_kat(
    steps: Steps, info: dict, op: str, vectors: Vectors, provider: str, report: Report
) -> Callable[[Results], str]:
    """The known-answer steps of one operation; the returned function judges them."""
    if info["kind"] in SYMMETRIC_KINDS:
        items = vectors.symmetric(info)
        judges = [(v.source, symmetric.kat_vector(steps, info, op, v)) for v in items]
    elif info["kind"] == "kem":
        judges = pq.kem_judges(steps, info, vectors)
    elif op == "keygen" and pq.is_post_quantum(info):
        judges = pq.seed_keygen_judges(steps, info, vectors)
    elif op == "keygen":
        report.kat = "not applicable (random keys; checked by use)"
        return lambda _r: ""
    else:
        items = vectors.public_key(info)
        judges = [(v.source, publickey.kat_vector(steps, info, op, v)) for v in items]
        if pq.is_post_quantum(info):
            judges += pq.seed_keygen_judges(steps, info, vectors)
        if not items and info["kind"] == "pk-encryption":
            # Published OAEP-SHA-256 vectors are rare: round trip and cross-provider decryption
            # are then the whole check, and the report says so.
            report.kat = "no published vector; checked by round trip and cross-provider decryption"
            return lambda _r: ""
    if not judges:
        missing = f"no known-answer vector for {info['name']} in {vectors.where(info)}"
        return lambda _r: missing
    return lambda r: run_vectors(judges, provider, info, report, r)


def unsupported_before_steps(info: dict, case: dict[str, Any]) -> str:
    """What makes a public-key case unsupported before any library work (engine.cpp)."""
    op, size = case["operation"], int(case.get("size", 0))
    if info["kind"] in SYMMETRIC_KINDS or info["kind"] == "kdf":
        return ""
    if (op == "keygen" or info["kind"] in ("key-agreement", "kem")) and size:
        return f"{op} {info['name']} takes no input: size must be 0"
    # OAEP with SHA-256 carries at most k - 2*32 - 2 bytes, PKCS#1 v1.5 at most k - 11.
    overhead = 11 if info.get("family") == "rsa-pkcs1v15-enc" else 66
    if info["kind"] == "pk-encryption" and size + overhead > info["output_bytes"]:
        return f"{info['name']} encrypts at most {info['output_bytes'] - overhead} bytes"
    return ""


def gate_case(
    send: Send, info: dict, case: dict[str, Any], vectors: Vectors, offered: set[str]
) -> Gated:
    """Runs the gate of `case` (its protocol specification) through `send`. `offered` is what the
    case's provider offers (a generated RSA key is checked with its PKCS#1 or PSS scheme)."""
    why = unsupported_before_steps(info, case)
    if why:
        return Gated("unsupported", why)
    try:
        params = case_params(info, case, vectors)
    except (CaseError, GateDataError) as e:
        return Gated("failed", str(e))
    report = Report()
    steps = Steps()
    op = case["operation"]
    kat = plan_kat(steps, info, op, vectors, case["provider"], report)
    if info["kind"] in SYMMETRIC_KINDS:
        trip = symmetric.roundtrip(steps, info, params)
    elif info["kind"] == "kem":
        trip = pq.kem_roundtrip(steps, info, op, params)
    else:
        trip = publickey.roundtrip(steps, info, op, params, offered, report.lax.append)
    reply = steps.exchange(send)
    if reply.get("status") == "unsupported":
        return Gated("unsupported", str(reply.get("reason", "")))
    r = Results(reply)
    try:
        why = kat(r)
        if not why:
            try:
                why = trip(r)
            except StepError as e:
                why = str(e)
            if why:
                why = "round trip failed: " + why
    except NotApplicable as e:
        return Gated("unsupported", str(e), report.record())
    if why:
        return Gated("failed", why, report.record())
    report.roundtrip = "passed"
    return Gated("ok", "", report.record(), params)
