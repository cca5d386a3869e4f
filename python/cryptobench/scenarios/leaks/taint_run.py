"""`cryptobench leaks --method taint`: which (provider, variant, algorithm) cells to check, the
check of each under memcheck (taint.py), and the stored run (docs/leaks.md)."""

import sys
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.scenarios.base import Started, Target, comma_list, run_figure_scenario

# The runners whose processes memcheck can follow and that answer `taint`: the native runner (C
# and C++ libraries) and the Rust runner (ring, aws-lc-rs, RustCrypto). Go's runtime and the JVM
# do not run under memcheck.
TAINT_RUNNERS = ("cryptobench-native", "cryptobench-runner-rust")
DEFAULT_ALGORITHMS = ("aes-256-gcm",)
# Checked by default beside each provider's default: its software path.
SOFT_VARIANT = "soft"
NOT_BY_DEFAULT = ("null", "fault")


def _checkable(caps: Any, provider: str) -> bool:
    exe = Path(caps.runner_of.get(provider, caps.runner)).name
    return exe in TAINT_RUNNERS


def plan(options: Any, caps: Any) -> dict[str, Any]:
    """Raises UserError for a provider or algorithm that cannot be checked."""
    if options.marvin:
        raise UserError("--method taint: no RSA test yet (AEAD algorithms only)")
    algorithms = comma_list(options.algorithms, "-a") or DEFAULT_ALGORITHMS
    infos = {a["name"]: a for a in caps.raw.get("algorithms", [])}
    for a in algorithms:
        if a not in infos:
            raise UserError(f"-a: unknown algorithm {a!r}")
        if infos[a]["kind"] != "aead":
            raise UserError(f"-a {a}: --method taint checks AEAD algorithms only so far")
    slots: list[tuple[str, str]] = []
    for entry in comma_list(options.providers, "-p") or ():
        name, _, variant = entry.partition("/")
        if name not in caps.providers:
            raise UserError(f"-p: unknown provider {name!r} (known: {', '.join(caps.providers)})")
        if not _checkable(caps, name):
            raise UserError(
                f"-p {name}: --method taint runs the native and Rust runners' providers only"
            )
        variant = variant or "default"
        if variant not in caps.providers[name].variant_names():
            raise UserError(f"-p {entry}: {name} has no variant {variant!r}")
        slots.append((name, variant))
    if not options.providers:
        for p, info in caps.providers.items():
            if p in NOT_BY_DEFAULT or not _checkable(caps, p):
                continue
            if any(info.offers(a, "decrypt") for a in algorithms):
                slots.append((p, "default"))
                if SOFT_VARIANT in info.variant_names():
                    slots.append((p, SOFT_VARIANT))
    if not slots:
        raise UserError("no provider offers the algorithms chosen")
    return {
        "method": "taint",
        "algorithms": list(algorithms),
        "providers": [f"{p}/{v}" for p, v in slots],
        "seed": options.seed,
    }


def start(options: Any, target: Target) -> Started:
    from cryptobench import runner
    from cryptobench.scenarios.leaks import SCENARIO, taint

    taint.require_valgrind()
    caps = runner.discover()
    spec = plan(options, caps)
    spec["valgrind"] = taint.valgrind_version()
    spec["suppressions"] = taint.SUPPRESSIONS.name
    paths = runner.runner_paths(caps)
    infos = {a["name"]: a for a in caps.raw.get("algorithms", [])}
    cells = []
    for entry in spec["providers"]:
        name, variant = entry.split("/")
        provider = caps.providers[name]
        env = next((v.env for v in provider.variants if v.name == variant), {})
        exe = Path(paths.get(name, runner.find_runner()))
        slot = taint.Slot(name, variant, exe, dict(env))
        for a in spec["algorithms"]:
            if provider.offers(a, "decrypt"):
                cells.append(taint.Cell(slot, a))
    if not cells:
        raise UserError("none of the providers chosen offers any of the algorithms chosen")

    def measure_all(db, run_id: int, ledger) -> None:
        print(f"run {run_id}: leaks --method taint, {len(cells)} cells", file=sys.stderr)
        for k, cell in enumerate(cells, 1):
            print(f"  [{k}/{len(cells)}] {cell.slot.label} {cell.algorithm}", file=sys.stderr)
            taint.run_cell(cell, infos[cell.algorithm], spec["seed"])
            db.add_figures(run_id, [taint.figure(cell)])

    return run_figure_scenario(SCENARIO, target, spec, measure_all, caps=caps)
