"""`cryptobench leaks`: is an operation's time independent of its secrets on this machine?
Timing of secret-dependent input classes, paired in time, with an A/A control (docs/leaks.md)."""

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.scenarios.base import (
    Started,
    Target,
    comma_list,
    options_from,
    run_figure_scenario,
)
from cryptobench.scenarios.leaks.classes import (
    LeakTest,
    aead_test,
    mac_test,
    oaep_test,
    pkcs1v15_test,
)
from cryptobench.units import MAX_DURATION_S, format_duration, format_seconds, parse_duration

AEAD_ALGORITHMS = ("aes-256-gcm", "chacha20-poly1305")
MARVIN_ALGORITHMS = ("rsa-2048-pkcs1v15-enc", "rsa-2048-oaep-sha256")
# Rounds per test (docs/leaks.md, "How many samples resolve how many nanoseconds here"): AEAD
# decryption reaches the clock's 10 ns step within ~12,500 pairs; RSA-2048 decryption (~1 ms)
# needs far more pairs than a quick run takes, so --quick is a smoke run whose RSA verdicts are
# expected to be inconclusive on a busy machine.
ROUNDS = {"aead": 50000, "mac": 50000, "pk-encryption": 20000}
QUICK_ROUNDS = {"aead": 10000, "mac": 10000, "pk-encryption": 1000}
CHUNK = {"aead": 5000, "mac": 5000, "pk-encryption": 100}
QUICK_PROVIDERS = ("openssl", "gcrypt")
# Never measured unless named: the harness baseline and the test provider.
NOT_BY_DEFAULT = ("null", "fault")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--method",
        choices=["timing", "taint"],
        default="timing",
        help="timing: input classes timed in pairs; taint: secrets marked undefined for "
        "valgrind's memcheck, secret-dependent branches and memory indexes reported",
    )
    p.add_argument(
        "-p",
        "--providers",
        metavar="LIST",
        help="providers, each NAME or NAME/VARIANT (default: every one offering the "
        "tests' algorithms; with --quick openssl and gcrypt)",
    )
    p.add_argument(
        "-a",
        "--algorithms",
        metavar="LIST",
        help=f"algorithms (default: {','.join(AEAD_ALGORITHMS)}; with --marvin "
        f"{','.join(MARVIN_ALGORITHMS)})",
    )
    p.add_argument(
        "--marvin",
        action="store_true",
        help="RSA PKCS#1 v1.5 decryption with Marvin's ciphertext classes and RSA-OAEP "
        "decryption with Marvin's and Manger's",
    )
    p.add_argument(
        "--rounds",
        type=int,
        metavar="N",
        help="rounds per test (default: AEAD 50000, RSA 20000; --quick 10000, 1000)",
    )
    p.add_argument(
        "--budget",
        type=budget_seconds,
        metavar="DURATION",
        help="measure for at most about DURATION (90m, 2h, 600s), in equal shares per "
        "provider × test, each until its rounds or its share (docs/leaks.md)",
    )
    p.add_argument("--quick", action="store_true", help="fewer rounds, two providers")
    p.add_argument("--seed", type=int, default=1, help="seed of the class order (default 1)")
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write an HTML report")
    p.add_argument("--json-out", type=Path, metavar="FILE", help="also write the figures as JSON")


def budget_seconds(text: str) -> float:
    """--budget's value in seconds; argparse makes a refusal one line and exit status 2."""
    try:
        return parse_duration(text)
    except UserError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


@dataclass(frozen=True)
class Options:
    """What `cryptobench leaks` does (None: the default the option's help names)."""

    method: str = "timing"
    providers: str | None = None
    algorithms: str | None = None
    marvin: bool = False
    rounds: int | None = None
    budget: float | None = None  # seconds
    quick: bool = False
    seed: int = 1


def test_for(info: dict) -> LeakTest:
    if info["kind"] == "aead":
        return aead_test(info["name"])
    if info["kind"] == "mac":
        return mac_test(info["name"])
    if info["family"] == "rsa-oaep":
        return oaep_test(info["name"])
    if info["family"] == "rsa-pkcs1v15-enc":
        return pkcs1v15_test(info["name"])
    raise UserError(
        f"-a {info['name']}: no leak classes for {info['kind']} algorithms yet "
        "(AEAD decryption, MAC verification, RSA-OAEP and RSA PKCS#1 v1.5 decryption)"
    )


