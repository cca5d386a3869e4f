"""`cryptobench run`: plan a suite, measure it (or `--resume` a stopped run), store it, print
the summary and write the requested outputs."""

import argparse
from pathlib import Path

from cryptobench import analysis, lifecycle, plan, runner, store, terminal
from cryptobench.commands.common import (
    names,
    non_negative_int,
    positive_float,
    positive_int,
    say,
)
from cryptobench.commands.output import write_outputs
from cryptobench.errors import EXIT_INTERRUPTED, UserError
from cryptobench.progress import ProgressBar
from cryptobench.units import parse_sizes


def register(sub, db: argparse.ArgumentParser) -> None:
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
        "derive, encaps, decaps, keyload, handshake",
    )
    c.add_argument("-s", "--sizes", metavar="LIST", help="message sizes, e.g. 16,1K,64KiB,1M")
    c.add_argument("--samples", type=positive_int, metavar="N", help="samples per case")
    c.add_argument(
        "--timeout",
        type=positive_float,
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
        type=non_negative_int,
        metavar="N",
        help="pin the runners to CPU N (default: the last CPU)",
    )
    pin.add_argument("--no-pin", action="store_true", help="do not pin the runners to a CPU")
    c.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    if args.resume is not None:
        return _resume(args)
    _check_note(args.note)
    suite = plan.load_suite(args.suite or "default")
    overrides = plan.Overrides(
        providers=names(args.providers),
        algorithms=names(args.algorithms),
        operations=names(args.operations),
        sizes=parse_sizes(args.sizes) if args.sizes is not None else None,
        samples=args.samples,
        timeout_s=args.timeout,
    )
    suite = plan.apply_overrides(suite, overrides)
    exe = runner.find_runner()
    caps = runner.discover()  # every runner's providers: native, JVM, Go, Rust, Python
    the_plan = plan.expand(suite, caps)
    skipped = sum(the_plan.skipped.values())
    if not the_plan.cases:
        raise UserError(
            f"nothing to run: the providers chosen offer none of the algorithms chosen at these "
            f"sizes ({skipped} combinations skipped)"
        )
    if args.dry_run:
        print(terminal.plan_text(the_plan))
        return 0
    # a bad --cpu is refused before the run is made; the note on a CPU another run holds once
    # it is made, so that a refusal (a store that cannot be opened) stays its one line
    runner_args, pin_note = lifecycle.runner_pinning(args.cpu, args.no_pin)
    db = store.Store.open(args.db)
    run_id = lifecycle.create_core_run(db, the_plan, exe, caps, args.argv, args.note)
    if pin_note:
        say(pin_note)
    note = f", {skipped} unsupported combinations skipped" if skipped else ""
    say(f"run {run_id}: {len(the_plan.cases)} cases from suite {the_plan.suite}{note}")
    if the_plan.not_offered:
        say(terminal.not_offered_text(the_plan))
    return _measure(db, run_id, exe, the_plan.timeout_s, args, runner_args, caps)


def _check_note(note: str) -> None:
    try:
        note.encode("utf-8")
    except UnicodeEncodeError:
        raise UserError("--note: not valid UTF-8 text") from None


def _resume(args: argparse.Namespace) -> int:
    plan_options = (args.suite, args.providers, args.algorithms, args.operations, args.sizes,
                    args.samples, args.note, args.dry_run)  # fmt: skip
    if any(plan_options):
        raise UserError(
            "--resume continues the run's own plan: drop --suite, -p, -a, --operations, -s, "
            "--samples, --note and --dry-run"
        )
    # a bad --cpu is refused first; the note on a CPU taken by another run only once this run is
    # ours to resume, so that a refusal (no such run, already complete) stays its one line
    runner_args, pin_note = lifecycle.runner_pinning(args.cpu, args.no_pin)
    db = store.Store.open(args.db, create=False)
    run_id = db.resolve_run(args.resume)
    exe = runner.find_runner()
    caps = runner.discover()
    info = lifecycle.claim_for_resume(db, run_id, caps)
    if pin_note:
        say(pin_note)
    timeout = args.timeout or info.settings.get("timeout_s", plan.DEFAULT_TIMEOUT_S)
    try:
        timeout = plan.check_timeout(timeout, "the stored timeout")
    except UserError:  # stored by an older cryptobench that did not check it
        timeout = plan.DEFAULT_TIMEOUT_S
    say(f"run {run_id}: resuming, {len(db.pending_cases(run_id))} cases to measure")
    return _measure(db, run_id, exe, timeout, args, runner_args, caps)


def _measure(
    db: store.Store,
    run_id: int,
    exe,
    timeout: float,
    args: argparse.Namespace,
    runner_args: list[str],
    caps=None,
) -> int:
    bar = ProgressBar()
    try:
        status = lifecycle.measure(db, run_id, exe, timeout, runner_args, bar.update, caps)
    finally:
        bar.close()
    if status == "interrupted":
        info = db.run(run_id)
        done = sum(n for s, n in info.counts.items() if s != "pending")
        say(
            f"interrupted: {done} of {sum(info.counts.values())} cases of run {run_id} are "
            f"stored; finish with `cryptobench run --resume {run_id}`"
        )
        write_outputs(db, run_id, args)
        return EXIT_INTERRUPTED
    results = analysis.load(db, run_id)
    print(terminal.run_summary(results))
    if results.ok_cases():
        print("\n" + terminal.answer_text(results), flush=True)
    write_outputs(db, run_id, args, results)
    print(f"\nstored as run {run_id} in {db.path}")
    if not args.report:
        print(f"report: cryptobench report {run_id} -o report.html")
    return 0
