"""The process scenario's report sections: throughput by size per input kind (small
multiples), CPU and peak RSS, the start-up / crypto / rest decomposition, the kind test."""

from cryptobench.figures import Figure
from cryptobench.report.html import Section, how, html_table, svg_row
from cryptobench.scenarios.process.figures import (
    MIB,
    THROUGHPUT_HEADERS,
    decompose,
    kind_tests,
    throughput_rows,
)


def _throughput_svg(figures: list[Figure]) -> str:
    from matplotlib.figure import Figure as MplFigure

    from cryptobench.plots import to_svg

    cells: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for f in figures:
        k = f.key
        if f.metric != "wall" or f.status != "ok" or k.get("direction") != "encrypt":
            continue
        if k.get("kind") in ("empty", "in-process") or not f.median:
            continue
        label = f"{k['provider']} {k['algorithm']}"
        cells.setdefault(k["kind"], {}).setdefault(label, []).append(
            (k["size"], k["size"] / MIB / f.median)
        )
    if not cells:
        return ""
    kinds = sorted(cells)
    fig = MplFigure(figsize=(3.2 * len(kinds), 3.3))
    axes = fig.subplots(1, len(kinds), sharey=True, squeeze=False)[0]
    for ax, kind in zip(axes, kinds, strict=True):
        for label, points in sorted(cells[kind].items()):
            points.sort()
            ax.plot(
                [p[0] / 1024 for p in points],
                [p[1] for p in points],
                marker="o",
                markersize=3,
                linewidth=1,
                label=label,
            )
        ax.set_xscale("log")
        ax.set_title(kind)
        ax.set_xlabel("input (KiB)")
    axes[0].set_ylabel("whole process, MiB/s")
    axes[-1].legend(fontsize=6, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_svg(fig)


def _decomposition_svg(figures: list[Figure]) -> str:
    from matplotlib.figure import Figure as MplFigure

    from cryptobench.plots import to_svg

    parts = decompose(figures)
    if not parts:
        return ""
    largest = max(p.size for p in parts)
    kind = sorted({p.kind for p in parts})[0]
    parts = [p for p in parts if p.size == largest and p.kind == kind]
    labels = [f"{p.provider} {p.algorithm}" for p in parts]
    fig = MplFigure(figsize=(6.4, 0.3 * len(parts) + 1.4))
    ax = fig.add_subplot()
    left = [0.0] * len(parts)
    for name, values in (
        ("start-up", [p.startup_s for p in parts]),
        ("crypto", [p.crypto_s for p in parts]),
        ("rest (I/O, program)", [p.rest_s for p in parts]),
    ):
        ms = [v * 1e3 for v in values]
        ax.barh(labels, ms, left=left, label=name)
        left = [a + b for a, b in zip(left, ms, strict=True)]
    ax.set_xlabel(f"ms for a {largest >> 10} KiB {kind} file")
    ax.legend(fontsize=7, frameon=False)
    return to_svg(fig)


def sections(figures: list[Figure], spec: dict) -> list[Section]:
    out = []
    rows = throughput_rows(figures)
    svg = _throughput_svg(figures)
    out.append(
        Section(
            "process-throughput",
            "Whole process: throughput, CPU and peak memory",
            (svg_row([svg]) if svg else "")
            + html_table(THROUGHPUT_HEADERS, rows, numeric={4, 5, 6, 7})
            + how(
                "Each cell runs <code>cryptobench-encfile</code> (one program, the library chosen "
                "by argument, the core's provider adapters) to encrypt the input file to a file "
                "in 64 KiB records and to decrypt it back, as separate processes; "
                f"{spec.get('warmup', 2)} warm-up runs, then {spec.get('runs', '?')} measured "
                "runs, interleaved across providers and algorithms. Wall time around the "
                "process; CPU (user + system) and peak RSS from the kernel's wait4 rusage of "
                "that process. Every round trip is checked with MD5 (as the paper) and SHA-256. "
                "Outliers are counted "
                "with hyperfine's rule (modified Z-score > 14.826), not removed."
            ),
        )
    )
    svg = _decomposition_svg(figures)
    if svg:
        out.append(
            Section(
                "process-decomposition",
                "Where the time of a process goes",
                svg_row([svg])
                + how(
                    "Start-up: the same program on an empty input (process start, loading the "
                    "libraries, initialising the provider). Crypto: the core's in-process time per "
                    "byte for the same provider and algorithm on one 64 KiB record, times the file "
                    "size. Rest: what remains of the median wall time — reading, writing, chunking."
                ),
            )
        )
    tests = kind_tests(figures)
    if tests:
        rows = [
            [
                t.provider,
                t.algorithm,
                t.kinds,
                f"{t.h:.2f}",
                f"{t.p:.3g}",
                f"{t.epsilon2:.3f}",
                t.verdict,
            ]
            for t in tests
        ]
        out.append(
            Section(
                "process-kinds",
                "Does the input kind matter?",
                html_table(["provider", "algorithm", "kinds", "H", "p", "ε²", "verdict"], rows)
                + how(
                    "Kruskal–Wallis H test over the encrypting process's wall times of each input "
                    "kind at the largest size, per provider and algorithm; ε² = H / (n − 1) is its "
                    "effect size. A cipher's work does not depend on the bytes, so a difference "
                    "here is the file cache or the machine, not the data."
                ),
            )
        )
    return out
