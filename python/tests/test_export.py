"""Each export format, from a stored run."""

import csv
import io
import json

import pytest
from conftest import store_run, sweep

from cryptobench import analysis
from cryptobench.export import FORMATS

# The fields issue #3 promises in every JSON result.
PROMISED = (
    "provider",
    "variant",
    "operation",
    "algorithm",
    "size",
    "status",
    "reason",
    "median_ns",
    "bytes_per_s",
    "ops_per_s",
    "ci_low_ns",
    "ci_high_ns",
    "heap_bytes_per_op",
    "heap_allocs_per_op",
)


@pytest.fixture
def results(tmp_path):
    timings = sweep("alpha", "default", "hash", "sha256", 100, 0.5)
    timings[("beta", "default", "hash", "sha256", 1024)] = 700.0
    failed = {("beta", "default", "hash", "sha256", 64): "known-answer test failed"}
    db, run_id = store_run(tmp_path / "r.db", timings, failed=failed)
    return analysis.load(db, run_id)


def test_json_export(results):
    doc = json.loads(FORMATS["json"](results, False))
    assert doc["format"] == "cryptobench-results" and doc["format_version"] == 1
    assert doc["run"]["id"] == results.run.id
    assert doc["machine"]["cpu_model"] == "Test CPU"
    assert {lib["provider"] for lib in doc["libraries"]} == {"alpha", "beta"}
    assert len(doc["results"]) == 7  # a 5-size sweep, beta at 1 KiB, one failure
    for row in doc["results"]:
        assert all(field in row for field in PROMISED)
    ok = next(r for r in doc["results"] if r["provider"] == "alpha" and r["size"] == 4096)
    assert ok["status"] == "ok"
    assert ok["ci_low_ns"] <= ok["median_ns"] <= ok["ci_high_ns"]
    assert ok["bytes_per_s"] == pytest.approx(4096 / ok["median_ns"] * 1e9)
    assert ok["heap_bytes_per_op"] == 64.0
    bad = next(r for r in doc["results"] if r["status"] == "failed")
    assert bad["reason"] == "known-answer test failed"
    assert bad["median_ns"] is None and bad["bytes_per_s"] is None
    [fit] = doc["fits"]
    assert fit["overhead_ns"] == pytest.approx(100, rel=0.2)
    assert fit["ns_per_byte"] == pytest.approx(0.5, rel=0.05)
    assert fit["cycles_per_byte"] == pytest.approx(fit["ns_per_byte"] * 2.0, rel=1e-9)
    assert doc["failures"][0]["kind"] == "gate"


def test_json_export_with_raw_samples(results):
    doc = json.loads(FORMATS["json"](results, True))
    ok = next(r for r in doc["results"] if r["status"] == "ok")
    assert len(ok["raw_samples"]) == ok["n_samples"] == 11
    assert set(ok["raw_samples"][0]) == {"iterations", "ns", "ticks"}


def test_csv_export(results):
    rows = list(csv.DictReader(io.StringIO(FORMATS["csv"](results, False))))
    assert len(rows) == 7
    assert all(field in rows[0] for field in PROMISED)
    bad = next(r for r in rows if r["status"] == "failed")
    assert bad["median_ns"] == "" and bad["unstable"] == ""
    ok = next(r for r in rows if r["status"] == "ok")
    assert float(ok["median_ns"]) > 0 and ok["unstable"] in ("true", "false")


def test_markdown_export(results):
    text = FORMATS["md"](results, False)
    assert text.startswith(f"# cryptobench run {results.run.id}")
    assert "| provider | variant | algorithm |" in text
    assert "known-answer test failed" in text
    assert "## Per-call overhead and per-byte cost" in text
    # One table row per case.
    assert (
        sum(
            1
            for line in text.splitlines()
            if line.startswith("| alpha") or line.startswith("| beta")
        )
        >= 6
    )


@pytest.fixture
def pk_results(tmp_path):
    timings = {
        ("alpha", "default", "sign", "ed25519", 32): 20_000.0,
        ("alpha", "default", "derive", "pbkdf2-sha256", 16): 3_000_000.0,
        ("alpha", "default", "hash", "sha256", 1024): 700.0,
    }
    costs = {("alpha", "default", "derive", "pbkdf2-sha256", 16): {"iterations": 10000}}
    db, run_id = store_run(tmp_path / "r.db", timings, costs=costs)
    return analysis.load(db, run_id)


def test_exports_of_public_key_and_kdf_cases(pk_results):
    doc = json.loads(FORMATS["json"](pk_results, False))
    rows = {r["algorithm"]: r for r in doc["results"]}
    sign, kdf, sha = rows["ed25519"], rows["pbkdf2-sha256"], rows["sha256"]
    assert (sign["kind"], sign["cost"], sign["security_bits"]) == ("signature", {}, 128)
    assert sign["ops_per_s"] == pytest.approx(1e9 / sign["median_ns"])
    # Bytes per second and cycles per byte mean nothing for a signature or a key derivation.
    assert sign["bytes_per_s"] is None and sign["cycles_per_byte"] is None
    assert (kdf["kind"], kdf["cost"], kdf["security_bits"]) == ("kdf", {"iterations": 10000}, 256)
    assert sha["kind"] == "hash" and sha["bytes_per_s"] > 0 and sha["cost"] == {}

    csv_rows = {
        r["algorithm"]: r for r in csv.DictReader(io.StringIO(FORMATS["csv"](pk_results, False)))
    }
    assert json.loads(csv_rows["pbkdf2-sha256"]["cost"]) == {"iterations": 10000}
    assert csv_rows["ed25519"]["bytes_per_s"] == "" and float(csv_rows["ed25519"]["ops_per_s"]) > 0

    md = FORMATS["md"](pk_results, False)
    assert "| ops/s |" in md and "pbkdf2-sha256 (iterations=10000)" in md


def test_exports_keep_a_memory_figure_not_measured_apart_from_0(memory_results):
    """null in JSON, an empty cell in CSV, 'not measured' in Markdown; never 0."""
    rows = {r["provider"]: r for r in json.loads(FORMATS["json"](memory_results, False))["results"]}
    assert rows["native"]["heap_bytes_per_op"] == 64.0
    assert (rows["native"]["rss_before_kb"], rows["native"]["rss_peak_kb"]) == (20000, 20480)
    assert rows["native"]["rss_rise_kb"] == 480
    assert rows["quiet"]["heap_bytes_per_op"] == 0.0
    jvm = rows["jvm"]
    assert jvm["heap_bytes_per_op"] is None and jvm["heap_prepare_bytes"] is None
    assert jvm["rss_rise_kb"] is None and jvm["rss_peak_kb"] is None
    assert rows["old"]["rss_rise_kb"] is None  # -1: the reset was refused
    assert rows["pyca"]["rss_rise_kb"] == 65 * 1024
    csv_rows = {
        r["provider"]: r for r in csv.DictReader(io.StringIO(FORMATS["csv"](memory_results, False)))
    }
    assert csv_rows["jvm"]["heap_bytes_per_op"] == "" and csv_rows["jvm"]["rss_rise_kb"] == ""
    assert csv_rows["quiet"]["heap_bytes_per_op"] == "0.0"
    md = FORMATS["md"](memory_results, False)
    cases = {line.split(" | ")[0][2:]: line for line in md.splitlines() if "| sha256 |" in line}
    assert "| not measured | not measured | ok |" in cases["jvm"]
    assert "| 0 | 480 KiB |" in cases["quiet"]
