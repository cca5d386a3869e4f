"""The configuration scenario's report section: time against n, the tables beside the
thesis's, heap, what was not measured."""

from html import escape
from typing import Any

from cryptobench.figures import Figure
from cryptobench.report.html import Section, how, html_table
from cryptobench.scenarios.config.figures import (
    HEAP_HEADERS,
    OVERHEAD_HEADERS,
    TIME_HEADERS,
    from_figures,
    headline_n,
    heap_rows,
    overhead_rows,
    time_rows,
)
from cryptobench.scenarios.config.model import (
    DIRECTIONS,
    SCHEMES,
    THESIS_DIRECTION_NAME,
    THESIS_N,
    THESIS_SOURCE,
    ScenarioResults,
    ScenarioRun,
    _series_order,
)

_SCHEME_STYLE = {  # line style and marker per scheme; colour per provider
    "plain": ("-", "o"),
    "wholefile": ("--", "D"),
    "compat": ("-", "s"),
    "confcrypt": (":", "^"),
}


def time_vs_n_svg(results: ScenarioResults, direction: str) -> str:
    """Median time against n, log–log, one line per scheme/provider, the band spanning the
    fastest and slowest run."""
    import matplotlib
    from matplotlib.figure import Figure

    from cryptobench.plots import to_svg

    colours = matplotlib.colormaps["tab10"].colors
    providers = sorted({s.provider for s in results.medians if s.provider})
    fig = Figure(figsize=(6.4, 3.8))
    ax = fig.add_subplot()
    for series in sorted(results.medians, key=_series_order):
        if series.direction != direction:
            continue
        points = results.medians[series]
        ns = sorted(points)
        linestyle, marker = _SCHEME_STYLE.get(series.scheme, ("-", "o"))
        if series.provider:
            colour = colours[providers.index(series.provider) % len(colours)]
        else:
            colour = "black" if series.scheme == "plain" else "dimgray"
        ax.plot(
            ns,
            [points[n] for n in ns],
            linestyle=linestyle,
            marker=marker,
            markersize=3.5,
            linewidth=1.3,
            color=colour,
            label=series.label,
        )
        spans = results.ranges.get(series, {})
        if len(ns) > 1 and all(n in spans for n in ns):
            ax.fill_between(
                ns, [spans[n][0] for n in ns], [spans[n][1] for n in ns], color=colour, alpha=0.12
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("values in the configuration (n)")
    ax.set_ylabel("time (s)")
    ax.set_title(f"{direction} ({THESIS_DIRECTION_NAME[direction]}): time against n")
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return to_svg(fig)


def render_section(
    results: ScenarioResults,
    info: dict[str, Any] | None = None,
    machine: dict[str, Any] | None = None,
    spec: dict[str, Any] | None = None,
    notes: dict[str, list[str]] | None = None,
) -> str:
    """The report's section on the scenario (HTML, without the <section> wrapper)."""
    info, machine, spec, notes = info or {}, machine or {}, spec or {}, notes or {}
    parts = [_method_html(results, info, machine, spec)]
    n = headline_n(results)
    if n is not None:
        parts.append(f"<h3>Writing and reading {n} values</h3>")
        parts.append(html_table(TIME_HEADERS, time_rows(results, n), numeric={1, 2, 3, 4, 6, 7}))
        parts.append(
            '<p class="how">Median of the runs and the fastest and slowest run. The thesis column '
            "is the median of the thesis's 11 runs at n = 1000 (Tables A.1-A.4, kdb get), measured "
            "on the thesis's machine.</p>"
        )
    if results.extrapolated:
        measured = max(
            (m for s in results.extrapolated for m in results.medians.get(s, {})), default=0
        )
        parts.append(
            '<p class="how"><b>≈ extrapolated.</b> This quick run measured the thesis\'s scheme '
            f"up to n = {measured} only; its times at larger n are the least-squares line "
            "t(n) = a + b·n through its medians, evaluated there. Its cost is one gpg process "
            "plus one PBKDF2 per value, so the time is linear in n. Run without --quick to "
            "measure it.</p>"
        )
    if results.medians:
        parts.append("<h3>Time against the number of values</h3>")
        figs = [time_vs_n_svg(results, d) for d in DIRECTIONS]
        parts.append(
            '<div class="figs">' + "".join(f"<figure>{s}</figure>" for s in figs) + "</div>"
        )
    if results.overheads:
        parts.append("<h3>Overhead against no encryption (the thesis's Tables 6.1 and 6.2)</h3>")
        parts.append(html_table(OVERHEAD_HEADERS, overhead_rows(results), numeric={2, 3, 4, 5, 6}))
        parts.append(
            '<p class="how">For every n measured for both, h = y − x and f = y / x of the medians '
            "of the scheme (y) and of no encryption (x) in the same direction; the table gives "
            f"their means over n, as the thesis did. Thesis figures: {escape(THESIS_SOURCE)}; "
            "the thesis measured all 40 of its n values, a --quick run only a few, which weights "
            "the mean differently.</p>"
        )
    if n is not None and any(n in by_n for by_n in results.heap.values()):
        parts.append(f"<h3>Heap at n = {n}</h3>")
        parts.append(html_table(HEAP_HEADERS, heap_rows(results, n), numeric={2, 3, 4, 5}))
        parts.append(
            '<p class="how">One extra, untimed write and read per line with the allocator '
            "counters of the driver process on: allocation calls, bytes requested, and the "
            "highest live heap. gpg runs as separate processes: its memory is not included.</p>"
        )
    if results.skipped:
        items = "".join(
            f"<li>{escape(s['scheme'])}/{escape(s['provider'])}: {escape(s['reason'])}</li>"
            for s in results.skipped
        )
        parts.append(f"<h3>Not measured</h3><ul>{items}</ul>")
    notable = {
        label: [x for x in lines if "does not offer" in x or "computed from" in x]
        for label, lines in notes.items()
    }
    notable = {k: v for k, v in notable.items() if v}
    if notable:
        items = "".join(
            f"<li>{escape(label)}: {escape('; '.join(lines))}</li>"
            for label, lines in sorted(notable.items())
        )
        parts.append(
            "<h3>Algorithms from another provider</h3><p>confcrypt takes an algorithm a "
            f"provider lacks from another one; these lines did so:</p><ul>{items}</ul>"
        )
    return "".join(parts)


def compat_kdf_text(info: dict[str, Any]) -> str:
    """PBKDF2's hash per library in the thesis's scheme, as the driver reported it (a run made
    before the driver reported it used PBKDF2-HMAC-SHA512 for every library)."""
    kdfs = info.get("compat_kdf") or dict.fromkeys(info.get("providers") or {}, "pbkdf2-sha512")
    return ", ".join(f"{p} {k.replace('pbkdf2-', 'HMAC-').upper()}" for p, k in kdfs.items())


def _method_html(
    results: ScenarioResults, info: dict[str, Any], machine: dict[str, Any], spec: dict[str, Any]
) -> str:
    ns = results.n_values()
    n_text = ", ".join(str(n) for n in ns) or "-"
    thesis_n = "the thesis's 40 values of n" if tuple(ns) == THESIS_N else f"n = {n_text}"
    runs = spec.get("runs")
    runs_text = f"{runs} runs" if runs else "runs"
    cpu = machine.get("cpu_model") or "this machine"
    cores = f", {machine['cores']} cores" if machine.get("cores") else ""
    os_name = f", {machine['os']}" if machine.get("os") else ""
    gpg = info.get("gpg") or "gpg"
    gpg_lib = f" ({info['gpg_libgcrypt']})" if info.get("gpg_libgcrypt") else ""
    versions = "; ".join(f"{k}: {v}" for k, v in sorted((info.get("providers") or {}).items()))
    fs = spec.get("workdir_fs")
    fs_text = f"; the work directory is on {escape(fs)}" if fs and fs != "?" else ""
    iterations = info.get("compat_iterations", 15000)
    kdfs = compat_kdf_text(info)
    return (
        "<p>The thesis's benchmark, repeated: a configuration file (INI) of n string values of "
        "16 to 32 characters under key names like <code>section03/key0081</code>, written "
        "(encrypted) and read (decrypted) with "
        + "; ".join(f"<b>{escape(k)}</b>: {escape(v)}" for k, v in SCHEMES.items())
        + f". Measured for {escape(thesis_n)}, {escape(runs_text)} each, the median reported.</p>"
        + how_plain(
            "The native driver <code>confcrypt-bench</code> calls the confcrypt library "
            "in-process and times each operation with CLOCK_MONOTONIC. <b>Write</b>: from the "
            "plaintext key set in memory to the file on disk (confcrypt's save chain, then an "
            f"atomic write: temp file, fsync, rename, fsync of the directory{fs_text}). "
            "<b>Read</b>: from the file on disk to the plaintext key set (read, then the open "
            "chain). The runs are interleaved (for each run, for each n, every scheme and "
            "provider writes then reads), so drift of the machine spreads over all lines alike; "
            "before them each configuration is written once untimed (warm-up), read back and "
            "compared value by value (every scheme and provider must return exactly what was "
            "written, and the encrypted ones must not contain any value in the clear), then "
            "written and read once more with the heap counters on."
        )
        + how_plain(
            "What differs from the thesis. <i>Machine and software</i>: ours is "
            f"{escape(cpu)}{escape(cores)}{escape(os_name)}, with {escape(gpg)}{escape(gpg_lib)}"
            + (f" and {escape(versions)}" if versions else "")
            + "; the thesis measured on its own, older machine and library versions, so compare "
            "factors and orders of magnitude rather than seconds. <i>Master password</i>: as in "
            "the thesis, the compatibility scheme keeps its random 30-character master password "
            "GnuPG-encrypted to the user's key and decrypts it with gpg inside every timed write "
            f"and read, then runs PBKDF2 with {iterations:,} iterations for every value, "
            f"with the hash of the thesis's variant of each library ({escape(kdfs)}); so its h "
            "includes one gpg process per operation. <i>confcrypt's scheme</i> "
            "wraps a fresh data key with gpg on every write (one gpg process) and unwraps it on "
            "every read (one gpg process: decrypt), then uses "
            "AES-256-GCM per value and an HMAC over the file. <i>Whole file</i>: gpg encrypts "
            "and signs (ASCII armour) on write, decrypts and verifies the signer on read, through "
            "pipes; the thesis's filter used a plaintext temporary file and did not check the "
            "signer. <i>Software under test</i>: confcrypt's storage format and filter chain, "
            "not the thesis's configuration library, so the baseline x (no encryption) differs "
            "too, and with it every factor f."
        )
    )


SECTION_KEY = "scenario-config"
SECTION_TITLE = "Configuration files: the thesis's benchmark"


def how_plain(text: str) -> str:
    return how(text, lead=None)


def section(run: ScenarioRun, machine: dict[str, Any] | None = None) -> Section:
    body = render_section(run.analyse(), run.info, machine, run.spec, run.notes)
    return Section(SECTION_KEY, SECTION_TITLE, body)


def sections(figures: list[Figure], settings: dict[str, Any]) -> list[Section]:
    """The scenario's sections of a stored run's report (the machine has its own section)."""
    run = from_figures(figures, settings)
    return [section(run)] if run.samples or run.skipped else []
