"""The reproduction report: what repeating a paper gives (`Reproduction`, with its `Claim`s from
`cryptobench.criteria`) and one page for `cryptobench reproduce`, a section per paper with its
questions, its headline, its machine beside ours, each of its claims with the criterion it is
judged by and the verdict, our own claims apart, our tables beside its tables, where our method
differs from the paper's, and what could not be reproduced on this machine and why."""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from typing import Any

from cryptobench import __version__, papers
from cryptobench.criteria import Claim, tally, tally_text
from cryptobench.report.html import Section, how, html_table, page

__all__ = ["Claim", "Reproduction", "render"]


@dataclass
class Reproduction:
    """What `cryptobench reproduce NNN` produced for one paper."""

    paper: str  # "002"
    title: str
    run_ids: list[int]
    text: str  # the side-by-side tables for the terminal
    sections: list[Section]  # for the reproduction report
    claims: list[Claim] = field(default_factory=list)
    not_reproduced: list[str] = field(default_factory=list)  # what could not be done here, why
    deviations: list[str] = field(default_factory=list)  # where our method differs, how and why
    machine: dict[str, Any] = field(default_factory=dict)  # the stored machine record of the run
    libraries: dict[str, str] = field(default_factory=dict)  # library -> version, as measured
    quick: bool = False  # figures from `--quick` (fewer runs, smaller inputs)
    # which stored run each figure comes from: number, date, machine, load (evidence.describe)
    provenance: list[str] = field(default_factory=list)


QUICK = (
    "quick run: these figures come from `--quick` (fewer runs, smaller inputs, fewer sizes); "
    "they show the shape, not the settings the paper used"
)


def _verdict(c: Claim) -> str:
    return c.verdict + (f" ({c.reason})" if c.reason else "")


def claims_table(claims: list[Claim]) -> str:
    rows = [(f"{c.claim} [{c.source}]", c.paper, c.criterion, c.ours, _verdict(c)) for c in claims]
    return html_table(["claim [where]", "the paper", "criterion", "ours", "verdict"], rows)


def machines_table(rep: Reproduction) -> str:
    m = rep.machine
    ours = "; ".join(
        x
        for x in (
            m.get("cpu_model"),
            f"{m['cores']} cores" if m.get("cores") else None,
            m.get("os"),
            f"kernel {m['kernel']}" if m.get("kernel") else None,
        )
        if x
    )
    libs = ", ".join(f"{k} {v}" for k, v in sorted(rep.libraries.items()))
    rows = [
        ("the paper", papers.PAPERS[rep.paper].machine),
        ("ours", (ours or "not recorded") + (f"; {libs}" if libs else "")),
    ]
    return html_table(["machine", "CPU, cores, OS, library versions"], rows)


def _list(title: str, items: list[str]) -> str:
    if not items:
        return ""
    return (
        f"<h3>{escape(title)}</h3><ul>" + "".join(f"<li>{escape(x)}</li>" for x in items) + "</ul>"
    )


def paper_section(rep: Reproduction) -> Section:
    paper = papers.PAPERS[rep.paper]
    theirs = [c for c in rep.claims if not c.ours_only]
    ours = [c for c in rep.claims if c.ours_only]
    parts = [
        f"<p><b>{escape(paper.title)}</b> ({paper.year}); repeated by "
        f"<code>{escape(paper.repeated_by)}</code>"
        + (f", stored as run {', '.join(map(str, rep.run_ids))}" if rep.run_ids else "")
        + ".</p>",
        "".join(f"<p>From {escape(line)}.</p>" for line in rep.provenance),
        f"<p><b>{escape(QUICK)}.</b></p>" if rep.quick else "",
        "<p>Its questions:</p><ul>"
        + "".join(f"<li>{escape(q)}</li>" for q in paper.questions)
        + "</ul>",
        f"<p>Its headline: {escape(paper.headline)}</p>",
        "<h3>Its machine and ours</h3>",
        machines_table(rep),
    ]
    if theirs:
        parts.append(f"<h3>Does it still hold here? ({escape(tally_text(tally(theirs)))})</h3>")
        parts.append(claims_table(theirs))
    if ours:
        parts.append("<h3>Our own claims (not the paper's; not counted)</h3>")
        parts.append(claims_table(ours))
    parts += [f"<h3>{escape(s.title)}</h3>{s.html}" for s in rep.sections]
    parts.append(_list("Where our method differs from the paper's, and why", rep.deviations))
    parts.append(_list("Not reproduced here", rep.not_reproduced))
    return Section(f"paper-{rep.paper}", f"{rep.paper}: {paper.title}", "".join(parts))


def kinds_text(reproductions: list[Reproduction], quick: bool) -> str:
    """Whether the figures are `--quick` ones: all, none, or some (then their sections say
    which); `quick` where no paper has a run."""
    kinds = {r.quick for r in reproductions if r.run_ids} or {quick}
    if kinds == {True}:
        return f"<b>{escape(QUICK)}</b>"
    if kinds == {False}:
        return "each paper's own settings"
    return "<b>some papers' figures come from `--quick` runs: their sections say so</b>"


def render(reproductions: list[Reproduction], quick: bool, stored: bool = False) -> str:
    counts = tally(c for r in reproductions for c in r.claims)
    intro = (
        f"<p>cryptobench {escape(__version__)}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
        + kinds_text(reproductions, quick)
        + f". Over the {len(reproductions)} paper(s) here: {escape(tally_text(counts))}; our "
        "own claims are "
        "listed apart and not counted."
        + (
            " Rendered from runs already in the store, made at different times: each paper's "
            "section names its run, when it was made, on which machine and at which load."
            if stored
            else ""
        )
        + "</p>"
        + how(
            "Each paper's experiment is run again on this machine by the cryptobench command "
            "named in its section. Each claim is the paper's, with its place in the paper, and "
            "is judged by a criterion fixed from the paper's own figures before our data are "
            "seen: an order where the paper claims an order, a magnitude where it claims one; a "
            "difference smaller than this machine's noise threshold decides nothing. A claim is "
            "undecided, with the reason, when its data are missing or a stand-in removes the "
            "mechanism the paper credits. The paper's method is beside ours where the data "
            "allow it; where it differs, the section says how and why. Absolute figures do not "
            "carry across machines and years; ratios and orders do."
        )
    )
    return page(
        "cryptobench: the papers, reproduced", intro, [paper_section(r) for r in reproductions]
    )
