"""Statistics. Every formula here is written out in docs/methodology.md; keep the two in step.

Inputs are per-operation figures: a sample of `iterations` back-to-back operations that took `ns`
nanoseconds gives ns / iterations per operation.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cryptobench.noise import DEFAULT_NOISE

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20240601  # fixed: the same samples always give the same interval
CONFIDENCE = 0.95
# A case is unstable when its 95% CI of the median is wider than this fraction of the median:
# the same number as compare's default noise threshold (noise.py), so a case shown as stable is
# never uncertain by as much as compare would call a change.
UNSTABLE_CI_WIDTH = DEFAULT_NOISE


def per_op(samples: Sequence[tuple[int, int, int]], field: int = 1) -> np.ndarray:
    """Per-operation values of (iterations, ns, ticks) samples: field 1 = ns, 2 = ticks."""
    return np.array([s[field] / s[0] for s in samples if s[0] > 0], dtype=float)


def median(values: Sequence[float]) -> float:
    """The middle value; the mean of the two middle values for an even count."""
    return float(np.median(np.asarray(values, dtype=float)))


def quartiles(values: Sequence[float]) -> tuple[float, float]:
    """First and third quartile by linear interpolation between order statistics (Hyndman and
    Fan type 7, numpy's and R's default)."""
    q1, q3 = np.percentile(np.asarray(values, dtype=float), [25, 75])
    return float(q1), float(q3)


def mad(values: Sequence[float]) -> float:
    """Median absolute deviation from the median, unscaled (no 1.4826 normal-consistency factor)."""
    x = np.asarray(values, dtype=float)
    return float(np.median(np.abs(x - np.median(x))))


def bootstrap_median_ci(
    values: Sequence[float],
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the median.

    Draws `resamples` samples of the same size with replacement, takes each one's median, and
    returns the (1 - confidence)/2 and (1 + confidence)/2 quantiles of those medians.
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    if x.size == 1:
        return float(x[0]), float(x[0])
    rng = np.random.default_rng(seed)
    medians = np.median(x[rng.integers(0, x.size, size=(resamples, x.size))], axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(medians, [alpha, 1 - alpha])
    return float(low), float(high)


def bootstrap_median_cis(
    rows: np.ndarray, confidence: float = CONFIDENCE, resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[np.ndarray, np.ndarray]:
    """bootstrap_median_ci of each row of a (cases, samples) array at once, each row's
    interval exactly the one bootstrap_median_ci gives it.

    The fixed seed draws the same resample indices for every row of one size, so each
    resample is a count of how often it drew each position, found once for all rows. A
    resample's median is then the row's sorted value where the running count, taken in the
    row's sorted order, passes the middle: a cumulative sum instead of a partition per
    resample (a case's history of 200 runs: tens of milliseconds instead of half a second).
    """
    x = np.asarray(rows, dtype=float)
    n = x.shape[1]
    if n < 2:
        return x[:, 0].copy(), x[:, 0].copy()
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    index = rng.integers(0, n, size=(resamples, n))
    counts = np.zeros((resamples, n), dtype=np.int32)
    np.add.at(counts, (np.arange(resamples)[:, None], index), 1)
    middle = [n // 2] if n % 2 else [n // 2 - 1, n // 2]  # 0-based, in the sorted resample
    low, high = np.empty(len(x)), np.empty(len(x))
    step = max(1, 4_000_000 // (resamples * n))
    for start in range(0, len(x), step):
        chunk = x[start : start + step]
        order = np.argsort(chunk, axis=1, kind="stable")
        ordered = np.take_along_axis(chunk, order, axis=1)
        running = np.cumsum(counts[:, order], axis=2)  # (resamples, rows, n)
        rows_at = np.arange(len(chunk))[None, :]
        values = [ordered[rows_at, np.argmax(running > k, axis=2)] for k in middle]
        medians = values[0] if len(values) == 1 else (values[0] + values[1]) / 2
        alpha = (1 - confidence) / 2
        low[start : start + step], high[start : start + step] = np.quantile(
            medians, [alpha, 1 - alpha], axis=0
        )
    return low, high


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    q1: float
    q3: float
    min: float
    max: float
    mad: float
    ci_low: float
    ci_high: float

    @property
    def ci_width(self) -> float:
        """Width of the confidence interval relative to the median."""
        if not self.median:
            return math.inf
        return (self.ci_high - self.ci_low) / self.median

    @property
    def unstable(self) -> bool:
        return self.n < 3 or self.ci_width > UNSTABLE_CI_WIDTH


def summarize(values: Sequence[float]) -> Summary | None:
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return None
    q1, q3 = quartiles(x)
    low, high = bootstrap_median_ci(x)
    return Summary(
        n=int(x.size),
        median=median(x),
        q1=q1,
        q3=q3,
        min=float(x.min()),
        max=float(x.max()),
        mad=mad(x),
        ci_low=low,
        ci_high=high,
    )


# ---- per-call overhead and per-byte cost ---------------------------------------------------------


@dataclass(frozen=True)
class LineFit:
    """y = intercept + slope · x, with standard errors (nan when there are too few points) and,
    for the overhead fit, bootstrap 95% intervals."""

    intercept: float
    slope: float
    intercept_se: float
    slope_se: float
    r2: float
    n: int
    intercept_ci: tuple[float, float] = (math.nan, math.nan)
    slope_ci: tuple[float, float] = (math.nan, math.nan)


def fit_line(
    x: Sequence[float], y: Sequence[float], weights: Sequence[float] | None = None
) -> LineFit:
    """(Weighted) least squares for y = a + b·x: minimises Σ wᵢ (yᵢ − a − b·xᵢ)².

    With all weights 1 this is ordinary least squares.
    """
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    w = np.ones_like(xs) if weights is None else np.asarray(weights, dtype=float)
    if xs.size < 2 or np.unique(xs).size < 2:
        raise ValueError("a line needs at least two distinct x values")
    sw = w.sum()
    x_bar, y_bar = (w * xs).sum() / sw, (w * ys).sum() / sw
    sxx = (w * (xs - x_bar) ** 2).sum()
    slope = (w * (xs - x_bar) * (ys - y_bar)).sum() / sxx
    intercept = y_bar - slope * x_bar
    residuals = ys - intercept - slope * xs
    ss_res = (w * residuals**2).sum()
    ss_tot = (w * (ys - y_bar) ** 2).sum()
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else 1.0
    if xs.size > 2:
        sigma2 = ss_res / (xs.size - 2)
        slope_se = math.sqrt(sigma2 / sxx)
        intercept_se = math.sqrt(sigma2 * (1 / sw + x_bar**2 / sxx))
    else:
        slope_se = intercept_se = math.nan
    return LineFit(float(intercept), float(slope), intercept_se, slope_se, float(r2), int(xs.size))


def theil_sen(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Theil–Sen line (intercept, slope): the slope is the median of the slopes between every
    pair of points with distinct x, the intercept the median of yᵢ − slope·xᵢ. One wild point
    moves neither, unlike least squares."""
    a, b = _theil_sen_rows(np.asarray(x, dtype=float), np.asarray(y, dtype=float)[None, :])
    return float(a[0]), float(b[0])


def _theil_sen_rows(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Theil–Sen for every row of `ys` (shape R × len(xs)) at once."""
    i, j = np.triu_indices(xs.size, k=1)
    dx = xs[j] - xs[i]
    keep = dx != 0
    if not keep.any():
        raise ValueError("a line needs at least two distinct x values")
    slopes = np.median((ys[:, j[keep]] - ys[:, i[keep]]) / dx[keep], axis=1)
    intercepts = np.median(ys - slopes[:, None] * xs, axis=1)
    return intercepts, slopes


OVERHEAD_BOOTSTRAP = 1000


def fit_overhead(
    sizes: Sequence[float],
    samples_ns: Sequence[Sequence[float]],
    resamples: int = OVERHEAD_BOOTSTRAP,
    seed: int = 0,
) -> LineFit:
    """t(n) = a + b·n over a size sweep: a = per-call overhead (ns), b = per-byte cost (ns/byte).

    `samples_ns[k]` are the per-operation times measured at `sizes[k]`. The line is the
    Theil–Sen line through the per-size medians. Its errors come from a bootstrap: each size's
    samples are resampled with replacement, the medians and the line recomputed, `resamples`
    times with a fixed seed; the standard errors are the bootstrap standard deviations and the
    intervals the 2.5th and 97.5th percentiles. R² is that of the line on the medians.
    Callers choose the sizes: analysis.overhead_fits takes cache-resident, block-multiple ones.
    """
    xs = np.asarray(sizes, dtype=float)
    groups = [np.asarray(s, dtype=float) for s in samples_ns]
    if len(groups) != xs.size or any(g.size == 0 for g in groups):
        raise ValueError("every size needs at least one sample")
    medians = np.array([np.median(g) for g in groups])
    intercept, slope = theil_sen(xs, medians)
    rng = np.random.default_rng(seed)
    boot_medians = np.column_stack(
        [np.median(g[rng.integers(0, g.size, (resamples, g.size))], axis=1) for g in groups]
    )
    boot_a, boot_b = _theil_sen_rows(xs, boot_medians)
    boot = np.column_stack([boot_a, boot_b])
    residuals = medians - intercept - slope * xs
    ss_tot = ((medians - medians.mean()) ** 2).sum()
    r2 = 1 - (residuals**2).sum() / ss_tot if ss_tot > 0 else 1.0
    a_lo, a_hi = np.percentile(boot[:, 0], [2.5, 97.5])
    b_lo, b_hi = np.percentile(boot[:, 1], [2.5, 97.5])
    return LineFit(
        intercept,
        slope,
        float(boot[:, 0].std(ddof=1)),
        float(boot[:, 1].std(ddof=1)),
        float(r2),
        int(xs.size),
        (float(a_lo), float(a_hi)),
        (float(b_lo), float(b_hi)),
    )


# ---- comparing two sets of samples ---------------------------------------------------------------


@dataclass(frozen=True)
class MannWhitney:
    u: float  # U of the first sample
    z: float
    p: float  # two-sided


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> MannWhitney:
    """Two-sided Mann–Whitney U test, normal approximation with tie and continuity correction.

    U₁ = R₁ − n₁(n₁+1)/2 where R₁ is the rank sum of `a` in the pooled sample (ties get their
    average rank). Under H₀, U₁ has mean n₁n₂/2 and variance
    n₁n₂/12 · ((N+1) − Σ(t³−t)/(N(N−1))), t running over the sizes of groups of ties.
    z = (|U₁ − n₁n₂/2| − ½)/σ, p = erfc(z/√2).
    """
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n1, n2 = xa.size, xb.size
    if n1 == 0 or n2 == 0:
        return MannWhitney(math.nan, math.nan, math.nan)
    pooled = np.concatenate([xa, xb])
    ranks = _average_ranks(pooled)
    u1 = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    n = n1 + n2
    _, tie_counts = np.unique(pooled, return_counts=True)
    tie_term = ((tie_counts**3 - tie_counts).sum()) / (n * (n - 1))
    variance = n1 * n2 / 12 * ((n + 1) - tie_term)
    if variance <= 0:
        return MannWhitney(float(u1), 0.0, 1.0)
    z = max(0.0, abs(u1 - n1 * n2 / 2) - 0.5) / math.sqrt(variance)
    return MannWhitney(float(u1), z, math.erfc(z / math.sqrt(2)))


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..N; tied values share the mean of the ranks they occupy."""
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(x.size, dtype=float)
    sorted_x = x[order]
    i = 0
    while i < x.size:
        j = i
        while j + 1 < x.size and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks
