"""The Markdown export: the run's machine, libraries and results as tables for a README or PR."""

from cryptobench.analysis import RunResults
from cryptobench.tables import markdown_table
from cryptobench.units import format_ns, format_ops, format_rate, format_size


def render(results: RunResults, with_samples: bool = False) -> str:
    run, m = results.run, results.machine
    out = [
        f"# cryptobench run {run.id} ({run.suite})",
        "",
        f"{run.started_at} · {run.status} · cryptobench {run.cryptobench_version} · "
        f"{run.runner} {run.runner_version}" + (f" · {run.note}" if run.note else ""),
        "",
        f"Machine: {m.get('cpu_model', '?')}, {m.get('cores', '?')} cores, {m.get('os', '?')}, "
        f"{m.get('kernel', '?')}, {m.get('compiler', '?')}, TSC "
        f"{(m.get('tsc_hz') or 0) / 1e9:.3f} GHz",
        "",
        "## Libraries",
        "",
        markdown_table(
            ["provider", "variant", "version"],
            [[lib["provider"], lib["variant"], lib["version"]] for lib in results.libraries],
        ),
        "",
        "## Results",
        "",
        "Median time per operation with its bootstrap 95% confidence interval; cycles are "
        "reference cycles (TSC). Throughput and cycles per byte only for ciphers, AEADs, hashes "
        "and MACs; operations per second for every case (signatures, key agreement, key "
        "generation and KDFs are compared by it). KDFs show their cost parameters. Heap bytes "
        "per operation come from the runner's heap counter; RSS rise is how far the process's "
        "resident peak rose during the counted operations, which sees memory the heap counter "
        "cannot; 'not measured' where the runner could not count a figure.",
        "",
    ]
    rows = []
    for c in results.cases:
        s = c.summary
        rows.append(
            [
                c.provider,
                c.variant,
                c.algorithm_label,
                c.operation,
                format_size(c.size),
                format_ns(s.median) if s else "-",
                f"{format_ns(s.ci_low)} – {format_ns(s.ci_high)}" if s else "-",
                format_rate(c.bytes_per_s),
                format_ops(c.ops_per_s),
                f"{c.cycles_per_byte:.2f}" if c.cycles_per_byte is not None else "-",
                *c.memory_texts(),
                c.status
                + (" (unstable)" if c.unstable else "")
                + (f": {c.reason}" if c.reason else ""),
            ]
        )
    out.append(
        markdown_table(
            [
                "provider",
                "variant",
                "algorithm",
                "operation",
                "size",
                "median",
                "95% CI",
                "throughput",
                "ops/s",
                "cycles/B",
                "heap B/op",
                "RSS rise",
                "status",
            ],
            rows,
        )
    )
    if results.fits:
        out += [
            "",
            "## Per-call overhead and per-byte cost",
            "",
            "Least-squares fit t(n) = a + b·n over the sizes measured (weighted by 1/t²).",
            "",
            markdown_table(
                [
                    "provider",
                    "variant",
                    "algorithm",
                    "operation",
                    "a (ns/call)",
                    "b (ns/B)",
                    "cycles/B (TSC)",
                    "R²",
                ],
                [
                    [
                        f.provider,
                        f.variant,
                        f.algorithm,
                        f.operation,
                        f.overhead_text,
                        f"{f.ns_per_byte:.4f}",
                        f"{f.cycles_per_byte:.3f}" if f.cycles_per_byte is not None else "-",
                        f"{f.fit.r2:.4f}",
                    ]
                    for f in results.fits
                ],
            ),
        ]
    if with_samples:
        out += ["", "## Raw samples (iterations:ns:ticks)", ""]
        for c in results.cases:
            if c.raw_samples:
                triples = " ".join(f"{i}:{ns}:{t}" for i, ns, t in c.raw_samples)
                out.append(f"* {c.label} {c.algorithm} {c.operation} {c.size}: {triples}")
    return "\n".join(out) + "\n"
