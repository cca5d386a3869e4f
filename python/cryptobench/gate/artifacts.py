"""Agreement through steps (docs/protocol.md, "Agreement"), for a coordinator-gated runner: the
provider's artifacts from the coordinator's material and its known-answer result for every
operation of the algorithm, and its cross-check of other providers' artifacts. The replies have
the shapes of the `agreement` and `cross_check` messages a self-gating runner sends, so
cryptobench/agreement.py decides on both alike."""

from typing import Any

from cryptobench.gate import pq
from cryptobench.gate.case import Report, Send, plan_kat
from cryptobench.gate.material import CaseError, check_cost
from cryptobench.gate.publickey import fixed_message, signature_for_key
from cryptobench.gate.steps import NotApplicable, Ref, Results, StepError, Steps
from cryptobench.gate.vectors import GateDataError, Vectors, public_parts

SYMMETRIC = ("cipher", "aead", "hash", "mac")


def _material(raw: dict[str, str]) -> dict[str, bytes]:
    m = {k: bytes.fromhex(raw.get(k, "")) for k in ("key", "iv", "aad", "input", "salt", "info")}
    m["password"] = m["input"][:32]
    return m


def _plan_artifact(steps: Steps, info: dict, case: dict, m: dict, vectors: Vectors):
    """(artifact name, step) of this provider's output for the material (the contract's table)."""
    kind, op = info["kind"], case["operation"]
    sym = {"key": m["key"], "iv": m["iv"], "aad": m["aad"]}
    if kind in ("cipher", "aead"):
        return "ciphertext", steps.add("encrypt", [m["input"]], **sym)
    if kind == "hash":
        return "digest", steps.add("hash", [m["input"]])
    if kind == "mac":
        return "mac", steps.add("mac", [m["input"]], key=m["key"])
    if kind == "kdf":
        cost = dict(case.get("cost") or {})
        check_cost(info, cost)
        kdf = {"salt": m["salt"], "info": m["info"], "out_len": 32, "cost": cost}
        return "derived", steps.add("derive", [m["password"]], **kdf)
    if op == "keygen":
        return "generated", steps.add("keygen", [b""])
    key = vectors.test_key(info["key_type"])
    if kind == "kem":
        return "kem", pq.plan_kem_artifacts(steps, info, m, key)
    if kind == "signature":
        return "signature", steps.add("sign", [m["input"]], keypair=key)
    if kind == "pk-encryption":
        return "ciphertext", steps.add("encrypt", [m["password"]], keypair=public_parts(info, key))
    peer = public_parts(info, vectors.test_key(info["key_type"] + "-peer"))
    return "secret", steps.add("derive", [b""], keypair=key, peer=peer)


def agreement_reply(
    send: Send, info: dict, case: dict, material: dict[str, str], vectors: Vectors
) -> dict[str, Any]:
    """The `agreement` reply of the case's provider, computed through `steps` requests."""
    reply: dict[str, Any] = {"type": "agreement", "id": case["id"], "status": "ok", "reason": ""}
    m = _material(material)
    steps = Steps()
    kats = []
    for op in info["operations"]:
        if op != "keygen":
            report = Report()
            kats.append((op, report, plan_kat(steps, info, op, vectors, case["provider"], report)))
    try:
        name, step = _plan_artifact(steps, info, case, m, vectors)
    except (CaseError, GateDataError) as e:
        return {**reply, "status": "failed", "reason": str(e)}
    answer = steps.exchange(send)
    if answer.get("status") == "unsupported":
        return {**reply, "status": "unsupported", "reason": str(answer.get("reason", ""))}
    r = Results(answer)
    details, ok = [], True
    for op, report, judge in kats:
        try:
            why = judge(r)
        except (NotApplicable, StepError) as e:
            why = str(e)
        if why:
            ok, details = False, [f"{op}: {why}"]
            break
        details.append(f"{op}: {report.kat}")
    reply["kat"] = {"ok": ok, "detail": "; ".join(details)}
    try:
        if name == "generated":
            reply["artifacts"] = {name: {k: v.hex() for k, v in r.key(step).items()}}
        elif name == "kem":
            reply["artifacts"] = pq.kem_artifacts(info, r, *step)
        else:
            reply["artifacts"] = {name: r.out(step).hex()}
    except NotApplicable as e:
        reply.update(status="unsupported", reason=str(e))
    except StepError as e:
        reply.update(status="failed", reason=str(e))
    return reply


