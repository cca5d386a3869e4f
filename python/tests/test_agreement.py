"""Agreement across provider processes: faults stay with the provider that has them.

The fault tests preload a shim (built by the native CMake project, native/tests/shims/) into the
real runner: libgcrypt's gcry_cipher_encrypt returning a wrong byte, OpenSSL's EVP_DigestUpdate
crashing. Every library underneath is real.
"""

from pathlib import Path

import pytest

from cryptobench import runner
from cryptobench.agreement import Reply, decide
from cryptobench.capabilities import Algorithm
from cryptobench.plan import CaseSpec

SHIMS = Path(__file__).resolve().parents[2] / "native" / "build"

AES = Algorithm("aes-256-cbc", "cipher", ("encrypt", "decrypt"), key_bytes=32, iv_bytes=16)
ECDSA = Algorithm("ecdsa-p256", "signature", ("sign", "verify"), family="ecdsa")


def reply(artifact: str, kat_ok: bool = True) -> Reply:
    return Reply("ok", kat_ok=kat_ok, kat_detail="" if kat_ok else "vector 1 failed",
                 artifacts={"ciphertext": artifact})  # fmt: skip


def test_the_lone_wrong_provider_fails_and_the_majority_stays_ok():
    v = decide(AES, "encrypt", {"a": reply("11"), "b": reply("11"), "c": reply("22")})
    assert v["a"].ok and v["b"].ok
    assert not v["c"].ok
    assert v["c"].summary == "output differs from a's; output differs from b's"
    assert v["a"].summary == "agrees with b; output differs from c's"


def test_a_provider_failing_its_known_answers_is_never_the_reference():
    # b is outvoted two to one, but a and c fail their own known-answer tests.
    v = decide(
        AES,
        "encrypt",
        {"a": reply("11", kat_ok=False), "b": reply("22"), "c": reply("11", kat_ok=False)},
    )
    assert v["b"].ok
    assert not v["a"].ok and not v["c"].ok
    assert "its own known-answer tests failed" in v["a"].summary


def test_when_nobody_passes_known_answers_the_majority_decides():
    v = decide(
        AES,
        "encrypt",
        {"a": reply("11", False), "b": reply("11", False), "c": reply("22", False)},
    )
    assert v["a"].ok and v["b"].ok and not v["c"].ok


def test_a_rejected_randomised_signature_fails_its_maker():
    replies = {p: Reply("ok", kat_ok=True, artifacts={"signature": p}) for p in "abc"}
    reject_c = {"ok": False, "reason": "its signature does not verify here"}
    cross = {
        "a": {"b": {"ok": True}, "c": reject_c},
        "b": {"a": {"ok": True}, "c": reject_c},
        "c": {"a": {"ok": True}, "b": {"ok": True}},
    }
    v = decide(ECDSA, "sign", replies, cross)
    assert v["a"].ok and v["b"].ok and not v["c"].ok
    assert "a rejects its output (its signature does not verify here)" in v["c"].summary


def measure(exe, cases):
    outcomes = []
    runner.Measurement(exe, list(enumerate(cases, 1)), 60, outcomes.append, order_seed=7).run()
    return {(o.case.provider, o.case.algorithm, o.case.operation): o for o in outcomes}


def shim(name: str) -> Path:
    path = SHIMS / f"cb-shim-{name}.so"
    if not path.is_file():
        pytest.skip(f"{path.name} not built (cmake --build native/build)")
    return path


def cases(providers, algorithms, operations, size=1024):
    return [
        CaseSpec(p, "default", op, a, size, samples=3, batch=1, target_sample_ms=0.2, warmup_ms=1)
        for a in algorithms
        for op in operations
        for p in providers
    ]


def test_a_wrong_answer_in_gcrypt_fails_only_gcrypt(native_runner, monkeypatch):
    monkeypatch.setenv("LD_PRELOAD", str(shim("gcrypt_wrong_encrypt")))
    algorithms = ["aes-256-cbc", "aes-128-ctr"]
    out = measure(
        native_runner, cases(["gcrypt", "openssl", "botan"], algorithms, ["encrypt", "decrypt"])
    )
    for (provider, _, _), o in out.items():
        if provider == "gcrypt":
            assert o.status == "failed"
            assert "cross-provider agreement failed" in o.reason, o.reason
            assert "differs from botan/default's" in o.reason
            assert "known-answer" in o.reason
            assert o.gate["agreement_detail"]["disagrees"].keys() == {
                "botan/default",
                "openssl/default",
            }
        else:
            assert o.status == "ok", o.reason
            assert len(o.samples) == 3
            other = "botan" if provider == "openssl" else "openssl"
            assert o.gate["agreement"].startswith(f"agrees with {other}/default")


def test_a_crash_in_openssl_fails_only_openssl(native_runner, monkeypatch):
    monkeypatch.setenv("LD_PRELOAD", str(shim("openssl_crash_digest")))
    out = measure(native_runner, cases(["gcrypt", "openssl", "botan"], ["sha256"], ["hash"]))
    assert out[("openssl", "sha256", "hash")].status == "failed"
    assert "runner crashed (killed by SIGSEGV)" in out[("openssl", "sha256", "hash")].reason
    assert out[("openssl", "sha256", "hash")].failure == "crash"
    for provider in ("gcrypt", "botan"):
        o = out[(provider, "sha256", "hash")]
        assert o.status == "ok", o.reason
        assert len(o.samples) == 3


def test_a_hang_in_openssl_fails_only_openssl(native_runner, monkeypatch):
    monkeypatch.setenv("LD_PRELOAD", str(shim("openssl_hang_digest")))
    outcomes = []
    todo = cases(["gcrypt", "openssl", "botan"], ["sha256"], ["hash"])
    # A short request timeout: the hung runner is killed after it, the others answer at once.
    runner.Measurement(native_runner, list(enumerate(todo, 1)), 10, outcomes.append).run()
    out = {o.case.provider: o for o in outcomes}
    assert out["openssl"].status == "failed"
    assert out["openssl"].failure == "timeout"
    assert "gave no reply within 10 s" in out["openssl"].reason
    assert out["gcrypt"].status == "ok", out["gcrypt"].reason
    assert out["botan"].status == "ok", out["botan"].reason
