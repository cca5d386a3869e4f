"""The core run's sections: machine, libraries, throughput, heatmap, overhead, heap, sample
distributions, hardware vs software, failures and every result."""

from html import escape

from cryptobench import plots, stats
from cryptobench.analysis import (
    FIT_BLOCK,
    FIT_MAX_SIZE,
    PRIMARY_OPERATIONS,
    CaseResult,
    RunResults,
    cycles_label,
    harness_floor,
)
from cryptobench.leakverdicts import Checks
from cryptobench.report.html import anchor, how, html_table, num, se, size_text, svg_row
from cryptobench.units import (
    compact,
    format_kib,
    format_measured,
    format_ns,
    format_ops,
    format_rate,
    format_size,
)

# CPU flags that decide which code path a crypto library can take.
CRYPTO_FLAGS = (
    "aes",
    "pclmulqdq",
    "vaes",
    "vpclmulqdq",
    "sha_ni",
    "ssse3",
    "sse4_1",
    "avx",
    "avx2",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "gfni",
    "bmi2",
    "adx",
)


def machine(r: RunResults) -> str:
    m = r.machine
    flags = m.get("cpu_flags") or []
    crypto = [f for f in CRYPTO_FLAGS if f in flags]
    tsc = m.get("tsc_hz")
    rows = [
        ("CPU", m.get("cpu_model")),
        ("cores", m.get("cores")),
        ("crypto-relevant CPU flags", " ".join(crypto) or "none"),
        ("TSC", f"{tsc / 1e9:.4f} GHz, invariant: {m.get('tsc_invariant')}" if tsc else "-"),
        ("frequency governor", m.get("governor") or "not readable"),
        ("kernel", m.get("kernel")),
        ("OS", m.get("os")),
        ("compiler of the runner", m.get("compiler")),
        ("host", m.get("hostname")),
        ("runner", f"{r.run.runner} {r.run.runner_version} ({r.run.runner_path})"),
        ("cryptobench that measured", r.run.cryptobench_version),
        ("measurement settings", _settings(r.cases)),
    ]
    all_flags = (
        f"<details><summary>all {len(flags)} CPU flags</summary><p><code>"
        f"{escape(' '.join(flags))}</code></p></details>"
    )
    note = m.get("tsc_note") or (
        "the TSC counts reference cycles at a constant rate, not core clock cycles"
    )
    return (
        html_table(["", ""], rows)
        + all_flags
        + how(
            "The runner records this at the start of the run (<code>cryptobench-native "
            f"list</code>). Cycle figures in this report are TSC ticks: {escape(note)}."
        )
    )


def _settings(cases: list[CaseResult]) -> str:
    """The measurement settings as they show in the cases (they can differ between blocks)."""
    n = sorted({c.summary.n for c in cases if c.summary})
    iters = [c.iterations for c in cases if c.iterations]
    parts = [f"samples per case: {', '.join(map(str, n)) or '-'}"]
    if iters:
        parts.append(f"operations per sample: {min(iters)}…{max(iters)}")
    parts.append(f"input: {', '.join(sorted({c.input for c in cases})) or '-'}")
    for key, what in (
        ("target_sample_ms", "target sample length (ms)"),
        ("warmup_ms", "warm-up (ms)"),
        ("batch", "samples per round-robin visit"),
    ):
        values = sorted({c.spec[key] for c in cases if key in c.spec})
        if values:
            parts.append(f"{what}: {', '.join(f'{v:g}' for v in values)}")
    return "; ".join(parts)


def libraries(r: RunResults) -> str:
    rows = [
        (
            lib["provider"],
            lib["variant"],
            lib["version"],
            lib["description"],
            ", ".join(f"{k}={v}" for k, v in sorted(lib["code_path"].items())) or "-",
        )
        for lib in r.libraries
    ]
    return html_table(["provider", "variant", "version", "variant means", "code path"], rows) + how(
        "Versions and code paths as each library reports them, queried with the variant "
        "selected (a variant that switches code paths by environment variable is applied by the "
        "runner re-executing itself before any library loads)."
    )


