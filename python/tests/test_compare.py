"""Comparing runs: ratio of medians, significance and the noise threshold."""

import numpy as np
import pytest
from conftest import store_run

from cryptobench import analysis, compare

KEY = ("alpha", "default", "hash", "sha256", 1024)


def two_runs(tmp_path, a_ns: float, b_ns: float, n=21, spread=0.02):
    db, run_a = store_run(tmp_path / "r.db", {KEY: a_ns}, n=n, seed=1, spread=spread)
    _, run_b = store_run(tmp_path / "r.db", {KEY: b_ns}, n=n, seed=2, spread=spread)
    return analysis.load(db, run_a), analysis.load(db, run_b)


def verdict_of(tmp_path, a_ns, b_ns, **kw) -> compare.CaseComparison:
    a, b = two_runs(tmp_path, a_ns, b_ns, **kw)
    [c] = compare.compare_runs(a, b)
    return c


def test_clearly_faster_and_slower(tmp_path):
    faster = verdict_of(tmp_path, 1000, 800)
    assert faster.verdict == "faster"
    assert faster.ratio == pytest.approx(0.8, rel=0.03)
    assert faster.p < 1e-4
    assert verdict_of(tmp_path, 800, 1000).verdict == "slower"


def test_the_same_distribution_is_same(tmp_path):
    c = verdict_of(tmp_path, 1000, 1000)
    assert c.verdict == "same"
    assert c.ratio == pytest.approx(1, abs=0.03)


def test_a_significant_difference_below_the_noise_threshold_is_same(tmp_path):
    c = verdict_of(tmp_path, 1000, 970, n=41, spread=0.002)
    assert c.p < 0.05  # real, consistent ...
    assert c.verdict == "same"  # ... but under 5%


def test_a_large_difference_in_too_few_noisy_samples_is_same(tmp_path):
    c = verdict_of(tmp_path, 1000, 1150, n=5, spread=0.3)
    assert c.p >= 0.05
    assert c.verdict == "same"


def test_cases_missing_from_one_run_or_failed(tmp_path):
    db, run_a = store_run(
        tmp_path / "r.db", {KEY: 100.0, ("beta", "default", "hash", "sha256", 64): 50.0}
    )
    other = ("alpha", "default", "hash", "sha256", 64)
    _, run_b = store_run(
        tmp_path / "r.db",
        {KEY: 100.0, other: 40.0},
        failed={("beta", "default", "hash", "sha256", 64): "crash"},
    )
    comparisons = compare.compare_runs(analysis.load(db, run_a), analysis.load(db, run_b))
    assert compare.tally(comparisons) == {"same": 1, "failed": 1, "only-b": 1}


def test_spread_summarises_how_far_two_runs_are_apart(tmp_path):
    a, b = two_runs(tmp_path, 1000, 900)
    spread = compare.spread(compare.compare_runs(a, b))
    assert spread.cases == 1
    assert spread.median == pytest.approx(0.1, abs=0.02)
    assert compare.spread([]) is None


def test_run_to_run_drift_below_the_noise_is_not_called_a_change(tmp_path):
    """An A/A comparison on a drifting machine: every case moved by up to ±8% between the runs
    (as two identical runs on this VM do), with tight samples. Within-run tests see each shift
    as significant; nothing should be called faster or slower."""
    rng = np.random.default_rng(3)
    keys = [("p", "default", "hash", f"alg{i}", 1024) for i in range(120)]
    base = dict.fromkeys(keys, 1000.0)
    drifted = {k: 1000.0 * (1 + rng.uniform(-0.08, 0.08)) for k in keys}
    db, a = store_run(tmp_path / "r.db", base, n=21, seed=1, spread=0.002)
    _, b = store_run(tmp_path / "r.db", drifted, n=21, seed=2, spread=0.002)
    comparisons = compare.compare_runs(analysis.load(db, a), analysis.load(db, b))
    assert compare.tally(comparisons) == {"same": 120}


def test_the_ratio_interval_must_clear_the_threshold(tmp_path):
    c = verdict_of(tmp_path, 1000, 850, n=21, spread=0.01)
    assert c.ci_low < c.ratio < c.ci_high < 0.9
    assert c.verdict == "faster"
    # A 15% change whose interval reaches into the noise band is not called.
    wide = verdict_of(tmp_path, 1000, 880, n=7, spread=0.15)
    assert wide.ci_high > 0.9 and wide.verdict == "same"


def test_warnings_when_the_runs_differ_in_machine_or_library(tmp_path):
    a, b = two_runs(tmp_path, 1000, 1000)
    assert compare.warnings(a, b) == []
    b.machine = {**b.machine, "hostname": "other"}
    b.libraries = [{**b.libraries[0], "version": "alpha 2.0"}]
    text = " ".join(compare.warnings(a, b))
    assert "different machines (hostname" in text and "alpha 1.0 vs alpha 2.0" in text


