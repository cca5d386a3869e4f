"""Comparing runs: ratio of medians, significance and the noise threshold."""

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