def overview(r: RunResults) -> str:
    counts = r.run.counts
    unstable = sum(1 for c in r.ok_cases() if c.unstable)
    rows = [(status, counts[status]) for status in sorted(counts)]
    rows.append(("ok but unstable", unstable))
    floor = harness_floor(r.cases)
    floor_text = ""
    if floor:
        floor_text = (
            "<p>Harness floor (the built-in <code>null</code> provider, whose operation does "
            "nothing but touch the buffer): "
            + ", ".join(f"{format_size(n)}: {format_ns(ns)}/op" for n, ns in sorted(floor.items()))
            + ". A 16-byte figure close to it is mostly the harness and the call, not the "
            "cipher.</p>"
        )
    return (
        html_table(["cases", "count"], rows)
        + floor_text
        + how(
            "Every case passed the correctness gate (known-answer vectors, round trip, agreement "
            "with the other providers) before it was timed; a case the gate refused is "
            "<i>failed</i> and never timed. <i>Unstable</i>: the bootstrap 95% confidence interval "
            f"of the median is wider than {stats.UNSTABLE_CI_WIDTH:.0%} of the median "
            "(or fewer than 3 samples)."
        )
    )


def throughput(r: RunResults) -> str:
    figs, ids = [], []
    for algorithm in r.algorithms():
        for operation in _operations(r, algorithm):
            series: dict[str, list[CaseResult]] = {}
            for c in r.symmetric_cases():
                if c.algorithm == algorithm and c.operation == operation and c.size > 0:
                    series.setdefault(c.label, []).append(c)
            if series:
                figs.append(plots.throughput_vs_size(f"{algorithm} {operation}", series))
                ids.append(curve_anchor(algorithm, operation))
    if not figs:
        return "<p>No successful cases.</p>"
    return svg_row(figs, ids) + how(
        "For each case: the median over its samples of the time per operation (sample time ÷ "
        "operations in the sample, CLOCK_MONOTONIC); throughput = message size ÷ that median. "
        "Error bars: the bootstrap 95% confidence interval of the median, converted the same "
        "way. Both axes are logarithmic; dashed lines are non-default variants."
    )


def heatmap(r: RunResults, size: int | None) -> str:
    if size is None:
        return "<p>No successful cases.</p>"
    cells = _primary_at(r, size)
    if not cells:
        return "<p>No successful cases at this size.</p>"
    rows = [lb for lb in r.labels() if any(k[0] == lb for k in cells)]
    cols = [a for a in r.algorithms() if any(k[1] == a for k in cells)]
    values = {k: c.bytes_per_s / 1e6 for k, c in cells.items() if c.bytes_per_s}
    notes = {k: compact(v) + ("~" if cells[k].unstable else "") for k, v in values.items()}
    links = {k: f"#{case_anchor(c)}" for k, c in cells.items()}
    svg = plots.heatmap(
        f"throughput (MB/s) at {format_size(size)}", rows, cols, values, "MB/s", notes,
        links=links,
    )  # fmt: skip
    return svg_row([svg]) + how(
        "Throughput of the primary operation of each algorithm (encrypt for ciphers and AEADs, "
        f"hash, mac) at {format_size(size)}, from the median time per operation; the colour "
        "scale is logarithmic; ~ marks an unstable case; blank cells were not offered by the "
        "provider, failed, or not measured. Click a figure in a cell for that case's row, "
        "samples and curve."
    )


