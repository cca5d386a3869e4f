"""`cryptobench leaks --method taint` (docs/leaks.md): under valgrind's memcheck, with the key
marked secret, the deliberately leaky test provider's early-exit tag comparison is reported with
its frame, and OpenSSL's accelerated AES-GCM (only its public accept/reject branch, a reviewed
suppression) is taint-clean; the run is stored and shown like every run. The Rust runner answers
`taint` too: its key's taint reaches RustCrypto's tag check."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_cli
from protocol_schema import check
from runner_harness import Served, capabilities, missing_part, runner_exe

from cryptobench.scenarios.leaks import taint


@pytest.fixture
def valgrind():
    if shutil.which("valgrind") is None:
        missing_part("valgrind not installed (make apt-leaks)")


def test_taint_finds_the_leaky_comparison_and_not_a_constant_time_gcm(
    tmp_path, native_runner, valgrind
):
    db, out = tmp_path / "taint.db", tmp_path / "taint.json"
    done = run_cli(
        "leaks",
        "--method",
        "taint",
        "-p",
        "fault/leaky,openssl",
        "-a",
        "aes-256-gcm",
        "--db",
        str(db),
        "--json-out",
        str(out),
        "--report",
        str(tmp_path / "r.html"),
        env={"CRYPTOBENCH_TEST_PROVIDERS": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    figures = {
        f["key"]["provider"]: f
        for f in json.loads(out.read_text())["figures"]
        if f["metric"] == taint.METRIC
    }
    leaky, openssl = figures["fault/leaky"], figures["openssl"]
    assert leaky["status"] == "ok" and leaky["extra"]["verdict"] == "secret-dependent"
    frames = [g["frame"] for g in leaky["extra"]["groups"] if g["kind"] == "branch"]
    assert any("LeakyTagOp::run" in f and "fault_provider.cpp" in f for f in frames), frames
    assert openssl["status"] == "ok" and openssl["extra"]["verdict"] == "taint-clean", openssl
    # Its accept/reject branch was seen and suppressed, once per decryption.
    assert sum(openssl["extra"]["suppressed"].values()) >= 1
    shown = run_cli("show", "1", "--db", str(db))
    assert shown.returncode == 0 and "LeakyTagOp::run" in shown.stdout
    assert "taint-clean" in (tmp_path / "r.html").read_text()


def test_the_rust_runner_marks_the_key_and_rustcrypto_gcm_shows_only_its_verdict_branch(valgrind):
    """The Rust runner under memcheck, through the same requests as the native one. No Rust AEAD
    has a known secret-dependent site (RustCrypto's AES is AES-NI or fixsliced, its POLYVAL CLMUL
    or constant-time soft code), so the native fault/leaky stays the positive control for a site
    being reported; what shows that the marking works here is the verdict branch: memcheck reports
    a branch only on an undefined value, and the only one is the key, through AES and GHASH to
    the tag check."""
    exe = runner_exe("cryptobench-runner-rust")
    [info] = [a for a in capabilities(exe)["algorithms"] if a["name"] == "aes-256-gcm"]
    cell = taint.Cell(taint.Slot("rustcrypto", "default", exe, {}), "aes-256-gcm")
    taint.run_cell(cell, info, seed=1)
    figure = taint.figure(cell)
    assert figure.status == "ok", figure.reason
    extra = figure.extra
    assert extra["operations"] == {
        "encrypt": "ok",
        "decrypt-valid": "ok",
        "decrypt-tag-last": "refused",
    }
    assert extra["verdict"] == "taint-clean" and figure.values == (0.0,), extra["groups"]
    assert extra["uninitialised_not_secret"] == 0
    seen = {k: n for k, n in extra["suppressed"].items() if k.startswith("verdict:rustcrypto")}
    assert seen and all(1 <= n <= taint.VERDICT_USES for n in seen.values()), extra["suppressed"]


def test_the_rust_runners_taint_reply_outside_valgrind_says_so_and_still_runs():
    """Without valgrind the marks do nothing and the reply says so (the coordinator then refuses
    to call anything clean); the operation still runs, and an operation the runner cannot prepare
    is a status with the same fields (docs/protocol.schema.json; the harness checks each reply)."""
    case = {"id": "encrypt", "provider": "rustcrypto", "operation": "encrypt", "size": 16}
    case["algorithm"] = "aes-256-gcm"
    request = {"cmd": "taint", "case": case, "input": "00" * 16, "secret_input": True}
    with Served(runner_exe("cryptobench-runner-rust")) as served:
        # GCM's test case 14 (zero key, IV and block): its ciphertext and tag.
        reply = served.send(
            check({**request, "params": {"key": "00" * 32, "iv": "00" * 12}}, "request")
        )
        assert (reply["status"], reply["supported"], reply["on_valgrind"]) == ("ok", True, False)
        assert reply["outcome"] == {
            "out": "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"
        }
        short_key = served.send({**request, "params": {"key": "00" * 5, "iv": "00" * 12}})
        assert short_key["status"] == "failed" and "outcome" not in short_key, short_key


def test_taint_refuses_a_non_aead_algorithm_in_one_line(native_runner, valgrind):
    done = run_cli("leaks", "--method", "taint", "-a", "sha256")
    assert done.returncode != 0
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("cryptobench: error: -a sha256: --method taint checks AEAD")
    )


def test_parse_xml_attributes_errors_to_the_operation_between_the_markers():
    xml = """<?xml version="1.0"?><valgrindoutput>
    <error><kind>UninitCondition</kind><what>before</what><stack><frame><fn>init</fn></frame>
    </stack></error>
    <clientmsg><tid>1</tid><text>cryptobench-taint begin encrypt
    </text></clientmsg>
    <error><kind>UninitValue</kind><what>Use of uninitialised value of size 8</what>
    <stack><frame><obj>/lib/libx.so</obj></frame><frame><fn>AES_encrypt</fn>
    <obj>/lib/libx.so</obj></frame></stack>
    <auxwhat>Uninitialised value was created by a client request</auxwhat></error>
    <error><kind>UninitCondition</kind><what>c</what><stack><frame><fn>f</fn></frame></stack>
    <auxwhat>Uninitialised value was created by a heap allocation</auxwhat></error>
    <clientmsg><tid>1</tid><text>cryptobench-taint end encrypt
    </text></clientmsg>
    <suppcounts><pair><count>2</count><name>verdict:x</name></pair></suppcounts>
    </valgrindoutput>"""
    parsed = taint.parse_xml(xml)
    assert parsed.outside == 1
    assert [(s.operation, s.kind, s.secret_origin) for s in parsed.sites] == [
        ("encrypt", "memory index", True),
        ("encrypt", "branch", False),
    ]
    assert parsed.sites[0].top() == "1 unnamed frame(s) in libx.so called by AES_encrypt (libx.so)"
    assert parsed.suppressed == {"verdict:x": 2}


def test_a_verdict_suppression_used_like_a_comparison_loop_counts_as_a_site():
    slot = taint.Slot("x", "default", Path("x"), {})
    loop = taint.Cell(slot, "aes-256-gcm", taint.Parsed(suppressed={"verdict:x": 32}))
    once = taint.Cell(slot, "aes-256-gcm", taint.Parsed(suppressed={"verdict:x": 3}))
    assert taint.figure(loop).extra["verdict"] == "secret-dependent"
    assert taint.figure(once).extra["verdict"] == "taint-clean"
