"""`cryptobench leaks` (docs/leaks.md): the paired statistics give the documented verdicts, the
ciphertext classes are what they claim (checked with pyca/cryptography, an independent RSA-OAEP),
the runners' `leak` replies fit the protocol, and a short run finds the deliberately leaky test
provider while its A/A control stays clean, stored and shown like every run.

The A/A control is a statistical test at a family-wise α of 0.05: a run on a shared machine can
call it leaky by chance (at most about 1 run in 20 when rounds are independent; docs/leaks.md).
"""

import functools
import json

import numpy as np
import pytest
from conftest import run_cli
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from runner_harness import Served, capabilities, runner_exe, tiny_case

from cryptobench import leakstats
from cryptobench.gate.material import case_params
from cryptobench.gate.vectors import Vectors, public_parts
from cryptobench.scenarios.leaks.classes import aead_classes, oaep_classes, pkcs1v15_classes


def test_holm_multiplies_the_smallest_p_by_the_count_and_stays_monotone():
    assert leakstats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert leakstats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_the_exact_bootstrap_interval_matches_resampling():
    d = np.random.default_rng(5).normal(0, 300, 401).round()
    low, high = leakstats.bootstrap_median_ci(d, 0.95)
    rng = np.random.default_rng(6)
    medians = np.median(d[rng.integers(0, d.size, size=(20000, d.size))], axis=1)
    want = np.quantile(medians, [0.025, 0.975])
    assert low == pytest.approx(want[0], abs=6) and high == pytest.approx(want[1], abs=6)


def _judged(shift: float, n: int = 4000, spread: float = 20.0) -> leakstats.Comparison:
    rng = np.random.default_rng(11)
    base = np.round(1000 + rng.gamma(2, spread / 2, n))
    other = np.round(1000 + shift + rng.gamma(2, spread / 2, n))
    raw = leakstats.compare(base, other, "a", "b")
    return leakstats.judge([raw], [leakstats.differences(base, other)])[0]


def test_a_shift_is_a_leak_of_at_least_the_interval_end_and_none_is_no_leak():
    leak = _judged(40)
    assert leak.verdict == "leak" and 30 < leak.ci_low <= 40 <= leak.ci_high
    clean = _judged(0)
    assert clean.verdict == "no-leak" and clean.ci_low <= 0 <= clean.ci_high
    wide = _judged(0, n=200, spread=400)
    assert wide.verdict == "inconclusive"


def test_a_leak_is_not_called_where_the_a_a_control_is_not_clean():
    control = leakstats.Comparison("a", "a'", 10, 1, 5, 0, 0, control=True, verdict="leak")
    other = leakstats.Comparison("a", "b", 10, 1, 5, 0, 0, verdict="leak", detail="b slower")
    gated = leakstats.gate_on_control([control, other])
    assert gated[1].verdict == "inconclusive" and "A/A control not clean" in gated[1].detail


def test_the_oaep_classes_are_refused_and_the_valid_one_decrypts():
    key = Vectors().test_key("rsa-2048")
    n = {k: int.from_bytes(v, "big") for k, v in key.items()}
    public = rsa.RSAPublicNumbers(n["e"], n["n"])
    private = rsa.RSAPrivateNumbers(
        n["p"], n["q"], n["d"], n["dp"], n["dq"], n["qinv"], public
    ).private_key()
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    classes, message = oaep_classes(key, seed=1)
    assert private.decrypt(classes["valid"], oaep) == message
    for name in ("no-structure", "first-byte-nonzero", "wrong-label-hash", "no-separator"):
        with pytest.raises(ValueError):
            private.decrypt(classes[name], oaep)
    assert classes["no-structure"] == classes["no-structure'"]


