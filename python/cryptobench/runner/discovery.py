"""Finding the runners: cryptobench-native and every cryptobench-runner-* beside it, and what
each can do (its `list`), merged into one capability set."""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from cryptobench import capabilities, versions
from cryptobench.capabilities import Capabilities
from cryptobench.errors import UserError

RUNNER_NAME = "cryptobench-native"
REPO_ROOT = Path(__file__).resolve().parents[3]


def find_runner() -> Path:
    """$CRYPTOBENCH_NATIVE, else the one installed next to this Python, else the build tree's."""
    env = os.environ.get("CRYPTOBENCH_NATIVE")
    if env:
        path = Path(env)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise UserError(f"CRYPTOBENCH_NATIVE={env}: not an executable file")
        return path
    candidates = [
        Path(sys.prefix) / "bin" / RUNNER_NAME,
        REPO_ROOT / "native" / "build" / RUNNER_NAME,
    ]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise UserError(
        f"the native runner {RUNNER_NAME} was not found (looked in "
        f"{', '.join(str(c.parent) for c in candidates)}); build it with `make setup` "
        "or set CRYPTOBENCH_NATIVE to its path"
    )


def list_capabilities(
    exe: Path, variants: dict[str, str] | None = None, timeout: float = 120
) -> Capabilities:
    """Runs `cryptobench-native list`, optionally with variants selected."""
    args = [str(exe), "list"]
    for provider, variant in (variants or {}).items():
        args += ["--variant", f"{provider}={variant}"]
    try:
        done = subprocess.run(args, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise UserError(f"{exe} list: no answer within {timeout:.0f} s") from None
    except OSError as e:
        raise UserError(f"cannot start {exe}: {e.strerror}") from None
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        raise UserError(f"{exe} list failed: {lines[0] if lines else f'status {done.returncode}'}")
    try:
        message = json.loads(done.stdout.decode().strip().splitlines()[0])
    except (ValueError, IndexError):
        raise UserError(f"{exe} list: output is not a JSON line") from None
    return Capabilities.from_message(message)


RUNNER_PREFIX = "cryptobench-runner-"


def find_other_runners(native: Path) -> list[Path]:
    """Every `cryptobench-runner-*` executable next to the native runner, in this Python's bin
    directory and in the directories of $CRYPTOBENCH_RUNNERS (colon-separated), each once."""
    dirs = [native.parent, Path(sys.prefix) / "bin"]
    dirs += [Path(d) for d in os.environ.get("CRYPTOBENCH_RUNNERS", "").split(":") if d]
    found: dict[Path, Path] = {}
    for d in dirs:
        if not d.is_dir():
            continue
        for path in sorted(d.glob(RUNNER_PREFIX + "*")):
            if path.is_file() and os.access(path, os.X_OK):
                found.setdefault(path.resolve(), path)
    return list(found.values())


def discover(variants: dict[str, str] | None = None, timeout: float = 120) -> Capabilities:
    """The native runner's capabilities merged with every other runner's (docs/protocol.md,
    "Runners"). `caps.runner_of[provider]` is the runner executable serving the provider. A
    runner whose `list` fails is left out and named in `caps.absent` with the reason; only a
    missing or broken native runner is an error."""
    native = find_runner()
    first = list_capabilities(native, variants, timeout)
    first = replace(first, runner_of={p: str(native) for p in first.providers})
    others: list[tuple[str, Capabilities]] = []
    absent: dict[str, str] = {}
    # The runners list themselves concurrently (each is a process of its own; the JVM's start-up
    # is most of the wall time), their order kept.
    for exe, listed in _concurrently(
        [(exe, variants) for exe in find_other_runners(native)], timeout
    ):
        if isinstance(listed, UserError):
            absent[exe.name] = str(listed)
        else:
            others.append((str(exe), listed))
    merged = capabilities.merge(first, others)
    if absent:
        merged = replace(merged, absent={**merged.absent, **absent})
        merged.raw["absent_runners"] = merged.absent
    merged = _list_runtime_variants(merged, variants, timeout)
    # Versioned providers not built (or built but not compiled in), each with the reason.
    merged.raw["absent_providers"] = versions.absent(set(merged.providers))
    return merged


def _concurrently(
    jobs: list[tuple[Path, dict[str, str] | None]], timeout: float
) -> list[tuple[Path, Capabilities | UserError]]:
    """`list_capabilities` of each (runner, variants), run in threads; the results in order, a
    failed listing as its UserError."""

    def one(job: tuple[Path, dict[str, str] | None]) -> Capabilities | UserError:
        try:
            return list_capabilities(job[0], job[1], timeout)
        except UserError as e:
            return e

    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(zip([exe for exe, _ in jobs], pool.map(one, jobs), strict=True))


def _list_runtime_variants(
    caps: Capabilities, chosen: dict[str, str] | None, timeout: float
) -> Capabilities:
    """A variant that sets no environment runs another runtime (the JVM runner's `jdk25` is
    Temurin 25), which may offer other algorithms than the listing's: each such variant is
    listed by its own process, once per runner, and what it offers is kept per provider
    (Provider.variant_algorithms; docs/methodology.md, "providers"). Variants that only set
    `env` mask CPU features of the same library and offer the same algorithms. A listing that
    fails is named in `caps.absent` with the reason, and its variant plans nothing."""
    groups: dict[tuple[str, str], list[str]] = {}
    for p in caps.providers.values():
        for v in p.variants:
            if v.name != p.variant and not v.env and not (chosen and p.name in chosen):
                groups.setdefault((caps.runner_of.get(p.name, ""), v.name), []).append(p.name)
    if not groups:
        return caps
    providers = dict(caps.providers)
    algorithms = dict(caps.algorithms)
    raw_algorithms = list(caps.raw.get("algorithms", []))
    absent = dict(caps.absent)
    offered: dict[str, dict[str, dict[str, list[str]]]] = {}
    jobs = [(Path(exe), dict.fromkeys(names, variant)) for (exe, variant), names in groups.items()]
    for ((exe, variant), names), (_, listed) in zip(
        groups.items(), _concurrently(jobs, timeout), strict=True
    ):
        if isinstance(listed, UserError):
            absent[f"{Path(exe).name} --variant {variant}"] = str(listed)
            continue
        for name, alg in listed.algorithms.items():  # one only this runtime has
            if name not in algorithms:
                algorithms[name] = alg
                raw_algorithms += [a for a in listed.raw["algorithms"] if a["name"] == name]
        for name in names:
            if name in listed.providers and listed.providers[name].variant == variant:
                algs = listed.providers[name].algorithms
                p = providers[name]
                providers[name] = replace(
                    p, variant_algorithms={**p.variant_algorithms, variant: algs}
                )
                offered.setdefault(name, {})[variant] = {a: list(o) for a, o in algs.items()}
    raw = {**caps.raw, "algorithms": raw_algorithms, "variant_algorithms": offered}
    if absent:
        raw["absent_runners"] = absent
    return replace(caps, algorithms=algorithms, providers=providers, absent=absent, raw=raw)


def runner_paths(caps: Capabilities) -> dict[str, Path]:
    """provider -> runner executable, for Measurement(runners=...)."""
    return {p: Path(exe) for p, exe in caps.runner_of.items()}


# ---- one serve process ---------------------------------------------------------------------------
