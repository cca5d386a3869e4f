"""Suites and matrix expansion: which cases to measure.

A suite is a TOML file (the shipped ones live in cryptobench/suites/). Its top-level keys are the
defaults of one or more matrix blocks (`[[matrix]]` tables); each block is the product
providers × algorithms × operations × sizes (× costs, for key derivation). Combinations a provider
does not offer, or sizes an algorithm cannot take, are skipped here, using the runner's support
matrix, and never sent to a runner. The format is described in docs/methodology.md ("Suites").
"""

import json
import math
import secrets
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from cryptobench.capabilities import KINDS, Algorithm, Capabilities
from cryptobench.errors import UserError
from cryptobench.files import read_text
from cryptobench.units import format_size, parse_size

OPERATIONS = (
    "encrypt",
    "decrypt",
    "hash",
    "mac",
    "keygen",
    "sign",
    "verify",
    "derive",
    "encaps",
    "decaps",
    "keyload",
    "handshake",
)
INPUTS = ("random", "zeros", "text")

# The cost parameters of each KDF family (docs/protocol.md), each with its smallest valid value.
# scrypt's N must also be a power of two (RFC 7914); Argon2's memory m (KiB) at least 8 per lane
# p (RFC 9106). HKDF has none.
KDF_COST: dict[str, dict[str, int]] = {
    "pbkdf2": {"iterations": 1},
    "scrypt": {"N": 2, "r": 1, "p": 1},
    "argon2": {"t": 1, "m": 8, "p": 1},
    "hkdf": {},
}
# What a KDF gets for a parameter its block's `cost` does not give: moderate settings that take
# milliseconds per derivation here. scrypt: the scrypt paper's interactive-login setting
# (N = 2^14, r = 8, p = 1, 16 MiB); Argon2id: RFC 9106's second recommended option (t = 3,
# m = 64 MiB) with one lane instead of four, since the runner measures one thread; PBKDF2: 10000
# iterations, ten times RFC 8018's minimum suggestion and far below today's password-storage
# advice, which a suite can ask for with `cost`.
DEFAULT_COST: dict[str, dict[str, int]] = {
    "pbkdf2": {"iterations": 10000},
    "scrypt": {"N": 16384, "r": 8, "p": 1},
    "argon2": {"t": 3, "m": 65536, "p": 1},
    "hkdf": {},
}
# The largest value of each parameter a suite may ask for, checked when the plan is made: a
# derivation stays within seconds and 1 GiB of memory on a small machine, instead of a case that
# never ends or a runner the kernel kills. scrypt's memory, 128 × N × r bytes, is bounded too.
KDF_COST_MAX: dict[str, dict[str, int]] = {
    "pbkdf2": {"iterations": 10_000_000},
    "scrypt": {"N": 1 << 20, "r": 64, "p": 16},
    "argon2": {"t": 1000, "m": 1 << 20, "p": 16},
    "hkdf": {},
}
MAX_KDF_MEMORY = 1 << 30
COST_PARAMETERS = tuple(dict.fromkeys(p for params in KDF_COST.values() for p in params))

