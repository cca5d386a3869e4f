"""The post-quantum gate and agreement (docs/post-quantum.md) for every provider of every built
runner that offers ML-KEM, ML-DSA, SLH-DSA or X25519MLKEM768, on small cases so CI runs them in
seconds: each provider's gate passes (key generation from the seed, decapsulation and
implicit-rejection known answers, verification known answers, round trips), every provider
decapsulates every other's ciphertext, verifies every other's signature and returns the same
implicit-rejection secret; a corrupted vector, a wrong secret and a wrong rejection secret are
caught. The native runner gates its own providers: its liboqs (opt-in, `make liboqs`) joins the
agreement where it is built, and its own gate is checked through `cryptobench-native check`."""

import json
import shutil

import pytest
from runner_harness import MATERIAL, VECTORS, Served, capabilities, run, runner_exe, tiny_case

from cryptobench import agreement, gate
from cryptobench.capabilities import Capabilities
from cryptobench.commands import check
from cryptobench.runner import ServeProcess

RUNNERS = ("cryptobench-runner-go", "cryptobench-runner-python", "cryptobench-runner-rust")
RUNNERS += ("cryptobench-runner-jvm",)
NATIVE = "cryptobench-native"  # self-gated: in the agreement, its gate through `check`
# One of each kind, and the fast SLH-DSA sets: the `s` sets and larger `f` sets sign for up to
# seconds, which is a benchmark's time, not a test's.
SMALL = ("ml-kem-768", "x25519mlkem768", "ml-dsa-65", "slh-dsa-sha2-128f", "slh-dsa-shake-128f")
TIMEOUT_S = 120


def _offering(exe: str) -> list[tuple[str, set[str]]]:
    caps = capabilities(runner_exe(exe))
    out = []
    for p in caps["providers"]:
        algs = {a["name"] for a in p["algorithms"]} & set(SMALL)
        if algs and not p.get("loading_error"):
            out.append((p["name"], algs))
    return out


@pytest.mark.parametrize("exe", RUNNERS)
def test_every_post_quantum_provider_passes_the_gate(exe):
    providers = _offering(exe)
    if not providers:
        pytest.skip(f"{exe} offers no post-quantum algorithm")
    caps = capabilities(runner_exe(exe))
    for provider, algs in providers:
        proc = ServeProcess(runner_exe(exe), provider, "default", TIMEOUT_S, ["--no-pin"])
        lines: list[dict] = []
        try:
            proc.start()
            check.check_provider(
                proc, Capabilities.from_message(caps), gate.Vectors(), lines.append, algs
            )
        finally:
            proc.stop()
        bad = [m for m in lines if m["status"] != "ok"]
        assert not bad, bad
        kem = [m for m in lines if m["algorithm"].startswith(("ml-kem", "x25519mlkem"))]
        assert all(m["operation"] in ("keygen", "encaps", "decaps") for m in kem)
        assert all("passed" in m["gate"]["kat"] for m in lines)


def _all_offering(algorithm: str) -> list[tuple[str, str]]:
    """(runner, provider) of every built runner's provider that offers `algorithm`."""
    out = []
    for exe in (*RUNNERS, NATIVE):
        try:
            providers = _offering(exe)
        except pytest.skip.Exception:
            continue
        out += [(exe, p) for p, algs in providers if algorithm in algs]
    return out


def _agreement(algorithm: str, operation: str) -> tuple[dict, dict, dict]:
    """Every provider's agreement reply and cross-check of all the others, and the verdicts."""
    pairs = _all_offering(algorithm)
    if len(pairs) < 2:
        pytest.skip(f"fewer than two providers offer {algorithm} here: {pairs}")
    size = 0 if operation in ("keygen", "encaps", "decaps") else 32
    replies, served = {}, {}
    try:
        for exe, provider in pairs:
            s = served.setdefault(exe, Served(runner_exe(exe)))
            case = tiny_case(provider, algorithm, operation, size)
            replies[f"{provider}/default"] = s.agreement(case, MATERIAL)
        cross = {}
        for exe, provider in pairs:
            me = f"{provider}/default"
            peers = {p: r["artifacts"] for p, r in replies.items() if p != me}
            case = tiny_case(provider, algorithm, operation, size)
            cross[me] = served[exe].cross_check(case, MATERIAL, peers)["verdicts"]
    finally:
        for s in served.values():
            s.__exit__()
    alg = Capabilities.from_message(capabilities(runner_exe(pairs[0][0]))).algorithms[algorithm]
    verdicts = agreement.decide(
        alg, operation, {p: agreement.Reply.from_message(r) for p, r in replies.items()}, cross
    )
    return replies, cross, verdicts


@pytest.mark.parametrize(
    ("algorithm", "operation"),
    [("ml-kem-768", "decaps"), ("ml-dsa-65", "verify"), ("ml-kem-768", "keygen")],
)
def test_every_provider_accepts_every_others_output(algorithm, operation):
    replies, cross, verdicts = _agreement(algorithm, operation)
    assert all(r["status"] == "ok" and r["kat"]["ok"] for r in replies.values()), replies
    # A checker may be unable to use a peer's output (Go's crypto/mlkem imports only the 64-byte
    # seed; aws-lc-rs's keygen gives no seed) and says so; it never rejects one, and every
    # provider's output is accepted by at least one other.
    accepted = set()
    for checker, seen in cross.items():
        for peer, v in seen.items():
            assert v["ok"] is True or (v["ok"] is None and v["reason"].startswith("not checked")), (
                checker,
                peer,
                v,
            )
            if v["ok"] is True:
                accepted.add(peer)
    assert accepted == set(replies), (accepted, set(replies))
    assert all(v.ok and len(v.agrees) == len(replies) - 1 for v in verdicts.values()), verdicts
    if operation == "decaps":
        # FIPS 203's implicit rejection is deterministic: one secret for one invalid ciphertext
        assert len({r["artifacts"]["rejection"] for r in replies.values()}) == 1


