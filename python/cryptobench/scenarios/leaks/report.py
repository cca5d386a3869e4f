"""The leaks run's report sections: the verdicts, the A/A control, and each class's time."""

from html import escape
from typing import Any

from cryptobench.figures import Figure
from cryptobench.report.html import Section, how, html_table
from cryptobench.scenarios.leaks.figures import (
    HEADERS,
    budget_line,
    class_medians,
    control_summary,
    failures,
    resolution_lines,
    rounds_lines,
    rows,
)

HOW = (
    "Each round times every class once, in a fresh random order; a comparison is the paired "
    "differences of its two classes over the rounds. p is the sign test of a zero median "
    "difference, Holm-adjusted over every comparison of the run; the interval is the percentile "
    "bootstrap interval of the median difference at the Bonferroni level. A leak needs both and a "
    "difference of at least 1 ns; no leak needs an interval containing 0 and no wider than "
    "max(10 ns, 0.1% of the operation); anything else is inconclusive. A leak is only called where "
    "the same test's A/A control (two identical classes) is clean. docs/leaks.md."
)


def sections(figures: list[Figure], settings: dict[str, Any]) -> list[Section]:
    if settings.get("method") == "taint":
        from cryptobench.scenarios.leaks import taint_report

        return taint_report.sections(figures, settings)
    rs = rows(figures)
    body = how(HOW) + html_table(HEADERS, [r.cells() for r in rs], numeric={3, 4, 6})
    body += "".join(
        f"<p>{escape(line)}</p>"
        for line in [
            control_summary(rs),
            *resolution_lines(figures),
            *filter(None, [budget_line(figures, settings)]),
            *rounds_lines(figures, settings),
        ]
    )
    fails = failures(figures)
    if fails:
        body += html_table(["provider", "algorithm", "not measured because"], fails)
    body += html_table(
        ["provider", "algorithm", "class", "rounds", "median ns"],
        class_medians(figures),
        numeric={3, 4},
    )
    return [Section("leaks", "Timing leaks (constant time?)", body)]
