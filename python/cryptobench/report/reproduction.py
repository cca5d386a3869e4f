"""The reproduction report: what repeating a paper gives (`Reproduction`, with its `Claim`s) and
one page for `cryptobench reproduce`, a section per paper with its questions, its headline
result, whether each of its claims holds here, our tables and figures, and what could not be
reproduced on this machine and why."""

import platform
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape

from cryptobench import __version__, papers
from cryptobench.report.html import Section, how, html_table, page


@dataclass(frozen=True)
class Claim:
    """One claim of a paper and whether it holds here."""

    claim: str
    paper: str  # what the paper reports (figures, with the table they come from)
    ours: str  # what we measured
    holds: bool | None  # None: cannot be decided here (say why in `ours`)


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


_VERDICT = {True: "holds", False: "does not hold", None: "cannot be decided here"}


def paper_section(rep: Reproduction) -> Section:
    paper = papers.PAPERS[rep.paper]
    parts = [
        f"<p><b>{escape(paper.title)}</b> ({paper.year}); repeated by "
        f"<code>{escape(paper.repeated_by)}</code>"
        + (f", stored as run {', '.join(map(str, rep.run_ids))}" if rep.run_ids else "")
        + ".</p>",
        "<p>Its questions:</p><ul>"
        + "".join(f"<li>{escape(q)}</li>" for q in paper.questions)
        + "</ul>",
        f"<p>Its headline: {escape(paper.headline)}</p>",
    ]
    if rep.claims:
        rows = [(c.claim, c.paper, c.ours, _VERDICT[c.holds]) for c in rep.claims]
        parts.append("<h3>Does it still hold here?</h3>")
        parts.append(html_table(["claim", "the paper", "ours", "verdict"], rows))
    parts += [f"<h3>{escape(s.title)}</h3>{s.html}" for s in rep.sections]
    if rep.not_reproduced:
        parts.append(
            "<h3>Not reproduced here</h3><ul>"
            + "".join(f"<li>{escape(x)}</li>" for x in rep.not_reproduced)
            + "</ul>"
        )
    return Section(f"paper-{rep.paper}", f"{rep.paper}: {paper.title}", "".join(parts))


def render(reproductions: list[Reproduction], quick: bool) -> str:
    claims = [c for r in reproductions for c in r.claims]
    held = sum(1 for c in claims if c.holds is True)
    intro = (
        f"<p>cryptobench {escape(__version__)} on {escape(platform.node())} "
        f"({escape(platform.machine())}), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; "
        + ("the quick variant of each experiment" if quick else "each paper's own settings")
        + f". {held} of {len(claims)} claims hold here.</p>"
        + how(
            "Each paper's experiment is run again on this machine by the cryptobench command "
            "named in its section, with the paper's method where it is sound and ours beside it "
            "where it is not. The papers' figures are quoted with the table they come from; "
            "absolute figures do not carry across machines and years, ratios to the "
            "unencrypted baseline do."
        )
    )
    return page(
        "cryptobench: the papers, reproduced", intro, [paper_section(r) for r in reproductions]
    )
