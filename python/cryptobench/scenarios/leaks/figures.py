"""A stored leaks run read back: its comparisons with their verdicts, the A/A control, and the
terminal summary `show` prints."""

import math
from dataclasses import dataclass
from typing import Any

from cryptobench.figures import Figure
from cryptobench.tables import text_table
from cryptobench.units import format_duration, format_seconds

HEADERS = [
    "provider",
    "algorithm",
    "classes",
    "pairs",
    "median Δ ns",
    "interval ns",
    "p (Holm)",
    "verdict",
]


@dataclass(frozen=True)
class Row:
    provider: str
    algorithm: str
    classes: str
    n: int
    median_diff: float
    low: float
    high: float
    p_holm: float
    verdict: str
    detail: str
    control: bool
    block_rate: float

    def cells(self) -> list[object]:
        verdict = f"{self.verdict}: {self.detail}" if self.detail else self.verdict
        return [
            self.provider,
            self.algorithm,
            self.classes + (" (A/A)" if self.control else ""),
            self.n,
            f"{self.median_diff:+.1f}",
            f"[{self.low:+.1f}, {self.high:+.1f}]",
            f"{self.p_holm:.2g}",
            verdict,
        ]


def rows(figures: list[Figure]) -> list[Row]:
    out = []
    for f in figures:
        if f.metric != "median difference" or f.status != "ok":
            continue
        e = f.extra
        out.append(
            Row(
                f.key["provider"],
                f.key["algorithm"],
                f.key["classes"],
                int(e["n"]),
                e["median_diff_ns"],
                e["ci_low"],
                e["ci_high"],
                e["p_holm"],
                e["verdict"],
                e["detail"],
                bool(e.get("control")),
                e.get("block_rejection_rate", math.nan),
            )
        )
    return out


def failures(figures: list[Figure]) -> list[tuple[str, str, str]]:
    return [(f.key["provider"], f.key["algorithm"], f.reason) for f in figures if f.status != "ok"]


def class_medians(figures: list[Figure]) -> list[list[object]]:
    return [
        [f.key["provider"], f.key["algorithm"], f.key["class"], len(f.values), f"{f.median:.1f}"]
        for f in figures
        if f.metric == "time per operation" and f.status == "ok" and f.values
    ]


def control_summary(rs: list[Row]) -> str:
    """What the A/A control measured: how many controls were called leaky, and the share of
    time blocks whose own test rejected (≈ 5% expected)."""
    controls = [r for r in rs if r.control]
    if not controls:
        return "A/A control: none measured"
    leaky = sum(r.verdict == "leak" for r in controls)
    rates = [r.block_rate for r in controls if not math.isnan(r.block_rate)]
    mean = sum(rates) / len(rates) if rates else math.nan
    return (
        f"A/A control: {leaky} of {len(controls)} called leaky (family-wise α 0.05); "
        f"blocks rejecting at 0.05 uncorrected: {mean:.1%} (independent rounds: ≈5%)"
    )


def resolution_lines(figures: list[Figure]) -> list[str]:
    """Per A/A control: how many pairs resolved how many ns (docs/leaks.md)."""
    out = []
    for f in figures:
        steps = f.extra.get("resolution") if f.status == "ok" else None
        if steps:
            text = ", ".join(f"{n} pairs ±{y:.1f} ns" for n, y in steps)
            out.append(f"resolution ({f.key['provider']} {f.key['algorithm']}): {text}")
    return out


def rounds_lines(figures: list[Figure], settings: dict[str, Any]) -> list[str]:
    """Per cell of a budgeted run: the rounds it took, of how many, why it stopped, and its
    measuring time ("rounds (openssl rsa-2048-oaep-sha256): 3,412 of 20,000 (budget), 2m41s").
    A run without --budget takes every cell's rounds and prints nothing here."""
    if settings.get("budget_s") is None:
        return []
    out = []
    for f in figures:
        if f.metric != "rounds" or f.status != "ok" or not f.values:
            continue
        e = f.extra
        out.append(
            f"rounds ({f.key['provider']} {f.key['algorithm']}): {int(f.values[0]):,} of "
            f"{int(e['planned']):,} ({e['stopped']}), {format_seconds(e['measuring_s'])} "
            "measuring"
        )
    return out


def budget_line(figures: list[Figure], settings: dict[str, Any]) -> str:
    """How a budgeted run used its budget; empty for a run without one."""
    budget = settings.get("budget_s")
    if budget is None:
        return ""
    cells = [f for f in figures if f.metric == "rounds" and f.status == "ok"]
    spent = sum(f.extra["measuring_s"] for f in cells)
    short = sum(f.extra["stopped"] == "budget" for f in cells)
    return (
        f"budget {format_duration(budget)}: {format_seconds(spent)} measured; {short} of "
        f"{len(cells)} cells stopped at their share of it before their rounds (their "
        "inconclusive verdicts are the intervals those rounds reached)"
    )


def summary(figures: list[Figure], settings: dict[str, Any]) -> str:
    if settings.get("method") == "taint":
        from cryptobench.scenarios.leaks import taint_report

        return taint_report.summary(figures, settings)
    rs = rows(figures)
    at_most = "up to " if settings.get("budget_s") is not None else ""
    lines = [
        f"leaks, method {settings.get('method', 'timing')}: {at_most}{settings.get('rounds')} "
        f"rounds per test, {len(rs)} comparisons corrected together (Holm, α 0.05)"
    ]
    if rs:
        lines.append(text_table(HEADERS, [r.cells() for r in rs]))
    lines.append(control_summary(rs))
    lines.extend(resolution_lines(figures))
    lines.extend(filter(None, [budget_line(figures, settings)]))
    lines.extend(rounds_lines(figures, settings))
    for provider, algorithm, reason in failures(figures):
        lines.append(f"not measured: {provider} {algorithm}: {reason}")
    return "\n".join(lines)
