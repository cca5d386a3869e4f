"""Statistics of a timing-leak test (`cryptobench leaks`, docs/leaks.md). Every rule and constant
here is written out in docs/leaks.md and was fixed before any data was seen.

The data: one operation timed on two input classes in rounds, each round one measurement of every
class in a random order, so round r gives one *paired* difference d_r = other_r − base_r (ns per
operation). Pairing in time removes what drifts between rounds (frequency, a neighbour's load):
it hits both classes of a round alike.

Per comparison:
* the **sign test** of median(d) = 0 (exact binomial test of positive against negative
  differences, zeros dropped): it asks exactly what the interval below estimates, and assumes
  nothing about the shape of d; the Wilcoxon signed-rank p (symmetry about 0) is reported beside it;
* the **percentile bootstrap interval of median(d)** (its exact bootstrap distribution) at
  confidence 1 − ALPHA/m, m the number of
  comparisons in the run (the Bonferroni level, which is Holm's first and strictest step), so an
  interval that excludes 0 is as strong a statement as a Holm-significant p;
* the p values of all m comparisons **Holm-adjusted** together (family-wise error ALPHA).

Verdicts, three:
* ``leak``: Holm-adjusted p < ALPHA, the interval excludes 0, and its end nearest 0 is at least
  one step of the clock (clock_step; at least CLOCK_RESOLUTION_NS): "a difference of at least
  X ns", X that end;
* ``no-leak``: the interval contains 0 and Y = max(|low|, |high|, the clock's step) ≤
  max(Y_FLOOR_NS, Y_RELATIVE × the base class's median time): "no difference larger than Y ns";
* ``inconclusive``: anything else (significant but below the clock's resolution, or an
  interval too wide to rule out a difference of the size we promise to resolve).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as sps

ALPHA = 0.05
# CLOCK_MONOTONIC counts whole nanoseconds: a median difference below one is not a time we read.
CLOCK_RESOLUTION_NS = 1.0
# The smallest bound we promise to rule out: one step of this VM's clock (10 ns, clock_step) and
# about 30 core cycles, the cost of a few table lookups or a short early-exit loop (docs/leaks.md,
# "How many samples resolve how many nanoseconds here").
Y_FLOOR_NS = 10.0
# For long operations (RSA decryption, ~1 ms) the noise of one measurement grows with its length;
# we rule out no less than 0.1% of the operation's time.
Y_RELATIVE = 0.001
# The A/A control's measured false-positive rate: its pairs cut into this many blocks in time
# order, each sign-tested at ALPHA uncorrected; with independent measurements about ALPHA of them
# reject.
CONTROL_BLOCKS = 20

VERDICTS = ("leak", "no-leak", "inconclusive")


@dataclass(frozen=True)
class Comparison:
    """One paired comparison of two classes, before and after the run-wide correction."""

    base: str
    other: str
    n: int
    base_median_ns: float
    median_diff_ns: float
    p_sign: float
    p_wilcoxon: float
    control: bool = False  # the A/A control: two identical classes
    step_ns: float = 1.0  # the clock's step seen in the differences (clock_step)
    ci_low: float = math.nan
    ci_high: float = math.nan
    p_holm: float = math.nan
    verdict: str = "inconclusive"
    detail: str = ""


def differences(base: Sequence[float], other: Sequence[float]) -> np.ndarray:
    """The paired differences other − base, round by round."""
    a, b = np.asarray(base, dtype=float), np.asarray(other, dtype=float)
    if a.shape != b.shape:
        raise ValueError("paired classes need the same number of rounds")
    return b - a


def sign_test(d: np.ndarray) -> float:
    """Two-sided exact sign test of median(d) = 0; ties (d = 0) are dropped."""
    pos, neg = int(np.sum(d > 0)), int(np.sum(d < 0))
    if pos + neg == 0:
        return 1.0
    return float(sps.binomtest(pos, pos + neg, 0.5).pvalue)


def wilcoxon(d: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p (zeros dropped, normal approximation for large n)."""
    if not np.any(d != 0):
        return 1.0
    return float(sps.wilcoxon(d, zero_method="wilcox", method="auto").pvalue)