def test_the_pkcs1v15_classes_break_what_marvin_names():
    """Raw RSA with the private exponent: each class's encoded message has the structure its
    name claims (RFC 8017 7.2.2: 00 02, at least 8 non-zero padding bytes, 00, the message)."""
    key = Vectors().test_key("rsa-2048")
    n, d = (int.from_bytes(key[p], "big") for p in ("n", "d"))
    classes, messages = pkcs1v15_classes(key, seed=1)
    em = {
        name: pow(int.from_bytes(c, "big"), d, n).to_bytes(256, "big")
        for name, c in classes.items()
    }
    for name, message in messages.items():
        assert em[name][:2] == b"\x00\x02" and em[name].index(0, 2) >= 10
        assert em[name][em[name].index(0, 2) + 1 :] == message
    assert [len(m) for m in messages.values()] == [48, 1, 245]
    assert em["no-separator"][:2] == b"\x00\x02" and 0 not in em["no-separator"][2:]
    assert em["short-padding"][:2] == b"\x00\x02" and em["short-padding"].index(0, 2) == 6
    assert em["signature-padding"][:2] == b"\x00\x01" and set(em["signature-padding"][2:10]) == {
        255
    }
    assert em["wrong-first-byte"][:2] == b"\x01\x02"
    assert classes["no-structure"] == classes["no-structure'"]


