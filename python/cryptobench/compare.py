"""Comparing two runs case by case without crying wolf.

A case of run B is `faster` or `slower` than the same case of run A only when both hold:
  * the bootstrap 95% confidence interval of the ratio of medians B / A (both runs' samples
    resampled) lies entirely beyond the noise threshold — below 1 − t or above 1 + t — where t
    is the machine's own run-to-run noise (noise.py: a stored A/A calibration, else 10%), and
  * the Mann–Whitney U test of the two sets of samples is significant after the
    Benjamini–Hochberg correction over every case compared (false-discovery rate alpha).
Otherwise it is `same`. Within-run samples only see within-run noise; the threshold carries the
run-to-run part, and the correction keeps hundreds of cases from producing chance verdicts.
`warnings()` says when the two runs cannot be compared cleanly (another machine, another
library version or code path).
"""

from dataclasses import dataclass

import numpy as np

from cryptobench import stats
from cryptobench.analysis import CaseResult, RunResults
from cryptobench.noise import DEFAULT_NOISE

DEFAULT_THRESHOLD = DEFAULT_NOISE
DEFAULT_ALPHA = 0.05
RATIO_RESAMPLES = 2000


@dataclass
class CaseComparison:
    key: tuple
    a: CaseResult | None
    b: CaseResult | None
    ratio: float | None  # median time B / median time A: < 1 means B is faster
    p: float | None  # Mann–Whitney U, before correction
    verdict: str  # faster, slower, same, failed, only-a, only-b
    ci_low: float | None = None  # bootstrap 95% CI of the ratio
    ci_high: float | None = None
    q: float | None = None  # Benjamini–Hochberg adjusted p

    @property
    def unstable(self) -> bool:
        """Either median is unstable (methodology §3): read the verdict with care."""
        return bool((self.a and self.a.unstable) or (self.b and self.b.unstable))

    @property
    def label(self) -> str:
        c = self.a or self.b
        assert c
        return f"{c.label} {c.algorithm_label} {c.operation} {c.size}"


def ratio_ci(
    a: np.ndarray, b: np.ndarray, resamples: int = RATIO_RESAMPLES, seed: int = 1
) -> tuple[float, float]:
    """Percentile bootstrap 95% interval of median(b) / median(a), resampling both."""
    rng = np.random.default_rng(seed)
    ma = np.median(a[rng.integers(0, a.size, size=(resamples, a.size))], axis=1)
    mb = np.median(b[rng.integers(0, b.size, size=(resamples, b.size))], axis=1)
    low, high = np.quantile(mb / ma, [0.025, 0.975])
    return float(low), float(high)


def verdict(ci_low: float, ci_high: float, q: float, threshold: float, alpha: float) -> str:
    if q < alpha and ci_high < 1 - threshold:
        return "faster"
    if q < alpha and ci_low > 1 + threshold:
        return "slower"
    return "same"


def _measured(a: CaseResult, b: CaseResult) -> bool:
    return a.status == "ok" and b.status == "ok" and bool(a.summary) and bool(b.summary)


def compare_runs(
    run_a: RunResults,
    run_b: RunResults,
    threshold: float = DEFAULT_THRESHOLD,
    alpha: float = DEFAULT_ALPHA,
) -> list[CaseComparison]:
    by_key_b = {c.key(): c for c in run_b.cases}
    seen = set()
    out: list[CaseComparison] = []
    tested: list[CaseComparison] = []
    for a in run_a.cases:
        b = by_key_b.get(a.key())
        seen.add(a.key())
        if b is None:
            out.append(CaseComparison(a.key(), a, None, None, None, "only-a"))
        elif not _measured(a, b):
            out.append(CaseComparison(a.key(), a, b, None, None, "failed"))
        else:
            xa, xb = np.asarray(a.ns, dtype=float), np.asarray(b.ns, dtype=float)
            low, high = ratio_ci(xa, xb)
            c = CaseComparison(
                a.key(), a, b, b.summary.median / a.summary.median,
                stats.mann_whitney_u(xa, xb).p, "same", low, high,
            )  # fmt: skip
            out.append(c)
            tested.append(c)
    if tested:
        from scipy.stats import false_discovery_control  # imported here: scipy.stats is most of
        # the command line's start-up time, and most commands never compare

        qs = false_discovery_control([max(min(c.p, 1.0), 0.0) for c in tested], method="bh")
        for c, q in zip(tested, qs, strict=True):
            c.q = float(q)
            c.verdict = verdict(c.ci_low, c.ci_high, c.q, threshold, alpha)
    out += [
        CaseComparison(b.key(), None, b, None, None, "only-b")
        for b in run_b.cases
        if b.key() not in seen
    ]
    return out


