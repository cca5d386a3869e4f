"""The runner protocol (docs/protocol.md): case parsing with the native runner's checks, the
messages, and the list and check commands (serve's request dispatch is in serve.py)."""

import json
import os
import platform
import socket

import cryptobench_pyrunner as pkg

from . import catalogue, variants
from .engine import OpenCase, summarise
from .errors import SpecError
from .providers import NAMES, all_providers, provider_by_name
from .rss import max_rss_kb

CASE_FIELDS = {
    "id",
    "provider",
    "variant",
    "operation",
    "algorithm",
    "size",
    "input",
    "align_offset",
    "aad_bytes",
    "samples",
    "batch",
    "target_sample_ms",
    "warmup_ms",
    "heap_iterations",
    "seed",
    "agreement",
    "cost",
    "inplace",
}
OPERATIONS = ("encrypt", "decrypt", "hash", "mac", "keygen", "sign", "verify", "derive")
_MISSING = object()


def _is_uint(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


class Fields:
    def __init__(self, m: dict, where: str):
        self.m, self.where = m, where

    def fail(self, name: str, why: str):
        raise SpecError(f"{self.where}.{name}: {why}")

    def str(self, name, fallback=_MISSING):
        if name not in self.m:
            if fallback is _MISSING:
                self.fail(name, "missing")
            return fallback
        if not isinstance(self.m[name], str):
            self.fail(name, "must be a string")
        return self.m[name]

    def uint(self, name, fallback=_MISSING, lo=0, hi=2**64 - 1):
        if name not in self.m:
            if fallback is _MISSING:
                self.fail(name, "missing")
            return fallback
        v = self.m[name]
        if not _is_uint(v):
            self.fail(name, "must be a non-negative integer")
        if not lo <= v <= hi:
            self.fail(name, f"must be between {lo} and {hi}")
        return v

    def number(self, name, fallback, lo):
        if name not in self.m:
            return fallback
        v = self.m[name]
        if isinstance(v, bool) or not isinstance(v, int | float):
            self.fail(name, "must be a number")
        if not v >= lo:
            self.fail(name, f"must be at least {lo:g}")
        return float(v)


def parse_case(raw, where: str = "case") -> dict:
    """protocol.cpp, parse_case."""
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: must be an object")
    for k in sorted(raw):
        if k not in CASE_FIELDS:
            raise SpecError(f"{where}.{k}: unknown field")
    f = Fields(raw, where)
    s = {"id": f.str("id"), "provider": f.str("provider")}
    if s["provider"] not in NAMES:
        f.fail(
            "provider", f"unknown provider '{s['provider']}' (this runner has: {', '.join(NAMES)})"
        )
    s["variant"] = f.str("variant", "")
    s["operation"] = f.str("operation")
    s["algorithm"] = f.str("algorithm")
    info = catalogue.find(s["algorithm"])
    if info is None:
        f.fail("algorithm", f"unknown algorithm '{s['algorithm']}'")
    if s["operation"] not in OPERATIONS:
        f.fail("operation", f"unknown operation '{s['operation']}' ({', '.join(OPERATIONS)})")
    if s["operation"] not in info["operations"]:
        f.fail(
            "operation", f"{s['operation']} does not apply to {s['algorithm']} (a {info['kind']})"
        )
    s["size"] = f.uint("size", hi=1 << 30)
    if s["size"] < info["min_size"] or s["size"] % info["block_bytes"]:
        f.fail(
            "size",
            f"{s['algorithm']} needs at least {info['min_size']} bytes in multiples of "
            f"{info['block_bytes']}",
        )
    s["input"] = f.str("input", "random")
    if s["input"] not in ("random", "zeros", "text"):
        f.fail("input", "must be random, zeros or text")
    s["align_offset"] = f.uint("align_offset", 0, 0, 63)
    s["aad_bytes"] = f.uint("aad_bytes", 0, 0, 1 << 20)
    s["samples"] = f.uint("samples", 11, 1, 100000)
    s["batch"] = f.uint("batch", 1, 1, 100000)
    s["target_sample_ms"] = f.number("target_sample_ms", 2.0, 0.001)
    s["warmup_ms"] = f.number("warmup_ms", 20.0, 0.0)
    s["heap_iterations"] = f.uint("heap_iterations", 8, 1, 1000000)
    s["seed"] = f.uint("seed", 1)
    s["agreement"] = raw.get("agreement", True)
    if not isinstance(s["agreement"], bool):
        f.fail("agreement", "must be true or false")
    s["inplace"] = raw.get("inplace", True)
    if not isinstance(s["inplace"], bool):
        f.fail("inplace", "must be true or false")
    cost = raw.get("cost", {})
    if not isinstance(cost, dict):
        f.fail("cost", "must be an object of non-negative integers")
    for name, v in cost.items():
        if not _is_uint(v):
            f.fail("cost", f"{name} must be a non-negative integer")
    if cost and info["kind"] != "kdf":
        f.fail("cost", f"{s['algorithm']} takes no cost parameters (only KDFs do)")
    s["cost"] = dict(cost)
    return s


def emit(out, message: dict) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def _cpuinfo(key: str) -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() == key:
                    return v.strip()
    except OSError:
        pass
    return ""


def _os_name() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME", "unknown")
    except OSError:
        return "unknown"


def machine_record() -> dict:
    flags = _cpuinfo("flags").split()
    u = os.uname()
    governor = None
    try:
        with open("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") as f:
            governor = f.read().strip()
    except OSError:
        pass
    return {
        "cpu_model": _cpuinfo("model name"),
        "cpu_flags": flags,
        "cores": os.cpu_count(),
        "kernel": f"{u.sysname} {u.release} {u.machine}",
        "hostname": socket.gethostname(),
        "os": _os_name(),
        "compiler": f"{platform.python_implementation()} {platform.python_version()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "tsc_hz": None,
        "tsc_invariant": "constant_tsc" in flags and "nonstop_tsc" in flags,
        "tsc_note": "no TSC read from Python: samples carry 0 ticks; time is CLOCK_MONOTONIC "
        "(time.perf_counter_ns)",
        "governor": governor,
    }


def capabilities() -> dict:
    machine = machine_record()
    machine["libraries"] = {}
    providers, offered = [], set()
    for p in all_providers():
        entry = {
            "name": p.name,
            "version": p.version() if not p.unusable else "",
            "variant": variants.CURRENT[p.name],
            "variants": variants.listing(p.name),
            "algorithms": [
                {"name": a, "operations": catalogue.find(a)["operations"]} for a in p.algorithms()
            ],
            "code_path": p.code_path(),
        }
        if p.unusable:
            entry["unusable"] = p.unusable
        offered.update(p.algorithms())
        machine["libraries"][p.name] = entry["version"]
        providers.append(entry)
    return {
        "type": "capabilities",
        "schema": pkg.SCHEMA,
        "runner": pkg.RUNNER,
        "runner_version": pkg.VERSION,
        "machine": machine,
        "algorithms": [a for a in catalogue.ALGORITHMS.values() if a["name"] in offered],
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
    }


def case_message(c: OpenCase) -> dict:
    return {
        "type": "case",
        "id": c.spec["id"],
        "status": c.status,
        "reason": c.reason,
        "gate": c.gate.to_json(),
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
        "gate": c.gate.to_json(),
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


def check(names: list[str], out) -> int:
    """The gate for every provider × algorithm × operation (protocol.cpp, command_check)."""
    from .common import ByteStream, Params
    from .errors import Unsupported
    from .gate import GateReport, run_gate
    from .gate_pk import case_params, run_pk_gate

    cheap = {
        "pbkdf2-sha1": {"iterations": 1000},
        "pbkdf2-sha256": {"iterations": 1000},
        "pbkdf2-sha512": {"iterations": 1000},
        "scrypt": {"N": 1024, "r": 8, "p": 1},
        "argon2id": {"t": 2, "m": 1024, "p": 1},
    }
    totals = Totals()
    for name in names or list(NAMES):
        p = provider_by_name(name)
        for alg in p.algorithms():
            info = catalogue.find(alg)
            stream = ByteStream(7)
            params = Params(key=stream.bytes(info["key_bytes"]), iv=stream.bytes(info["iv_bytes"]))
            data = stream.bytes(1024 if info["block_bytes"] > 1 else 1000)
            pk = catalogue.is_public_key_or_kdf(info)
            if pk:
                data = data[:32]
                params = case_params(info, {"seed": 1, "cost": cheap.get(alg, {})})
            for op in info["operations"]:
                try:
                    g = (run_pk_gate if pk else run_gate)(p, info, op, data, params)
                    status = "ok" if g.ok else "failed"
                except Unsupported as e:
                    g, status = GateReport(reason=str(e)), "unsupported"
                totals.count(status)
                emit(
                    out,
                    {
                        "type": "check",
                        "provider": name,
                        "variant": variants.CURRENT[name],
                        "algorithm": alg,
                        "operation": op,
                        "status": status,
                        "reason": g.reason,
                        "gate": g.to_json(),
                    },
                )
    emit(out, totals.message())
    return 1 if totals.counts["failed"] else 0


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
