"""The versions of one library side by side (docs/versions.md): for every library of the run
measured in more than one version (openssl beside openssl@1.1.1, openssl@3.5, aws-lc, …), each
case's speed-up of every version over the system library, with its bootstrap 95% interval and
the verdict `compare --versions` gives."""

from html import escape

from cryptobench import compare
from cryptobench.analysis import RunResults
from cryptobench.report.html import how, html_table
from cryptobench.units import format_size

MARK = {"faster": " ▲", "slower": " ▼"}


def libraries_with_versions(results: RunResults) -> list[str]:
    systems = {c.provider for c in results.cases if "@" not in c.provider}
    return [lib for lib in sorted(systems) if compare.family(results, lib)]


def cell(c: compare.CaseComparison) -> str:
    """'2.38× (1.90–2.90) ▲': the system's median time ÷ the version's, interval, verdict."""
    if not c.ratio or not c.ci_low:
        return c.verdict
    return f"{1 / c.ratio:.2f}× ({1 / c.ci_high:.2f}–{1 / c.ci_low:.2f}){MARK.get(c.verdict, '')}"


def side_by_side(results: RunResults) -> str:
    parts = []
    for library in libraries_with_versions(results):
        others = compare.family(results, library)
        cells: dict[tuple, dict[str, str]] = {}
        for c in compare.compare_versions(results, library):
            if c.b is None:
                continue
            row = (c.b.algorithm_label, c.b.operation, c.b.size)
            cells.setdefault(row, {})[c.b.provider] = cell(c)
        rows = [
            [alg, op, format_size(size), *(found.get(p, "-") for p in others)]
            for (alg, op, size), found in cells.items()
        ]
        headers = ["algorithm", "op", "size", *(f"{p} ÷ {library}" for p in others)]
        parts.append(f"<h3>{escape(library)}</h3>" + html_table(headers, rows))
    if not parts:
        return "<p>No library was measured in more than one version in this run.</p>"
    return "".join(parts) + how(
        "Speed-up = median time of the system library ÷ the version's (above 1: the version is "
        "faster), with the bootstrap 95% interval of the ratio; ▲ faster and ▼ slower only where "
        "the interval clears the default noise threshold and Mann–Whitney U survives "
        "Benjamini–Hochberg, as <code>cryptobench compare RUN --versions LIBRARY</code> decides "
        "(which uses this machine's calibrated threshold instead). docs/versions.md."
    )