def tally(comparisons: list[CaseComparison]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in comparisons:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return counts


@dataclass
class Spread:
    cases: int
    median: float  # of |ratio - 1|
    p90: float


def spread(comparisons: list[CaseComparison]) -> Spread | None:
    """How far apart the two runs are overall. Run the same suite twice and this is the machine's
    run-to-run noise (what `cryptobench calibrate` stores)."""
    ratios = np.array([c.ratio for c in comparisons if c.ratio is not None])
    if ratios.size == 0:
        return None
    deviation = np.abs(ratios - 1)
    return Spread(
        int(ratios.size), float(np.median(deviation)), float(np.percentile(deviation, 90))
    )


def warnings(run_a: RunResults, run_b: RunResults) -> list[str]:
    """What makes a difference between the runs something else than a change of speed."""
    out = []
    for key in ("hostname", "cpu_model", "kernel"):
        va, vb = run_a.machine.get(key), run_b.machine.get(key)
        if va != vb:
            out.append(f"the runs were measured on different machines ({key}: {va!r} vs {vb!r})")
    libs_a = {(x["provider"], x["variant"]): x for x in run_a.libraries}
    for lib in run_b.libraries:
        other = libs_a.get((lib["provider"], lib["variant"]))
        if other is None:
            continue
        name = lib["provider"] + ("" if lib["variant"] == "default" else f"/{lib['variant']}")
        if other.get("version") != lib.get("version"):
            out.append(f"{name}: library version {other.get('version')} vs {lib.get('version')}")
        elif other.get("code_path") != lib.get("code_path"):
            out.append(f"{name}: the library reports another code path")
    return out


@dataclass
class Change:
    """One case of run B against run A by compare_runs's rule, from raw per-operation times."""

    key: tuple
    median_a: float
    median_b: float
    ratio: float
    q: float
    verdict: str  # faster, slower, same
    ci_low: float | None = None  # computed only where the corrected test is significant
    ci_high: float | None = None


def changes(
    a: dict[tuple, np.ndarray],
    b: dict[tuple, np.ndarray],
    threshold: float = DEFAULT_THRESHOLD,
    alpha: float = DEFAULT_ALPHA,
) -> list[Change]:
    """compare_runs's verdicts for the cases both runs measured, without loading whole runs.

    The same rule: Mann–Whitney U (the formula of stats.mann_whitney_u, here scipy's
    vectorised asymptotic test with tie and continuity correction), Benjamini–Hochberg over
    every case compared, then the bootstrap interval of the ratio against the threshold. A
    verdict other than `same` needs q < alpha, so the interval is only drawn for those cases:
    the verdicts are compare_runs's, and a run of 3,000 cases costs a few hundred intervals
    instead of 3,000."""
    from scipy.stats import false_discovery_control, mannwhitneyu  # see compare_runs

    keys = [k for k in a if k in b and a[k].size and b[k].size]
    if not keys:
        return []
    p, medians = np.empty(len(keys)), np.empty((len(keys), 2))
    by_shape: dict[tuple[int, int], list[int]] = {}
    for i, k in enumerate(keys):
        by_shape.setdefault((a[k].size, b[k].size), []).append(i)
    for rows in by_shape.values():
        xa = np.stack([a[keys[i]] for i in rows])
        xb = np.stack([b[keys[i]] for i in rows])
        with np.errstate(invalid="ignore", divide="ignore"):
            found = mannwhitneyu(xa, xb, axis=1, method="asymptotic", use_continuity=True).pvalue
        p[rows] = np.nan_to_num(found, nan=1.0)
        medians[rows] = np.stack([np.median(xa, axis=1), np.median(xb, axis=1)], axis=1)
    q = false_discovery_control(np.clip(p, 0.0, 1.0), method="bh")
    out = []
    for i, k in enumerate(keys):
        ma, mb = float(medians[i, 0]), float(medians[i, 1])
        c = Change(k, ma, mb, mb / ma, float(q[i]), "same")
        if c.q < alpha:
            c.ci_low, c.ci_high = ratio_ci(a[k], b[k])
            c.verdict = verdict(c.ci_low, c.ci_high, c.q, threshold, alpha)
        out.append(c)
    return out
