"""The HTML report: one self-contained file (inline SVG figures, inline CSS, no scripts, nothing
fetched from the network). Each section says how its figures were obtained."""

from collections.abc import Iterable, Sequence
from html import escape

from cryptobench import __version__, plots, security, stats
from cryptobench.analysis import PRIMARY_OPERATIONS, CaseResult, RunResults
from cryptobench.errors import UserError
from cryptobench.units import compact, format_ns, format_ops, format_rate, format_size

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

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .6em 0; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 2px 7px; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f4f4f4; }
.how { background: #f7f9fc; border-left: 3px solid #8aa4d6; padding: .4em .8em; margin: .6em 0;
       font-size: 13px; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.figs svg { max-width: 100%; height: auto; }
.bad { color: #a40000; } .warn { color: #8a5a00; }
code { font-size: 12px; }
"""


def render(results: RunResults, size: int | None = None, scenario=None) -> str:
    """The whole report as an HTML string. `size` picks the message size of the heatmap, box
    plots and bar charts (default: see chosen_size). `scenario`: a scenarios.config.ScenarioRun
    stored with the run (its section)."""
    size = chosen_size(results, size)
    sections = [
        ("machine", "Machine and software", _machine(results)),
        ("libraries", "Libraries", _libraries(results)),
        ("overview", "Overview", _overview(results)),
        ("throughput", "Throughput vs message size", _throughput(results)),
        ("heatmap", f"Provider × algorithm at {_size(size)}", _heatmap(results, size)),
        ("overhead", "Per-call overhead and cycles per byte", _overhead(results)),
        ("heap", f"Heap per operation at {_size(size)}", _heap(results, size)),
        ("boxplots", f"Sample distributions at {_size(size)}", _boxplots(results, size)),
        ("variants", f"Hardware vs software variants at {_size(size)}", _variants(results, size)),
        ("publickey", "Public-key operations and key derivation", _public_key(results)),
        ("security", "Results by security level", _security(results, size)),
        ("failures", "Failures", _failures(results)),
        ("all", "All results", _all_results(results)),
    ]
    if scenario is not None:
        from cryptobench.scenarios import config as scenario_config

        section = (
            scenario_config.SECTION_KEY,
            scenario_config.SECTION_TITLE,
            scenario_config.render_section(
                scenario.analyse(), scenario.info, results.machine, scenario.spec, scenario.notes
            ),
        )
        if results.cases:
            sections.insert(2, section)  # after machine and libraries
        else:
            # A scenario run measures no primitives: the other sections would all be empty.
            sections = [*sections[:2], section]
    run = results.run
    title = f"cryptobench run {run.id}: {run.suite}"
    toc = "".join(f'<li><a href="#{key}">{escape(name)}</a></li>' for key, name, _ in sections)
    body = "".join(
        f'<section id="{key}"><h2>{escape(name)}</h2>{html}</section>'
        for key, name, html in sections
    )
    note = f" · {escape(run.note)}" if run.note else ""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f"<p>Run {run.id}, suite <b>{escape(run.suite)}</b>, {escape(run.status)}, started "
        f"{escape(run.started_at)}, finished {escape(run.finished_at or '-')}{note}. Measured by "
        f"{escape(run.runner)} {escape(run.runner_version)}; report by cryptobench "
        f"{escape(__version__)}.</p><ol>{toc}</ol>{body}</body></html>\n"
    )


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


# ---- sections ------------------------------------------------------------------------------------


def _machine(r: RunResults) -> str:
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
        _table(["", ""], rows)
        + all_flags
        + _how(
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


def _libraries(r: RunResults) -> str:
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
    return _table(["provider", "variant", "version", "variant means", "code path"], rows) + _how(
        "Versions and code paths as each library reports them, queried with the variant "
        "selected (a variant that switches code paths by environment variable is applied by the "
        "runner re-executing itself before any library loads)."
    )


def _overview(r: RunResults) -> str:
    counts = r.run.counts
    unstable = sum(1 for c in r.ok_cases() if c.unstable)
    rows = [(status, counts[status]) for status in sorted(counts)]
    rows.append(("ok but unstable", unstable))
    return _table(["cases", "count"], rows) + _how(
        "Every case passed the correctness gate (known-answer vectors, round trip, agreement "
        "with the other providers) before it was timed; a case the gate refused is "
        "<i>failed</i> and never timed. <i>Unstable</i>: the bootstrap 95% confidence interval "
        f"of the median is wider than {stats.UNSTABLE_CI_WIDTH:.0%} of the median "
        "(or fewer than 3 samples)."
    )


def _throughput(r: RunResults) -> str:
    figs = []
    for algorithm in r.algorithms():
        for operation in _operations(r, algorithm):
            series: dict[str, list[CaseResult]] = {}
            for c in r.symmetric_cases():
                if c.algorithm == algorithm and c.operation == operation and c.size > 0:
                    series.setdefault(c.label, []).append(c)
            if series:
                figs.append(plots.throughput_vs_size(f"{algorithm} {operation}", series))
    if not figs:
        return "<p>No successful cases.</p>"
    return _figs(figs) + _how(
        "For each case: the median over its samples of the time per operation (sample time ÷ "
        "operations in the sample, CLOCK_MONOTONIC); throughput = message size ÷ that median. "
        "Error bars: the bootstrap 95% confidence interval of the median, converted the same "
        "way. Both axes are logarithmic; dashed lines are non-default variants."
    )


def _heatmap(r: RunResults, size: int | None) -> str:
    if size is None:
        return "<p>No successful cases.</p>"
    cells = _primary_at(r, size)
    if not cells:
        return "<p>No successful cases at this size.</p>"
    rows = [lb for lb in r.labels() if any(k[0] == lb for k in cells)]
    cols = [a for a in r.algorithms() if any(k[1] == a for k in cells)]
    values = {k: c.bytes_per_s / 1e6 for k, c in cells.items() if c.bytes_per_s}
    notes = {k: compact(v) + ("~" if cells[k].unstable else "") for k, v in values.items()}
    svg = plots.heatmap(
        f"throughput (MB/s) at {format_size(size)}", rows, cols, values, "MB/s", notes
    )
    return _figs([svg]) + _how(
        "Throughput of the primary operation of each algorithm (encrypt for ciphers and AEADs, "
        f"hash, mac) at {format_size(size)}, from the median time per operation; the colour "
        "scale is logarithmic; ~ marks an unstable case; blank cells were not offered by the "
        "provider, failed, or not measured."
    )


def _overhead(r: RunResults) -> str:
    if not r.fits:
        return "<p>No size sweep with at least 3 sizes in this run.</p>"
    rows = []
    for f in sorted(r.fits, key=lambda f: (f.algorithm, f.operation, f.label)):
        rows.append(
            (
                f.label,
                f.algorithm,
                f.operation,
                _num(f.overhead_ns, ".1f") + _se(f.fit.intercept_se, ".1f"),
                _num(f.ns_per_byte, ".4f") + _se(f.fit.slope_se, ".4f"),
                _num(f.cycles_per_byte, ".3f"),
                _num(f.largest_cycles_per_byte, ".3f"),
                format_size(int(f.half_size)) if f.half_size else "-",
                _num(f.fit.r2, ".4f"),
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
    return _table(headers, rows, numeric={3, 4, 5, 6, 7, 8}) + _how(
        "A least-squares fit of t(n) = a + b·n to the median time per operation t at each "
        "message size n of the sweep, weighted by 1/t² so that each size counts by its relative "
        "error (timing noise grows with the time measured). a is the per-call overhead, b the "
        "cost per byte (± one standard error). Cycles per byte = b × TSC rate: "
        "<b>reference cycles</b> counted by the time-stamp counter at its constant rate, not "
        "core clock cycles (this machine has no hardware performance counters). n½ is the "
        "size at which overhead and per-byte cost are equal. The fit assumes cost grows "
        "linearly with size; block-sized steps, size-dependent code paths and cache effects "
        "show up as a lower R² and as a b that differs from the model-free cycles per byte "
        "measured at the largest size (median TSC ticks per operation ÷ size), shown next to it."
    )


def _heap(r: RunResults, size: int | None) -> str:
    cases = [c for c in r.symmetric_cases() if size is None or c.size == size]
    if not cases:
        return "<p>No successful cases.</p>"
    cells = _primary_at(r, size) if size is not None else {}
    rows_l = [lb for lb in r.labels() if any(k[0] == lb for k in cells)]
    cols = [a for a in r.algorithms() if any(k[1] == a for k in cells)]
    values = {k: c.heap.get("bytes_per_op", 0.0) for k, c in cells.items()}
    notes = {
        k: f"{c.heap.get('bytes_per_op', 0):.0f}/{c.heap.get('allocs_per_op', 0):.1f}"
        for k, c in cells.items()
    }
    positive = {k: v for k, v in values.items() if v > 0}
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
            _num(c.heap.get("bytes_per_op"), ".0f"),
            _num(c.heap.get("allocs_per_op"), ".2f"),
            _num(c.heap.get("peak_live_bytes"), ".0f"),
            _num(c.heap.get("prepare_allocs"), ".0f"),
            _num(c.heap.get("prepare_bytes"), ".0f"),
            _num(c.max_rss_kb, ".0f"),
        )
        for c in sorted(cases, key=lambda c: (c.algorithm, c.operation, c.label))
    ]
    table = _table(
        [
            "provider",
            "algorithm",
            "operation",
            "heap bytes/op",
            "allocations/op",
            "peak live bytes",
            "key-setup allocations",
            "key-setup bytes",
            "runner max RSS (KiB)",
        ],
        rows,
        numeric={3, 4, 5, 6, 7, 8},
    )
    details = f"<details><summary>table</summary>{table}</details>"
    return (
        _figs([svg] if svg else [])
        + details
        + _how(
            "The runner's interposed allocator counts malloc/calloc/realloc/free calls and bytes "
            "while a few untimed operations run; figures are per operation. Key-setup figures are "
            "for preparing the key schedule once. Blind spots: memory a library takes without "
            "malloc (mmap, Botan's locked pool, sodium_malloc) is not seen. Max RSS is the runner "
            "process's peak resident set so far (getrusage), which includes every library loaded. "
            "White heatmap cells: no heap use per operation."
        )
    )


def _boxplots(r: RunResults, size: int | None) -> str:
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
    return _figs(figs) + _how(
        "Each box shows one case's samples of the time per operation (primary operation of the "
        "algorithm), as the deviation from that case's own median, so the spread of a fast and "
        "a slow provider can be compared; the medians themselves are in the heatmap and the "
        "tables. The box spans the first to the third quartile, whiskers reach the furthest "
        "sample within 1.5 × the interquartile range, dots are samples beyond. Samples were "
        "taken in small batches round-robin across providers, so machine drift spreads over "
        "all of them."
    )


def _variants(r: RunResults, size: int | None) -> str:
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
    table = _table(
        ["provider", "algorithm", "variant", "default", "variant throughput", "default ÷ variant"],
        rows,
        numeric={3, 4, 5},
    )
    return (
        _figs([svg] if svg else [])
        + table
        + _how(
            "Variants are the same library with hardware acceleration switched off (or "
            "narrowed) through the library's own switch, e.g. OPENSSL_ia32cap for OpenSSL; each "
            "variant runs in a runner process of its own. The speed-up is the default's "
            "throughput divided by the variant's, from the medians, at the same size."
        )
    )


# The signature algorithms of the sign/verify bar chart (issue 5): the first measured scheme of
# each key stands for it.
_SIGNATURE_FIGURE = (
    ("RSA-2048", ("rsa-2048-pkcs1-sha256", "rsa-2048-pss-sha256")),
    ("RSA-4096", ("rsa-4096-pkcs1-sha256", "rsa-4096-pss-sha256")),
    ("ECDSA P-256", ("ecdsa-p256",)),
    ("Ed25519", ("ed25519",)),
)
_PK_OPERATIONS = ("keygen", "sign", "verify", "encrypt", "decrypt", "derive")


def _public_key(r: RunResults) -> str:
    cases = [c for c in r.ok_cases() if not c.symmetric]
    if not cases:
        return "<p>No public-key or key-derivation cases in this run.</p>"
    parts = [
        _lax(cases),
        _pk_table(r, [c for c in cases if c.kind != "kdf" and c.operation != "keygen"]),
        _signature_bars(r, cases),
        _key_agreement(r, [c for c in cases if c.kind == "key-agreement"]),
        _keygen(r, [c for c in cases if c.operation == "keygen"]),
        _kdfs(r, [c for c in cases if c.kind == "kdf"]),
    ]
    return "".join(parts) + _how(
        "Public-key and key-derivation figures are <b>operations per second</b> (10⁹ ÷ the median "
        "time per operation) and the median time per operation with its bootstrap 95% CI, from "
        "the same sampling as every other case; a throughput in bytes per second would mean "
        "nothing for them. Signing and verifying hash a short message (the size shown, 32 bytes "
        "in the shipped suites) with the key of the runner's fixed test key set; OAEP encrypts "
        "such a message; key agreement derives one shared secret from a fixed key pair and peer "
        "key (no key generation inside); a KDF derives one key from a 16-byte password at the "
        "cost parameters shown. Key generation is sampled one key per sample, so its "
        "distribution is the spread over many keys."
    )


def _lax(cases: list[CaseResult]) -> str:
    """Cases that passed the gate while deviating from a standard's strict rules (docs/protocol.md:
    e.g. a verifier accepting a non-canonical EdDSA signature): right output, worth knowing."""
    rows = [(c.label, c.algorithm, c.operation, c.gate.get("lax", "")) for c in cases]
    rows = [row for row in rows if row[3]]
    if not rows:
        return ""
    return (
        "<h3>Lax verifiers</h3>"
        + _table(["provider", "algorithm", "operation", "what the gate saw"], rows)
        + _how(
            "These providers produced correct output and accept every valid signature, but also "
            "accept a signature only a strict verifier rejects (RFC 8032 requires rejecting "
            "S ≥ L and, for Ed448, a non-zero last byte). That makes their signatures malleable: "
            "a second encoding of the same signature verifies. They are timed; mind this if your "
            "protocol relies on signatures being unique."
        )
    )


def _pk_table(r: RunResults, cases: list[CaseResult]) -> str:
    if not cases:
        return ""
    rows = [
        (
            c.label,
            c.algorithm,
            c.operation,
            format_size(c.size) if c.size else "-",
            format_ops(c.ops_per_s),
            format_ns(c.median_ns),
            _ci(c),
            str(c.summary.n) if c.summary else "-",
            _num(c.heap.get("bytes_per_op"), ".0f"),
        )
        for c in _pk_order(r, cases)
    ]
    table = _table(
        [
            "provider",
            "algorithm",
            "operation",
            "message",
            "ops/s",
            "median/op",
            "95% CI of the median",
            "samples",
            "heap B/op",
        ],
        rows,
        numeric={4, 5, 6, 7, 8},
    )
    return f"<h3>Signatures, public-key encryption, key agreement</h3>{table}"


def _signature_bars(r: RunResults, cases: list[CaseResult]) -> str:
    groups: dict[str, dict[str, float]] = {}
    errors: dict[str, dict[str, tuple[float, float]]] = {}
    for title, names in _SIGNATURE_FIGURE:
        measured = [n for n in names if any(c.algorithm == n for c in cases)]
        if not measured:
            continue
        for op in ("sign", "verify"):
            key = f"{title} {op}" + (f" ({measured[0]})" if title.startswith("RSA") else "")
            for c in cases:
                if c.algorithm == measured[0] and c.operation == op and c.ops_per_s:
                    groups.setdefault(key, {})[c.label] = c.ops_per_s
                    errors.setdefault(key, {})[c.label] = _ops_ci(c)
    if not groups:
        return ""
    svg = plots.ops_bars("sign and verify", _ordered(r, groups), errors, palette=r.labels())
    return "<h3>Sign and verify</h3>" + _figs([svg])


def _key_agreement(r: RunResults, cases: list[CaseResult]) -> str:
    groups: dict[str, dict[str, float]] = {}
    errors: dict[str, dict[str, tuple[float, float]]] = {}
    for c in _pk_order(r, cases):
        if c.ops_per_s:
            groups.setdefault(c.algorithm, {})[c.label] = c.ops_per_s
            errors.setdefault(c.algorithm, {})[c.label] = _ops_ci(c)
    if not groups:
        return ""
    svg = plots.ops_bars(
        "key agreement: shared secrets per second",
        _ordered(r, groups),
        errors,
        palette=r.labels(),
    )
    return "<h3>Key agreement</h3>" + _figs([svg])


def _keygen(r: RunResults, cases: list[CaseResult]) -> str:
    if not cases:
        return ""
    figs = []
    for algorithm in r.algorithms():
        groups = {c.label: c.ns for c in cases if c.algorithm == algorithm and c.ns.size}
        if groups:
            ordered = {lb: groups[lb] for lb in r.labels() if lb in groups}
            figs.append(plots.spread_box(f"{algorithm} key generation", ordered, "ms per key"))
    rows = []
    for c in _pk_order(r, cases):
        s = c.summary
        if not s:
            continue
        rows.append(
            (
                c.label,
                c.algorithm,
                str(s.n),
                format_ns(s.median),
                f"{format_ns(s.q1)} – {format_ns(s.q3)}",
                f"{format_ns(s.min)} – {format_ns(s.max)}",
                format_ops(c.ops_per_s),
                _ci(c),
            )
        )
    table = _table(
        [
            "provider",
            "key type",
            "keys",
            "median per key",
            "quartiles",
            "min – max",
            "keys/s (from the median)",
            "95% CI of the median",
        ],
        rows,
        numeric={2, 3, 6},
    )
    return (
        "<h3>Key generation</h3>"
        + _figs(figs)
        + table
        + _how(
            "Each sample generates one key pair (the runner fixes one operation per sample for "
            "key generation), so every box is the distribution over that many fresh keys, on a "
            "logarithmic axis. RSA key generation searches for random primes and varies by an "
            "order of magnitude from key to key: read its median with the quartiles and the "
            "range, not alone."
        )
    )


def _kdfs(r: RunResults, cases: list[CaseResult]) -> str:
    if not cases:
        return ""
    rows = [
        (
            c.label,
            c.algorithm,
            _cost_text(c),
            format_ns(c.median_ns),
            _ci(c),
            format_ops(c.ops_per_s),
            str(c.summary.n) if c.summary else "-",
            _num(c.heap.get("peak_live_bytes"), ".0f"),
        )
        for c in _pk_order(r, cases)
    ]
    groups: dict[str, dict[str, float]] = {}
    errors: dict[str, dict[str, tuple[float, float]]] = {}
    for c in cases:
        if c.ops_per_s:
            groups.setdefault(c.algorithm_label, {})[c.label] = c.ops_per_s
            errors.setdefault(c.algorithm_label, {})[c.label] = _ops_ci(c)
    svg = plots.ops_bars(
        "key derivations per second", _ordered(r, groups), errors, palette=r.labels()
    )
    table = _table(
        [
            "provider",
            "KDF",
            "cost parameters",
            "median per derivation",
            "95% CI",
            "derivations/s",
            "samples",
            "peak live heap (B)",
        ],
        rows,
        numeric={3, 5, 6, 7},
    )
    return (
        "<h3>Key derivation</h3>"
        + _figs([svg])
        + table
        + _how(
            "Each figure holds only for its cost parameters (PBKDF2: iterations; scrypt: N, r, p; "
            "Argon2id: t passes over m KiB with p lanes): a password KDF is meant to be slow, so "
            "compare providers at equal cost, not KDFs with each other. Memory-hard KDFs that "
            "allocate their memory outside malloc show little heap."
        )
    )


def _cost_text(c: CaseResult) -> str:
    return " ".join(f"{k}={v}" for k, v in c.cost.items()) or "-"


def _security(r: RunResults, size: int | None) -> str:
    levels = security.levels()
    year = security.current_year()
    # Symmetric algorithms are compared at the report's size where they were measured there,
    # else at their largest size.
    sizes: dict[str, set[int]] = {}
    for c in r.symmetric_cases():
        sizes.setdefault(c.algorithm, set()).add(c.size)
    at = {a: size if size in s else max(s) for a, s in sizes.items()}
    # One operation per algorithm: the first of _PREFERRED it was measured with.
    measured_ops: dict[str, set[str]] = {}
    for c in r.ok_cases():
        measured_ops.setdefault(c.algorithm_label, set()).add(c.operation)
    shown = {
        label: next(op for op in _PREFERRED if op in ops) for label, ops in measured_ops.items()
    }
    best: dict[tuple[str, str], CaseResult] = {}
    for c in r.ok_cases():
        if c.operation != shown[c.algorithm_label]:
            continue
        if c.symmetric and c.size != at[c.algorithm]:
            continue
        key = (c.algorithm_label, c.operation)
        if key not in best or _speed(c) > _speed(best[key]):
            best[key] = c
    if not best:
        return "<p>No successful cases.</p>"
    order = {a: i for i, a in enumerate(r.algorithms())}
    rows = []
    for (label, op), c in sorted(
        best.items(),
        key=lambda kv: (-_rating_level(levels, kv[1].algorithm), order[kv[1].algorithm], kv[0]),
    ):
        rating = levels.get(c.algorithm)
        figure = (
            f"{format_rate(c.bytes_per_s)} at {format_size(c.size)}"
            if c.symmetric
            else format_ops(c.ops_per_s)
        )
        verdicts = rating.verdicts if rating else {}
        rows.append(
            (
                _level_name(rating.level) if rating else "?",
                c.kind,
                label,
                str(rating.strength) if rating else "?",
                op,
                c.label,
                ("~" if c.unstable else "") + figure,
                *(verdicts[d].describe(year) if d in verdicts else "?" for d in security.DOCUMENTS),
            )
        )
    docs = "; ".join(
        f"<b>{escape(k)}</b>: {escape(d.citation)}" for k, d in levels.documents.items()
    )
    return _table(
        [
            "level (bits)",
            "kind",
            "algorithm",
            "strength",
            "operation",
            "fastest",
            "figure",
            "NIST",
            "BSI",
            "ECRYPT-CSA",
        ],
        rows,
        numeric={3},
    ) + _how(
        "Each algorithm measured in this run, under the largest of the security levels of NIST "
        "SP 800-57 Part 1 (80, 112, 128, 192, 256 bits) its strength reaches, with its fastest "
        "provider for one operation (the first measured of encrypt, hash, mac, sign, verify, "
        "derive, decrypt, keygen): symmetric algorithms by throughput at the report's size "
        "(else the algorithm's largest size), the others by operations per second. Strengths "
        "and verdicts come from the file <code>cryptobench/data/security_levels.toml</code>, "
        "which cites each document and says "
        "how each family is rated (hashes by collision resistance; KDFs by their PRF, never more "
        "than the password's entropy). Verdicts are for the year "
        f"{year}. Documents: {docs}. <code>cryptobench recommend</code> answers the same "
        "question per kind of primitive."
    )


def _speed(c: CaseResult) -> float:
    return (c.bytes_per_s if c.symmetric else c.ops_per_s) or 0.0


# The operation that stands for an algorithm in the security-level table, in order of preference.
_PREFERRED = (*PRIMARY_OPERATIONS, "sign", "verify", "derive", "decrypt", "keygen")


def _rating_level(levels: security.SecurityLevels, algorithm: str) -> int:
    rating = levels.get(algorithm)
    return rating.level if rating else -1


def _level_name(level: int) -> str:
    return "< 80 (broken)" if level == 0 else str(level)


def _pk_order(r: RunResults, cases: list[CaseResult]) -> list[CaseResult]:
    order = {a: i for i, a in enumerate(r.algorithms())}
    labels = {lb: i for i, lb in enumerate(r.labels())}
    ops = {op: i for i, op in enumerate(_PK_OPERATIONS)}
    return sorted(
        cases,
        key=lambda c: (
            order.get(c.algorithm, 0),
            _cost_text(c),
            ops.get(c.operation, 9),
            labels.get(c.label, 0),
        ),
    )


def _ordered(r: RunResults, groups: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each group's bars in the run's provider order, so colours and positions agree."""
    labels = r.labels()
    return {name: {lb: bars[lb] for lb in labels if lb in bars} for name, bars in groups.items()}


def _ci(c: CaseResult) -> str:
    s = c.summary
    return f"{format_ns(s.ci_low)} – {format_ns(s.ci_high)}" if s else "-"


def _ops_ci(c: CaseResult) -> tuple[float, float]:
    """The CI of the median time, as operations per second (the bounds swap)."""
    s = c.summary
    if not s or s.ci_low <= 0 or s.ci_high <= 0:
        value = c.ops_per_s or 0.0
        return value, value
    return 1e9 / s.ci_high, 1e9 / s.ci_low


def _failures(r: RunResults) -> str:
    if not r.failures:
        return "<p>None.</p>"
    rows = [
        (
            f.get("provider") or "-",
            f.get("variant") or "-",
            f.get("algorithm") or "-",
            f.get("operation") or "-",
            _size(f.get("size")),
            f["kind"],
            f["message"],
        )
        for f in r.failures
    ]
    return _table(
        ["provider", "variant", "algorithm", "operation", "size", "kind", "reason"], rows
    ) + _how(
        "kind: <i>gate</i> = refused by the correctness gate (never timed); <i>crash</i> / "
        "<i>timeout</i> = the runner process died or stopped answering (it was restarted for "
        "the provider's other cases); <i>library</i> = the library reported an error; "
        "<i>protocol</i>/<i>start</i> = the runner misbehaved or could not start."
    )


def _all_results(r: RunResults) -> str:
    rows = []
    for c in r.cases:
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
                _num(c.cycles_per_byte, ".2f"),
                str(s.n) if s else "-",
                status + (f": {c.reason}" if c.reason else ""),
            )
        )
    table = _table(
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
            "status",
        ],
        rows,
        numeric={4, 7, 8, 9, 10, 11},
    )
    return f"<details><summary>{len(rows)} cases</summary>{table}</details>" + _how(
        "Median, quartiles (linear interpolation), MAD (median absolute deviation, unscaled) and "
        "the bootstrap 95% CI of the median (2000 resamples, fixed seed) over each case's "
        "per-operation samples. Formulas: docs/methodology.md in the cryptobench repository."
    )


# ---- helpers -------------------------------------------------------------------------------------


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


def _table(
    headers: Sequence[str], rows: Iterable[Sequence[object]], numeric: set[int] | None = None
) -> str:
    numeric = numeric or set()
    head = "".join(f"<th>{escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{escape(_text(v))}</td>'
            if i in numeric
            else f"<td>{escape(_text(v))}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _text(v: object) -> str:
    return "-" if v is None else str(v)


def _figs(svgs: list[str]) -> str:
    return '<div class="figs">' + "".join(f"<figure>{s}</figure>" for s in svgs) + "</div>"


def _how(text: str) -> str:
    return f'<p class="how"><b>How this was obtained.</b> {text}</p>'


def _num(v: float | None, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def _se(v: float, fmt: str) -> str:
    return "" if v != v else f" ± {format(v, fmt)}"  # v != v: NaN, too few sizes for an error


def _size(size: int | None) -> str:
    return format_size(size) if size is not None else "-"
