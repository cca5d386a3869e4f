"""The runner protocol (docs/protocol.md): case parsing with the native runner's checks, the
messages and the list command (serve's request dispatch is in serve.py)."""

import json
import os
import platform

import cryptobench_pyrunner as pkg

from . import catalogue, variants
from .engine import OpenCase
from .errors import SpecError
from .providers import NAMES, all_providers, not_offered, offered
from .rss import max_rss_kb

GATE = "coordinator"  # this runner is gated by the coordinator (docs/protocol.md, "Who gates")

# field -> default (None: required). The coordinator checked every value against the catalogue
# before sending the case (plan.py): the runner decodes, and resolves only what it needs.
CASE_FIELDS = {"id": None, "provider": None, "operation": None, "algorithm": None, "size": None}
CASE_FIELDS |= {"variant": "", "input": "random", "align_offset": 0, "aad_bytes": 0, "samples": 11}
CASE_FIELDS |= {"target_sample_ms": 2.0, "warmup_ms": 20.0, "heap_iterations": 8, "seed": 1}
CASE_FIELDS |= {"cost": {}, "inplace": True}
# The fields of the case a result repeats (docs/protocol.md, "result").
ECHOED = ("provider", "variant", "operation", "algorithm", "size", "input", "align_offset")
ECHOED += ("aad_bytes", "cost")


def parse_case(raw, where: str = "case") -> dict:
    """The case specification (docs/protocol.md) over its defaults, with a known provider,
    algorithm and operation."""
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: must be an object")
    s = {name: raw.get(name, default) for name, default in CASE_FIELDS.items()}
    info = catalogue.find(s["algorithm"])
    if s["provider"] not in NAMES:
        why = f"provider: unknown provider '{s['provider']}' (this runner has: {', '.join(NAMES)})"
    elif info is None:
        why = f"algorithm: unknown algorithm '{s['algorithm']}'"
    elif s["operation"] not in info["operations"]:
        why = f"operation: '{s['operation']}' does not apply to {s['algorithm']}"
    elif any(s[name] is None for name in CASE_FIELDS):
        why = f"{next(n for n in CASE_FIELDS if s[n] is None)}: missing"
    else:
        return s
    raise SpecError(f"{where}.{why}")


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
    r = {"type": "result", "id": s["id"], "status": c.status, "reason": c.reason, "gate": {}}
    r |= {name: s[name] for name in ECHOED}
    if c.status == "ok":
        r["samples"] = c.samples
        r["heap"] = c.heap
        r["rewarms"] = c.rewarms
    if c.timed_check:
        r["gate"]["timed"] = c.timed_check
    if c.layout is not None:
        r["inplace"] = c.layout["inplace"]
        r["layout"] = c.layout
    r["max_rss_kb"] = max_rss_kb()
    return r


def done_message() -> dict:
    """The last line of serve: the coordinator counts its cases' outcomes itself."""
    return {"type": "done", "max_rss_kb": max_rss_kb()}


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
