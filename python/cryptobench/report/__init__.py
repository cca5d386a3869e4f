"""The HTML report: one self-contained file (inline SVG figures, inline CSS, a small inline
script that sorts and filters tables, nothing fetched from the network), assembled from
sections that each module provides: the core's (core.py, publickey.py, levels.py) and, for a
scenario run, the scenario's own. It opens with the answer (what `recommend` picks). Each
section says how its figures were obtained; html.py holds the shared styling."""

from collections.abc import Sequence
from html import escape

from cryptobench import __version__
from cryptobench.analysis import RunResults
from cryptobench.errors import UserError
from cryptobench.leakverdicts import Checks
from cryptobench.report import constant_time, core, levels, postquantum, publickey, versions
from cryptobench.report.html import Section, how, html_table, page, size_text
from cryptobench.units import format_size


def answer(results: RunResults) -> Section:
    """The answer first: what `recommend` picks per kind of primitive at 128 bits, its figure
    and the runner-up."""
    from cryptobench import recommend

    rows = recommend.answer_rows(
        recommend.recommend(results, level=128, size=recommend.DEFAULT_SIZE)
    )
    table = html_table(list(recommend.ANSWER_COLUMNS), rows, collapse=False)
    return Section(
        "answer",
        "The answer: fastest at 128 bits",
        f'<div class="answer">{table}</div>'
        + how(
            "What <code>cryptobench recommend</code> answers from this run: per kind of "
            "primitive, the fastest provider and algorithm of at least 128 bits of security "
            "that no cited document disallows, in a library's own configuration, symmetric "
            "kinds at 16 KiB (or the nearest size measured). Ties within the noise are named "
            "in the note; details in the sections below and in docs/methodology.md §10."
        ),
    )


def core_sections(
    results: RunResults, size: int | None, checks: Checks | None = None
) -> list[Section]:
    timing = (
        [Section("constant-time", "Constant time", constant_time.section(results, checks))]
        if checks is not None
        else []
    )
    return [
        Section("overview", "Overview", core.overview(results)),
        Section("throughput", "Throughput vs message size", core.throughput(results)),
        Section(
            "heatmap", f"Provider × algorithm at {size_text(size)}", core.heatmap(results, size)
        ),
        Section("overhead", "Per-call overhead and cycles per byte", core.overhead(results)),
        Section("heap", f"Heap per operation at {size_text(size)}", core.heap(results, size)),
        Section(
            "boxplots", f"Sample distributions at {size_text(size)}", core.boxplots(results, size)
        ),
        Section(
            "variants",
            f"Hardware vs software variants at {size_text(size)}",
            core.variants(results, size),
        ),
        Section(
            "publickey", "Public-key operations and key derivation", publickey.public_key(results)
        ),
        Section(
            "postquantum",
            "Post-quantum beside classical",
            postquantum.post_quantum(results),
        ),
        Section("versions", "Versions side by side", versions.side_by_side(results)),
        Section("security", "Results by security level", levels.by_level(results, size)),
        *timing,
        Section("failures", "Failures", core.failures(results)),
        Section("all", "All results", core.all_results(results, checks)),
    ]


def render(
    results: RunResults,
    size: int | None = None,
    extra: Sequence[Section] = (),
    checks: Checks | None = None,
) -> str:
    """The whole report of a run as an HTML string. `size` picks the message size of the
    heatmap, box plots and bar charts (default: see chosen_size). `extra`: the sections of the
    scenario that stored the run; a scenario run measures no primitives, so then only the
    machine and library sections of the core come with them. `checks`: the constant-time
    verdicts of the leaks runs in the same store (leakverdicts.load), for the constant-time
    section and column; None leaves both out."""
    sections = [
        *([answer(results)] if results.ok_cases() and not extra else []),
        Section("machine", "Machine and software", core.machine(results)),
        Section("libraries", "Libraries", core.libraries(results)),
        *extra,
    ]
    if results.cases or not extra:
        sections += core_sections(results, chosen_size(results, size), checks)
    run = results.run
    note = f" · {escape(run.note)}" if run.note else ""
    intro = (
        f"<p>Run {run.id}, suite <b>{escape(run.suite)}</b>, {escape(run.status)}, started "
        f"{escape(run.started_at)}, finished {escape(run.finished_at or '-')}{note}. Measured by "
        f"{escape(run.runner)} {escape(run.runner_version)}; report by cryptobench "
        f"{escape(__version__)}.</p>"
    )
    return page(f"cryptobench run {run.id}: {run.suite}", intro, sections)


def chosen_size(results: RunResults, size: int | None) -> int | None:
    """The requested size, else the largest of the sizes with the most successful cases."""
    sizes = results.sizes()
    if size is not None:
        if size not in sizes:
            shown = ", ".join(format_size(s) for s in sizes) or "none"
            raise UserError(f"--size {size}: not measured in run {results.run.id} (sizes: {shown})")
        return size
    if not sizes:
        return None
    counts = {s: sum(1 for c in results.symmetric_cases() if c.size == s) for s in sizes}
    return max(sizes, key=lambda s: (counts[s], s))