def overhead(r: RunResults) -> str:
    if not r.fits:
        return "<p>No size sweep with at least 3 sizes in this run.</p>"
    rows = []
    for f in sorted(r.fits, key=lambda f: (f.algorithm, f.operation, f.label)):
        rows.append(
            (
                f.label,
                f.algorithm,
                f.operation,
                f.overhead_text,
                num(f.ns_per_byte, ".4f") + se(f.fit.slope_se, ".4f"),
                num(f.cycles_per_byte, ".3f"),
                num(f.largest_cycles_per_byte, ".3f"),
                format_size(int(f.half_size)) if f.half_size else "-",
                num(f.fit.r2, ".4f"),
                f"{format_size(f.sizes[0])}…{format_size(f.sizes[-1])} ({len(f.sizes)})",
            )
        )
    headers = [
        "provider",
        "algorithm",
        "operation",
        "a: overhead (ns/call)",
        "b: ns/byte",
        "b in reference cycles (TSC)/byte",
        "reference cycles (TSC)/byte at the largest size",
        "n½ = a/b",
        "R²",
        "sizes",
    ]
    return html_table(headers, rows, numeric={3, 4, 5, 6, 7, 8}) + how(
        "A Theil–Sen line t(n) = a + b·n through the median time per operation t at each "
        f"message size n that is a multiple of {FIT_BLOCK} bytes up to {format_size(FIT_MAX_SIZE)} "
        "(cache-resident, whole blocks, as libgcrypt's bench-slope fits); the intervals are 95% "
        "bootstrap intervals (each size's samples resampled). a is the per-call overhead — "
        "shown as 'below resolution' when the line puts it at or below zero, never as a negative "
        "figure — and b the cost per byte. Cycles per byte = b × the cycle rate, in "
        f"{escape(cycles_label(r.machine))}. n½ is the size at which overhead and per-byte cost "
        "are equal. Block-sized steps and size-dependent code paths show up as a lower R² and "
        "as a b that differs from the model-free cycles per byte at the largest size (median "
        "ticks per operation ÷ size), shown next to it."
    )


def heap(r: RunResults, size: int | None) -> str:
    cases = [c for c in r.symmetric_cases() if size is None or c.size == size]
    if not cases:
        return "<p>No successful cases.</p>"
    cells = _primary_at(r, size) if size is not None else {}
    rows_l = [lb for lb in r.labels() if any(k[0] == lb for k in cells)]
    cols = [a for a in r.algorithms() if any(k[1] == a for k in cells)]
    values = {k: c.heap_figure("bytes_per_op") for k, c in cells.items()}
    notes = {k: _heap_note(c) for k, c in cells.items()}
    positive = {k: v for k, v in values.items() if v is not None and v > 0}
    svg = (
        plots.heatmap(
            "heap bytes per operation (bytes/allocations annotated)",
            rows_l,
            cols,
            positive,
            "bytes/op",
            notes,
            cmap="magma_r",
        )
        if cells
        else ""
    )
    rows = [
        (
            c.label,
            c.algorithm,
            c.operation,
            format_measured(c.heap_figure("bytes_per_op")),
            format_measured(c.heap_figure("allocs_per_op"), ".2f"),
            format_measured(c.heap_figure("peak_live_bytes")),
            format_measured(c.heap_figure("prepare_allocs")),
            format_measured(c.heap_figure("prepare_bytes")),
            format_kib(c.rss_rise_kb),
            num(c.max_rss_kb, ".0f"),
        )
        for c in sorted(cases, key=lambda c: (c.algorithm, c.operation, c.label))
    ]
    table = html_table(
        [
            "provider",
            "algorithm",
            "operation",
            "heap bytes/op",
            "allocations/op",
            "peak live bytes",
            "key-setup allocations",
            "key-setup bytes",
            "peak RSS rise",
            "runner max RSS (KiB)",
        ],
        rows,
        numeric={3, 4, 5, 6, 7, 8, 9},
    )
    details = f"<details><summary>table</summary>{table}</details>"
    return (
        svg_row([svg] if svg else [])
        + details
        + how(
            "The runner's heap counter runs while a few untimed operations run; figures are per "
            "operation. Each runner counts what its runtime can: the native and Rust runners "
            "every malloc/calloc/realloc/free call and byte (and the native one anonymous mmap), "
            "the Go runner the Go heap, the JVM runner the Java allocations of its thread, the "
            "Python runner the Python heap (tracemalloc); a figure a runner cannot count is 'not "
            "measured', never 0. Key-setup figures are for preparing the key schedule once. Peak "
            "RSS rise is how far the process's resident peak (VmHWM, reset before the operations) "
            "rose above its resident set (VmRSS) while they ran: it sees what the heap counter "
            "cannot, memory a C or Rust extension or a JNI library takes, in every runner alike; "
            "memory the process already held resident and reuses is not in it. Max RSS is the "
            "runner process's peak resident set over its life, which includes every library "
            "loaded. White heatmap cells: no heap use per operation; 'not measured': the runner "
            "cannot count heap bytes."
        )
    )