# Keys of a matrix block (top level or [[matrix]]) with their expected Python types.
_MATRIX_KEYS: dict[str, tuple[type, ...]] = {
    "providers": (list,),
    "algorithms": (list,),
    "kinds": (list,),
    "operations": (list,),
    "sizes": (list,),
    "cost": (dict, list),
    "input": (str,),
    "align_offset": (int,),
    "aad_bytes": (int,),
    "samples": (int,),
    "min_samples": (int,),
    "max_samples": (int,),
    "ci_target": (int, float),
    "batch": (int,),
    "target_sample_ms": (int, float),
    "warmup_ms": (int, float),
    "heap_iterations": (int,),
    "seed": (int,),
}
_SUITE_KEYS: dict[str, tuple[type, ...]] = {
    **_MATRIX_KEYS,
    "description": (str,),
    "timeout_s": (int, float),
    "matrix": (list,),
}
_DEFAULTS: dict[str, Any] = {
    "providers": ["all"],
    "kinds": None,  # every kind
    "operations": None,  # every operation of each algorithm
    "cost": [{}],  # DEFAULT_COST for every KDF
    "input": "random",
    "align_offset": 0,
    "aad_bytes": 0,
    "samples": 11,
    "min_samples": 0,  # 0: the same as samples (no early stop)
    "max_samples": 0,  # 0: the same as samples (no extension)
    "ci_target": 0.0,  # 0: a fixed number of samples
    "batch": 3,
    "target_sample_ms": 2.0,
    "warmup_ms": 20.0,
    "heap_iterations": 8,
    "seed": 1,
}
DEFAULT_TIMEOUT_S = 60.0
# Bounds a suite or the command line must stay within, so nonsense is refused when the run is
# planned instead of failing every case or never ending. MAX_SIZE is the runner's own limit
# (docs/protocol.md); the others are far beyond anything a useful run asks for.
MAX_SIZE = 1 << 30
MAX_SAMPLES = 100_000
MAX_INT = (1 << 63) - 1  # SQLite's integers, the runner's seeds
TIMEOUT_RANGE_S = (1.0, 24 * 3600.0)  # per runner request
NUMBER_LIMITS: dict[str, tuple[float, float]] = {  # key: (lowest, highest)
    "samples": (1, MAX_SAMPLES),
    "batch": (1, MAX_SAMPLES),
    "heap_iterations": (1, 1_000_000),
    "align_offset": (0, 63),
    "aad_bytes": (0, 1 << 20),
    "seed": (0, MAX_INT),
    "warmup_ms": (0, 60_000),
    "target_sample_ms": (0.001, 60_000),
    "min_samples": (0, MAX_SAMPLES),
    "max_samples": (0, MAX_SAMPLES),
}
_LIST_KEYS = ("providers", "algorithms", "kinds", "operations", "sizes", "cost")  # dimensions
_TYPE_NAMES = {
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "a table",
}


@dataclass(frozen=True)
class CaseSpec:
    """One case: what is measured and how. `key()` identifies it within a run."""

    provider: str
    variant: str
    operation: str
    algorithm: str
    size: int
    input: str = "random"
    align_offset: int = 0
    aad_bytes: int = 0
    samples: int = 11
    batch: int = 3
    # Adaptive sampling (docs/methodology.md, "Adaptive sampling"): stop at min_samples or later
    # once the median's 95% CI is narrower than ci_target (relative), extend up to max_samples
    # while it is not. 0 for each: exactly `samples` samples.
    min_samples: int = 0
    max_samples: int = 0
    ci_target: float = 0.0
    target_sample_ms: float = 2.0
    warmup_ms: float = 20.0
    heap_iterations: int = 8
    seed: int = 1
    # KDF cost parameters, as sorted (name, value) pairs so that a case stays hashable; a dict
    # or a list of pairs (as stored in JSON) is accepted and normalised. Empty for other kinds.
    cost: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        items = self.cost.items() if isinstance(self.cost, dict) else self.cost
        object.__setattr__(self, "cost", tuple(sorted((str(k), int(v)) for k, v in items)))

    def key(self) -> tuple:
        return (
            self.provider,
            self.variant,
            self.operation,
            self.algorithm,
            self.size,
            self.input,
            self.align_offset,
            self.aad_bytes,
            self.cost,
        )

    def cost_dict(self) -> dict[str, int]:
        return dict(self.cost)

    def cost_json(self) -> str:
        """The cost as canonical JSON text: how the store keeps it, '{}' when there is none."""
        return cost_json(self.cost_dict())

    def to_protocol(self, case_id: str) -> dict[str, Any]:
        """The case specification of docs/protocol.md, for a `serve` open request."""
        spec = {
            "id": case_id,
            "provider": self.provider,
            "variant": self.variant,
            "operation": self.operation,
            "algorithm": self.algorithm,
            "size": self.size,
            "input": self.input,
            "align_offset": self.align_offset,
            "aad_bytes": self.aad_bytes,
            "target_sample_ms": self.target_sample_ms,
            "warmup_ms": self.warmup_ms,
            "heap_iterations": self.heap_iterations,
            "seed": self.seed,
        }
        if self.cost:
            # Only KDF cases carry it: a runner that predates the field still takes the rest.
            spec["cost"] = self.cost_dict()
        return spec

    def label(self) -> str:
        cost = f" {format_cost(self.cost_dict())}" if self.cost else ""
        return (
            f"{self.provider}/{self.variant} {self.algorithm}{cost} {self.operation} "
            f"{format_size(self.size)}"
        )


