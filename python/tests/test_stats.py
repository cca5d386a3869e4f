"""Statistics on data whose answer is known."""

import math

import numpy as np
import pytest

from cryptobench import stats


def test_median_quartiles_and_mad_of_known_data():
    assert stats.median([5, 1, 3]) == 3
    assert stats.median([4, 1, 3, 2]) == 2.5
    # Type-7 quartiles of 1..9: positions 2 and 6 (0-based) -> 3 and 7.
    assert stats.quartiles(range(1, 10)) == (3.0, 7.0)
    # 1..5: quartile positions 1.0 and 3.0 -> 2 and 4; of 1..4: 1.75 and 3.25 interpolated.
    assert stats.quartiles([4, 2, 1, 3]) == (1.75, 3.25)
    # |x - 3| for 1..5 = 2,1,0,1,2 -> median 1.
    assert stats.mad([1, 2, 3, 4, 5]) == 1
    assert stats.mad([10, 10, 10, 1000]) == 0  # robust to one outlier


def test_per_op_divides_by_iterations():
    samples = [(100, 5000, 13000), (200, 9000, 26000)]
    assert stats.per_op(samples, 1).tolist() == [50.0, 45.0]
    assert stats.per_op(samples, 2).tolist() == [130.0, 130.0]


def test_bootstrap_ci_contains_the_true_median_and_is_reproducible():
    rng = np.random.default_rng(1)
    true_median = 1000.0
    # Symmetric noise: the population median is true_median.
    hits = 0
    for _ in range(50):
        x = true_median + rng.normal(0, 30, size=21)
        low, high = stats.bootstrap_median_ci(x)
        assert low <= stats.median(x) <= high
        hits += low <= true_median <= high
    # A 95% interval should miss only now and then (percentile bootstrap of a median with n=21
    # is a little conservative or liberal, never this far off).
    assert hits >= 42
    x = true_median + rng.normal(0, 30, size=11)
    assert stats.bootstrap_median_ci(x) == stats.bootstrap_median_ci(x)


def test_bootstrap_ci_narrows_with_more_samples():
    rng = np.random.default_rng(2)
    small = stats.bootstrap_median_ci(rng.normal(100, 5, size=11))
    large = stats.bootstrap_median_ci(rng.normal(100, 5, size=401))
    assert (large[1] - large[0]) < (small[1] - small[0])


def test_summary_and_unstable_flag():
    steady = stats.summarize([100, 101, 99, 100, 100, 102, 98, 100, 101])
    assert steady.median == 100
    assert steady.min == 98 and steady.max == 102
    assert not steady.unstable
    noisy = stats.summarize([100, 150, 70, 130, 90, 160, 60, 100, 140])
    assert noisy.unstable
    assert stats.summarize([100, 100]).unstable  # too few samples to say
    assert stats.summarize([]) is None


def test_least_squares_recovers_a_known_line():
    x = [16, 64, 256, 1024, 4096, 16384]
    fit = stats.fit_line(x, [50 + 0.25 * n for n in x])
    assert fit.intercept == pytest.approx(50)
    assert fit.slope == pytest.approx(0.25)
    assert fit.r2 == pytest.approx(1)


def test_overhead_fit_recovers_overhead_and_per_byte_cost_with_intervals_that_cover_them():
    rng = np.random.default_rng(3)
    a, b = 120.0, 0.35  # ns per call, ns per byte
    sizes = [64 * k for k in (1, 4, 16, 64, 256)]
    # 11 samples per size, 1% multiplicative noise (timing noise grows with the time measured).
    samples = [(a + b * n) * (1 + rng.normal(0, 0.01, 11)) for n in sizes]
    fit = stats.fit_overhead(sizes, samples)
    assert fit.intercept == pytest.approx(a, rel=0.05)
    assert fit.slope == pytest.approx(b, rel=0.02)
    assert fit.intercept_ci[0] <= a <= fit.intercept_ci[1]
    assert fit.slope_ci[0] <= b <= fit.slope_ci[1]
    assert fit.intercept_se > 0 and fit.slope_se > 0
    # A fixed seed: the same data give the same intervals.
    assert stats.fit_overhead(sizes, samples) == fit


def test_theil_sen_ignores_one_wild_size_that_least_squares_follows():
    sizes = [64, 256, 1024, 4096, 16384]
    t = [50 + 0.25 * n for n in sizes]
    t[2] *= 3  # one size hit by a preemption in every sample
    a, b = stats.theil_sen(sizes, t)
    assert a == pytest.approx(50) and b == pytest.approx(0.25)
    ls = stats.fit_line(sizes, t)
    assert abs(ls.intercept - 50) > 100  # the old least-squares fit is pulled far off


def test_fit_needs_two_distinct_sizes():
    with pytest.raises(ValueError):
        stats.fit_line([64, 64], [1, 2])


def test_mann_whitney_on_a_hand_computed_example():
    # Complete separation: U1 = 0; mean 12.5, variance 25*11/12; z = (12.5-0.5)/sqrt(22.9167).
    r = stats.mann_whitney_u([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    assert r.u == 0
    z = 12 / math.sqrt(25 * 11 / 12)
    assert r.z == pytest.approx(z)
    assert r.p == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert r.p == pytest.approx(0.01219, abs=1e-4)


def test_mann_whitney_ties():
    # Pooled [1,2,2,3] + [2,3,3,4] sorted: 1 2 2 2 3 3 3 4; the 2s share ranks 2-4 (mean 3), the
    # 3s ranks 5-7 (mean 6). Ranks of the first sample: 1, 3, 3, 6 -> R1 = 13, U1 = 13 - 10.
    r = stats.mann_whitney_u([1, 2, 2, 3], [2, 3, 3, 4])
    assert r.u == 3
    # Tie groups: 2 (x3), 3 (x3): sum t^3 - t = 24 + 24.
    variance = 16 / 12 * (9 - 48 / (8 * 7))
    assert r.z == pytest.approx((abs(r.u - 8) - 0.5) / math.sqrt(variance))
    same = stats.mann_whitney_u([5, 5, 5], [5, 5, 5])
    assert same.p == 1.0


def test_mann_whitney_is_symmetric_and_sees_no_difference_in_one_distribution():
    rng = np.random.default_rng(4)
    a, b = rng.normal(100, 3, 21), rng.normal(100, 3, 21)
    assert stats.mann_whitney_u(a, b).p == pytest.approx(stats.mann_whitney_u(b, a).p)
    assert stats.mann_whitney_u(a, b).p > 0.01
    assert stats.mann_whitney_u(a, b * 1.2).p < 1e-4


def test_bootstrap_intervals_of_many_rows_are_each_rows_own():
    """serve's history draws every point's interval in one call: each must be exactly the one
    bootstrap_median_ci gives that point alone."""
    for n in (11, 12, 2, 21):
        x = np.random.default_rng(n).lognormal(5, 0.1, size=(40, n))
        x[0] = np.round(x[0])  # ties
        low, high = stats.bootstrap_median_cis(x)
        assert [stats.bootstrap_median_ci(row) for row in x] == list(
            zip(low.tolist(), high.tolist(), strict=True)
        )
