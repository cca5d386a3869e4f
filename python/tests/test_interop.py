"""Other tools' figures in, Google Benchmark's format out: with the real tools."""

import json
import shutil
import subprocess

import pytest
from conftest import store_run

from cryptobench import analysis, cli
from cryptobench.export import gbench
from cryptobench.store import Store


def run(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True).stdout


def imported(db, capsys, path, fmt):
    assert cli.main(["import", str(path), "--format", fmt, "--db", str(db)]) == 0
    capsys.readouterr()
    store = Store.open(db)
    results = analysis.load(store, store.resolve_run("latest"))
    return {(c.provider, c.algorithm, c.operation, c.size): c for c in results.cases}


def test_openssl_speed_machine_readable_output(tmp_path, capsys):
    out = tmp_path / "speed.txt"
    out.write_text(run("openssl", "speed", "-mr", "-seconds", "1", "-bytes", "1024", "-evp",
                       "aes-128-gcm"))  # fmt: skip
    cases = imported(tmp_path / "r.db", capsys, out, "openssl-speed")
    case = cases[("openssl-speed", "aes-128-gcm", "encrypt", 1024)]
    assert case.status == "ok" and 1e7 < case.bytes_per_s < 1e11
    assert "not gated" in case.gate["imported"]


@pytest.mark.skipif(shutil.which("botan") is None, reason="botan (the CLI) is not installed")
def test_botan_speed_json(tmp_path, capsys):
    out = tmp_path / "botan.json"
    out.write_text(run("botan", "speed", "--format=json", "--msec=50", "--buf-size=1024",
                       "AES-256/GCM", "SHA-256"))  # fmt: skip
    cases = imported(tmp_path / "r.db", capsys, out, "botan-speed")
    assert {("botan-speed", "aes-256-gcm", "encrypt", 1024), ("botan-speed", "sha256", "hash",
            1024)} <= set(cases)  # fmt: skip


@pytest.mark.skipif(shutil.which("hyperfine") is None, reason="hyperfine is not installed")
def test_hyperfine_export(tmp_path, capsys):
    out = tmp_path / "h.json"
    run("hyperfine", "-N", "--runs", "5", "--export-json", str(out), "true")
    cases = imported(tmp_path / "r.db", capsys, out, "hyperfine")
    [case] = cases.values()
    assert case.operation == "run" and case.summary.n == 5


def test_bad_import_files_are_one_line_errors(tmp_path, capsys):
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n")
    for fmt in ("openssl-speed", "botan-speed", "hyperfine"):
        assert cli.main(["import", str(junk), "--format", fmt, "--db", str(tmp_path / "r.db")]) == 1
        err = capsys.readouterr().err
        assert err.startswith("cryptobench: error:") and err.count("\n") == 1


def test_gbench_export_has_repetitions_and_aggregates(tmp_path):
    key = ("alpha", "default", "encrypt", "aes-128-gcm", 1024)
    db, run_id = store_run(tmp_path / "r.db", {key: 500.0}, n=9)
    doc = json.loads(gbench.render(analysis.load(db, run_id)))
    entries = doc["benchmarks"]
    iterations = [e for e in entries if e["run_type"] == "iteration"]
    assert len(iterations) == 9 and {e["repetitions"] for e in iterations} == {9}
    assert [e["aggregate_name"] for e in entries if e["run_type"] == "aggregate"] == [
        "mean", "median", "stddev",
    ]  # fmt: skip
    median = next(e for e in entries if e.get("aggregate_name") == "median")
    assert median["real_time"] == pytest.approx(500, rel=0.05) and median["time_unit"] == "ns"
    assert median["bytes_per_second"] == pytest.approx(1024 / 500e-9, rel=0.05)
