"""Comparing two runs case by case: ratio of medians, a significance test, a noise threshold.

A case of run B is `faster` or `slower` than the same case of run A only when both hold:
  * the Mann–Whitney U test on the two sets of per-operation samples gives p < alpha, and
  * the medians differ by more than the noise threshold (default 5%).
Otherwise it is `same`. Requiring both keeps tiny but consistent differences (significant, not
relevant) and large but noisy ones (relevant, not significant) out of the verdicts.
"""

from dataclasses import dataclass

import numpy as np

from cryptobench import stats
from cryptobench.analysis import CaseResult, RunResults

DEFAULT_THRESHOLD = 0.05
DEFAULT_ALPHA = 0.05


@dataclass
class CaseComparison:
    key: tuple
    a: CaseResult | None
    b: CaseResult | None
    ratio: float | None  # median time B / median time A: < 1 means B is faster
    p: float | None
    verdict: str  # faster, slower, same, failed, only-a, only-b

    @property
    def unstable(self) -> bool:
        """Either median is unstable (methodology §3): read the verdict with care."""
        return bool((self.a and self.a.unstable) or (self.b and self.b.unstable))

    @property
    def label(self) -> str:
        c = self.a or self.b
        assert c
        return f"{c.label} {c.algorithm_label} {c.operation} {c.size}"


def verdict(ratio: float, p: float, threshold: float, alpha: float) -> str:
    if p < alpha and abs(ratio - 1) > threshold:
        return "faster" if ratio < 1 else "slower"
    return "same"


def compare_cases(
    a: CaseResult, b: CaseResult, threshold: float = DEFAULT_THRESHOLD, alpha: float = DEFAULT_ALPHA
) -> CaseComparison:
    if not (a.status == "ok" and b.status == "ok" and a.summary and b.summary):
        return CaseComparison(a.key(), a, b, None, None, "failed")
    ratio = b.summary.median / a.summary.median
    test = stats.mann_whitney_u(a.ns, b.ns)
    return CaseComparison(a.key(), a, b, ratio, test.p, verdict(ratio, test.p, threshold, alpha))


def compare_runs(
    run_a: RunResults,
    run_b: RunResults,
    threshold: float = DEFAULT_THRESHOLD,
    alpha: float = DEFAULT_ALPHA,
) -> list[CaseComparison]:
    by_key_b = {c.key(): c for c in run_b.cases}
    seen = set()
    out = []
    for a in run_a.cases:
        b = by_key_b.get(a.key())
        seen.add(a.key())
        if b is None:
            out.append(CaseComparison(a.key(), a, None, None, None, "only-a"))
        else:
            out.append(compare_cases(a, b, threshold, alpha))
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
    run-to-run noise: a sensible --threshold for comparisons on it."""
    ratios = np.array([c.ratio for c in comparisons if c.ratio is not None])
    if ratios.size == 0:
        return None
    deviation = np.abs(ratios - 1)
    return Spread(
        int(ratios.size), float(np.median(deviation)), float(np.percentile(deviation, 90))
    )