def cost_json(cost: dict[str, int]) -> str:
    return json.dumps(cost, sort_keys=True, separators=(",", ":"))


def format_cost(cost: dict[str, int]) -> str:
    """'iterations=10000', 'N=16384 r=8 p=1'; '' for none."""
    return " ".join(f"{k}={v}" for k, v in cost.items())


@dataclass
class Suite:
    name: str
    description: str
    blocks: list[dict[str, Any]]  # fully resolved matrix blocks
    timeout_s: float = DEFAULT_TIMEOUT_S


@dataclass
class Overrides:
    """Command-line choices; each replaces the suite's value in every matrix block."""

    providers: list[str] | None = None
    algorithms: list[str] | None = None
    operations: list[str] | None = None
    sizes: list[int] | None = None
    samples: int | None = None
    timeout_s: float | None = None


@dataclass
class Plan:
    suite: str
    cases: list[CaseSpec]
    timeout_s: float
    skipped: dict[str, int] = field(default_factory=dict)  # reason class -> count
    description: str = ""
    # What the chosen providers do not offer of the chosen algorithms, each with its reason:
    # [{"provider", "algorithm", "operation", "reason"}], one per combination (not per size).
    not_offered: list[dict[str, str]] = field(default_factory=list)
    # Seed of the order in which case keys are measured (runner.Measurement), new for every run
    # and stored in its settings, so a run's order can be told and repeated.
    order_seed: int = field(default_factory=lambda: secrets.randbelow(1 << 31))

    def settings(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "description": self.description,
            "timeout_s": self.timeout_s,
            "skipped": self.skipped,
            "not_offered": self.not_offered,
            "order_seed": self.order_seed,
        }


# ---- suites --------------------------------------------------------------------------------------


def shipped_suites() -> list[str]:
    files = resources.files("cryptobench") / "suites"
    return sorted(p.name[: -len(".toml")] for p in files.iterdir() if p.name.endswith(".toml"))


def load_suite(name_or_path: str) -> Suite:
    """A shipped suite by name (demo, quick, default, full) or a TOML file by path."""
    looks_like_path = name_or_path.endswith(".toml") or "/" in name_or_path
    if looks_like_path:
        path = Path(name_or_path)
        text = read_text(path, "suite", limit=1 << 20)  # a regular file, a suite is small
        return parse_suite(text, name=path.stem, where=name_or_path)
    if name_or_path not in shipped_suites():
        raise UserError(
            f"unknown suite '{name_or_path}' (shipped: {', '.join(shipped_suites())}; "
            "or give the path of a .toml file)"
        )
    text = (resources.files("cryptobench") / "suites" / f"{name_or_path}.toml").read_text("utf-8")
    return parse_suite(text, name=name_or_path, where=f"suite {name_or_path}")