def test_a_wrong_secret_and_a_wrong_rejection_are_blamed():
    replies, _cross, _ = _agreement("ml-kem-768", "decaps")
    (me, mine), (_other, theirs) = list(replies.items())[:2]
    exe, provider = next(p for p in _all_offering("ml-kem-768") if f"{p[1]}/default" == me)
    forged = dict(theirs["artifacts"])
    forged["secret"] = bytes(32).hex()
    with Served(runner_exe(exe)) as s:
        case = tiny_case(provider, "ml-kem-768", "decaps", 0)
        verdicts = s.cross_check(case, MATERIAL, {"forged/default": forged})["verdicts"]
    assert verdicts["forged/default"]["ok"] is False
    assert "another secret" in verdicts["forged/default"]["reason"]
    lying = dict(theirs, artifacts={**theirs["artifacts"], "rejection": bytes(32).hex()})
    third = dict(theirs, artifacts=dict(theirs["artifacts"]))
    alg = Capabilities.from_message(capabilities(runner_exe(exe))).algorithms["ml-kem-768"]
    verdicts = agreement.decide(
        alg,
        "decaps",
        {
            me: agreement.Reply.from_message(mine),
            "liar/default": agreement.Reply.from_message(lying),
            "third/default": agreement.Reply.from_message(third),
        },
    )
    assert not verdicts["liar/default"].ok
    assert "implicit-rejection secret differs" in verdicts["liar/default"].summary
    assert verdicts[me].ok


@pytest.mark.parametrize(("family", "field"), [("ml-kem", "shared"), ("ml-dsa", "signature")])
def test_a_corrupted_vector_fails_the_gate(family, field, tmp_path):
    algorithm = {"ml-kem": "ml-kem-768", "ml-dsa": "ml-dsa-65"}[family]
    operation = {"ml-kem": "decaps", "ml-dsa": "verify"}[family]
    pairs = [p for p in _all_offering(algorithm) if p[0] != NATIVE]
    if not pairs:
        pytest.skip(f"no provider offers {algorithm} here")
    bad = tmp_path / "vectors"
    shutil.copytree(VECTORS, bad)
    doc = json.loads((bad / f"{family}.json").read_text())
    first = next(v for v in doc["vectors"] if v["algorithm"] == algorithm)
    value = bytearray.fromhex(first[field])
    value[0] ^= 1
    first[field] = value.hex()
    (bad / f"{family}.json").write_text(json.dumps(doc))
    for exe, provider in pairs:
        with Served(runner_exe(exe)) as s:
            size = 0 if family == "ml-kem" else 32
            gated = s.gate(tiny_case(provider, algorithm, operation, size), bad)
        assert gated.status == "failed", (provider, gated)
        assert "known-answer test" in gated.reason, gated.reason


def _native_liboqs_check(*args: str) -> list[dict]:
    exe = runner_exe(NATIVE)
    if not any(name == "liboqs" for name, _ in _offering(NATIVE)):
        pytest.skip("liboqs is not built here (opt-in: make liboqs)")
    done = run(exe, "check", "--provider", "liboqs", *args)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return [m for m in lines if m["type"] == "check" and m["algorithm"] in SMALL]


def test_the_native_liboqs_passes_its_own_gate_and_a_corrupted_vector_fails_it(tmp_path):
    """liboqs's ML-KEM (the native engine's kem kind) and ML-DSA through the native runner's own
    gate: every known answer (implicit rejection included) and round trip; a flipped bit in an
    ML-KEM shared secret of the vector file fails decapsulation's known-answer step."""
    lines = _native_liboqs_check()
    assert {m["algorithm"] for m in lines} == {"ml-kem-768", "ml-dsa-65"}
    assert all(m["status"] == "ok" for m in lines), lines
    kem = {m["operation"]: m["gate"]["kat"] for m in lines if m["algorithm"] == "ml-kem-768"}
    assert set(kem) == {"keygen", "encaps", "decaps"} and all("passed" in k for k in kem.values())
    bad = tmp_path / "vectors"
    shutil.copytree(VECTORS, bad)
    doc = json.loads((bad / "ml-kem.json").read_text())
    first = next(v for v in doc["vectors"] if v["algorithm"] == "ml-kem-768")
    first["shared"] = ("%02x" % (int(first["shared"][:2], 16) ^ 1)) + first["shared"][2:]
    (bad / "ml-kem.json").write_text(json.dumps(doc))
    lines = _native_liboqs_check("--vectors", str(bad))
    failed = [m for m in lines if m["algorithm"] == "ml-kem-768" and m["operation"] == "decaps"]
    assert failed and failed[0]["status"] == "failed", failed
    assert "shared secret" in failed[0]["reason"], failed