def check_options(options: Options) -> None:
    """What the options alone make wrong, before any runner is asked anything."""
    if options.rounds is not None and not 100 <= options.rounds <= 1_000_000:
        raise UserError("--rounds must be between 100 and 1000000")
    if options.budget is not None and not 0 < options.budget <= MAX_DURATION_S:
        raise UserError("--budget must be above 0 and at most 30 days")
    if options.budget is not None and options.method == "taint":
        raise UserError("--budget: for --method timing (taint runs each operation once)")
    comma_list(options.algorithms, "-a")
    comma_list(options.providers, "-p")


def plan(options: Options, caps: Any) -> dict[str, Any]:
    """The run's settings: tests, (provider, variant) pairs, rounds. Raises UserError."""
    algorithms = comma_list(options.algorithms, "-a") or (
        MARVIN_ALGORITHMS if options.marvin else AEAD_ALGORITHMS
    )
    infos = {a["name"]: a for a in caps.raw.get("algorithms", [])}
    offered = {}  # algorithm -> the catalogue operation a provider must offer for its test
    for a in algorithms:
        if a not in infos:
            raise UserError(f"-a: unknown algorithm {a!r}")
        offered[a] = test_for(infos[a]).offered
    named = comma_list(options.providers, "-p")
    slots: list[tuple[str, str]] = []
    for entry in named or ():
        name, _, variant = entry.partition("/")
        if name not in caps.providers:
            raise UserError(f"-p: unknown provider {name!r} (known: {', '.join(caps.providers)})")
        variant = variant or "default"
        if variant not in caps.providers[name].variant_names():
            raise UserError(f"-p {entry}: {name} has no variant {variant!r}")
        slots.append((name, variant))
    if not named:
        offering = [
            p
            for p, info in caps.providers.items()
            if p not in NOT_BY_DEFAULT and any(info.offers(a, offered[a]) for a in algorithms)
        ]
        if options.quick:
            offering = [p for p in QUICK_PROVIDERS if p in offering] or offering[:2]
        slots = [(p, "default") for p in offering]
    if not slots:
        raise UserError("no provider offers the algorithms chosen")
    kinds = {infos[a]["kind"] for a in algorithms}
    if options.rounds is not None and not 100 <= options.rounds <= 1_000_000:
        raise UserError("--rounds must be between 100 and 1000000")
    table = QUICK_ROUNDS if options.quick else ROUNDS
    rounds = options.rounds or min(table[k] for k in kinds)
    budget = {} if options.budget is None else {"budget_s": options.budget}
    return {
        **budget,
        "method": options.method,
        "algorithms": list(algorithms),
        "providers": [f"{p}/{v}" for p, v in slots],
        "rounds": rounds,
        "chunk": min(CHUNK[k] for k in kinds),
        "batch": 1,
        "seed": options.seed,
        "quick": options.quick,
    }


def command(args: argparse.Namespace) -> int:
    return start(options_from(Options, args), Target.from_args(args)).status


def start(options: Options, target: Target) -> Started:
    """Measures every test on every provider and stores the run."""
    from cryptobench import runner
    from cryptobench.progress import ProgressBar
    from cryptobench.scenarios.leaks import SCENARIO, measure

    check_options(options)
    if options.method == "taint":
        from cryptobench.scenarios.leaks import taint_run

        return taint_run.start(options, target)
    caps = runner.discover()
    spec = plan(options, caps)
    paths = runner.runner_paths(caps)
    infos = {a["name"]: a for a in caps.raw.get("algorithms", [])}
    cells = []
    for entry in spec["providers"]:
        name, variant = entry.split("/")
        slot = measure.Slot(name, variant, Path(paths.get(name, runner.find_runner())))
        for a in spec["algorithms"]:
            test = test_for(infos[a])
            if caps.providers[name].offers(a, test.offered):
                cells.append(measure.Cell(slot, test, {}))
    if not cells:
        raise UserError("none of the providers chosen offers any of the algorithms chosen")
    bar = ProgressBar()

    budget = spec.get("budget_s")

    def measure_all(db, run_id: int, ledger) -> None:
        within = (
            ""
            if budget is None
            else f" at most, within a budget of {format_duration(budget)} (an equal share of "
            f"{format_seconds(budget / len(cells))} per cell to start)"
        )
        print(
            f"run {run_id}: leaks, {len(cells)} provider × test cells, {spec['rounds']} "
            f"rounds each{within}",
            file=sys.stderr,
        )
        measure.run_cells(
            cells,
            infos,
            spec["rounds"],
            spec["chunk"],
            spec["batch"],
            spec["seed"],
            lambda done, total: bar.update(done, total, "rounds" if budget is None else "s"),
            budget,
        )
        bar.close()
        db.add_figures(run_id, measure.figures(cells))

    return run_figure_scenario(SCENARIO, target, spec, measure_all, caps=caps)
