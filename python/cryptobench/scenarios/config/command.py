"""`cryptobench scenario config`: its options and what it does."""

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptobench.errors import EXIT_INTERRUPTED, UserError
from cryptobench.files import write_file
from cryptobench.scenarios.config.driver import default_providers, find_driver, run_scenario
from cryptobench.scenarios.config.figures import save, summary, to_json
from cryptobench.scenarios.config.model import (
    QUICK_COMPAT_MAX_N,
    QUICK_N,
    QUICK_PROVIDERS,
    QUICK_RUNS,
    REQUIRED_ALGORITHMS,
    SCHEMES,
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


def _passes(n_values: Sequence[int], quick: bool) -> list[tuple[tuple[str, ...], list[int]]]:
    """Driver passes: (schemes, n values). One pass with everything; with --quick, the thesis's
    scheme stops at QUICK_COMPAT_MAX_N and the other schemes measure the larger n alone."""
    small = [n for n in n_values if n <= QUICK_COMPAT_MAX_N]
    large = [n for n in n_values if n > QUICK_COMPAT_MAX_N]
    if not quick or not large or len(small) < 2:
        return [(tuple(SCHEMES), list(n_values))]
    return [(tuple(SCHEMES), small), (tuple(s for s in SCHEMES if s != "compat"), large)]


def _merged(collected: list[ScenarioRun], passes: list, n_values: Sequence[int]) -> ScenarioRun:
    if not collected:
        return ScenarioRun(spec={})
    run = ScenarioRun(spec=dict(collected[0].spec), done=True)
    for part in collected:
        run.merge(part)
    run.spec["n"] = list(n_values)
    if len(passes) > 1:
        run.extrapolate = {"compat": [n for n in n_values if n > QUICK_COMPAT_MAX_N]}
    run.done = run.done and len(collected) == len(passes)
    return run


def add_arguments(p: Any) -> None:
    """The options of `cryptobench scenario config` (p: an argparse parser with --db)."""
    sizes = p.add_mutually_exclusive_group()
    sizes.add_argument(
        "--quick",
        action="store_true",
        help=f"a few minutes: n = {', '.join(map(str, QUICK_N))}, {QUICK_RUNS} runs, "
        f"{', '.join(QUICK_PROVIDERS)}; the thesis's scheme measured up to n = "
        f"{QUICK_COMPAT_MAX_N} and extrapolated beyond from its linear fit (labelled)",
    )
    sizes.add_argument(
        "--n", type=_n_list, metavar="LIST", help="configuration sizes, comma-separated"
    )
    p.add_argument(
        "--runs",
        type=_runs,
        default=None,
        metavar="N",
        help=f"runs per size, the median is reported (default: {THESIS_RUNS}, the thesis's; "
        f"--quick: {QUICK_RUNS})",
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

    quick = args.quick
    n_values = args.n or (QUICK_N if quick else THESIS_N)
    runs = args.runs or (QUICK_RUNS if quick else THESIS_RUNS)
    exe = runner.find_runner()
    caps = runner.list_capabilities(exe)
    if args.providers:
        providers = [p.strip() for p in args.providers.split(",") if p.strip()]
        for name in providers:
            caps.provider(name)  # UserError naming the ones there are
    else:
        providers = default_providers({n: p.algorithms for n, p in caps.providers.items()})
        if quick:
            providers = [p for p in QUICK_PROVIDERS if p in providers] or providers
        if not providers:
            raise UserError(
                "no provider offers "
                + " and ".join(alg for alg, _ in REQUIRED_ALGORITHMS)
                + "; name some with --providers"
            )
    driver = find_driver(args.driver)
    db = store.Store.open(args.db)
    bar = ProgressBar()
    collected: list[ScenarioRun] = []  # one per driver pass, as they report
    passes = _passes(n_values, quick)

    def progress(run: ScenarioRun, message: dict[str, Any]) -> None:
        if not collected or collected[-1] is not run:
            collected.append(run)
        if message.get("type") == "sample":
            label = Series(message["scheme"], message.get("provider") or "", "").label
            where = (
                f"pass {len(collected)}/{len(passes)}: {label} n={message['n']} "
                f"run {message['run'] + 1}/{runs}"
            )
            bar.update(len(run.samples), run.expected_samples(), where)

    status, failure, scenario = "complete", None, None
    spec = {"providers": providers, "n": n_values, "runs": runs}
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
            args.run_id = run_id  # for `reproduce`, which reads the run back
            print(
                f"run {run_id}: scenario config, n = {', '.join(map(str, n_values))}, "
                f"{runs} runs, providers {', '.join(providers)}"
                + (
                    f"; the thesis's scheme up to n = {QUICK_COMPAT_MAX_N}, beyond from its fit"
                    if len(passes) > 1
                    else ""
                ),
                file=sys.stderr,
                flush=True,
            )
            try:
                for schemes, n_pass in passes:
                    run_scenario(providers, n_pass, runs, driver, args.workdir, progress, schemes)
                scenario = _merged(collected, passes, n_values)
            finally:
                bar.close()
                # What was measured before a stop is kept: samples are complete runs of lines.
                save(db, run_id, scenario or _merged(collected, passes, n_values))
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
