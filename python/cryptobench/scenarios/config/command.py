"""`cryptobench scenario config`: its options and what it does."""

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.scenarios import packages
from cryptobench.scenarios.base import Started, Target, options_from, run_figure_scenario
from cryptobench.scenarios.config.driver import default_providers, find_driver, run_scenario
from cryptobench.scenarios.config.figures import stored_settings, to_figures
from cryptobench.scenarios.config.model import (
    COMPAT_KDFS,
    QUICK_COMPAT_MAX_N,
    QUICK_N,
    QUICK_PROVIDERS,
    QUICK_RUNS,
    REQUIRED_ALGORITHMS,
    SCHEMES,
    THESIS_N,
    THESIS_PROVIDERS,
    THESIS_RUNS,
    ScenarioRun,
    Series,
)

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
    p.add_argument(
        "--compat-kdf",
        choices=COMPAT_KDFS,
        default="thesis",
        help="PBKDF2's hash in the thesis's scheme: thesis (default: each library its variant's, "
        "libgcrypt SHA-512, OpenSSL SHA-1, Botan SHA-256) or one hash for every library",
    )
    p.add_argument("--driver", metavar="PATH", help="the confcrypt-bench executable to use")
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write an HTML report")
    p.add_argument("--json-out", type=Path, metavar="FILE", help="also write the results as JSON")


@dataclass(frozen=True)
class Options:
    """What `cryptobench scenario config` measures (the command line's options, typed)."""

    quick: bool = False
    n: tuple[int, ...] | None = None  # configuration sizes (default: the thesis's, or QUICK_N)
    runs: int | None = None  # runs per size (default: THESIS_RUNS, or QUICK_RUNS)
    providers: str | None = None  # comma-separated (default: every one offering the algorithms)
    workdir: Path | None = None  # where the configuration files are written
    driver: str | None = None  # the confcrypt-bench executable
    compat_kdf: str = "thesis"  # PBKDF2's hash in the thesis's scheme (model.COMPAT_KDFS)
    # by default only the thesis's libraries (model.THESIS_PROVIDERS) where present: --quick and
    # `reproduce 000` (no claim is about the others, and each doubles the full grid's time)
    thesis_providers: bool = False


def command(args: argparse.Namespace) -> int:
    return start(options_from(Options, args), Target.from_args(args)).status


def choose_providers(options: Options, caps: Any) -> list[str]:
    """--providers as given (each one checked), else every provider offering the scenario's
    algorithms; with --quick or `thesis_providers`, the thesis's libraries among them."""
    if options.providers:
        providers = [p.strip() for p in options.providers.split(",") if p.strip()]
        for name in providers:
            caps.provider(name)  # UserError naming the ones there are
        return providers
    providers = default_providers({n: p.algorithms for n, p in caps.providers.items()})
    if options.quick or options.thesis_providers:
        providers = [p for p in THESIS_PROVIDERS if p in providers] or providers
    if not providers:
        raise UserError(
            "no provider offers "
            + " and ".join(alg for alg, _ in REQUIRED_ALGORITHMS)
            + "; name some with --providers"
        )
    return providers


def start(options: Options, target: Target) -> Started:
    """Runs the scenario, stores its figures as a run, prints the summary, writes the
    target's --report/--json-out."""
    from cryptobench import runner
    from cryptobench.progress import ProgressBar
    from cryptobench.scenarios.config import SCENARIO

    packages.require("config", ["gpg", "gpgconf"])
    quick = options.quick
    n_values = options.n or (QUICK_N if quick else THESIS_N)
    runs = options.runs or (QUICK_RUNS if quick else THESIS_RUNS)
    caps = runner.list_capabilities(runner.find_runner())
    providers = choose_providers(options, caps)
    driver = find_driver(options.driver)
    passes = _passes(n_values, quick)
    spec = {
        "providers": providers,
        "n": list(n_values),
        "runs": runs,
        "compat_kdf": options.compat_kdf,
    }
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

    def measure(db: Any, run_id: int, ledger: Any) -> None:
        bar = ProgressBar()
        collected: list[ScenarioRun] = []  # one per driver pass, as they report

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
                run_scenario(
                    providers,
                    n_pass,
                    runs,
                    driver,
                    options.workdir,
                    progress,
                    schemes,
                    options.compat_kdf,
                )
        except UserError as e:
            raise UserError(f"{e} (what was measured is stored as run {run_id})") from None
        finally:
            bar.close()
            # What was measured before a stop is kept: samples are complete runs of lines. They
            # are stored after the driver ends, so no write of ours disturbs its fsync'ed timings.
            scenario = _merged(collected, passes, n_values)
            db.add_figures(run_id, to_figures(scenario))
            db.set_settings(run_id, {"scenario": {**spec, **stored_settings(scenario)}})

    return run_figure_scenario(
        SCENARIO,
        target,
        spec,
        measure,
        caps=caps,
        driver="confcrypt-bench",
        driver_path=driver,
        libraries=libraries,
    )
