"""MAC verification as a leak test (docs/leaks.md, "MAC verification"): every runner's `leak`
request verifies a MAC with each library's own verification or the runtime's constant-time
comparison -- the provider's own tag verifies (HMAC-SHA-256's checked against Python's hmac
module), tags wrong in the first or the last byte are refused (by status but in the Python
runner) --, and a short `cryptobench leaks -a hmac-sha256` run compares the wrong tags and shows
beside a speed run's `mac` case in the report."""

import functools
import hashlib
import hmac
import json
import re

import pytest
from conftest import run_cli
from runner_harness import Served, capabilities, runner_exe, tiny_case

from cryptobench.scenarios.leaks.classes import mac_classes

NAMES = ["tag-first", "tag-last", "valid"]


@functools.cache
def _capabilities(exe) -> dict:
    return capabilities(exe)  # a JVM runner's `list` takes seconds


def _offering(exe, algorithm: str) -> list[str]:
    return [
        p["name"]
        for p in _capabilities(exe)["providers"]
        if p["name"] not in ("null", "fault")
        and any(a["name"] == algorithm for a in p["algorithms"])
    ]


# How each runner refuses a wrong tag (docs/leaks.md, "MAC verification"), and the providers each
# must answer with: native, Go, Rust and JVM by status (the JVM's MessageDigest.isEqual returns a
# boolean), Python by exception (pyca's and PyCryptodome's verify() raise).
MAC_RUNNERS = {
    "cryptobench-native": ("status", {"openssl", "gcrypt"}),
    "cryptobench-runner-python": ("exception", {"pyca", "pycryptodome"}),
    "cryptobench-runner-go": ("status", {"go"}),
    "cryptobench-runner-rust": ("status", {"ring", "aws-lc-rs", "rustcrypto"}),
    "cryptobench-runner-jvm": ("status", {"sunjce", "bouncycastle"}),
}


def _tag(served: Served, provider: str, algorithm: str, key: bytes, message: bytes) -> bytes:
    """The provider's own tag of the message (as the coordinator makes the valid class);
    HMAC-SHA-256's is checked against Python's hmac module first."""
    reply = served.send(
        {
            "cmd": "leak",
            "case": tiny_case(provider, algorithm, "mac", 64),
            "params": {"key": key.hex(), "iv": ""},
            "classes": [message.hex(), message.hex()],
            "rounds": 1,
        }
    )
    assert reply.get("status") == "ok", (provider, reply)
    tag = bytes.fromhex(reply["outcomes"][0]["out"])
    if algorithm == "hmac-sha256":
        assert tag == hmac.new(key, message, hashlib.sha256).digest(), provider
    return tag


@pytest.mark.parametrize("runner", MAC_RUNNERS)
def test_each_library_verifies_a_tag_and_refuses_a_wrong_one(runner):
    """Every provider of every runner offering HMAC-SHA-256 or AES-128-CMAC verifies its tag
    and refuses tags wrong in the first or the last byte, reporting the refusal as its runner
    says it does."""
    exe = runner_exe(runner)
    refusal, wanted = MAC_RUNNERS[runner]
    message = bytes(range(64))
    assert wanted <= set(_offering(exe, "hmac-sha256")), _offering(exe, "hmac-sha256")
    unsupported, verified = {}, set()
    with Served(exe) as served:
        for algorithm in ("hmac-sha256", "cmac-aes128"):
            key = bytes(range(32 if algorithm == "hmac-sha256" else 16))
            for provider in _offering(exe, algorithm):
                classes = mac_classes(message, _tag(served, provider, algorithm, key, message))
                reply = served.send(
                    {
                        "cmd": "leak",
                        "case": tiny_case(provider, algorithm, "verify", 64),
                        "params": {"key": key.hex(), "iv": ""},
                        "classes": [classes[n].hex() for n in NAMES],
                        "rounds": 20,
                    }
                )
                if reply.get("status") == "unsupported":
                    unsupported[provider] = reply["reason"]
                    continue
                assert reply.get("status") == "ok", (provider, algorithm, reply)
                first, last, valid = reply["outcomes"]
                assert "error" in first and "error" in last, (provider, algorithm, reply)
                assert valid == {"out": ""}, (provider, algorithm, reply)
                assert reply.get("refusal", "exception") == refusal, (provider, algorithm)
                assert [len(t) for t in reply["ns"]] == [20, 20, 20]
                verified.add(provider)
    assert wanted <= verified, (verified, unsupported)
    # wolfSSL has neither a verification function nor a public constant-time comparison.
    assert set(unsupported) <= {"wolfssl"}, unsupported
    if "wolfssl" in unsupported:
        assert "ConstantCompare is internal" in unsupported["wolfssl"]