def _plan_check(steps: Steps, info: dict, m: dict, arts: dict, vectors: Vectors, offered):
    """The steps that check one peer's artifacts here; returns their judge."""
    name = info["name"]
    if info["kind"] == "kem":
        return pq.plan_kem_check(steps, info, arts, vectors.test_key(info["key_type"]))
    if isinstance(arts.get("generated"), dict):
        key = {k: bytes.fromhex(v) for k, v in arts["generated"].items()}
        return _plan_generated(steps, info, key, vectors, offered)
    if "signature" in arts:
        pub = public_parts(info, vectors.test_key(info["key_type"]))
        sig = bytes.fromhex(arts["signature"])
        v = steps.add("verify", [m["input"]], keypair=pub, signature=sig)
        return lambda r: "" if r.accepted(v) else "its signature does not verify"
    if "ciphertext" in arts:
        ct = bytes.fromhex(arts["ciphertext"])
        if info["kind"] == "pk-encryption":
            want = m["password"]
            d = steps.add("decrypt", [ct], keypair=vectors.test_key(info["key_type"]))
        else:
            want = m["input"]
            d = steps.add("decrypt", [ct], key=m["key"], iv=m["iv"], aad=m["aad"])
        ok = "cannot decrypt its ciphertext"
        return lambda r: "" if r.accepted(d) and r.out(d) == want else ok
    raise NotApplicable(f"no artifact of {name} to check here (compared by equality)")


def _plan_generated(steps: Steps, info: dict, key: dict, vectors: Vectors, offered):
    pub = public_parts(info, key)
    if info["kind"] == "key-agreement":
        peer = vectors.test_key(info["key_type"] + "-peer")
        ours = steps.add("derive", [b""], keypair=key, peer=public_parts(info, peer))
        theirs = steps.add("derive", [b""], keypair=peer, peer=pub)

        def one_secret(r: Results) -> str:
            try:
                a, b = r.out(ours), r.out(theirs)
            except StepError as e:
                return f"we cannot derive with its generated key: {e}"
            return "" if a == b else "its generated key does not give one shared secret"

        return one_secret
    alg = signature_for_key(info, offered)
    if not alg:
        raise NotApplicable(f"no signature scheme for {info['name']} here")
    msg = fixed_message(0xC0FFEE)
    s = steps.add("sign", [msg], algorithm=alg, keypair=key)
    v = steps.add("verify", [msg], algorithm=alg, keypair=pub, signature=Ref(s))

    def signs(r: Results) -> str:
        try:
            r.out(s)
        except StepError as e:
            return f"we cannot sign with its generated key: {e}"
        return "" if r.accepted(v) else "a signature made with its generated key does not verify"

    return signs


def cross_check_verdicts(
    send: Send,
    info: dict,
    case: dict,
    material: dict[str, str],
    peers: dict[str, dict],
    vectors: Vectors,
    offered: set[str],
) -> dict[str, dict[str, Any]]:
    """This provider's verdict on every peer's artifacts: ok true, false (with how) or null (not
    checked, with why), as in a `cross_check` reply."""
    m = _material(material)
    steps = Steps()
    judges: dict[str, Any] = {}
    verdicts: dict[str, dict[str, Any]] = {}
    for peer in sorted(peers):
        arts = peers[peer] if isinstance(peers[peer], dict) else {}
        try:
            judges[peer] = _plan_check(steps, info, m, arts, vectors, offered)
        except (NotApplicable, GateDataError) as e:
            verdicts[peer] = {"ok": None, "reason": f"not checked: {e}"}
    answer = steps.exchange(send)
    if answer.get("status") == "unsupported":
        why = f"not checked: {answer.get('reason', '')}"
        return {peer: {"ok": None, "reason": why} for peer in sorted(peers)}
    r = Results(answer)
    for peer, judge in judges.items():
        try:
            why = judge(r)
            verdicts[peer] = {"ok": not why, "reason": why}
        except NotApplicable as e:
            verdicts[peer] = {"ok": None, "reason": f"not checked: {e}"}
        except StepError as e:
            verdicts[peer] = {"ok": False, "reason": str(e)}
    return verdicts