def test_marvin_runs_tell_refusal_from_implicit_rejection(tmp_path, native_runner):
    """OpenSSL 3.0 refuses every invalid class, by status (the same path as a success), so the
    valid class is compared too; pyca/cryptography (its wheel's OpenSSL >= 3.2) answers every
    invalid class with a synthetic message (implicit rejection), and its valid class is
    compared for that reason."""
    out = tmp_path / "m.json"
    done = run_cli(
        "leaks",
        "--marvin",
        "-p",
        "openssl,pyca",
        "-a",
        "rsa-2048-pkcs1v15-enc",
        "--rounds",
        "100",
        "--db",
        str(tmp_path / "m.db"),
        "--json-out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    compared = {}
    for f in json.loads(out.read_text())["figures"]:
        assert f["status"] == "ok", f
        if f["metric"] == "median difference":
            compared.setdefault(f["key"]["provider"], {})[f["key"]["classes"]] = f["extra"]
    assert {e["rejection"] for e in compared["openssl"].values()} == {"refused"}
    assert {e["refusal"] for e in compared["openssl"].values()} == {"status"}
    assert {e["rejection"] for e in compared["pyca"].values()} == {"implicit"}
    for provider in ("openssl", "pyca"):
        assert {
            "no-structure vs no-structure'",
            "no-structure vs signature-padding",
            "no-structure vs valid",
            "valid vs valid-longest",
        } <= set(compared[provider])


def test_leaks_runs_over_the_go_rust_and_jvm_runners(tmp_path):
    """Each runner says how it refuses: Go's and Rust's refusals are values (`status`), the
    JVM's exceptions, but in a MAC verification (MessageDigest.isEqual's boolean: `status`). The
    wrong-tag classes are compared in every one; the valid class is not (a tag's validity is
    public). (AEAD decryption and HMAC verification keep it small; each runner's RSA decryption
    of Marvin's classes is checked above.)"""
    for name in ("go", "rust", "jvm"):
        runner_exe(f"cryptobench-runner-{name}")
    out = tmp_path / "m.json"
    done = run_cli(
        "leaks",
        "-p",
        "go,rustcrypto,sunjce",
        "-a",
        "aes-256-gcm,hmac-sha256",
        "--rounds",
        "100",
        "--db",
        str(tmp_path / "m.db"),
        "--json-out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    compared: dict[tuple[str, str], dict] = {}
    for f in json.loads(out.read_text())["figures"]:
        assert f["status"] == "ok", f
        if f["metric"] == "median difference":
            cell = (f["key"]["provider"], f["key"]["algorithm"])
            compared.setdefault(cell, {})[f["key"]["classes"]] = f["extra"]
    refusals = {
        ("go", "aes-256-gcm"): "status",
        ("rustcrypto", "aes-256-gcm"): "status",
        ("sunjce", "aes-256-gcm"): "exception",
        ("go", "hmac-sha256"): "status",
        ("rustcrypto", "hmac-sha256"): "status",
        ("sunjce", "hmac-sha256"): "status",
    }
    assert set(compared) == set(refusals)
    for cell, refusal in refusals.items():
        assert {e["refusal"] for e in compared[cell].values()} == {refusal}, cell
        assert {"tag-first vs tag-first'", "tag-first vs tag-last"} <= set(compared[cell])
        # a tag's validity is public: the valid class is compared only where validity is the
        # secret (RSA), whichever way the runner refuses (docs/leaks.md, "Valid against invalid")
        assert "tag-first vs valid" not in compared[cell]


def test_an_invalid_class_answered_beside_refused_ones_is_set_aside_not_compared():
    """libgcrypt 1.10 decodes a PKCS#1 v1.5 padding shorter than 8 bytes as valid: the class is
    reported and left out, the others are timed; a refused class beside an implicitly rejected
    base fails the test."""
    from pathlib import Path

    from cryptobench.scenarios.leaks.classes import pkcs1v15_test
    from cryptobench.scenarios.leaks.measure import Cell, Slot, check_outcomes

    test = pkcs1v15_test("rsa-2048-pkcs1v15-enc")
    expected = {"valid": b"m" * 48, "valid-short": b"m", "valid-longest": b"l" * 245}

    def outcomes(answered: set[str]) -> list[dict]:
        return [
            {"out": expected[n].hex()}
            if n in expected
            else {"out": "ab"}
            if n in answered
            else {"error": "refused"}
            for n in test.class_names
        ]

    cell = Cell(Slot("gcrypt", "default", Path("x")), test, {}, expected=expected)
    assert check_outcomes(cell, outcomes({"short-padding"})) == ""
    assert cell.accepted == ["short-padding"] and cell.rejection == "refused"
    assert all("short-padding" not in c for c in cell.comparisons())
    # Stored as an outcome oracle, which leakverdicts.constant_time reads as a leak.
    from cryptobench.leakverdicts import constant_time
    from cryptobench.scenarios.leaks.measure import figures

    cell.times = {n: [1000.0 + i for i in range(40)] for n in test.class_names}
    stored = figures([cell])
    oracle = [f for f in stored if f.extra.get("outcome_oracle")]
    assert [f.key["classes"] for f in oracle] == [f"{test.base} vs short-padding"]
    assert constant_time(stored, 1)["gcrypt", test.algorithm].verdict == "leak"
    implicit = Cell(Slot("pyca", "default", Path("x")), test, {}, {"valid": b""}, expected)
    everything = set(test.class_names) - set(expected)
    assert check_outcomes(implicit, outcomes(everything)) == ""
    assert implicit.rejection == "implicit" and ("no-structure", "valid", False) in (
        implicit.comparisons()
    )
    mixed = Cell(Slot("x", "default", Path("x")), test, {}, expected=expected)
    assert "was refused" in check_outcomes(mixed, outcomes(everything - {"short-padding"}))


# How each runner reports a refused input inside the timed loop (docs/protocol.md, "`leak`"):
# Go's and Rust's adapters return it as a value (the same path as a success), the JVM's and
# Python's raise; the native runner says per adapter.
REFUSAL = {
    "cryptobench-runner-go": "status",
    "cryptobench-runner-rust": "status",
    "cryptobench-runner-jvm": "exception",
    "cryptobench-runner-python": "exception",
}
LEAK_RUNNERS = ["cryptobench-native", *REFUSAL]


@pytest.mark.parametrize("runner", LEAK_RUNNERS)
def test_a_runner_times_classes_in_turns_and_reports_each_outcome(runner):
    exe = runner_exe(runner)
    provider = _providers(exe, "aes-256-gcm")[0]
    with Served(exe) as served:
        case = tiny_case(provider, "aes-256-gcm", "decrypt", 64)
        key, iv = bytes(range(32)), bytes(range(12))
        params = {"key": key.hex(), "iv": iv.hex()}
        enc = served.send(
            {
                "cmd": "leak",
                "case": {**case, "operation": "encrypt"},
                "params": params,
                "classes": ["00" * 64, "00" * 64],
                "rounds": 1,
            }
        )
        ct = bytes.fromhex(enc["outcomes"][0]["out"])
        classes = aead_classes(ct, 16)
        names = ["tag-first", "tag-last", "valid"]
        reply = served.send(
            {
                "cmd": "leak",
                "case": case,
                "params": params,
                "classes": [classes[n].hex() for n in names],
                "rounds": 50,
                "batch": 2,
                "seed": 3,
            }
        )
        assert reply["status"] == "ok", reply
        assert "error" in reply["outcomes"][0] and "error" in reply["outcomes"][1]
        assert reply["outcomes"][2] == {"out": "00" * 64}
        assert reply["batch"] == 2 and [len(t) for t in reply["ns"]] == [50, 50, 50]
        assert all(t > 0 for times in reply["ns"] for t in times)
        if runner in REFUSAL:
            assert reply.get("refusal", "exception") == REFUSAL[runner]
        bad = served.send({"cmd": "leak", "case": case, "params": params, "classes": ["00"]})
        assert bad["type"] == "error" and bad["message"].startswith("classes:")
        bad = served.send({**_leak(case, params, ["00", "zz"]), "rounds": 0})
        assert bad["type"] == "error" and bad["message"].startswith(("classes[1]:", "rounds:"))
        elsewhere = served.send(_leak({**case, "variant": "no-such-variant"}, params, ["00", "00"]))
        assert elsewhere["status"] == "unsupported" and elsewhere["reason"], elsewhere


def _leak(case: dict, params: dict, classes: list[str]) -> dict:
    return {"cmd": "leak", "case": case, "params": params, "classes": classes, "rounds": 2}


@pytest.mark.parametrize("runner", LEAK_RUNNERS)
def test_a_runner_decrypts_the_marvin_classes_with_the_test_key(runner):
    """The private key reaches the prepared operation through `params` as `open` sends it: the
    valid class decrypts to its message, the invalid ones are refused (or, with implicit
    rejection, answered with some other message)."""
    exe = runner_exe(runner)
    algorithm = "rsa-2048-pkcs1v15-enc"
    offering = _providers(exe, algorithm)
    if not offering:
        pytest.skip(f"{runner} offers no {algorithm}")
    info = next(a for a in _capabilities(exe)["algorithms"] if a["name"] == algorithm)
    vectors = Vectors()
    case = tiny_case(offering[0], algorithm, "decrypt", 48)
    params = case_params(info, case, vectors).to_json()
    classes, messages = pkcs1v15_classes(public_parts(info, vectors.test_key(info["key_type"])), 1)
    names = ["no-structure", "wrong-first-byte", "valid"]
    with Served(exe) as served:
        reply = served.send(_leak(case, params, [classes[n].hex() for n in names]))
    assert reply["status"] == "ok", reply
    assert reply["outcomes"][2] == {"out": messages["valid"].hex()}
    for got in reply["outcomes"][:2]:
        assert "error" in got or got["out"] != messages["valid"].hex(), got
    assert [len(t) for t in reply["ns"]] == [2, 2, 2]


@functools.cache
def _capabilities(exe) -> dict:
    return capabilities(exe)  # a JVM runner's `list` takes seconds


def _providers(exe, algorithm: str) -> list[str]:
    return [
        p["name"]
        for p in _capabilities(exe)["providers"]
        if any(a["name"] == algorithm and "decrypt" in a["operations"] for a in p["algorithms"])
    ]


def test_a_short_run_finds_the_leaky_provider_and_not_its_a_a_control(tmp_path, native_runner):
    db, out = tmp_path / "leaks.db", tmp_path / "leaks.json"
    done = run_cli(
        "leaks",
        "-p",
        "fault/leaky",
        "-a",
        "aes-256-gcm",
        "--rounds",
        "20000",
        "--db",
        str(db),
        "--json-out",
        str(out),
        "--report",
        str(tmp_path / "r.html"),
        env={"CRYPTOBENCH_TEST_PROVIDERS": "1"},
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())["figures"]
    verdicts = {
        f["key"]["classes"]: f["extra"]["verdict"]
        for f in figures
        if f["metric"] == "median difference"
    }
    assert verdicts["tag-first vs tag-last"] == "leak"
    assert verdicts["tag-first vs tag-first'"] != "leak"
    assert "A/A control: 0 of 1 called leaky" in done.stdout
    shown = run_cli("show", "1", "--db", str(db))
    assert shown.returncode == 0 and "tag-first vs tag-last" in shown.stdout


def test_leaks_refuses_an_algorithm_without_classes_in_one_line(native_runner):
    done = run_cli("leaks", "-a", "sha256")
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[-1].startswith("cryptobench: error: -a sha256: no leak")


def test_recommend_reads_a_leaks_run_per_provider_and_algorithm():
    from cryptobench.figures import Figure
    from cryptobench.leakverdicts import constant_time

    def comparison(provider, classes, verdict, control=False):
        key = {
            "provider": provider,
            "algorithm": "aes-256-gcm",
            "operation": "decrypt",
            "classes": classes,
        }
        return Figure(
            key,
            "median difference",
            "ns",
            (1.0,),
            extra={"verdict": verdict, "detail": verdict, "control": control, "n": 500},
        )

    figures = [
        comparison("fault/leaky", "a vs a'", "no-leak", control=True),
        comparison("fault/leaky", "a vs b", "leak"),
        comparison("openssl", "a vs a'", "leak", control=True),
        comparison("openssl", "a vs b", "no-leak"),
        comparison("gcrypt", "a vs b", "inconclusive"),
    ]
    timings = constant_time(figures, 7, "host cpu")
    verdicts = {k[0]: t.verdict for k, t in timings.items()}
    assert verdicts == {"fault/leaky": "leak", "openssl": "no-leak", "gcrypt": "inconclusive"}
    assert timings["openssl", "aes-256-gcm"].text == "no-leak, 500 pairs (leaks run 7, host cpu)"


def test_a_class_answered_where_the_base_is_refused_is_a_leak_whatever_the_timing():
    """libgcrypt 1.10.1 answers PKCS#1 v1.5 padding shorter than 8 bytes while it refuses the
    base class: the measured comparisons of its other classes must not make it 'no-leak'."""
    from cryptobench.figures import Figure, failed
    from cryptobench.leakverdicts import constant_time

    key = {"provider": "gcrypt", "algorithm": "rsa-2048-pkcs1v15-enc", "operation": "decrypt"}
    timed = Figure(
        {**key, "classes": "no-structure vs signature-padding"},
        "median difference",
        "ns",
        (1.0,),
        extra={"verdict": "no-leak", "detail": "no difference", "n": 500},
    )
    answered = failed(
        {**key, "classes": "no-structure vs short-padding"},
        "median difference",
        "ns",
        "short-padding was answered, not refused",
        outcome_oracle=True,
    )
    assert constant_time([timed], 3)["gcrypt", key["algorithm"]].verdict == "no-leak"
    got = constant_time([timed, answered], 3)["gcrypt", key["algorithm"]]
    assert got.verdict == "leak" and "by its outcome" in got.detail
    assert got.pairs == 500


def test_recommend_refuses_avoid_leaky_without_a_leaks_run(tmp_path):
    from conftest import store_run

    db, _ = store_run(tmp_path / "r.db", {("alpha", "default", "hash", "sha256", 64): 100.0})
    done = run_cli("recommend", "--avoid-leaky", "--db", str(db.path))
    assert done.returncode != 0
    assert "--avoid-leaky: no constant-time verdict in" in done.stderr
