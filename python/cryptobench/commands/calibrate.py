"""`cryptobench calibrate`: a small suite measured twice, back to back (A/A). Prints how precise
this machine's figures are and stores its run-to-run noise, which `compare`'s threshold,
the unstable flag and `recommend`'s ties then use (noise.py)."""

import argparse

from cryptobench import analysis, lifecycle, plan, precision, runner, store
from cryptobench.commands.common import say
from cryptobench.errors import EXIT_INTERRUPTED
from cryptobench.progress import ProgressBar


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "calibrate",
        parents=[db],
        help="measure this machine's run-to-run noise (two identical runs) and store it",
    )
    c.add_argument(
        "--suite", default="quick", help="the suite measured twice (default: quick, seconds)"
    )
    c.set_defaults(func=cmd_calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    exe = runner.find_runner()
    caps = runner.discover()
    the_plan = plan.expand(plan.load_suite(args.suite), caps)
    runner_args, warning = lifecycle.runner_pinning(None, False)
    if warning:
        say(warning)
    db = store.Store.open(args.db)
    runs = []
    for side in ("A", "B"):
        run_id = lifecycle.create_core_run(db, the_plan, exe, caps, args.argv, f"calibrate {side}")
        say(f"run {run_id}: calibration run {side}, {len(the_plan.cases)} cases")
        bar = ProgressBar()
        try:
            status = lifecycle.measure(db, run_id, exe, the_plan.timeout_s, runner_args, bar.update)
        finally:
            bar.close()
        if status != "complete":
            say("interrupted: no calibration stored")
            return EXIT_INTERRUPTED
        runs.append(run_id)
    a, b = (analysis.load(db, r) for r in runs)
    figures = precision.measure(a, b)
    db.add_calibration(caps.machine, runs[0], runs[1], figures.noise, figures.as_dict())
    print(f"runs {runs[0]} and {runs[1]}, suite {the_plan.suite}, measured back to back:")
    for line in figures.lines():
        print(f"  {line}")
    print(
        f"\nstored: this machine's noise threshold is {figures.noise:.1%} (the 90th "
        "percentile of |B/A − 1|); compare, the unstable flag and recommend use it"
    )
    return 0
