"""A stored `leaks --method taint` run read back: per provider and algorithm its verdict, and
its secret-dependent sites grouped by their top frame (`show` and the HTML report)."""

from html import escape
from typing import Any

from cryptobench.figures import Figure
from cryptobench.report.html import Section, how, html_table
from cryptobench.tables import text_table

METRIC = "secret-dependent sites"
HEADERS = ["provider", "algorithm", "verdict", "branches", "memory indexes", "suppressed", "s"]
HOW = (
    "Each provider ran under valgrind's memcheck with the key, and the message it encrypts, "
    "marked undefined (VALGRIND_MAKE_MEM_UNDEFINED): AES-GCM encryption, decryption of the valid "
    "ciphertext and of one whose tag is wrong in its last byte. A site is one distinct stack of a "
    "'Conditional jump or move depends on uninitialised value(s)' (a branch) or 'Use of "
    "uninitialised value of size N' (a memory index) inside those operations, from valgrind's "
    "XML; reviewed benign sites are suppressed (taint.supp, each with its reason). "
    "docs/leaks.md."
)


def taint_figures(figures: list[Figure]) -> list[Figure]:
    return [f for f in figures if f.metric == METRIC]


def _row(f: Figure) -> list[object]:
    e = f.extra
    if f.status != "ok":
        return [f.key["provider"], f.key["algorithm"], f"not checked: {f.reason}", "", "", "", ""]
    verdict = e["verdict"] if not e["detail"] else f"{e['verdict']}: {e['detail']}"
    return [
        f.key["provider"],
        f.key["algorithm"],
        verdict,
        e["branches"],
        e["memory_indexes"],
        sum(e["suppressed"].values()),
        e["seconds"],
    ]


def site_lines(f: Figure, most: int = 6) -> list[str]:
    groups = f.extra.get("groups", []) if f.status == "ok" else []
    out = [
        f"  {f.key['provider']} {f.key['algorithm']}: {g['sites']} {g['kind']} site(s) in "
        f"{g['frame']} (first in {g['operation']})"
        for g in groups[:most]
    ]
    if len(groups) > most:
        out.append(f"  … and {len(groups) - most} more frames")
    return out + [
        f"  {f.key['provider']} {f.key['algorithm']}: {overused_text(name, count)}"
        for name, count in _overused(f).items()
    ]


def _overused(f: Figure) -> dict[str, int]:
    return f.extra.get("verdict_suppressions_overused", {}) if f.status == "ok" else {}


def overused_text(name: str, count: int) -> str:
    return (
        f"suppression {name} used {count} times in 2 decryptions, counted as a site "
        "(it may stand for at most two branches on a tag's outcome per decryption)"
    )


def summary(figures: list[Figure], settings: dict[str, Any]) -> str:
    fs = taint_figures(figures)
    lines = [
        f"leaks, method taint: {settings.get('valgrind', 'valgrind')} memcheck, "
        f"suppressions {settings.get('suppressions', '')}",
        text_table(HEADERS, [_row(f) for f in fs]),
    ]
    for f in fs:
        lines.extend(site_lines(f))
    return "\n".join(lines)


def sections(figures: list[Figure], settings: dict[str, Any]) -> list[Section]:
    fs = taint_figures(figures)
    body = how(HOW) + html_table(HEADERS, [_row(f) for f in fs], numeric={3, 4, 5, 6})
    sites = [
        [f.key["provider"], f.key["algorithm"], g["kind"], g["sites"], g["frame"], g["operation"]]
        for f in fs
        if f.status == "ok"
        for g in f.extra.get("groups", [])
    ] + [
        [f.key["provider"], f.key["algorithm"], "suppression overused", n, name, ""]
        for f in fs
        for name, n in _overused(f).items()
    ]
    if sites:
        body += html_table(
            ["provider", "algorithm", "kind", "sites", "top frame", "first in"],
            sites,
            numeric={3},
        )
    body += f"<p>{escape(str(settings.get('valgrind', '')))}</p>"
    return [Section("leaks-taint", "Secret-dependent branches and memory indexes (memcheck)", body)]