def bootstrap_median_ci(d: np.ndarray, confidence: float) -> tuple[float, float]:
    """Percentile bootstrap interval of median(d), from the bootstrap distribution itself
    rather than from resamples (so no resampling noise and no seed).

    A resample with replacement of n values has its k-th smallest at most x exactly when at
    least k of its n draws are ≤ x, and each draw is with probability F(x), the share of the
    data ≤ x: P(k-th* ≤ x) = P(Binomial(n, F(x)) ≥ k) (Efron 1979; Maritz and Jarrett 1978).
    The median is the k-th smallest with k = (n + 1)/2 for odd n; for even n the mean of the
    n/2-th and (n/2 + 1)-th, whose interval ends are taken as the means of those two order
    statistics' quantiles. The interval's ends are the (1 − confidence)/2 and (1 + confidence)/2
    quantiles of that distribution, as stats.bootstrap_median_ci estimates them by resampling.
    """
    x = np.asarray(d, dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    n = int(x.size)
    values, counts = np.unique(x, return_counts=True)
    share = np.cumsum(counts) / n
    alpha = (1 - confidence) / 2

    def quantiles(k: int) -> tuple[float, float]:
        cdf = sps.binom.sf(k - 1, n, share)  # P(k-th smallest of a resample ≤ values[j])
        low = values[min(int(np.searchsorted(cdf, alpha, side="left")), values.size - 1)]
        high = values[min(int(np.searchsorted(cdf, 1 - alpha, side="left")), values.size - 1)]
        return float(low), float(high)

    lo1, hi1 = quantiles((n + 1) // 2)
    lo2, hi2 = quantiles(n // 2 + 1)
    return (lo1 + lo2) / 2, (hi1 + hi2) / 2


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest p times (m − i), kept monotone, capped
    at 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def clock_step(d: np.ndarray, most: int = 100) -> float:
    """The step the clock moves in, as the differences show it: the largest s from 4 to `most`
    ns such that at least 90% of the |differences| lie within 1 ns of a multiple of s, else 1.
    (This VM's CLOCK_MONOTONIC moves in steps of about 10 ns with ±1 ns of jitter: a median
    difference of 0 then means "under one step", not "under one ns".) A clock of 1 ns puts only
    3/s of the differences near multiples of s, so no s ≥ 4 passes."""
    a = np.abs(np.round(np.asarray(d, dtype=float))).astype(np.int64)
    a = a[a > 0]
    if a.size < 50:
        return 1.0
    for s in range(most, 3, -1):
        r = a % s
        if np.mean((r <= 1) | (r >= s - 1)) >= 0.9:
            return float(s)
    return 1.0


def compare(
    base: Sequence[float],
    other: Sequence[float],
    base_name: str,
    other_name: str,
    control: bool = False,
) -> Comparison:
    """The uncorrected half of a comparison (the interval and verdict come from `judge`)."""
    d = differences(base, other)
    both = np.concatenate([np.asarray(base, dtype=float), np.asarray(other, dtype=float)])
    return Comparison(
        base=base_name,
        other=other_name,
        n=int(d.size),
        base_median_ns=float(np.median(base)),
        median_diff_ns=float(np.median(d)),
        p_sign=sign_test(d),
        p_wilcoxon=wilcoxon(d),
        control=control,
        step_ns=clock_step(d if not np.all(d == 0) else both),
    )


def y_bound(base_median_ns: float) -> float:
    """The largest interval bound a no-leak verdict may have for this operation."""
    return max(Y_FLOOR_NS, Y_RELATIVE * base_median_ns)


def verdict(c: Comparison) -> tuple[str, str]:
    """The verdict of a corrected comparison and its sentence."""
    low, high = c.ci_low, c.ci_high
    if c.p_holm < ALPHA and (low > 0 or high < 0):
        x = min(abs(low), abs(high))
        if x >= max(CLOCK_RESOLUTION_NS, c.step_ns):
            slower = c.other if c.median_diff_ns > 0 else c.base
            return "leak", f"{slower} slower by at least {x:.1f} ns"
        return "inconclusive", f"significant, but under the clock's step ({c.step_ns:g} ns)"
    if low <= 0 <= high:
        y = max(abs(low), abs(high), c.step_ns)
        bound = y_bound(c.base_median_ns)
        if y <= bound:
            return "no-leak", f"no difference larger than {y:.1f} ns"
        return "inconclusive", f"interval ±{y:.1f} ns, wider than the {bound:.1f} ns promised"
    return "inconclusive", "the interval excludes 0 but the corrected test does not reject"


def judge(raw: list[Comparison], data: list[np.ndarray]) -> list[Comparison]:
    """Holm-adjusts every comparison of a run together, gives each its interval at the
    Bonferroni level and its verdict. `data[i]` is comparison i's paired differences."""
    m = len(raw)
    if m == 0:
        return []
    adjusted = holm([c.p_sign for c in raw])
    confidence = 1 - ALPHA / m
    out = []
    for c, d, p in zip(raw, data, adjusted, strict=True):
        low, high = bootstrap_median_ci(d, confidence)
        c = replace(c, ci_low=low, ci_high=high, p_holm=p)
        v, why = verdict(c)
        out.append(replace(c, verdict=v, detail=why))
    return out


def control_rejection_rate(d: np.ndarray, blocks: int = CONTROL_BLOCKS) -> float:
    """The A/A control's measured false-positive rate: the share of time-ordered blocks of its
    pairs whose own sign test rejects at ALPHA (expected ≈ ALPHA when rounds are independent)."""
    parts = [p for p in np.array_split(d, blocks) if p.size > 0]
    if not parts:
        return math.nan
    return sum(sign_test(p) < ALPHA for p in parts) / len(parts)


def resolution(d: np.ndarray, step_ns: float = 1.0, steps: int = 4) -> list[tuple[int, float]]:
    """How many pairs resolve how many ns: for the first n/4^k pairs of an A/A control (k = steps
    − 1 … 0), the largest |end| of the 95% interval of the median difference, and never less
    than the clock's step: the smallest difference n pairs rule out, here, for this operation."""
    out = []
    for k in range(steps - 1, -1, -1):
        n = d.size // (4**k)
        if n >= 10:
            low, high = bootstrap_median_ci(d[:n], 1 - ALPHA)
            out.append((n, max(abs(low), abs(high), step_ns)))
    return out


def gate_on_control(comparisons: list[Comparison]) -> list[Comparison]:
    """A leak is only called where the same operation's A/A control is clean (not itself a
    leak); elsewhere the verdict becomes inconclusive, saying why."""
    dirty = any(c.control and c.verdict == "leak" for c in comparisons)
    if not dirty:
        return comparisons
    return [
        replace(c, verdict="inconclusive", detail=f"A/A control not clean; {c.detail}")
        if not c.control and c.verdict == "leak"
        else c
        for c in comparisons
    ]
