"""`cryptobench process`: what encrypting a file costs a whole process, per library, algorithm,
input kind and size — and `cryptobench process corpus`, which builds the inputs."""

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.figures import skipped
from cryptobench.scenarios import packages
from cryptobench.scenarios.base import (
    Started,
    Target,
    comma_list,
    options_from,
    run_figure_scenario,
)
from cryptobench.scenarios.process import corpus, driver, measure
from cryptobench.scenarios.process.model import (
    ALGORITHMS,
    CHUNK,
    KINDS,
    QUICK_ALGORITHMS,
    QUICK_PROVIDERS,
    QUICK_RUNS,
    QUICK_SIZES,
    RUNS,
    SIZES,
    WARMUP,
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action",
        nargs="?",
        choices=["measure", "corpus"],
        default="measure",
        help="measure (default), or only build the input corpus",
    )
    p.add_argument("-p", "--providers", metavar="LIST", help="providers (default: every one)")
    p.add_argument(
        "-a", "--algorithms", metavar="LIST", help=f"algorithms (default: {','.join(ALGORITHMS)})"
    )
    p.add_argument("--kinds", metavar="LIST", help=f"input kinds (default: {','.join(KINDS)})")
    p.add_argument("--sizes", metavar="LIST", help="input sizes (default: 128K,256K,512K,1M,4M,8M)")
    p.add_argument("--runs", type=int, metavar="N", help=f"measured runs per cell (default {RUNS})")
    p.add_argument(
        "--quick",
        action="store_true",
        help=f"a few minutes: {', '.join(QUICK_PROVIDERS)}; {', '.join(QUICK_ALGORITHMS)}; "
        f"128 KiB and 1 MiB; {QUICK_RUNS} runs",
    )
    p.add_argument(
        "--roundtrip",
        action="store_true",
        help="also time one execution that encrypts and then decrypts the result, as EvalMe "
        "did (reproduce 004 does)",
    )
    p.add_argument("--workdir", type=Path, metavar="DIR", help="where outputs are written")
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write an HTML report")
    p.add_argument("--json-out", type=Path, metavar="FILE", help="also write the figures as JSON")


def _list(text: str | None, default: tuple, what: str, known: tuple | None = None) -> tuple:
    values = comma_list(text, what)
    if values is None:
        return default
    unknown = [v for v in values if known is not None and v not in known]
    if unknown:
        raise UserError(f"{what}: unknown {unknown[0]!r} (known: {', '.join(known)})")
    return values


def settings(args: "Options", caps: Any) -> dict[str, Any]:
    from cryptobench.units import parse_sizes

    quick = args.quick
    algorithms = _list(
        args.algorithms,
        QUICK_ALGORITHMS if quick else ALGORITHMS,
        "--algorithms",
        tuple(caps.algorithms),
    )
    kinds = _list(args.kinds, KINDS, "--kinds", KINDS)
    sizes = tuple(parse_sizes(args.sizes)) if args.sizes else (QUICK_SIZES if quick else SIZES)
    if any(s <= 0 or s > (256 << 20) for s in sizes):
        raise UserError("--sizes: each size must be between 1 byte and 256 MiB")
    offering = [
        p
        for p, info in caps.providers.items()
        if any(a in info.algorithms for a in algorithms) and p != "null"
    ]
    default_providers = tuple(p for p in QUICK_PROVIDERS if p in offering) if quick else offering
    providers = _list(args.providers, tuple(default_providers), "-p", tuple(caps.providers))
    runs = args.runs if args.runs is not None else (QUICK_RUNS if quick else RUNS)
    if not 1 <= runs <= 1000:
        raise UserError("--runs must be between 1 and 1000")
    return {
        "providers": list(providers),
        "algorithms": list(algorithms),
        "kinds": list(kinds),
        "sizes": list(sizes),
        "runs": runs,
        "warmup": WARMUP,
        "chunk": CHUNK,
        "roundtrip": bool(args.roundtrip),
    }


def _check_space(workdir: Path, sizes: list[int]) -> None:
    import shutil

    need = 3 * max(sizes) + (64 << 20)
    free = shutil.disk_usage(workdir).free
    if free < need:
        raise UserError(f"{workdir}: {free >> 20} MiB free, the run needs {need >> 20} MiB")


