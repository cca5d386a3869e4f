"""The `cryptobench` command: list, run, runs, show, report, export, compare, recommend, scenario.

Each command is a small function from parsed arguments to an exit status. User mistakes raise
UserError and end as one line, `cryptobench: error: ...`, with a non-zero exit.
"""

import argparse
import contextlib
import json
import math
import os
import signal
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from cryptobench import __version__, analysis, compare, plan, runner, store
from cryptobench.capabilities import Capabilities
from cryptobench.errors import UserError
from cryptobench.progress import ProgressBar
from cryptobench.tables import text_table
from cryptobench.units import (
    compact,
    format_ns,
    format_ops,
    format_rate,
    format_size,
    parse_size,
    parse_sizes,
)

EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, like every other user error, instead of argparse's usage block.
        print(f"cryptobench: error: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = ["cryptobench", *(sys.argv[1:] if argv is None else argv)]
    try:
        return args.func(args)
    except UserError as e:
        print(f"cryptobench: error: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except sqlite3.DatabaseError as e:
        print(f"cryptobench: error: database: {e}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("cryptobench: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `cryptobench show | head`: the reader went away, nothing left to say.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 0


# ---- argument parsing ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="cryptobench",
        description="Measure the cryptographic primitives of every crypto library on this "
        "machine, store the results, and report and compare them.",
    )
    p.add_argument("--version", action="version", version=f"cryptobench {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    db = _Parser(add_help=False)
    db.add_argument(
        "--db",
        type=Path,
        help="results database (default: $CRYPTOBENCH_DB, else "
        "$XDG_DATA_HOME/cryptobench/results.db)",
    )

    c = sub.add_parser("list", help="providers, variants, versions and the support matrix")
    c.add_argument("--json", action="store_true", help="print the runner's capabilities as JSON")
    c.set_defaults(func=cmd_list)

    c = sub.add_parser("run", parents=[db], help="measure a suite and store the results")
    c.add_argument(
        "--suite",
        default=None,
        help=f"suite name ({', '.join(plan.shipped_suites())}) or a .toml file (default: default)",
    )
    c.add_argument(
        "-p",
        "--providers",
        action="append",
        metavar="LIST",
        help="providers, comma-separated: NAME, NAME/VARIANT, NAME/all, all, all/all",
    )
    c.add_argument(
        "-a",
        "--algorithms",
        action="append",
        metavar="LIST",
        help="algorithms, comma-separated, or all",
    )
    c.add_argument(
        "--operations",
        action="append",
        metavar="LIST",
        help="operations, comma-separated: encrypt, decrypt, hash, mac, keygen, sign, verify, "
        "derive",
    )
    c.add_argument("-s", "--sizes", metavar="LIST", help="message sizes, e.g. 16,1K,64KiB,1M")
    c.add_argument("--samples", type=_positive_int, metavar="N", help="samples per case")
    c.add_argument(
        "--timeout",
        type=_positive_float,
        metavar="SECONDS",
        help="per-request runner timeout (default: the suite's, else 60)",
    )
    c.add_argument("--note", default="", help="a note stored with the run")
    c.add_argument("--json-out", type=Path, metavar="FILE", help="also write the JSON export")
    c.add_argument("--report", type=Path, metavar="FILE", help="also write the HTML report")
    c.add_argument("--resume", metavar="RUN", help="finish the pending cases of a stopped run")
    c.add_argument("--dry-run", action="store_true", help="show the plan, measure nothing")
    pin = c.add_mutually_exclusive_group()
    pin.add_argument(
        "--cpu",
        type=_non_negative_int,
        metavar="N",
        help="pin the runners to CPU N (default: the last CPU)",
    )
    pin.add_argument("--no-pin", action="store_true", help="do not pin the runners to a CPU")
    c.set_defaults(func=cmd_run)

    c = sub.add_parser("runs", parents=[db], help="list the stored runs")
    c.set_defaults(func=cmd_runs)

    c = sub.add_parser("show", parents=[db], help="tables for one run")
    c.add_argument("run", nargs="?", default="latest", help="run number (default: latest)")
    c.add_argument("-p", "--providers", action="append", metavar="LIST", help="only these")
    c.add_argument("-a", "--algorithms", action="append", metavar="LIST", help="only these")
    c.add_argument("-s", "--sizes", metavar="LIST", help="only these sizes")
    c.set_defaults(func=cmd_show)

    c = sub.add_parser("report", parents=[db], help="write a self-contained HTML report")
    c.add_argument("run", nargs="?", default="latest", help="run number (default: latest)")
    c.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("report.html"),
        metavar="FILE",
        help="output file (default: report.html)",
    )
    c.add_argument(
        "--size",
        metavar="SIZE",
        help="message size for the heatmap, box plots and bar charts "
        "(default: the largest size most cases share)",
    )
    c.set_defaults(func=cmd_report)

    c = sub.add_parser("export", parents=[db], help="export one run as JSON, CSV or Markdown")
    c.add_argument("run", nargs="?", default="latest", help="run number (default: latest)")
    c.add_argument("--format", "-f", required=True, choices=_export_formats())
    c.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="output file (default: stdout)"
    )
    c.add_argument("--samples", action="store_true", help="include the raw samples")
    c.set_defaults(func=cmd_export)

    c = sub.add_parser("compare", parents=[db], help="compare two runs case by case")
    c.add_argument("run_a", metavar="RUN_A")
    c.add_argument("run_b", metavar="RUN_B")
    c.add_argument(
        "--threshold",
        type=_percent,
        default=compare.DEFAULT_THRESHOLD * 100,
        metavar="PERCENT",
        help="noise threshold in percent (default: 5)",
    )
    c.add_argument(
        "--alpha",
        type=_probability,
        default=compare.DEFAULT_ALPHA,
        help="significance level of the Mann–Whitney U test (default: 0.05)",
    )
    c.add_argument("--all", action="store_true", help="list unchanged cases too")
    c.set_defaults(func=cmd_compare)

    c = sub.add_parser(
        "recommend",
        parents=[db],
        help="the fastest measured algorithm and provider per kind at a security level",
    )
    c.add_argument(
        "--level",
        type=_positive_int,
        default=128,
        metavar="BITS",
        help="security strength in bits the algorithm must reach (default: 128)",
    )
    c.add_argument(
        "--size",
        metavar="BYTES",
        help="message size for ciphers, AEADs, hashes and MACs (default: 16 KiB, else the "
        "nearest measured size)",
    )
    c.add_argument("--run", default="latest", metavar="RUN", help="run number (default: latest)")
    c.add_argument("--json", action="store_true", help="print the answer as JSON")
    c.set_defaults(func=cmd_recommend)

    c = sub.add_parser("scenario", help="application scenarios: what crypto costs an application")
    scenarios = c.add_subparsers(dest="scenario", required=True, metavar="SCENARIO")
    s = scenarios.add_parser(
        "config",
        parents=[db],
        help="the thesis's benchmark: writing and reading encrypted configuration files",
    )
    from cryptobench.scenarios import config as scenario_config

    scenario_config.add_arguments(s)
    s.set_defaults(func=scenario_config.command)
    return p


def _export_formats() -> list[str]:
    from cryptobench.export import FORMATS

    return list(FORMATS)


def _number(kind: Callable[[str], float], test: Callable[[float], bool], what: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {what}") from None
        if not test(value):
            raise argparse.ArgumentTypeError(f"'{text}' is not {what}")
        return value

    return parse


_positive_int = _number(int, lambda v: v > 0, "a positive integer")
_non_negative_int = _number(int, lambda v: v >= 0, "a CPU number")
_positive_float = _number(float, lambda v: v > 0, "a positive number")
_percent = _number(float, lambda v: 0 <= v < 100, "a percentage between 0 and 100")
_probability = _number(float, lambda v: 0 < v < 1, "a probability between 0 and 1")


def _names(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    if not names:
        raise UserError("an empty list of names was given")
    return names


# ---- list ----------------------------------------------------------------------------------------


def cmd_list(args: argparse.Namespace) -> int:
    caps = runner.list_capabilities(runner.find_runner())
    if args.json:
        print(json.dumps(caps.raw, indent=2))
        return 0
    m = caps.machine
    print(
        f"{caps.runner} {caps.runner_version} on {m.get('cpu_model', '?')}, "
        f"{m.get('cores', '?')} cores, {m.get('os', '?')}"
    )
    print()
    print(
        text_table(
            ["provider", "version", "variants", "algorithms"],
            [
                [p.name, p.version, ", ".join(p.variant_names()), len(p.algorithms)]
                for p in caps.providers.values()
            ],
        )
    )
    print()
    print(support_matrix(caps))
    return 0


def support_matrix(caps: Capabilities) -> str:
    providers = list(caps.providers.values())
    rows = []
    for alg in caps.algorithms.values():
        rows.append(
            [alg.name, alg.kind] + ["x" if alg.name in p.algorithms else "." for p in providers]
        )
    return text_table(["algorithm", "kind", *[p.name for p in providers]], rows)


# ---- run -----------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    if args.resume is not None:
        return _resume(args)
    suite = plan.load_suite(args.suite or "default")
    overrides = plan.Overrides(
        providers=_names(args.providers),
        algorithms=_names(args.algorithms),
        operations=_names(args.operations),
        sizes=parse_sizes(args.sizes) if args.sizes is not None else None,
        samples=args.samples,
        timeout_s=args.timeout,
    )
    suite = plan.apply_overrides(suite, overrides)
    exe = runner.find_runner()
    caps = runner.list_capabilities(exe)
    the_plan = plan.expand(suite, caps)
    skipped = sum(the_plan.skipped.values())
    if not the_plan.cases:
        raise UserError(
            f"nothing to run: the providers chosen offer none of the algorithms chosen at these "
            f"sizes ({skipped} combinations skipped)"
        )
    if args.dry_run:
        _print_plan(the_plan)
        return 0
    libraries = _library_records(exe, caps, the_plan.cases)
    db = store.Store.open(args.db)
    run_id = db.create_run(
        suite=the_plan.suite,
        settings=the_plan.settings(),
        argv=args.argv,
        versions={
            "cryptobench": __version__,
            "runner": caps.runner,
            "runner_version": caps.runner_version,
            "runner_path": str(exe),
        },
        machine=caps.machine,
        libraries=libraries,
        cases=the_plan.cases,
        note=args.note,
    )
    note = f", {skipped} unsupported combinations skipped" if skipped else ""
    _say(f"run {run_id}: {len(the_plan.cases)} cases from suite {the_plan.suite}{note}")
    return _measure(db, run_id, exe, the_plan.timeout_s, args)


def _resume(args: argparse.Namespace) -> int:
    plan_options = (args.suite, args.providers, args.algorithms, args.operations, args.sizes,
                    args.samples, args.note, args.dry_run)  # fmt: skip
    if any(plan_options):
        raise UserError(
            "--resume continues the run's own plan: drop --suite, -p, -a, --operations, -s, "
            "--samples, --note and --dry-run"
        )
    db = store.Store.open(args.db, create=False)
    run_id = db.resolve_run(args.resume)
    info = db.run(run_id)
    if info.status == "complete":
        raise UserError(f"run {run_id} is already complete")
    if info.status == "running" and _measuring_process_alive(info.pid):
        raise UserError(f"run {run_id} is being measured right now (process {info.pid})")
    exe = runner.find_runner()
    caps = runner.list_capabilities(exe)
    stored = db.machine(run_id)
    for key in ("hostname", "cpu_model"):
        if stored.get(key) != caps.machine.get(key):
            raise UserError(
                f"run {run_id} was measured on another machine ({key} {stored.get(key)!r}, "
                f"here {caps.machine.get(key)!r}); start a new run instead"
            )
    timeout = args.timeout or info.settings.get("timeout_s", plan.DEFAULT_TIMEOUT_S)
    _say(f"run {run_id}: resuming, {len(db.pending_cases(run_id))} cases to measure")
    return _measure(db, run_id, exe, timeout, args)


def _measuring_process_alive(pid: int | None) -> bool:
    if not pid or pid == os.getpid():
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"cryptobench" in cmdline and b"run" in cmdline


def _library_records(exe: Path, caps: Capabilities, cases: list[plan.CaseSpec]) -> list[dict]:
    """Version and code path of every (provider, variant) in the plan, each as the library
    reports it with that variant selected."""
    records = []
    for provider, variant in sorted({(c.provider, c.variant) for c in cases}):
        p = caps.providers[provider]
        if variant != p.variant:
            p = runner.list_capabilities(exe, {provider: variant}).providers[provider]
        description = next((v.description for v in p.variants if v.name == variant), "")
        records.append(
            {
                "provider": provider,
                "variant": variant,
                "version": p.version,
                "description": description,
                "code_path": p.code_path,
            }
        )
    return records


def _measure(
    db: store.Store, run_id: int, exe: Path, timeout: float, args: argparse.Namespace
) -> int:
    pending = db.pending_cases(run_id)
    runner_args = (
        ["--no-pin"] if args.no_pin else (["--cpu", str(args.cpu)] if args.cpu is not None else [])
    )
    bar = ProgressBar()
    measurement = runner.Measurement(
        exe,
        pending,
        timeout,
        on_outcome=db.complete_case,
        on_progress=bar.update,
        runner_args=runner_args,
    )
    db.set_status(run_id, "running")
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        measurement.run()
    except KeyboardInterrupt:
        bar.close()
        db.set_status(run_id, "interrupted")
        info = db.run(run_id)
        done = sum(n for s, n in info.counts.items() if s != "pending")
        _say(
            f"interrupted: {done} of {sum(info.counts.values())} cases of run {run_id} are "
            f"stored; finish with `cryptobench run --resume {run_id}`"
        )
        _write_outputs(db, run_id, args)
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, previous)
    bar.close()
    db.set_status(run_id, "complete")
    results = analysis.load(db, run_id)
    print(run_summary(results))
    _write_outputs(db, run_id, args, results)
    print(f"\nstored as run {run_id} in {db.path}")
    if not args.report:
        print(f"report: cryptobench report {run_id} -o report.html")
    return 0


def _raise_interrupt(signum, frame) -> NoReturn:
    raise KeyboardInterrupt


def _write_outputs(
    db: store.Store,
    run_id: int,
    args: argparse.Namespace,
    results: analysis.RunResults | None = None,
) -> None:
    if not (args.json_out or args.report):
        return
    results = results or analysis.load(db, run_id)
    if args.json_out:
        from cryptobench.export import json as json_export

        write_file(args.json_out, json_export.render(results))
        print(f"JSON: {args.json_out}")
    if args.report:
        from cryptobench import report

        write_file(args.report, report.render(results))
        print(f"report: {args.report}")


def _print_plan(the_plan: plan.Plan) -> None:
    print(f"suite {the_plan.suite}: {the_plan.description}\n")
    per_target: dict[tuple[str, str], int] = {}
    for c in the_plan.cases:
        per_target[(c.provider, c.variant)] = per_target.get((c.provider, c.variant), 0) + 1
    print(
        text_table(
            ["provider", "variant", "cases"],
            [[p, v, n] for (p, v), n in sorted(per_target.items())],
        )
    )
    samples = sum(c.samples for c in the_plan.cases)
    print(
        f"\n{len(the_plan.cases)} cases, {samples} samples; skipped: "
        + (", ".join(f"{n} {why}" for why, n in the_plan.skipped.items()) or "none")
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


# ---- runs, show ----------------------------------------------------------------------------------


def cmd_runs(args: argparse.Namespace) -> int:
    db = store.Store.open(args.db, create=False)
    rows = []
    for r in db.runs():
        status = r.status
        if status == "running" and not _measuring_process_alive(r.pid):
            status = "stopped"  # killed without a chance to say so; resumable
        done = sum(n for s, n in r.counts.items() if s != "pending")
        rows.append(
            [
                r.id,
                r.started_at.replace("T", " ")[:19],
                status,
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
    from cryptobench.scenarios import config as scenario_config

    db = store.Store.open(args.db, create=False)
    results = analysis.load(db, db.resolve_run(args.run))
    scenario = scenario_config.load_run(db.conn, results.run.id)
    if scenario is not None:
        r = results.run
        print(f"run {r.id} · {r.suite} · {r.status} · started {r.started_at}\n")
        print(scenario_config.summary(scenario.analyse(), scenario.info))
        return 0
    providers = _names(args.providers)
    algorithms = _names(args.algorithms)
    sizes = parse_sizes(args.sizes) if args.sizes else None
    cases = [
        c
        for c in results.cases
        if (not providers or c.provider in providers or c.label in providers)
        and (not algorithms or c.algorithm in algorithms)
        and (not sizes or c.size in sizes)
    ]
    r, m = results.run, results.machine
    print(
        f"run {r.id} · suite {r.suite} · {r.status} · started {r.started_at}"
        + (f" · {r.note}" if r.note else "")
    )
    print(
        f"{m.get('cpu_model', '?')}, {m.get('cores', '?')} cores, {m.get('kernel', '?')}; "
        f"{r.runner} {r.runner_version}; cryptobench {r.cryptobench_version}"
    )
    print()
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
                f"{c.heap['bytes_per_op']:.0f}" if "bytes_per_op" in c.heap else "-",
                c.status + (" unstable" if c.unstable else ""),
            ]
        )
    print(
        text_table(
            [
                "provider",
                "algorithm",
                "op",
                "size",
                "median/op",
                "95% CI",
                "throughput",
                "ops/s",
                "cyc/B",
                "heap B/op",
                "status",
            ],
            rows,
        )
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
        print(
            text_table(
                ["provider", "algorithm", "op", "a ns/call", "b ns/B", "cyc/B", "R²"],
                [
                    [
                        f.label,
                        f.algorithm,
                        f.operation,
                        f"{f.overhead_ns:.1f}",
                        f"{f.ns_per_byte:.4f}",
                        f"{f.cycles_per_byte:.3f}" if f.cycles_per_byte is not None else "-",
                        f"{f.fit.r2:.4f}",
                    ]
                    for f in fits
                ],
            )
        )
    failed = [c for c in cases if c.status == "failed"]
    if failed:
        print("\nfailures:")
        for c in failed:
            print(f"  {c.label} {c.algorithm} {c.operation} {c.size}: {c.reason}")
    return 0


# ---- report, export ------------------------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from cryptobench import report
    from cryptobench.scenarios import config as scenario_config

    db = store.Store.open(args.db, create=False)
    run_id = db.resolve_run(args.run)
    results = analysis.load(db, run_id)
    scenario = scenario_config.load_run(db.conn, run_id)  # None for every other run
    size = parse_sizes(args.size)[0] if args.size else None
    write_file(args.output, report.render(results, size=size, scenario=scenario))
    print(f"report: {args.output.resolve()}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from cryptobench.export import FORMATS

    db = store.Store.open(args.db, create=False)
    results = analysis.load(db, db.resolve_run(args.run))
    text = FORMATS[args.format](results, args.samples)
    if args.output:
        write_file(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def write_file(path: Path, text: str) -> None:
    """Writes all or nothing: a temporary file next to the target, renamed over it."""
    path = Path(path)
    tmp = None
    try:
        with tempfile.NamedTemporaryFile(
            "w",
            encoding="utf-8",
            dir=path.parent if str(path.parent) else ".",
            prefix=f".{path.name}.",
            delete=False,
        ) as f:
            tmp = f.name
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would have made it, not the temp file's 0600
        os.replace(tmp, path)
    except OSError as e:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise UserError(f"cannot write {path}: {e.strerror}") from None


# ---- compare -------------------------------------------------------------------------------------


def cmd_compare(args: argparse.Namespace) -> int:
    db = store.Store.open(args.db, create=False)
    run_a = analysis.load(db, db.resolve_run(args.run_a))
    run_b = analysis.load(db, db.resolve_run(args.run_b))
    comparisons = compare.compare_runs(run_a, run_b, args.threshold / 100, args.alpha)
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
            f"{c.p:.2g}" if c.p is not None else "-",
            c.verdict + (" (unstable)" if c.unstable else ""),
        ])  # fmt: skip
    print(
        f"run {run_a.run.id} (A) vs run {run_b.run.id} (B): ratio = median time B / A; "
        f"Mann–Whitney U, alpha {args.alpha:g}; noise threshold {args.threshold:g}%"
    )
    if rows:
        headers = ["provider", "algorithm", "op", "size", "A median", "B median", "B/A", "p",
                   "verdict"]  # fmt: skip
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


# ---- recommend -----------------------------------------------------------------------------------


def cmd_recommend(args: argparse.Namespace) -> int:
    from cryptobench import recommend, security

    size = parse_size(args.size) if args.size is not None else recommend.DEFAULT_SIZE
    if size <= 0:
        raise UserError("--size must be at least 1 byte")
    recommend.check_level(args.level)
    db = store.Store.open(args.db, create=False)
    results = analysis.load(db, db.resolve_run(args.run))
    if not results.ok_cases():
        raise UserError(f"run {results.run.id} has no successful cases to recommend from")
    rec = recommend.recommend(results, level=args.level, size=size)
    if args.json:
        print(json.dumps(recommend.to_json(rec), indent=2, allow_nan=False))
        return 0
    r = results.run
    print(
        f"run {r.id} ({r.suite}, {r.started_at}): the fastest per kind at ≥ {rec.level} bits of "
        f"security that no document disallows in {rec.year};\nciphers, AEADs, hashes and MACs "
        f"by throughput at {format_size(size)}, the others by operations per second"
    )
    print()
    print(
        text_table(
            ["kind", "algorithm", "provider", "figure", "bits", "NIST / BSI / ECRYPT-CSA", "note"],
            recommend.text_rows(rec),
        )
    )
    print()
    for key, doc in security.levels().documents.items():
        print(f"{key}: {doc.citation}")
    return 0


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
