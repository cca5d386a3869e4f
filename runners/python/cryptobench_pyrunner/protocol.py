"""The runner protocol (docs/protocol.md): case parsing with the native runner's checks, the
messages and the list command (serve's request dispatch is in serve.py)."""

import json
import os
import platform

import cryptobench_pyrunner as pkg

from . import catalogue, variants
from .engine import OpenCase, summarise
from .errors import SpecError
from .providers import NAMES, all_providers, not_offered, offered
from .rss import max_rss_kb

GATE = "coordinator"  # this runner is gated by the coordinator (docs/protocol.md, "Who gates")

# field -> (type, default (None: required), lowest, highest); numbers are checked against the range
CASE_FIELDS = {
    "id": (str, None),
    "provider": (str, None),
    "variant": (str, ""),
    "operation": (str, None),
    "algorithm": (str, None),
    "size": (int, None, 0, 1 << 30),
    "input": (str, "random"),
    "align_offset": (int, 0, 0, 63),
    "aad_bytes": (int, 0, 0, 1 << 20),
    "samples": (int, 11, 1, 100000),
    "batch": (int, 1, 1, 100000),
    "target_sample_ms": (float, 2.0, 0.001, float("inf")),
    "warmup_ms": (float, 20.0, 0.0, float("inf")),
    "heap_iterations": (int, 8, 1, 1000000),
    "seed": (int, 1, 0, 2**64 - 1),
    "agreement": (bool, True),
    "cost": (dict, {}),
    "inplace": (bool, True),
}
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
)


def _typed(v, kind) -> bool:
    if kind is float:
        return isinstance(v, int | float) and not isinstance(v, bool)
    return isinstance(v, kind) and (kind is bool or not isinstance(v, bool))


def parse_case(raw, where: str = "case") -> dict:
    """The case specification (docs/protocol.md): types, defaults and ranges from CASE_FIELDS,
    then what the catalogue and this runner's providers say."""
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: must be an object")
    s = {}
    for name, (kind, default, *limits) in CASE_FIELDS.items():
        v = raw.get(name, default)
        if v is None or not _typed(v, kind):
            what = "missing" if v is None else f"must be a {kind.__name__}"
            raise SpecError(f"{where}.{name}: {what}")
        if limits and not limits[0] <= v <= limits[1]:
            raise SpecError(f"{where}.{name}: must be between {limits[0]:g} and {limits[1]:g}")
        s[name] = dict(v) if kind is dict else v
    info = catalogue.find(s["algorithm"]) or {}

    def check(bad, field: str, why: str) -> None:
        if bad:
            raise SpecError(f"{where}.{field}: {why}")

    unknown = sorted(set(raw) - set(CASE_FIELDS))
    check(unknown, unknown[0] if unknown else "", "unknown field")
    check(
        s["provider"] not in NAMES,
        "provider",
        f"unknown provider '{s['provider']}' (this runner has: {', '.join(NAMES)})",
    )
    check(not info, "algorithm", f"unknown algorithm '{s['algorithm']}'")
    check(
        s["operation"] not in info["operations"],
        "operation",
        f"does not apply to {s['algorithm']} ({', '.join(info['operations'])})",
    )
    check(
        s["size"] < info["min_size"] or s["size"] % info["block_bytes"],
        "size",
        f"{s['algorithm']} needs at least {info['min_size']} bytes in multiples of "
        f"{info['block_bytes']}",
    )
    check(s["input"] not in ("random", "zeros", "text"), "input", "must be random, zeros or text")
    check(s["cost"] and info["kind"] != "kdf", "cost", "only KDFs take cost parameters")
    check(
        any(not _typed(v, int) or v < 0 for v in s["cost"].values()),
        "cost",
        "must be an object of non-negative integers",
    )
    return s


def emit(out, message: dict) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def machine_record() -> dict:
    """What only this process knows, its interpreter and its clock; the machine itself (CPU,
    kernel, OS) is the native runner's record (docs/protocol.md, "capabilities")."""
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return {
        "compiler": python,
        "python": python,
        "tsc_hz": None,
        "tsc_note": "no TSC read from Python: samples carry 0 ticks; time is CLOCK_MONOTONIC "
        "(time.perf_counter_ns)",
    }


def capabilities() -> dict:
    machine = machine_record()
    machine["libraries"] = {}
    providers, names = [], set()
    for p in all_providers():
        entry = {
            "name": p.name,
            "version": p.version() if not p.unusable else "",
            "variant": variants.CURRENT[p.name],
            "variants": variants.listing(p.name),
            "algorithms": [
                {"name": a, "operations": catalogue.find(a)["operations"]} for a in offered(p)
            ],
            "not_offered": {a: why for a, why in not_offered(p).items() if why},
            "code_path": p.code_path(),
        }
        if p.unusable:
            entry["unusable"] = p.unusable
        names.update(offered(p))
        machine["libraries"][p.name] = entry["version"]
        providers.append(entry)
    return {
        "type": "capabilities",
        "schema": pkg.SCHEMA,
        "runner": pkg.RUNNER,
        "runner_version": pkg.VERSION,
        "gate": GATE,
        "machine": machine,
        "algorithms": [a for a in catalogue.ALGORITHMS.values() if a["name"] in names],
        "providers": providers,
    }


def hello(cpu: int | None) -> dict:
    return {
        "type": "hello",
        "schema": pkg.SCHEMA,
        "runner": pkg.RUNNER,
        "runner_version": pkg.VERSION,
        "pid": os.getpid(),
        "cpu": cpu,
        "variants": dict(variants.CURRENT),
        "gate": GATE,
    }


def case_message(c: OpenCase) -> dict:
    return {
        "type": "case",
        "id": c.spec["id"],
        "status": c.status,
        "reason": c.reason,
        "gate": {},
        "iterations": c.iterations,
        "calibration_ns": c.calibration_ns,
    }


def result_message(c: OpenCase) -> dict:
    s = c.spec
    r = {
        "type": "result",
        "id": s["id"],
        "status": c.status,
        "reason": c.reason,
        "gate": {},
    }
    for k in (
        "provider",
        "variant",
        "operation",
        "algorithm",
        "size",
        "input",
        "align_offset",
        "aad_bytes",
        "cost",
    ):
        r[k] = s[k]
    if c.status == "ok":
        r["samples"] = c.samples
        r["summary"] = summarise(c.samples, s["size"])
        r["heap"] = c.heap
        r["rewarms"] = c.rewarms
    if c.timed_check:
        r["gate"]["timed"] = c.timed_check
    if c.layout is not None:
        r["inplace"] = c.layout["inplace"]
        r["layout"] = c.layout
    r["max_rss_kb"] = max_rss_kb()
    return r


class Totals:
    def __init__(self):
        self.counts = {"ok": 0, "failed": 0, "unsupported": 0}

    def count(self, status: str) -> None:
        self.counts[status] += 1

    def message(self) -> dict:
        return {
            "type": "done",
            "cases": sum(self.counts.values()),
            **self.counts,
            "max_rss_kb": max_rss_kb(),
        }


def pin(cpu: int | None, enabled: bool) -> int | None:
    """Pins to the requested CPU, by default the last one allowed (CPU 0 takes more interrupts)."""
    if not enabled:
        return None
    allowed = os.sched_getaffinity(0)
    if cpu is None:
        cpu = max(allowed)
    elif cpu not in allowed:
        raise ValueError(f"--cpu {cpu}: not available to this process")
    os.sched_setaffinity(0, {cpu})
    return cpu