@dataclass(frozen=True)
class Options:
    """What `cryptobench process` does (the command line's options, typed; None: the default
    the option's help names)."""

    action: str = "measure"  # "corpus": only build the inputs (build_corpus, not start)
    providers: str | None = None  # comma-separated
    algorithms: str | None = None
    kinds: str | None = None
    sizes: str | None = None  # "128K,1M"
    runs: int | None = None
    quick: bool = False
    roundtrip: bool = False  # also time one execution encrypting and decrypting (EvalMe's)
    workdir: Path | None = None


def command(args: argparse.Namespace) -> int:
    options = options_from(Options, args)
    if options.action == "corpus":
        return build_corpus(options)
    return start(options, Target.from_args(args)).status


def build_corpus(options: Options) -> int:
    """`cryptobench process corpus`: builds the inputs only and prints their checksums."""
    from cryptobench import runner

    spec = settings(options, runner.list_capabilities(runner.find_runner()))
    files, missing = corpus.build(tuple(spec["kinds"]), tuple(spec["sizes"]))
    for name, digest in sorted(corpus.checksums(files).items()):
        print(f"{digest}  {corpus.cache_dir() / name}")
    for kind, why in missing.items():
        print(f"skipped {kind}: {why}", file=sys.stderr)
    return 0


def start(options: Options, target: Target) -> Started:
    """Measures the processes and stores the run; see run_figure_scenario for the rest of its
    life."""
    from cryptobench import runner
    from cryptobench.progress import ProgressBar
    from cryptobench.scenarios.process import SCENARIO

    exe = runner.find_runner()
    caps = runner.list_capabilities(exe)
    spec = settings(options, caps)
    packages.require(
        "process",
        ["hyperfine"],
        [f for kind, f in (("audio", corpus.AUDIO_DIR), ("text", corpus.TEXT_SOURCES[0]))
         if kind in spec["kinds"]],
    )  # fmt: skip
    program = driver.find_program()
    files, missing = corpus.build(tuple(spec["kinds"]), tuple(spec["sizes"]))
    spec["corpus"] = corpus.checksums(files)
    spec["skipped_kinds"] = missing
    cells = [
        (p, a)
        for p in spec["providers"]
        for a in spec["algorithms"]
        if a in caps.providers[p].algorithms
    ]
    if not cells:
        raise UserError("none of the providers chosen offers any of the algorithms chosen")
    libraries = [
        {
            "provider": p,
            "variant": "default",
            "version": caps.providers[p].version,
            "code_path": caps.providers[p].code_path,
        }
        for p in spec["providers"]
    ]
    bar = ProgressBar()
    total = len(cells) * sum(len(v) for v in files.values()) * (spec["runs"] + spec["warmup"])

    def measure_all(db, run_id: int, ledger) -> None:
        work = ledger.tempdir() if options.workdir is None else Path(options.workdir)
        _check_space(work, spec["sizes"])
        print(
            f"run {run_id}: process scenario, {len(cells)} provider × algorithm cells, "
            f"kinds {', '.join(files)}, {spec['runs']} runs",
            file=sys.stderr,
        )
        for kind, why in missing.items():
            db.add_figures(run_id, [skipped({"kind": kind}, "wall", "s", why)])
        measure.startup(db, run_id, program, cells, work, spec["runs"], spec["roundtrip"])
        done = 0
        try:
            for size in spec["sizes"]:
                inputs = [
                    (kind, by_size[size]) for kind, by_size in files.items() if size in by_size
                ]
                for figs in measure.cell_runs(program, cells, inputs, size, work, spec):
                    db.add_figures(run_id, figs)
                    done += spec["runs"] + spec["warmup"]
                    bar.update(done, total, f"{size >> 10} KiB")
        finally:
            bar.close()
        measure.hyperfine_crosscheck(db, run_id, program, cells, files, work)
        measure.in_process(db, run_id, exe, cells)

    return run_figure_scenario(
        SCENARIO,
        target,
        spec,
        measure_all,
        caps=caps,
        driver=driver.PROGRAM,
        driver_path=program,
        libraries=libraries,
    )