def parse_suite(text: str, name: str, where: str) -> Suite:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{where}: invalid TOML: {e}") from None
    except RecursionError:
        raise UserError(f"{where}: invalid TOML: nested too deeply") from None
    _check_keys(doc, _SUITE_KEYS, where)
    top = {k: v for k, v in doc.items() if k in _MATRIX_KEYS}
    tables = doc.get("matrix", [{}])
    if not tables:
        raise UserError(f"{where}: matrix: give at least one [[matrix]] table")
    blocks = []
    for i, table in enumerate(tables):
        here = f"{where}: matrix[{i}]"
        if not isinstance(table, dict):
            raise UserError(f"{here}: must be a table")
        _check_keys(table, _MATRIX_KEYS, here)
        block = {**_DEFAULTS, **top, **table}
        for required in ("algorithms", "sizes"):
            if required not in block:
                raise UserError(f"{here}: '{required}' is missing")
        _check_values(block, here)
        blocks.append(block)
    timeout = check_timeout(doc.get("timeout_s", DEFAULT_TIMEOUT_S), f"{where}: timeout_s")
    return Suite(name, doc.get("description", ""), blocks, timeout)


def _check_keys(table: dict, allowed: dict[str, tuple[type, ...]], where: str) -> None:
    for key, value in table.items():
        if key not in allowed:
            raise UserError(f"{where}: unknown key '{key}' (known: {', '.join(allowed)})")
        types = allowed[key]
        bad_bool = isinstance(value, bool) and bool not in types
        if bad_bool or not isinstance(value, types):
            want = " or ".join(dict.fromkeys(_TYPE_NAMES[t] for t in types))
            raise UserError(f"{where}: '{key}' must be {want}, got {value!r}")


def _check_values(block: dict, where: str) -> None:
    for key in ("providers", "algorithms", "kinds", "operations"):
        values = block[key]
        if values is None:
            continue
        if not values or not all(isinstance(v, str) for v in values):
            raise UserError(f"{where}: '{key}' must be a non-empty list of names")
    for op in block["operations"] or ():
        if op not in OPERATIONS:
            raise UserError(f"{where}: unknown operation '{op}' ({', '.join(OPERATIONS)})")
    for kind in block["kinds"] or ():
        if kind not in KINDS:
            raise UserError(f"{where}: unknown kind '{kind}' ({', '.join(KINDS)})")
    block["cost"] = _check_costs(block["cost"], where)
    if not block["sizes"]:
        raise UserError(f"{where}: 'sizes' must not be empty")
    try:
        block["sizes"] = sorted({parse_size(s) for s in block["sizes"]})
    except UserError as e:
        raise UserError(f"{where}: {e}") from None
    if block["input"] not in INPUTS:
        raise UserError(f"{where}: input must be one of {', '.join(INPUTS)}")
    for key, (low, high) in NUMBER_LIMITS.items():
        value = block[key]
        if not math.isfinite(value):
            raise UserError(f"{where}: '{key}' must be a finite number, not {value}")
        if value < low:
            raise UserError(f"{where}: '{key}' must be at least {low:g}")
        if value > high:
            raise UserError(f"{where}: '{key}' must be at most {high:g}, not {value}")
    if block["ci_target"] < 0:
        raise UserError(f"{where}: 'ci_target' must not be negative")
    if not math.isfinite(block["ci_target"]) or block["ci_target"] > 1:
        raise UserError(f"{where}: 'ci_target' must be a fraction of the median, 0 to 1")
    if block["min_samples"] < 0 or block["min_samples"] > block["samples"]:
        raise UserError(
            f"{where}: 'min_samples' must be between 0 and samples ({block['samples']})"
        )
    if block["max_samples"] and block["max_samples"] < block["samples"]:
        raise UserError(f"{where}: 'max_samples' must be at least samples ({block['samples']})")
    too_large = [s for s in block["sizes"] if s > MAX_SIZE]
    if too_large:
        raise UserError(
            f"{where}: size {too_large[0]} is above the runner's limit of {MAX_SIZE} bytes (1 GiB)"
        )


def check_timeout(timeout: float, what: str) -> float:
    low, high = TIMEOUT_RANGE_S
    if not math.isfinite(timeout) or not low <= timeout <= high:
        raise UserError(f"{what} must be between {low:g} and {high:g} seconds, not {timeout}")
    return float(timeout)


# ---- expansion -----------------------------------------------------------------------------------