def test_a_mac_leaks_run_compares_the_tags_and_shows_beside_the_mac_case(tmp_path, native_runner):
    db, suite, out = tmp_path / "r.db", tmp_path / "s.toml", tmp_path / "leaks.json"
    suite.write_text(
        'providers = ["openssl"]\nalgorithms = ["hmac-sha256"]\nsizes = [64]\nsamples = 3\n'
        "batch = 2\ntarget_sample_ms = 0.5\nwarmup_ms = 2\n"
    )
    done = run_cli("run", "--suite", str(suite), "--db", str(db))
    assert done.returncode == 0, done.stderr
    done = run_cli(
        "leaks", "-p", "openssl,gcrypt", "-a", "hmac-sha256", "--rounds", "2000",
        "--db", str(db), "--json-out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    compared: dict[str, dict[str, dict]] = {}
    for f in json.loads(out.read_text())["figures"]:
        assert f["status"] == "ok", f
        if f["metric"] == "median difference":
            assert f["key"]["operation"] == "verify"
            compared.setdefault(f["key"]["provider"], {})[f["key"]["classes"]] = f["extra"]
    for provider in ("openssl", "gcrypt"):
        # A MAC's validity is public: the valid tag is measured and shown, not compared.
        assert set(compared[provider]) == {"tag-first vs tag-first'", "tag-first vs tag-last"}
        assert {e["refusal"] for e in compared[provider].values()} == {"status"}
        assert all(e["n"] == 2000 for e in compared[provider].values())
    html = tmp_path / "r.html"
    done = run_cli("report", "1", "--db", str(db), "-o", str(html))
    assert done.returncode == 0, done.stderr
    section = re.search(r'<section id="constant-time">(.*?)</section>', html.read_text(), re.S)
    assert section and re.search(
        r"<td>openssl</td><td>hmac-sha256</td><td>mac</td><td>[a-z-]+[^<]*\(timed: verify\)</td>"
        r'<td class="n">2000</td>',
        section.group(1),
    ), section.group(1) if section else "no section"


def test_the_leaky_test_provider_is_found_by_the_mac_test_and_its_a_a_control_is_not(
    tmp_path, native_runner
):
    """The MAC test's positive control: `fault/leaky` compares an HMAC tag byte by byte and
    stops at the first difference (native/src/testing/fault_provider.cpp), so a tag wrong in its
    first byte is refused sooner than one wrong in its last."""
    out = tmp_path / "leaks.json"
    done = run_cli(
        "leaks", "-p", "fault/leaky", "-a", "hmac-sha256", "--rounds", "20000",
        "--db", str(tmp_path / "r.db"), "--json-out", str(out),
        env={"CRYPTOBENCH_TEST_PROVIDERS": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    verdicts = {
        f["key"]["classes"]: f["extra"]["verdict"]
        for f in json.loads(out.read_text())["figures"]
        if f["metric"] == "median difference"
    }
    assert verdicts["tag-first vs tag-last"] == "leak"
    assert verdicts["tag-first vs tag-first'"] != "leak"
    assert "A/A control: 0 of 1 called leaky" in done.stdout