def test_compare_uses_the_stored_calibration(tmp_path, capsys):
    from cryptobench import cli

    db, a = store_run(tmp_path / "r.db", {KEY: 1000}, n=21, seed=1, spread=0.005)
    _, b = store_run(tmp_path / "r.db", {KEY: 930}, n=21, seed=2, spread=0.005)
    args = ["compare", str(a), str(b), "--db", str(tmp_path / "r.db")]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "no calibration stored" in out and "1 same" in out  # 7% < the default 10%
    db.add_calibration(db.machine(a), a, b, 0.03, {})
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "calibration of" in out and "1 faster" in out  # 7% > this machine's 3%


def test_a_figure_skipped_in_either_run_is_called_skipped_not_failed():
    from cryptobench.compare_figures import compare_figures
    from cryptobench.figures import Figure, failed, skipped

    key = {"system": "gocryptfs", "workload": "bonnie seeks"}
    ok = Figure(key, "rate", "1/s", [100.0, 110.0, 105.0])
    why = "bonnie++ printed +++++"
    verdicts = [
        compare_figures([a], [b], 0.1, 0.05)[0].verdict
        for a, b in (
            (ok, skipped(key, "rate", "1/s", why)),
            (skipped(key, "rate", "1/s", why), ok),
            (ok, failed(key, "rate", "1/s", "exit 1")),
            (ok, ok),
        )
    ]
    assert verdicts == ["skipped", "skipped", "failed", "same"]


def test_changes_from_raw_samples_give_compare_runs_verdicts(tmp_path):
    """serve's regressions use compare.changes on raw samples: every verdict, ratio and q must
    be compare_runs's for the same two runs (slower, faster and unchanged cases)."""
    timings = {("p", "default", "encrypt", alg, size): 1000.0 + size
               for alg in ("a1", "a2", "a3") for size in (16, 256, 4096, 65536)}  # fmt: skip
    moved = dict(timings)
    moved[("p", "default", "encrypt", "a1", 4096)] *= 1.4
    moved[("p", "default", "encrypt", "a2", 16)] *= 0.6
    moved[("p", "default", "encrypt", "a3", 256)] *= 1.05  # within the noise
    db, a = store_run(tmp_path / "r.db", timings, seed=1)
    db.close()
    db, b = store_run(tmp_path / "r.db", moved, seed=2)
    run_a, run_b = analysis.load(db, a), analysis.load(db, b)
    expected = {c.key: c for c in compare.compare_runs(run_a, run_b)}
    found = compare.changes(
        {c.key(): c.ns for c in run_a.cases}, {c.key(): c.ns for c in run_b.cases}
    )
    assert len(found) == len(expected) == 12
    for c in found:
        e = expected[c.key]
        assert (c.verdict, c.ratio, c.q) == (e.verdict, pytest.approx(e.ratio), pytest.approx(e.q))
        if c.verdict != "same":
            assert (c.ci_low, c.ci_high) == (e.ci_low, e.ci_high)
    assert sorted(c.verdict for c in found) == ["faster", *["same"] * 10, "slower"]


def test_versions_of_one_library_against_the_system_one_in_the_same_run(tmp_path):
    """compare --versions: each version's case against the system library's same case."""
    cases = {
        ("openssl", "default", "hash", "sha256", 16): 1000.0,
        ("openssl@1.1.1", "default", "hash", "sha256", 16): 500.0,  # twice as fast
        ("openssl@3.5", "default", "hash", "sha256", 16): 1000.0,
        ("aws-lc", "default", "hash", "sha256", 16): 2000.0,  # of the family, half as fast
        ("gcrypt", "default", "hash", "sha256", 16): 100.0,  # another library: left out
        ("openssl@3.5", "default", "hash", "sha256", 64): 100.0,  # no system case to match
    }
    db, run_id = store_run(tmp_path / "r.db", cases, n=21, seed=3, spread=0.02)
    run = analysis.load(db, run_id)
    assert compare.family(run, "openssl") == ["openssl@1.1.1", "openssl@3.5", "aws-lc"]
    by = {(c.b.provider, c.b.size): c for c in compare.compare_versions(run, "openssl")}
    assert by[("openssl@1.1.1", 16)].verdict == "faster"
    assert by[("openssl@1.1.1", 16)].ratio == pytest.approx(0.5, rel=0.05)
    assert by[("openssl@3.5", 16)].verdict == "same"
    assert by[("aws-lc", 16)].verdict == "slower"
    assert by[("openssl@3.5", 64)].verdict == "only-b"
    assert not any(p == "gcrypt" for p, _ in by)