def _check_costs(value: Any, where: str) -> list[dict[str, int]]:
    """`cost` is one table or a list of tables of KDF cost parameters; each table is a case
    dimension value. Names and values are checked here; what each KDF needs, in `kdf_cost`."""
    tables = value if isinstance(value, list) else [value]
    if not tables:
        raise UserError(f"{where}: 'cost' must not be an empty list")
    out: list[dict[str, int]] = []
    for table in tables:
        if not isinstance(table, dict):
            raise UserError(f"{where}: 'cost' must be a table such as {{iterations = 10000}}")
        for name, v in table.items():
            if name not in COST_PARAMETERS:
                raise UserError(
                    f"{where}: cost: unknown parameter '{name}' "
                    f"(pbkdf2: iterations; scrypt: N, r, p; argon2id: t, m, p)"
                )
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise UserError(
                    f"{where}: cost: '{name}' must be a non-negative integer, got {v!r}"
                )
        if dict(table) not in out:
            out.append(dict(table))
    return out


def kdf_cost(alg: Algorithm, table: dict[str, int], where: str) -> dict[str, int]:
    """The cost parameters of one KDF: its parameters from `table`, DEFAULT_COST for the rest,
    checked against the algorithm's limits. A family this cryptobench does not know gets the
    table as it is (the runner checks it)."""
    if alg.family not in KDF_COST:
        return dict(table)
    cost = {p: table.get(p, DEFAULT_COST[alg.family][p]) for p in KDF_COST[alg.family]}
    for name, low in KDF_COST[alg.family].items():
        if cost[name] < low:
            raise UserError(f"{where}: cost: {alg.name} needs '{name}' of at least {low}")
    for name, high in KDF_COST_MAX[alg.family].items():
        if cost[name] > high:
            raise UserError(f"{where}: cost: {alg.name} allows '{name}' up to {high}")
    if alg.family == "scrypt" and 128 * cost["N"] * cost["r"] > MAX_KDF_MEMORY:
        raise UserError(
            f"{where}: cost: scrypt needs 128 × N × r bytes; at most {MAX_KDF_MEMORY >> 20} MiB"
        )
    if alg.family == "scrypt" and cost["N"] & (cost["N"] - 1):
        raise UserError(f"{where}: cost: scrypt needs 'N' to be a power of 2, got {cost['N']}")
    if alg.family == "argon2" and cost["m"] < 8 * cost["p"]:
        raise UserError(
            f"{where}: cost: {alg.name} needs 'm' (KiB) of at least 8 × p = {8 * cost['p']}"
        )
    return cost


def apply_overrides(suite: Suite, o: Overrides) -> Suite:
    blocks = []
    for block in suite.blocks:
        b = dict(block)
        for key in ("providers", "algorithms", "operations", "sizes", "samples"):
            value = getattr(o, key)
            if value is not None:
                b[key] = value
        if o.samples is not None:  # --samples N means exactly N
            b["min_samples"] = b["max_samples"] = 0
        _check_values(b, "command line")
        blocks.append(b)
    timeout = suite.timeout_s if o.timeout_s is None else check_timeout(o.timeout_s, "--timeout")
    return replace(suite, blocks=blocks, timeout_s=timeout)


