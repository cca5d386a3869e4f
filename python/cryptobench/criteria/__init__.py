"""Claims and their criteria: what each paper found, where it says so, and the falsifiable test
our figures must pass for the finding to hold here.

A paper's claims are a fixed list (`SPECS` in `paper000.py` … `paper004.py`, and `openssl3.py`
for OpenSSL 3's published regressions), so the tally's
denominator never changes between runs: a claim whose data are missing, whose stand-in removes
the mechanism the paper credits, or whose difference is below this machine's calibrated noise
is *undecided*, with the reason. Our own claims (`ours_only`) are listed apart and not counted.

Every criterion is a pure function of a dict of plain figures, so it is tested with figures that
agree with the paper and figures that contradict it (tests/test_reproduce_criteria.py), without
a scenario run. Thresholds come from the paper's own figures; where a paper claims an order, the
criterion is an order, and a step smaller than the noise threshold decides nothing.

This module imports nothing from cryptobench, so scenarios, reproductions and reports can all
use it.
"""

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

HOLDS, FAILS, UNDECIDED = "holds", "does not hold", "undecided"


@dataclass(frozen=True)
class Claim:
    """One claim and whether it holds here."""

    claim: str  # what the paper found, in its terms
    paper: str  # the paper's figures, with the table or section they come from
    ours: str  # what we measured
    holds: bool | None  # None: undecided (the reason says why)
    criterion: str = ""  # the stated test, with its threshold and where the threshold comes from
    source: str = ""  # the claim's place in the paper (section, table or figure)
    reason: str = ""  # why undecided
    ours_only: bool = False  # our own claim, not the paper's: not counted in the tally

    @property
    def verdict(self) -> str:
        return {True: HOLDS, False: FAILS, None: UNDECIDED}[self.holds]


@dataclass(frozen=True)
class Verdict:
    holds: bool | None
    ours: str
    reason: str = ""


class Missing(LookupError):
    """A figure the criterion needs was not measured."""


@dataclass(frozen=True)
class Spec:
    """A claim and its criterion, fixed before any data are seen."""

    key: str  # "004.3"
    claim: str
    source: str
    paper: str
    criterion: str
    judge: Callable[[Mapping[str, Any]], Verdict]
    ours_only: bool = False


def need(data: Mapping[str, Any], key: str) -> Any:
    value = data.get(key)
    if value is None or (hasattr(value, "__len__") and len(value) == 0):
        raise Missing(key)
    return value


def noise(data: Mapping[str, Any]) -> float:
    """The larger of the machine's calibrated run-to-run noise (cryptobench.noise; 10% without
    a calibration) and, where the reproduction measured it, this run's own spread (`run_spread`:
    the median over cells of interquartile range ÷ median): a loaded machine's run is judged by
    the noise it actually had."""
    return max(float(data.get("noise") or 0.10), float(data.get("run_spread") or 0.0))


def step(a: float, b: float, tol: float) -> int:
    """+1 when a exceeds b by more than `tol` (relative), -1 when b exceeds a, 0 within."""
    if a > b * (1 + tol):
        return 1
    if b > a * (1 + tol):
        return -1
    return 0


def beats(steps: Iterable[int], ours: str, tol: float | None = None) -> Verdict:
    """Verdict of a list of `step` results that should all be +1."""
    steps = list(steps)
    if any(s < 0 for s in steps):
        return Verdict(False, ours)
    if all(s > 0 for s in steps):
        return Verdict(True, ours)
    within = "" if tol is None else f" ({tol:.0%})"
    return Verdict(None, ours, f"a difference is within this machine's noise{within}")


def ordered(values: Mapping[str, float], order: Iterable[str], tol: float, ours: str) -> Verdict:
    """`order` from smallest to largest: holds when every adjacent step rises beyond `tol`, does
    not hold when one falls beyond it, undecided when the remaining steps are within it."""
    names = list(order)
    steps = [step(values[b], values[a], tol) for a, b in itertools.pairwise(names)]
    if any(s < 0 for s in steps):
        return Verdict(False, ours)
    if all(s > 0 for s in steps):
        return Verdict(True, ours)
    return Verdict(None, ours, f"a step is within this machine's noise ({tol:.0%})")


def evaluate(specs: Iterable[Spec], data: Mapping[str, Any]) -> list[Claim]:
    """Every spec judged on `data`; a missing figure makes its claim undecided, never absent."""
    out = []
    for s in specs:
        try:
            v = s.judge(data)
        except Missing as e:
            v = Verdict(None, "not measured", f"missing data: {e.args[0]}")
        out.append(
            Claim(s.claim, s.paper, v.ours, v.holds, s.criterion, s.source, v.reason, s.ours_only)
        )
    return out


def complete(paper: str, claims: Iterable[Claim], why: str = "not measured") -> list[Claim]:
    """`claims` with every claim of the paper's fixed list it lacks added as undecided (a
    reproduction that stopped early still answers for each claim)."""
    out = list(claims)
    have = {c.claim for c in out}
    for s in specs_for(paper):
        if s.claim not in have:
            out.append(Claim(s.claim, s.paper, "-", None, s.criterion, s.source,
                             f"missing data: {why}", s.ours_only))  # fmt: skip
    return out


def tally(claims: Iterable[Claim]) -> dict[str, int]:
    """Holds / does not hold / undecided over the papers' claims only."""
    counts = {HOLDS: 0, FAILS: 0, UNDECIDED: 0}
    for c in claims:
        if not c.ours_only:
            counts[c.verdict] += 1
    return counts


def tally_text(counts: Mapping[str, int]) -> str:
    total = sum(counts.values())
    return (
        f"{counts[HOLDS]} hold, {counts[FAILS]} do not hold, {counts[UNDECIDED]} undecided "
        f"of the papers' {total} claims"
    )


def specs_for(paper: str) -> tuple[Spec, ...]:
    import importlib

    # the papers are numbered (paper000.py, ...); other published findings are named (openssl3.py)
    module = f"paper{paper}" if paper.isdigit() else paper
    return importlib.import_module(f"cryptobench.criteria.{module}").SPECS
