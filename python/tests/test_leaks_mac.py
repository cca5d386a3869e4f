"""MAC verification as a leak test (docs/leaks.md, "MAC verification"): the native and Python
runners' `leak` request verifies a MAC with each library's own verification or constant-time
comparison -- a tag made by Python's own hmac module verifies, tags wrong in the first or the
last byte are refused (by status in the native runner) --, and a short `cryptobench leaks -a
hmac-sha256` run compares the wrong tags and shows beside a speed run's `mac` case in the
report."""

import hashlib
import hmac
import json
import re

import pytest
from conftest import run_cli
from runner_harness import Served, capabilities, runner_exe, tiny_case

from cryptobench.scenarios.leaks.classes import mac_classes

NAMES = ["tag-first", "tag-last", "valid"]


def _offering(exe, algorithm: str) -> list[str]:
    return [
        p["name"]
        for p in capabilities(exe)["providers"]
        if p["name"] not in ("null", "fault")
        and any(a["name"] == algorithm for a in p["algorithms"])
    ]


@pytest.mark.parametrize("runner", ["cryptobench-native", "cryptobench-runner-python"])
def test_each_library_verifies_a_tag_and_refuses_a_wrong_one(runner):
    """Native: by status; Python (pyca's and PyCryptodome's verify()): by exception."""
    exe = runner_exe(runner)
    native = runner == "cryptobench-native"
    key, message = bytes(range(32)), bytes(range(64))
    classes = mac_classes(message, hmac.new(key, message, hashlib.sha256).digest())
    providers = _offering(exe, "hmac-sha256")
    wanted = {"openssl", "gcrypt"} if native else {"pyca", "pycryptodome"}
    assert wanted <= set(providers), providers
    unsupported = {}
    with Served(exe) as served:
        for provider in providers:
            reply = served.send(
                {
                    "cmd": "leak",
                    "case": tiny_case(provider, "hmac-sha256", "verify", 64),
                    "params": {"key": key.hex(), "iv": ""},
                    "classes": [classes[n].hex() for n in NAMES],
                    "rounds": 20,
                }
            )
            if reply["status"] == "unsupported":
                unsupported[provider] = reply["reason"]
                continue
            assert reply["status"] == "ok", (provider, reply)
            first, last, valid = reply["outcomes"]
            assert "error" in first and "error" in last and valid == {"out": ""}, (provider, reply)
            assert reply.get("refusal", "exception") == ("status" if native else "exception")
            assert [len(t) for t in reply["ns"]] == [20, 20, 20]
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