def _heap_note(c: CaseResult) -> str:
    """A heap heatmap cell: bytes/allocations per operation, or what was not measured."""
    heap_bytes, allocs = c.heap_figure("bytes_per_op"), c.heap_figure("allocs_per_op")
    if heap_bytes is None:
        return "not\nmeasured"
    return f"{heap_bytes:.0f}" + ("" if allocs is None else f"/{allocs:.1f}")


def boxplots(r: RunResults, size: int | None) -> str:
    if size is None:
        return "<p>No successful cases.</p>"
    figs = []
    for algorithm in r.algorithms():
        cases = {
            c.label: c.ns
            for c in r.symmetric_cases()
            if c.algorithm == algorithm and c.size == size and c.operation in PRIMARY_OPERATIONS
        }
        groups = {label: cases[label] for label in r.labels() if label in cases}
        if groups:
            figs.append(plots.box_plot(f"{algorithm} at {format_size(size)}", groups))
    if not figs:
        return "<p>No successful cases at this size.</p>"
    return svg_row(figs) + how(
        "Each box shows one case's samples of the time per operation (primary operation of the "
        "algorithm), as the deviation from that case's own median, so the spread of a fast and "
        "a slow provider can be compared; the medians themselves are in the heatmap and the "
        "tables. The box spans the first to the third quartile, whiskers reach the furthest "
        "sample within 1.5 × the interquartile range, dots are samples beyond. Samples were "
        "taken in small batches round-robin across providers, so machine drift spreads over "
        "all of them."
    )


def variants(r: RunResults, size: int | None) -> str:
    by_provider: dict[str, set[str]] = {}
    for c in r.cases:
        by_provider.setdefault(c.provider, set()).add(c.variant)
    multi = {p for p, vs in by_provider.items() if len(vs) > 1}
    if not multi or size is None:
        return "<p>No provider was measured with more than one variant in this run.</p>"
    groups: dict[str, dict[str, float]] = {}
    rows = []
    for c in r.symmetric_cases():
        if c.provider in multi and c.size == size and c.operation in PRIMARY_OPERATIONS:
            groups.setdefault(f"{c.provider} {c.algorithm}", {})[c.variant] = c.bytes_per_s or 0
    for name, bars in sorted(groups.items()):
        base = bars.get("default")
        for variant, value in sorted(bars.items()):
            if variant != "default":
                speedup = f"{base / value:.2f}×" if base and value else "-"
                rows.append(
                    (*name.split(" ", 1), variant, format_rate(base), format_rate(value), speedup)
                )
    groups = {k: v for k, v in groups.items() if len(v) > 1}
    svg = plots.variant_bars(f"variants at {format_size(size)}", groups) if groups else ""
    table = html_table(
        ["provider", "algorithm", "variant", "default", "variant throughput", "default ÷ variant"],
        rows,
        numeric={3, 4, 5},
    )
    return (
        svg_row([svg] if svg else [])
        + table
        + how(
            "Variants are the same library with hardware acceleration switched off (or "
            "narrowed) through the library's own switch, e.g. OPENSSL_ia32cap for OpenSSL; each "
            "variant runs in a runner process of its own. The speed-up is the default's "
            "throughput divided by the variant's, from the medians, at the same size."
        )
    )


