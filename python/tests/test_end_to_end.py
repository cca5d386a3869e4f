"""`cryptobench` against the real native runner: a whole run, a killed and resumed run, Ctrl-C,
and providers that crash, hang or compute wrong output (the runner's test provider "fault",
enabled by CRYPTOBENCH_TEST_PROVIDERS=1)."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli

from cryptobench import runner

FAULTS = {"CRYPTOBENCH_TEST_PROVIDERS": "1"}


@pytest.fixture(scope="module")
def real_provider(native_runner) -> str:
    """A provider offering both SHA-256 and AES-256-GCM, OpenSSL when it is there."""
    caps = runner.list_capabilities(native_runner)
    names = [
        p.name
        for p in caps.providers.values()
        if p.offers("sha256", "hash") and p.offers("aes-256-gcm", "encrypt")
    ]
    assert names, "no provider offers sha256 and aes-256-gcm"
    return "openssl" if "openssl" in names else names[0]


def write_suite(
    path: Path,
    providers: list[str],
    algorithms: list[str],
    sizes: list[int],
    samples: int = 3,
    extra: str = "",
) -> str:
    path.write_text(
        f"providers = {json.dumps(providers)}\nalgorithms = {json.dumps(algorithms)}\n"
        f"sizes = {json.dumps(sizes)}\nsamples = {samples}\nbatch = 2\n"
        f"target_sample_ms = 0.5\nwarmup_ms = 2\n{extra}"
    )
    return str(path)


def export(db: Path, run: str = "latest") -> dict:
    done = run_cli("export", run, "--format", "json", "--db", str(db))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_list(native_runner):
    done = run_cli("list")
    assert done.returncode == 0, done.stderr
    assert "algorithm" in done.stdout and "aes-256-gcm" in done.stdout
    caps = json.loads(run_cli("list", "--json").stdout)
    assert caps["type"] == "capabilities" and caps["providers"]


def test_unknown_provider_or_algorithm(native_runner, tmp_path):
    for args, message in (
        (["-p", "nosuchlib"], "unknown provider 'nosuchlib'"),
        (["-a", "aes-257-gcm"], "unknown algorithm 'aes-257-gcm'"),
        (["-p", "all/turbo"], "no provider has a variant 'turbo'"),
    ):
        done = run_cli("run", *args, "--db", str(tmp_path / "r.db"))
        assert done.returncode != 0
        assert done.stderr.startswith(f"cryptobench: error: {message}")
        assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.db").exists()  # nothing planned, nothing stored


def test_a_tiny_suite_from_run_to_report(native_runner, real_provider, tmp_path):
    db = tmp_path / "r.db"
    suite = write_suite(
        tmp_path / "tiny.toml",
        [real_provider],
        ["sha256", "aes-256-gcm"],
        [64, 1024, 4096],
        extra='operations = ["encrypt", "hash"]\n',
    )
    done = run_cli(
        "run",
        "--suite",
        suite,
        "--db",
        str(db),
        "--note",
        "e2e",
        "--json-out",
        str(tmp_path / "run.json"),
        "--report",
        str(tmp_path / "r.html"),
    )
    assert done.returncode == 0, done.stderr
    assert "throughput in MB/s" in done.stdout

    doc = json.loads((tmp_path / "run.json").read_text())
    assert doc["run"]["status"] == "complete" and doc["run"]["note"] == "e2e"
    assert [(r["algorithm"], r["size"], r["status"]) for r in doc["results"]] == [
        (alg, size, "ok") for alg in ("sha256", "aes-256-gcm") for size in (64, 1024, 4096)
    ]
    for r in doc["results"]:
        assert r["n_samples"] == 3
        assert 0 < r["ci_low_ns"] <= r["median_ns"] <= r["ci_high_ns"]
        assert r["gate_kat"].startswith("passed")
    assert {f["algorithm"] for f in doc["fits"]} == {"sha256", "aes-256-gcm"}
    assert doc["machine"]["cpu_model"]
    assert [lib["provider"] for lib in doc["libraries"]] == [real_provider]
    assert export(db) == doc

    html = (tmp_path / "r.html").read_text()
    assert "<svg" in html and "reference cycles (TSC)" in html

    for args in (
        ["runs"],
        ["show"],
        ["export", "--format", "csv"],
        ["export", "--format", "md"],
        ["compare", "1", "1"],
        ["report", "-o", str(tmp_path / "again.html")],
    ):
        done = run_cli(*args, "--db", str(db))
        assert done.returncode == 0, (args, done.stderr)
    assert "6 same" in run_cli("compare", "1", "1", "--db", str(db)).stdout


def committed(db: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM cases WHERE status != 'pending'").fetchone()[
                0
            ]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0  # not created yet


def _sigint_default() -> None:
    # A shell's background job (`make test &` in a script) starts with SIGINT ignored, which
    # Python then keeps ignoring, as a background program should: the run would not see the
    # test's Ctrl-C. The test stands for a terminal's foreground job.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_run(suite: str, db: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cryptobench", "run", "--suite", suite, "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_default,
    )


def wait_until_committed(db: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while committed(db) < n:
        assert proc.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.01)


def sweep_suite(tmp_path: Path, provider: str) -> str:
    return write_suite(
        tmp_path / "sweep.toml",
        [provider],
        ["sha256", "sha512", "aes-256-gcm"],
        [64, 256, 1024, 4096, 16384, 65536],
        samples=5,
    )


def samples_of(db: Path) -> dict[int, list]:
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT case_id, idx, ns FROM samples ORDER BY case_id, idx").fetchall()
    conn.close()
    out: dict[int, list] = {}
    for case_id, _, ns in rows:
        out.setdefault(case_id, []).append(ns)
    return out


def test_a_run_killed_midway_is_consistent_and_resumes(native_runner, real_provider, tmp_path):
    db = tmp_path / "r.db"
    proc = start_run(sweep_suite(tmp_path, real_provider), db)
    wait_until_committed(db, 3, proc)
    proc.kill()  # SIGKILL: no chance to clean up
    proc.communicate()

    before = export(db)
    statuses = [r["status"] for r in before["results"]]
    assert statuses.count("pending") > 0, "the run finished before the kill"
    assert all(s in ("ok", "pending") for s in statuses)
    kept = samples_of(db)
    runs = run_cli("runs", "--db", str(db)).stdout
    assert "stopped" in runs

    done = run_cli("run", "--resume", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    after = export(db)
    assert after["run"]["status"] == "complete"
    assert len(after["results"]) == len(before["results"])
    assert all(r["status"] == "ok" for r in after["results"])
    # What was committed before the kill is untouched.
    now = samples_of(db)
    assert all(now[case_id] == samples for case_id, samples in kept.items())


def test_ctrl_c_keeps_what_was_measured(native_runner, real_provider, tmp_path):
    db = tmp_path / "r.db"
    proc = start_run(sweep_suite(tmp_path, real_provider), db)
    wait_until_committed(db, 2, proc)
    at = committed(db)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, f"{at} committed at Ctrl-C, then {committed(db)}:\n{err}{out}"
    assert "Traceback" not in err
    assert "cryptobench run --resume 1" in err
    doc = export(db)
    assert doc["run"]["status"] == "interrupted"
    assert sum(r["status"] == "ok" for r in doc["results"]) >= 2

    done = run_cli("run", "--resume", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert all(r["status"] == "ok" for r in export(db)["results"])


def faulty_run(tmp_path: Path, variant: str, real: str, *options: str) -> dict:
    db = tmp_path / "r.db"
    suite = write_suite(
        tmp_path / "f.toml",
        [f"fault/{variant}", real],
        ["sha256", "aes-256-gcm"],
        [1024],
        extra='operations = ["encrypt", "hash"]\n',
    )
    done = run_cli("run", "--suite", suite, "--db", str(db), *options, env=FAULTS)
    assert done.returncode == 0, done.stderr
    doc = export(db)
    assert doc["run"]["status"] == "complete"
    real_results = [r for r in doc["results"] if r["provider"] == real]
    assert [r["status"] for r in real_results] == ["ok", "ok"]  # the run went on
    return doc


def fault_results(doc: dict) -> list[dict]:
    return [r for r in doc["results"] if r["provider"] == "fault"]


@pytest.fixture(scope="module")
def fault_provider(native_runner):
    done = subprocess.run(
        [str(native_runner), "list"],
        capture_output=True,
        text=True,
        env={**os.environ, **FAULTS},
        check=True,
    )
    providers = {p["name"]: p for p in json.loads(done.stdout)["providers"]}
    assert "fault" in providers, "the runner has no test provider 'fault'"
    assert {"corrupt", "crash", "hang"} <= {v["name"] for v in providers["fault"]["variants"]}


def test_wrong_output_fails_the_gate_and_is_never_timed(fault_provider, real_provider, tmp_path):
    doc = faulty_run(tmp_path, "corrupt", real_provider)
    for r in fault_results(doc):
        assert r["status"] == "failed"
        assert "known-answer test" in r["reason"]
        assert r["n_samples"] == 0 and r["median_ns"] is None
    assert {f["kind"] for f in doc["failures"]} == {"gate"}


def test_a_crashing_runner_costs_only_its_case(fault_provider, real_provider, tmp_path):
    doc = faulty_run(tmp_path, "crash", real_provider)
    results = fault_results(doc)
    assert len(results) == 2  # the runner was restarted for the second case, and crashed again
    for r in results:
        assert r["status"] == "failed"
        assert "runner crashed (killed by SIGABRT)" in r["reason"]
    assert {f["kind"] for f in doc["failures"]} == {"crash"}


def test_a_hanging_runner_times_out(fault_provider, real_provider, tmp_path):
    doc = faulty_run(tmp_path, "hang", real_provider, "--timeout", "3")
    for r in fault_results(doc):
        assert r["status"] == "failed"
        assert "no reply within 3 s" in r["reason"]
    assert {f["kind"] for f in doc["failures"]} == {"timeout"}
