"""Comparing the figures of two scenario runs: matched by key and metric, ratio of medians B / A,
judged with the figure's own direction (`better`): `better`, `worse` or `same`.

A change is called only when the medians differ by more than the threshold and, where both
runs have at least three repetitions, the Mann–Whitney U test on the repetitions gives
p < alpha; with fewer repetitions the verdict rests on the threshold alone and says so.
"""

from dataclasses import dataclass

from cryptobench import stats
from cryptobench.figures import Figure

MIN_REPETITIONS_FOR_TEST = 3


@dataclass
class FigureComparison:
    a: Figure | None
    b: Figure | None
    ratio: float | None  # median B / median A
    p: float | None
    verdict: str  # better, worse, same, failed, skipped, only-a, only-b

    @property
    def figure(self) -> Figure:
        f = self.a or self.b
        assert f is not None
        return f


def compare_figure(a: Figure, b: Figure, threshold: float, alpha: float) -> FigureComparison:
    if "failed" in (a.status, b.status):
        return FigureComparison(a, b, None, None, "failed")
    if "skipped" in (a.status, b.status):
        return FigureComparison(a, b, None, None, "skipped")
    if not a.median or b.median is None:
        return FigureComparison(a, b, None, None, "failed")
    ratio = b.median / a.median
    p = None
    if min(len(a.values), len(b.values)) >= MIN_REPETITIONS_FOR_TEST:
        p = stats.mann_whitney_u(list(a.values), list(b.values)).p
    changed = abs(ratio - 1) > threshold and (p is None or p < alpha)
    if not changed:
        return FigureComparison(a, b, ratio, p, "same")
    higher = ratio > 1
    return FigureComparison(
        a, b, ratio, p, "better" if higher == (a.better == "higher") else "worse"
    )


def compare_figures(
    run_a: list[Figure], run_b: list[Figure], threshold: float, alpha: float
) -> list[FigureComparison]:
    by_a = {f.identity: f for f in run_a}
    by_b = {f.identity: f for f in run_b}
    out = []
    for key in [*by_a, *(k for k in by_b if k not in by_a)]:
        a, b = by_a.get(key), by_b.get(key)
        if a is None:
            out.append(FigureComparison(None, b, None, None, "only-b"))
        elif b is None:
            out.append(FigureComparison(a, None, None, None, "only-a"))
        else:
            out.append(compare_figure(a, b, threshold, alpha))
    return out