def failures(r: RunResults) -> str:
    if not r.failures:
        return "<p>None.</p>"
    rows = [
        (
            f.get("provider") or "-",
            f.get("variant") or "-",
            f.get("algorithm") or "-",
            f.get("operation") or "-",
            size_text(f.get("size")),
            f["kind"],
            f["message"],
        )
        for f in r.failures
    ]
    return html_table(
        ["provider", "variant", "algorithm", "operation", "size", "kind", "reason"], rows
    ) + how(
        "kind: <i>gate</i> = refused by the correctness gate (never timed); <i>crash</i> / "
        "<i>timeout</i> = the runner process died or stopped answering (it was restarted for "
        "the provider's other cases); <i>library</i> = the library reported an error; "
        "<i>protocol</i>/<i>start</i> = the runner misbehaved or could not start."
    )


def all_results(r: RunResults, checks: Checks | None = None) -> str:
    """Every case; with `checks` (any leaks run in the store) its constant-time verdicts."""
    rows = []
    for c in r.cases:
        verdicts = [checks.of(c.label, c.algorithm, c.operation).short()] if checks else []
        s = c.summary
        status = c.status + (" (unstable)" if c.unstable else "")
        rows.append(
            (
                c.label,
                c.algorithm_label,
                c.operation,
                format_size(c.size),
                format_ns(s.median) if s else "-",
                f"{format_ns(s.ci_low)} – {format_ns(s.ci_high)}" if s else "-",
                f"{format_ns(s.q1)} – {format_ns(s.q3)}" if s else "-",
                format_ns(s.mad) if s else "-",
                format_rate(c.bytes_per_s),
                format_ops(c.ops_per_s),
                num(c.cycles_per_byte, ".2f"),
                _samples_cell(c),
                *verdicts,
                status + (f": {c.reason}" if c.reason else ""),
            )
        )
    table = html_table(
        [
            "provider",
            "algorithm",
            "operation",
            "size",
            "median/op",
            "95% CI",
            "quartiles",
            "MAD",
            "throughput",
            "ops/s",
            "ref. cycles/byte",
            "samples",
            *(["constant time"] if checks else []),
            "status",
        ],
        rows,
        numeric={4, 7, 8, 9, 10},
        row_ids=[case_anchor(c) for c in r.cases],
        markup={11},
        collapse=False,
    )
    return f"<details><summary>{len(rows)} cases</summary>{table}</details>" + how(
        "Median, quartiles (linear interpolation), MAD (median absolute deviation, unscaled) and "
        "the bootstrap 95% CI of the median (2000 resamples, fixed seed) over each case's "
        "per-operation samples. Formulas: docs/methodology.md in the cryptobench repository."
    )


def case_anchor(c: CaseResult) -> str:
    return anchor("case", c.label, c.algorithm_label, c.operation, c.size)


def curve_anchor(algorithm: str, operation: str) -> str:
    return anchor("curve", algorithm, operation)


def _samples_cell(c: CaseResult) -> str:
    """The sample count, unfolding to every per-operation time, and a link to the case's curve."""
    s = c.summary
    if not s:
        return "-"
    times = ", ".join(format_ns(t) for t in c.ns)
    curve = (
        f' · <a href="#{curve_anchor(c.algorithm, c.operation)}">curve</a>'
        if c.symmetric and c.size > 0
        else ""
    )
    return f"<details><summary>{s.n}</summary>{escape(times)}</details>{curve}"


def _operations(r: RunResults, algorithm: str) -> list[str]:
    ops: list[str] = []
    for c in r.cases:
        if c.algorithm == algorithm and c.operation not in ops:
            ops.append(c.operation)
    return ops


def _primary_at(r: RunResults, size: int) -> dict[tuple[str, str], CaseResult]:
    return {
        (c.label, c.algorithm): c
        for c in r.symmetric_cases()
        if c.size == size and c.operation in PRIMARY_OPERATIONS
    }
