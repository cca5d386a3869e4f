"""Terminal presentation: the tables `list`, `run` and `show` print. Pure functions from
results to text; nothing here measures, stores or reads the database."""

import math

from cryptobench import analysis, plan
from cryptobench.capabilities import Capabilities
from cryptobench.tables import text_table
from cryptobench.units import compact, format_ns, format_ops, format_rate, format_size


def capabilities_text(caps: Capabilities) -> str:
    m = caps.machine
    head = (
        f"{caps.runner} {caps.runner_version} on {m.get('cpu_model', '?')}, "
        f"{m.get('cores', '?')} cores, {m.get('os', '?')}"
    )
    providers = text_table(
        ["provider", "version", "variants", "algorithms"],
        [
            [p.name, p.version, ", ".join(p.variant_names()), len(p.algorithms)]
            for p in caps.providers.values()
        ],
    )
    absent = "".join(
        f"\nabsent runner: {name} — {why}" for name, why in sorted(caps.absent.items())
    ) + "".join(
        f"\nabsent provider: {name} — {why}"
        for name, why in sorted(caps.raw.get("absent_providers", {}).items())
    )
    return f"{head}\n\n{providers}\n\n{support_matrix(caps)}{absent}"


def support_matrix(caps: Capabilities) -> str:
    providers = list(caps.providers.values())
    rows = []
    for alg in caps.algorithms.values():
        rows.append(
            [alg.name, alg.kind] + ["x" if alg.name in p.algorithms else "." for p in providers]
        )
    return text_table(["algorithm", "kind", *[p.name for p in providers]], rows)


def plan_text(the_plan: plan.Plan) -> str:
    per_target: dict[tuple[str, str], int] = {}
    for c in the_plan.cases:
        per_target[(c.provider, c.variant)] = per_target.get((c.provider, c.variant), 0) + 1
    table = text_table(
        ["provider", "variant", "cases"],
        [[p, v, n] for (p, v), n in sorted(per_target.items())],
    )
    samples = sum(c.samples for c in the_plan.cases)
    skipped = ", ".join(f"{n} {why}" for why, n in the_plan.skipped.items()) or "none"
    return (
        f"suite {the_plan.suite}: {the_plan.description}\n\n{table}\n\n"
        f"{len(the_plan.cases)} cases, {samples} samples; skipped: {skipped}"
    ) + (f"\n{not_offered_text(the_plan)}" if the_plan.not_offered else "")


def not_offered_text(the_plan: plan.Plan) -> str:
    """What the chosen providers do not offer of the chosen algorithms, one line per provider
    and reason: the runner's own reason where it gives one, else that the provider's listing
    does not name them ("" when every combination is offered)."""
    if not the_plan.not_offered:
        return ""
    grouped: dict[tuple[str, str], list[str]] = {}
    for n in the_plan.not_offered:
        generic = n["reason"].endswith(f"does not list {n['algorithm']}")
        reason = n["reason"].rsplit(" ", 1)[0] if generic else n["reason"]
        reason = reason.removeprefix(f"{n['provider']} does not offer {n['algorithm']}: ")
        grouped.setdefault((n["provider"], reason), []).append(f"{n['algorithm']} {n['operation']}")
    lines = [f"not offered ({len(the_plan.not_offered)} provider x algorithm x operation):"]
    for (provider, reason), what in sorted(grouped.items()):
        if reason.endswith("does not list"):
            lines.append(f"  {reason}: {', '.join(what)}")
        else:
            lines.append(f"  {provider}: {', '.join(what)}: {reason}")
    return "\n".join(lines)


def answer_text(results: analysis.RunResults) -> str:
    """The report's answer table (what `recommend` picks per kind of primitive at 128 bits, its
    figure and the runner-up), for the terminal: a run prints it as soon as it ends, before it
    writes the report. The notes (ties within the noise) are in the report and `recommend`."""
    from cryptobench import recommend

    rec = recommend.recommend(results, level=128, size=recommend.DEFAULT_SIZE)
    rows = [row[:4] for row in recommend.answer_rows(rec)]
    return "the answer, fastest at 128 bits (the report's first table):\n" + text_table(
        list(recommend.ANSWER_COLUMNS[:4]), rows
    )


