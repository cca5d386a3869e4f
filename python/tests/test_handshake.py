"""handshake (docs/protocol.md, "Public-key and KDF cases"): one full TLS 1.3 handshake in memory,
client and server in one thread, gated by the native runner before it is timed, with the
server's CPU per handshake stored and read back. A few handshakes per test: the gate's own
checks (tampered flight, wrong name) are in native/tests/handshake_test.cpp."""

import json
import shutil
import subprocess

import pytest
from conftest import run_cli

from cryptobench import analysis, store, versions
from cryptobench.criteria import evaluate, specs_for
from cryptobench.gate import vectors as gate_vectors
from cryptobench.reproductions.openssl3 import reproduce

ECDSA, RSA = "tls13-x25519-ecdsa-p256", "tls13-x25519-rsa-2048"
HYBRID = "tls13-x25519mlkem768-ecdsa-p256"


def run_cases(native_runner, provider: str, algorithms: list[str], vectors=None) -> dict:
    specs = [
        {"id": a, "provider": provider, "operation": "handshake", "algorithm": a, "size": 0,
         "samples": 2, "target_sample_ms": 0.2, "warmup_ms": 0, "heap_iterations": 1}
        for a in algorithms
    ]  # fmt: skip
    args = [str(native_runner), "run", "--no-pin"]
    if vectors:
        args += ["--vectors", str(vectors)]
    done = subprocess.run(
        args, input=json.dumps({"cases": specs}), capture_output=True, text=True, timeout=120
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return {m["id"]: m for m in lines if m.get("type") == "result"}


def test_a_handshake_run_stores_the_servers_cpu_per_handshake(native_runner, tmp_path):
    db = tmp_path / "r.db"
    args = ["-p", "openssl,gnutls", "-a", ECDSA, "--operations", "handshake", "--samples", "3"]
    done = run_cli("run", *args, "--db", str(db), "--no-pin")
    assert done.returncode == 0, done.stderr
    s = store.Store.open(db)
    cases = analysis.load(s, s.resolve_run("latest")).cases
    assert {(c.provider, c.size, c.status) for c in cases} == {("openssl", 0, "ok"),
                                                               ("gnutls", 0, "ok")}  # fmt: skip
    for c in cases:
        assert c.gate["kat"].startswith("2 handshakes: TLSv1.3, TLS_AES_128_GCM_SHA256, x25519")
        assert "one byte flipped fails" in c.gate["roundtrip"], c.gate
        assert c.gate["agreement"].startswith("not compared"), c.gate
        # The server's share of each handshake: some CPU time, less than the whole handshake.
        assert c.server_cpu_ns is not None, c.measurement
        assert 0 < c.server_cpu_ns < c.median_ns, (c.server_cpu_ns, c.median_ns)
        # The ClientHello as sent: one X25519 share (32 bytes), well inside one packet.
        assert c.client_hello_bytes is not None and 100 < c.client_hello_bytes < 1000, c.measurement


def test_the_gate_refuses_a_handshake_that_negotiates_another_suite(native_runner, tmp_path):
    vectors = tmp_path / "vectors"
    shutil.copytree(gate_vectors.REPO_VECTORS, vectors)
    doc = json.loads((vectors / "tls13.json").read_text())
    for v in doc["vectors"]:
        v["suite"] = "TLS_AES_256_GCM_SHA384"
    (vectors / "tls13.json").write_text(json.dumps(doc))
    result = run_cases(native_runner, "openssl", [ECDSA], vectors)[ECDSA]
    assert result["status"] == "failed"
    assert "negotiated cipher suite TLS_AES_128_GCM_SHA256" in result["reason"], result["reason"]


def test_built_openssl_versions_shake_hands(native_runner):
    done = subprocess.run([str(native_runner), "list"], capture_output=True, text=True, check=True)
    providers = json.loads(done.stdout.splitlines()[0])["providers"]
    offering = [
        p["name"]
        for p in providers
        if p["name"] in versions.table() and any(a["name"] == RSA for a in p["algorithms"])
    ]
    if not offering:
        pytest.skip("no OpenSSL version built with libssl here (make versions, docs/versions.md)")
    for provider in offering:
        result = run_cases(native_runner, provider, [RSA])[RSA]
        assert result["status"] == "ok", (provider, result["reason"])
        assert len(result["handshake"]["server_cpu_ns"]) == len(result["samples"])


def test_an_openssl_with_the_hybrid_group_shakes_hands_with_it(native_runner):
    """X25519MLKEM768 where the library has it (OpenSSL >= 3.5, AWS-LC, BoringSSL): gated like
    the others, and its ClientHello carries the 1216-byte hybrid share where the other case's
    carries 32 bytes (less OpenSSL's 8-byte ec_point_formats extension, which it sends only with
    an elliptic-curve group to offer: 1176 bytes more)."""
    done = subprocess.run([str(native_runner), "list"], capture_output=True, text=True, check=True)
    providers = json.loads(done.stdout.splitlines()[0])["providers"]
    offering = [p["name"] for p in providers if any(a["name"] == HYBRID for a in p["algorithms"])]
    if not offering:
        pytest.skip(
            "no OpenSSL >= 3.5, AWS-LC or BoringSSL built with libssl here (make versions, "
            "docs/versions.md)"
        )
    for provider in offering:
        results = run_cases(native_runner, provider, [HYBRID, ECDSA])
        hybrid, classic = results[HYBRID], results[ECDSA]
        assert hybrid["status"] == "ok", (provider, hybrid["reason"])
        assert ", x25519mlkem768;" in hybrid["gate"]["kat"], hybrid["gate"]
        hello = [r["handshake"]["client_hello_bytes"] for r in (hybrid, classic)]
        assert hello[0] > 1216 and 1100 < hello[0] - hello[1] <= 1216 - 32, (provider, hello)


def test_reproduce_openssl3_judges_the_servers_handshakes_per_cpu_second():
    """The criteria read 1 / the server's CPU per handshake of the RSA-2048 case."""
    hs = {  # (median ns per handshake, server CPU ns per handshake)
        "openssl": {RSA: (2.0e6, 0.8e6), ECDSA: (1.0e6, 0.4e6)},
        "openssl@1.1.1": {RSA: (1.5e6, 0.6e6)},
    }
    data = {"noise": 0.1, "handshakes_s": reproduce.server_rates(hs)}
    assert data["handshakes_s"] == pytest.approx({"3.0": 1250.0, "1.1.1": 1e9 / 0.6e6})
    *_, drop, aws_lc = evaluate(specs_for("openssl3"), data)
    assert drop.holds is True and aws_lc.holds is None
    rows = reproduce.handshake_table(hs, {})
    assert rows[0][0].startswith("1.1.1w") and "1,773.9" in rows[0]  # the quoted figure first
    assert ["openssl (?)", "rsa-2048", "500.0", "800.0", "1,250.0", "0.75"] in rows
