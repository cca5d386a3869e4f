"""`cryptobench scenario config`: its options and what it does."""

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cryptobench.errors import EXIT_INTERRUPTED, UserError
from cryptobench.files import write_file
from cryptobench.scenarios.config.driver import default_providers, find_driver, run_scenario
from cryptobench.scenarios.config.figures import save, summary, to_json
from cryptobench.scenarios.config.model import (
    QUICK_N,
    REQUIRED_ALGORITHMS,
    THESIS_N,
    THESIS_RUNS,
    ScenarioRun,
    Series,
)
from cryptobench.scenarios.config.report import render_page

# ---- the `cryptobench scenario config` command ---------------------------------------------------
# cli.py's subcommand is these two functions: its options, and what it does.


def _n_list(text: str) -> tuple[int, ...]:

    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--n {text!r}: expected integers, e.g. 1,10,100"
        ) from None
    if not values or any(v < 1 for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"--n {text!r}: expected distinct positive integers")
    return values


def _runs(text: str) -> int:

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"--runs {text!r}: expected a positive integer")
    return value


def add_arguments(p: Any) -> None:
    """The options of `cryptobench scenario config` (p: an argparse parser with --db)."""
    sizes = p.add_mutually_exclusive_group()
    sizes.add_argument(
        "--quick",
        action="store_true",
        help=f"n = {', '.join(map(str, QUICK_N))} instead of the thesis's 40 sizes",
    )
    sizes.add_argument(
        "--n", type=_n_list, metavar="LIST", help="configuration sizes, comma-separated"
    )
    p.add_argument(
        "--runs",
        type=_runs,
        default=THESIS_RUNS,
        metavar="N",
        help=f"runs per size, the median is reported (default: {THESIS_RUNS}, the thesis's)",
    )
    p.add_argument(
        "-p",
        "--providers",
        metavar="LIST",
        help="providers, comma-separated (default: every provider offering "
        + " and ".join(alg for alg, _ in REQUIRED_ALGORITHMS)
        + ")",
    )
    p.add_argument(
        "--workdir",
        type=Path,
        metavar="DIR",
        help="where the configuration files are written (default: $TMPDIR); writes are "
        "fsync'ed, so its file system is part of the measurement",
    )
    p.add_argument("--driver", metavar="PATH", help="the confcrypt-bench executable to use")
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write an HTML report")
    p.add_argument("--json-out", type=Path, metavar="FILE", help="also write the results as JSON")


def command(args: Any) -> int:
    """Runs the scenario, stores it as a run, prints the summary, writes --report/--json-out."""
    from cryptobench import runner, store
    from cryptobench.lifecycle import scenario_run
    from cryptobench.progress import ProgressBar

    n_values = args.n or (QUICK_N if args.quick else THESIS_N)
    exe = runner.find_runner()
    caps = runner.list_capabilities(exe)
    if args.providers:
        providers = [p.strip() for p in args.providers.split(",") if p.strip()]
        for name in providers:
            caps.provider(name)  # UserError naming the ones there are
    else:
        providers = default_providers({n: p.algorithms for n, p in caps.providers.items()})
        if not providers:
            raise UserError(
                "no provider offers "
                + " and ".join(alg for alg, _ in REQUIRED_ALGORITHMS)
                + "; name some with --providers"
            )
    driver = find_driver(args.driver)
    db = store.Store.open(args.db)
    bar = ProgressBar()
    collected: list[ScenarioRun] = []

    def progress(run: ScenarioRun, message: dict[str, Any]) -> None:
        if not collected:
            collected.append(run)
        if message.get("type") == "sample":
            label = Series(message["scheme"], message.get("provider") or "", "").label
            where = f"{label} n={message['n']} run {message['run'] + 1}/{args.runs}"
            bar.update(len(run.samples), run.expected_samples(), where)

    status, failure, scenario = "complete", None, None
    spec = {"providers": providers, "n": n_values}
    libraries = [
        {
            "provider": name,
            "variant": "default",
            "version": caps.providers[name].version,
            "description": "",
            "code_path": caps.providers[name].code_path,
        }
        for name in providers
    ]
    try:
        with scenario_run(
            db,
            "config",
            settings={"scenario": {"name": "config", "spec": spec}},
            argv=getattr(args, "argv", ["cryptobench", "scenario", "config"]),
            machine=caps.machine,
            driver="confcrypt-bench",
            driver_path=driver,
            libraries=libraries,
            note=args.note,
        ) as run_id:
            print(
                f"run {run_id}: scenario config, n = {', '.join(map(str, n_values))}, "
                f"{args.runs} runs, providers {', '.join(providers)}",
                file=sys.stderr,
                flush=True,
            )
            try:
                scenario = run_scenario(
                    providers, n_values, args.runs, driver, args.workdir, progress
                )
            finally:
                bar.close()
                # What was measured before a stop is kept: samples are complete runs of lines.
                save(db, run_id, scenario or (collected[0] if collected else ScenarioRun(spec={})))
    except KeyboardInterrupt:
        status = "interrupted"
    except UserError as e:
        status, failure = "interrupted", e
    if failure is not None:
        raise UserError(f"{failure} (what was measured is stored as run {run_id})")
    if scenario is None:
        print(f"interrupted: run {run_id} holds the samples measured so far", file=sys.stderr)
        return EXIT_INTERRUPTED
    results = scenario.analyse()
    print(summary(results, scenario.info))
    if args.report:
        page = render_page(
            scenario, results, caps.machine, title=f"cryptobench run {run_id}: scenario config"
        )
        write_file(args.report, page)
        print(f"report: {args.report}")
    if args.json_out:
        write_file(args.json_out, json.dumps(to_json(scenario, results), indent=1) + "\n")
        print(f"JSON: {args.json_out}")
    print(f"\nstored as run {run_id} in {db.path}")
    return 0 if status == "complete" else EXIT_INTERRUPTED