def expand(suite: Suite, caps: Capabilities) -> Plan:
    """Every case of every block, supported ones only, duplicates removed, in a stable order."""
    cases: dict[tuple, CaseSpec] = {}
    skipped: dict[str, int] = {}
    not_offered: dict[tuple[str, str, str], str] = {}
    for i, block in enumerate(suite.blocks):
        where = f"{suite.name}: matrix[{i}]"
        targets = resolve_providers(block["providers"], caps)
        algorithms = resolve_algorithms(block["algorithms"], caps)
        if block["kinds"] is not None:
            algorithms = [a for a in algorithms if caps.algorithms[a].kind in block["kinds"]]
        settings = {k: block[k] for k in _MATRIX_KEYS if k not in _LIST_KEYS}
        for alg_name in algorithms:
            alg = caps.algorithms[alg_name]
            wanted = block["operations"]
            ops = [op for op in alg.operations if wanted is None or op in wanted]
            costs = (
                [kdf_cost(alg, table, where) for table in block["cost"]]
                if alg.kind == "kdf"
                else [{}]
            )
            for op in ops:
                # Key generation and key agreement have no input: whatever the block's sizes,
                # such a case is measured once, at size 0.
                sizes = [0] if alg.sizeless(op) else block["sizes"]
                for size in sizes:
                    if alg.size_problem(size):
                        skipped["size"] = skipped.get("size", 0) + len(targets)
                        continue
                    for cost in costs:
                        for provider, variant in targets:
                            if variant == ANY_VARIANT:
                                variant = caps.providers[provider].variant_for(alg_name, op)
                            if not variant or not caps.providers[provider].offers(
                                alg_name, op, variant
                            ):
                                skipped["unsupported"] = skipped.get("unsupported", 0) + 1
                                not_offered.setdefault(
                                    (provider, alg_name, op),
                                    caps.providers[provider].why_not(alg_name, op),
                                )
                                continue
                            case = CaseSpec(
                                provider, variant, op, alg_name, size, **settings, cost=cost
                            )
                            cases.setdefault(case.key(), case)
    refused = [
        {"provider": p, "algorithm": a, "operation": o, "reason": why}
        for (p, a, o), why in not_offered.items()
    ]
    return Plan(
        suite.name, list(cases.values()), suite.timeout_s, skipped, suite.description, refused
    )


# A target without a variant (`NAME`, `all`, `runner:R`): per algorithm and operation, the
# listing's variant (`default`) where it offers it, else the first variant whose runtime does
# (Provider.variant_for: sunjce's ML-KEM runs on jdk25, Java 17 has no javax.crypto.KEM).
ANY_VARIANT = ""


def resolve_providers(specs: list[str], caps: Capabilities) -> list[tuple[str, str]]:
    """NAME, NAME/VARIANT, NAME/all, all, all/VARIANT, all/all, runner:R, runner:R/VARIANT,
    runner:R/all -> [(provider, variant)]. `runner:R` is every provider of one runner (`native`,
    `go`, `python`, `rust`, `jvm`): none when that runner is not built here. Without a variant
    the variant is ANY_VARIANT, chosen per algorithm by `expand`."""
    out: list[tuple[str, str]] = []
    for spec in specs:
        name, _, variant = spec.partition("/")
        if not variant:
            providers = (
                [caps.provider(name)]
                if name != "all" and not name.startswith("runner:")
                else [
                    p
                    for p in caps.providers.values()
                    if name == "all" or caps.runner_name(p.name) == name.removeprefix("runner:")
                ]
            )
            out += [(p.name, ANY_VARIANT) for p in providers if (p.name, ANY_VARIANT) not in out]
            continue
        if name == "all" or name.startswith("runner:"):
            providers = list(caps.providers.values())
            if name != "all":
                runner = name.removeprefix("runner:")
                providers = [p for p in providers if caps.runner_name(p.name) == runner]
            if variant not in ("all", "default"):
                # all/soft: the providers that have such a variant; a name nobody has is a typo.
                providers = [p for p in providers if variant in p.variant_names()]
                if not providers and name == "all":
                    raise UserError(f"no provider has a variant '{variant}'")
        else:
            providers = [caps.provider(name)]
        for p in providers:
            if variant == "all":
                chosen = p.variant_names()
            elif variant in p.variant_names():
                chosen = [variant]
            else:
                raise UserError(
                    f"provider '{p.name}' has no variant '{variant}' "
                    f"(it has: {', '.join(p.variant_names())})"
                )
            for v in chosen:
                if (p.name, v) not in out:
                    out.append((p.name, v))
    return out


def resolve_algorithms(names: list[str], caps: Capabilities) -> list[str]:
    out: list[str] = []
    for name in names:
        for alg in caps.algorithms if name == "all" else [caps.algorithm(name).name]:
            if alg not in out:
                out.append(alg)
    return out
