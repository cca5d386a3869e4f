"""`cryptobench runs` and `cryptobench show`: the stored runs, and the tables of one."""

import argparse

from cryptobench import analysis, lifecycle, scenarios, store, terminal
from cryptobench.commands.common import names
from cryptobench.errors import UserError
from cryptobench.tables import text_table
from cryptobench.units import format_ns, format_size, parse_sizes


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser("runs", parents=[db], help="list the stored runs")
    c.set_defaults(func=cmd_runs)

    c = sub.add_parser("show", parents=[db], help="tables for one run")
    c.add_argument("run", nargs="?", default="latest", help="run number (default: latest)")
    c.add_argument("-p", "--providers", action="append", metavar="LIST", help="only these")
    c.add_argument("-a", "--algorithms", action="append", metavar="LIST", help="only these")
    c.add_argument("-s", "--sizes", metavar="LIST", help="only these sizes")
    c.set_defaults(func=cmd_show)


def cmd_runs(args: argparse.Namespace) -> int:
    db = store.Store.open(args.db, create=False)
    rows = []
    for r in db.runs():
        done = sum(n for s, n in r.counts.items() if s != "pending")
        rows.append(
            [
                r.id,
                r.started_at.replace("T", " ")[:19],
                lifecycle.displayed_status(r),
                r.suite,
                f"{done}/{sum(r.counts.values())}",
                r.counts.get("failed", 0),
                r.hostname,
                r.note,
            ]
        )
    if not rows:
        print(f"no runs in {db.path}")
        return 0
    print(
        text_table(
            ["run", "started (UTC)", "status", "suite", "cases", "failed", "host", "note"], rows
        )
    )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    db = store.Store.open(args.db, create=False)
    results = analysis.load(db, db.resolve_run(args.run))
    scenario = scenarios.for_suite(results.run.suite)
    if scenario is not None:
        r = results.run
        print(f"run {r.id} · {r.suite} · {r.status} · started {r.started_at}\n")
        print(scenario.summary(scenario.stored(db, r.id)))
        return 0
    providers = names(args.providers)
    algorithms = names(args.algorithms)
    sizes = parse_sizes(args.sizes) if args.sizes else None
    _check_known("provider", providers, {n for c in results.cases for n in (c.provider, c.label)},
                 results.run.id)  # fmt: skip
    _check_known("algorithm", algorithms, {c.algorithm for c in results.cases}, results.run.id)
    _check_known("size", sizes, {c.size for c in results.cases}, results.run.id)
    cases = [
        c
        for c in results.cases
        if (not providers or c.provider in providers or c.label in providers)
        and (not algorithms or c.algorithm in algorithms)
        and (not sizes or c.size in sizes)
    ]
    print(terminal.run_header(results))
    print()
    print(text_table(terminal.CASE_HEADERS, terminal.case_rows(cases)))
    floor = analysis.harness_floor(results.cases)
    if floor:
        print(
            "\nharness floor (null provider): "
            + ", ".join(f"{format_size(n)} {format_ns(ns)}/op" for n, ns in sorted(floor.items()))
        )
    fits = [
        f
        for f in results.fits
        if (not providers or f.provider in providers or f.label in providers)
        and (not algorithms or f.algorithm in algorithms)
    ]
    if fits:
        print(
            "\nper-call overhead a and per-byte cost b from t(n) = a + b·n "
            "(cycles are reference cycles, TSC):"
        )
        print(terminal.fits_text(fits))
    moved = [(c, c.clock_moved) for c in cases if c.clock_moved]
    if moved:
        print(f"\nwarning: the core clock moved by more than 2% during {len(moved)} cases:")
        for c, change in moved[:10]:
            print(f"  {c.label} {c.algorithm} {c.operation} {c.size}: {change:+.1%}")
    failed = [c for c in cases if c.status == "failed"]
    if failed:
        print("\nfailures:")
        for c in failed:
            print(f"  {c.label} {c.algorithm} {c.operation} {c.size}: {c.reason}")
    return 0


def _check_known(what: str, asked: list | None, present: set, run_id: int) -> None:
    """`show -p nosuch` names what the run does not have instead of printing an empty table."""
    missing = [a for a in asked or () if a not in present]
    if missing:
        have = ", ".join(str(p) for p in sorted(present, key=str)) or "none"
        raise UserError(f"run {run_id} has no {what} {missing[0]} (it has: {have})")
