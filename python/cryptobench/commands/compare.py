"""`cryptobench compare RUN_A RUN_B`: case by case for core runs, figure by figure for scenario
runs."""

import argparse

from cryptobench import analysis, compare, noise, scenarios, store
from cryptobench.commands.common import percent, probability
from cryptobench.compare_figures import compare_figures
from cryptobench.errors import UserError
from cryptobench.tables import text_table
from cryptobench.units import format_ns, format_size


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser("compare", parents=[db], help="compare two runs case by case")
    c.add_argument("run_a", metavar="RUN_A")
    c.add_argument("run_b", metavar="RUN_B")
    c.add_argument(
        "--threshold",
        type=percent,
        default=None,
        metavar="PERCENT",
        help="noise threshold in percent (default: this machine's run-to-run noise from "
        f"`cryptobench calibrate`, else {compare.DEFAULT_THRESHOLD:.0%}%)",
    )
    c.add_argument(
        "--alpha",
        type=probability,
        default=compare.DEFAULT_ALPHA,
        help="false-discovery rate of the Mann–Whitney U tests over all cases, "
        "Benjamini–Hochberg (default: 0.05)",
    )
    c.add_argument("--all", action="store_true", help="list unchanged cases too")
    c.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    db = store.Store.open(args.db, create=False)
    run_a = analysis.load(db, db.resolve_run(args.run_a))
    run_b = analysis.load(db, db.resolve_run(args.run_b))
    scenario_a = scenarios.for_suite(run_a.run.suite)
    scenario_b = scenarios.for_suite(run_b.run.suite)
    if scenario_a is not None or scenario_b is not None:
        if scenario_a is not scenario_b:
            raise UserError(
                f"runs {run_a.run.id} ({run_a.run.suite}) and {run_b.run.id} "
                f"({run_b.run.suite}) measured different things"
            )
        return _compare_scenario_runs(db, scenario_a, run_a, run_b, args)
    if args.threshold is not None:
        threshold, source = args.threshold / 100, "--threshold"
    else:
        found = noise.for_machine(db, run_b.machine)
        threshold, source = found.threshold, found.source
    comparisons = compare.compare_runs(run_a, run_b, threshold, args.alpha)
    rows = []
    for c in comparisons:
        if c.verdict == "same" and not args.all:
            continue
        ref = c.a or c.b
        assert ref
        rows.append([
            ref.label,
            ref.algorithm_label,
            ref.operation,
            format_size(ref.size),
            format_ns(c.a.median_ns) if c.a else "-",
            format_ns(c.b.median_ns) if c.b else "-",
            f"{c.ratio:.3f}" if c.ratio is not None else "-",
            f"{c.ci_low:.3f}–{c.ci_high:.3f}" if c.ci_low is not None else "-",
            f"{c.q:.2g}" if c.q is not None else "-",
            c.verdict + (" (unstable)" if c.unstable else ""),
        ])  # fmt: skip
    print(
        f"run {run_a.run.id} (A) vs run {run_b.run.id} (B): ratio = median time B / A with its "
        f"bootstrap 95% CI; a change must clear the noise threshold {threshold:.1%} ({source}) "
        f"and Mann–Whitney U after Benjamini–Hochberg, FDR {args.alpha:g}"
    )
    for warning in compare.warnings(run_a, run_b):
        print(f"warning: {warning}")
    if rows:
        headers = ["provider", "algorithm", "op", "size", "A median", "B median", "B/A",
                   "95% CI", "q", "verdict"]  # fmt: skip
        print("\n" + text_table(headers, rows))
    counts = compare.tally(comparisons)
    print("\nsummary: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    spread = compare.spread(comparisons)
    if spread:
        print(
            f"run-to-run spread |B/A − 1| over {spread.cases} cases: median "
            f"{spread.median * 100:.1f}%, 90th percentile {spread.p90 * 100:.1f}%"
        )
    return 0


def _compare_scenario_runs(db, scenario, run_a, run_b, args: argparse.Namespace) -> int:
    a = scenario.stored(db, run_a.run.id).figures
    b = scenario.stored(db, run_b.run.id).figures
    threshold = (args.threshold if args.threshold is not None else 5.0) / 100
    comparisons = compare_figures(a, b, threshold, args.alpha)
    rows = []
    for c in comparisons:
        if c.verdict == "same" and not args.all:
            continue
        f = c.figure
        rows.append([
            f.label,
            f"{f.metric} ({f.unit}, {f.better} is better)",
            f"{c.a.median:.4g}" if c.a and c.a.median is not None else "-",
            f"{c.b.median:.4g}" if c.b and c.b.median is not None else "-",
            f"{c.ratio:.3f}" if c.ratio is not None else "-",
            f"{c.p:.2g}" if c.p is not None else "few runs",
            c.verdict,
        ])  # fmt: skip
    print(
        f"run {run_a.run.id} (A) vs run {run_b.run.id} (B), scenario {scenario.name}: ratio = "
        f"median B / A; noise threshold {threshold:.0%}; Mann–Whitney U, alpha "
        f"{args.alpha:g}, where both runs have 3 or more repetitions"
    )
    if rows:
        headers = ["figure", "metric", "A", "B", "B/A", "p", "verdict"]
        print("\n" + text_table(headers, rows))
    counts: dict[str, int] = {}
    for c in comparisons:
        counts[c.verdict] = counts.get(c.verdict, 0) + 1
    print("\nsummary: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    return 0