def run_summary(results: analysis.RunResults) -> str:
    """Throughput of the primary operation of each symmetric algorithm at its largest size, and
    operations per second of every public-key and KDF case, per provider."""
    counts = results.run.counts
    lines = [f"run {results.run.id}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))]
    ok = [c for c in results.symmetric_cases() if c.operation in analysis.PRIMARY_OPERATIONS]
    largest: dict[str, int] = {}
    for c in ok:
        largest[c.algorithm] = max(largest.get(c.algorithm, 0), c.size)
    cells: dict[tuple[str, str], str] = {}
    for c in ok:
        if c.size == largest[c.algorithm]:
            mark = "~" if c.unstable else ""
            cells[(c.label, c.algorithm)] = mark + compact(
                c.bytes_per_s / 1e6 if c.bytes_per_s else math.nan
            )
    if cells:
        algorithms = [a for a in results.algorithms() if a in largest]
        labels = [lb for lb in results.labels() if any((lb, a) in cells for a in algorithms)]
        rows = [[lb, *[cells.get((lb, a), "") for a in algorithms]] for lb in labels]
        sizes = sorted(set(largest.values()))
        at = format_size(sizes[0]) if len(sizes) == 1 else "each algorithm's largest size"
        lines += [
            "",
            f"throughput in MB/s at {at} (~ = unstable):",
            text_table(["provider", *algorithms], rows),
        ]
    table = per_second_table(results)
    if table:
        lines += ["", "operations per second (~ = unstable):", table]
    failed = [c for c in results.cases if c.status == "failed"]
    if failed:
        lines += ["", f"{len(failed)} failed cases:"]
        lines += [
            f"  {c.label} {c.algorithm} {c.operation} {c.size}: {c.reason}" for c in failed[:10]
        ]
        if len(failed) > 10:
            lines.append(f"  … and {len(failed) - 10} more (cryptobench show {results.run.id})")
    return "\n".join(lines)


def per_second_table(results: analysis.RunResults) -> str:
    """Public-key and KDF cases: one row per algorithm, operation and cost, one column per
    provider, operations per second (a figure per byte means nothing for them)."""
    cases = [c for c in results.ok_cases() if not c.symmetric]
    if not cases:
        return ""
    labels = [lb for lb in results.labels() if any(c.label == lb for c in cases)]
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for c in cases:
        row = rows.setdefault((c.algorithm_label, c.operation), {})
        row[c.label] = ("~" if c.unstable else "") + compact(c.ops_per_s or math.nan)
    return text_table(
        ["algorithm", "op", *labels],
        [[alg, op, *[cells.get(lb, "") for lb in labels]] for (alg, op), cells in rows.items()],
    )


CASE_HEADERS = ["provider", "algorithm", "op", "size", "median/op", "95% CI", "throughput",
                "ops/s", "cyc/B", "heap B/op", "RSS rise", "status"]  # fmt: skip


def case_rows(cases: list[analysis.CaseResult]) -> list[list[str]]:
    rows = []
    for c in cases:
        s = c.summary
        rows.append(
            [
                c.label,
                c.algorithm_label,
                c.operation,
                format_size(c.size),
                format_ns(s.median) if s else "-",
                f"{format_ns(s.ci_low)}–{format_ns(s.ci_high)}" if s else "-",
                format_rate(c.bytes_per_s),
                format_ops(c.ops_per_s),
                f"{c.cycles_per_byte:.2f}" if c.cycles_per_byte is not None else "-",
                *c.memory_texts(),
                c.status + (" unstable" if c.unstable else ""),
            ]
        )
    return rows


def fits_text(fits: list[analysis.OverheadFit]) -> str:
    rows = [
        [
            f.label,
            f.algorithm,
            f.operation,
            f.overhead_text,
            f"{f.ns_per_byte:.4f}",
            f"{f.cycles_per_byte:.3f}" if f.cycles_per_byte is not None else "-",
            f"{f.fit.r2:.4f}",
        ]
        for f in fits
    ]
    return text_table(["provider", "algorithm", "op", "a ns/call", "b ns/B", "cyc/B", "R²"], rows)


def run_header(results: analysis.RunResults) -> str:
    r, m = results.run, results.machine
    return (
        f"run {r.id} · suite {r.suite} · {r.status} · started {r.started_at}"
        + (f" · {r.note}" if r.note else "")
        + f"\n{m.get('cpu_model', '?')}, {m.get('cores', '?')} cores, {m.get('kernel', '?')}; "
        f"{r.runner} {r.runner_version}; cryptobench {r.cryptobench_version}"
    )
