"""A stored run, analysed: per-case statistics and the overhead fits over each size sweep.

This is what `show`, `export`, `report` and `compare` present; none of them computes statistics
of its own.
"""

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cryptobench import security, stats
from cryptobench.capabilities import SYMMETRIC_KINDS
from cryptobench.plan import cost_json, format_cost
from cryptobench.store import RunInfo, Store
from cryptobench.units import format_kib, format_measured

# The operation that stands for an algorithm where one figure per algorithm is shown.
PRIMARY_OPERATIONS = ("encrypt", "hash", "mac")

# The fields of one exported result, in order (documented in docs/results.md).
RESULT_FIELDS = (
    "run_id", "provider", "variant", "operation", "algorithm", "size", "input", "align_offset",
    "aad_bytes", "status", "reason", "n_samples", "iterations", "median_ns", "q1_ns", "q3_ns",
    "min_ns", "max_ns", "mad_ns", "ci_low_ns", "ci_high_ns", "unstable", "bytes_per_s",
    "ops_per_s", "ticks_per_op", "cycles_per_byte", "heap_bytes_per_op", "heap_allocs_per_op",
    "heap_frees_per_op", "heap_peak_live_bytes", "heap_prepare_allocs", "heap_prepare_bytes",
    "max_rss_kb", "rss_before_kb", "rss_peak_kb", "rss_rise_kb", "gate_kat", "gate_roundtrip",
    "gate_agreement", "gate_lax", "kind", "cost",
    "security_bits",
)  # fmt: skip


@dataclass
class CaseResult:
    id: int
    provider: str
    variant: str
    operation: str
    algorithm: str
    size: int
    input: str
    align_offset: int
    aad_bytes: int
    status: str
    reason: str
    gate: dict[str, Any]
    iterations: int | None
    raw_samples: list[tuple[int, int, int]]
    ns: np.ndarray  # per operation, one value per sample
    summary: stats.Summary | None
    ticks_per_op: float | None  # median
    heap: dict[str, Any]
    max_rss_kb: int | None
    spec: dict[str, Any] = field(default_factory=dict)  # the case as planned (plan.CaseSpec)
    kind: str = ""  # the algorithm's kind (capabilities.KINDS)
    cost: dict[str, int] = field(default_factory=dict)  # KDF cost parameters
    # How the runner measured it: layout, clock, rewarms, the whole heap record (protocol.md)
    measurement: dict[str, Any] = field(default_factory=dict)

    def heap_figure(self, key: str) -> float | None:
        """One figure of the heap record; None where the runner did not measure it (a runner
        that cannot count it, or an old result without it), never 0 in its place."""
        v = self.heap.get(key)
        return v if isinstance(v, int | float) and not isinstance(v, bool) else None

    @property
    def rss_rise_kb(self) -> int | None:
        """How far the process's resident peak rose above its resident set across the heap pass
        (VmHWM after it − VmRSS before it, at least 0): memory the heap counter cannot see (an
        extension's, a JNI library's) is in it. None where not measured (no reset of the
        high-water mark; the native runner said -1 for that before it said null)."""
        before, peak = self.heap_figure("rss_before_kb"), self.heap_figure("rss_peak_kb")
        if before is None or peak is None or before < 0 or peak < 0:
            return None
        return max(0, int(peak - before))

    @property
    def server_cpu_ns(self) -> float | None:
        """A handshake case's server CPU per handshake: the median over its samples of the CPU
        time the server's calls took (the runner's `handshake.server_cpu_ns`, one total per
        sample) over the sample's handshakes. None for other cases, or where not measured."""
        totals = (self.measurement.get("handshake") or {}).get("server_cpu_ns")
        if not totals or len(totals) != len(self.raw_samples):
            return None
        per_op = [t / s[0] for t, s in zip(totals, self.raw_samples, strict=True) if s[0] > 0]
        return stats.median(per_op) if per_op else None

    @property
    def client_hello_bytes(self) -> int | None:
        """A handshake case's ClientHello on the wire: the bytes of the client's first flight,
        record headers included (the runner's `handshake.client_hello_bytes`). None where not
        counted."""
        n = (self.measurement.get("handshake") or {}).get("client_hello_bytes")
        return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None

    def memory_texts(self) -> tuple[str, str]:
        """Heap bytes per operation and the resident peak's rise, as tables show them: 'not
        measured' where the runner could not count one, never 0; '-' for a case not measured at
        all (failed, unsupported)."""
        if self.status != "ok":
            return "-", "-"
        return format_measured(self.heap_figure("bytes_per_op")), format_kib(self.rss_rise_kb)

    @property
    def clock_moved(self) -> float | None:
        return clock_moved(self.measurement.get("clock"))

    @property
    def label(self) -> str:
        return self.provider if self.variant == "default" else f"{self.provider}/{self.variant}"

    @property
    def symmetric(self) -> bool:
        """Ciphers, AEADs, hashes and MACs: figures per byte make sense."""
        return self.kind in SYMMETRIC_KINDS

    @property
    def algorithm_label(self) -> str:
        """The algorithm with its cost parameters, if any: 'pbkdf2-sha256 (iterations=10000)'."""
        return f"{self.algorithm} ({format_cost(self.cost)})" if self.cost else self.algorithm

    @property
    def security_bits(self) -> int | None:
        rating = security.levels().get(self.algorithm)
        return rating.strength if rating else None

    @property
    def median_ns(self) -> float | None:
        return self.summary.median if self.summary else None

    @property
    def bytes_per_s(self) -> float | None:
        """Only for symmetric kinds: a signature's or a key derivation's time is not spent per
        byte of its input."""
        if not self.symmetric or not self.summary or self.size == 0 or self.summary.median <= 0:
            return None
        return self.size / self.summary.median * 1e9

    @property
    def ops_per_s(self) -> float | None:
        if not self.summary or self.summary.median <= 0:
            return None
        return 1e9 / self.summary.median

    @property
    def cycles_per_byte(self) -> float | None:
        if not self.symmetric or self.ticks_per_op is None or self.size == 0:
            return None
        return self.ticks_per_op / self.size

    @property
    def unstable(self) -> bool | None:
        return self.summary.unstable if self.summary else None

    def group_key(self) -> tuple:
        """Everything but the size: the cases a size sweep is made of."""
        return (
            self.provider,
            self.variant,
            self.operation,
            self.algorithm,
            self.input,
            self.align_offset,
            self.aad_bytes,
            cost_json(self.cost),
        )

    def key(self) -> tuple:
        return (*self.group_key(), self.size)

    def row(self, run_id: int) -> dict[str, Any]:
        """The flat record of the JSON/CSV/Markdown exports (docs/results.md)."""
        s, rise = self.summary, self.rss_rise_kb
        row = {
            "run_id": run_id,
            "provider": self.provider,
            "variant": self.variant,
            "operation": self.operation,
            "algorithm": self.algorithm,
            "size": self.size,
            "input": self.input,
            "align_offset": self.align_offset,
            "aad_bytes": self.aad_bytes,
            "status": self.status,
            "reason": self.reason,
            "n_samples": s.n if s else 0,
            "iterations": self.iterations,
            "median_ns": _num(s.median if s else None),
            "q1_ns": _num(s.q1 if s else None),
            "q3_ns": _num(s.q3 if s else None),
            "min_ns": _num(s.min if s else None),
            "max_ns": _num(s.max if s else None),
            "mad_ns": _num(s.mad if s else None),
            "ci_low_ns": _num(s.ci_low if s else None),
            "ci_high_ns": _num(s.ci_high if s else None),
            "unstable": self.unstable,
            "bytes_per_s": _num(self.bytes_per_s),
            "ops_per_s": _num(self.ops_per_s),
            "ticks_per_op": _num(self.ticks_per_op),
            "cycles_per_byte": _num(self.cycles_per_byte),
            "heap_bytes_per_op": self.heap_figure("bytes_per_op"),
            "heap_allocs_per_op": self.heap_figure("allocs_per_op"),
            "heap_frees_per_op": self.heap_figure("frees_per_op"),
            "heap_peak_live_bytes": self.heap_figure("peak_live_bytes"),
            "heap_prepare_allocs": self.heap_figure("prepare_allocs"),
            "heap_prepare_bytes": self.heap_figure("prepare_bytes"),
            "max_rss_kb": self.max_rss_kb,
            "rss_before_kb": None if rise is None else self.heap_figure("rss_before_kb"),
            "rss_peak_kb": None if rise is None else self.heap_figure("rss_peak_kb"),
            "rss_rise_kb": rise,
            "gate_kat": self.gate.get("kat", ""),
            "gate_roundtrip": self.gate.get("roundtrip", ""),
            "gate_agreement": self.gate.get("agreement", ""),
            "gate_lax": self.gate.get("lax", ""),
            "kind": self.kind,
            "cost": dict(self.cost),
            "security_bits": self.security_bits,
        }
        assert tuple(row) == RESULT_FIELDS
        return row


@dataclass
class OverheadFit:
    """t(n) = a + b·n over one size sweep (stats.fit_overhead)."""

    provider: str
    variant: str
    operation: str
    algorithm: str
    input: str
    align_offset: int
    aad_bytes: int
    sizes: list[int]
    fit: stats.LineFit
    tsc_hz: float | None
    # Model-free per-byte cost at the largest size: the figure to hold the fit's b against.
    largest_cycles_per_byte: float | None = None

    @property
    def label(self) -> str:
        return self.provider if self.variant == "default" else f"{self.provider}/{self.variant}"

    @property
    def overhead_ns(self) -> float:
        return self.fit.intercept

    @property
    def ns_per_byte(self) -> float:
        return self.fit.slope

    @property
    def cycles_per_byte(self) -> float | None:
        """Reference cycles (TSC ticks) per byte: the TSC runs at a constant rate, which on a VM
        or with frequency scaling is not the core clock."""
        return self.fit.slope * self.tsc_hz / 1e9 if self.tsc_hz else None

    @property
    def overhead_figure(self) -> float | None:
        """The per-call overhead to print, or None when the fit puts it below zero: a negative
        overhead is an artefact of noise or of a per-byte cost that is not constant, never a
        figure. Print `overhead_text` instead of a number then."""
        return self.fit.intercept if self.fit.intercept > 0 else None

    @property
    def overhead_text(self) -> str:
        """a with its 95% interval, e.g. "41.2 [38.0, 44.9]", or "< resolution" when a ≤ 0."""
        lo, hi = self.fit.intercept_ci
        ci = f" [{max(lo, 0.0):.1f}, {hi:.1f}]" if math.isfinite(lo) and math.isfinite(hi) else ""
        if self.overhead_figure is None:
            return "below resolution" + (f" (95% CI up to {hi:.1f})" if math.isfinite(hi) else "")
        return f"{self.fit.intercept:.1f}{ci}"

    @property
    def half_size(self) -> float | None:
        """The size at which the per-call overhead equals the per-byte cost: a/b."""
        if self.fit.slope <= 0 or self.fit.intercept <= 0:
            return None
        return self.fit.intercept / self.fit.slope

    def row(self, run_id: int) -> dict[str, Any]:
        return {
            "run_id": run_id,
            "provider": self.provider,
            "variant": self.variant,
            "operation": self.operation,
            "algorithm": self.algorithm,
            "input": self.input,
            "align_offset": self.align_offset,
            "aad_bytes": self.aad_bytes,
            "sizes": self.sizes,
            "overhead_ns": _num(self.overhead_figure),
            "overhead_se_ns": _num(self.fit.intercept_se),
            "overhead_ci_ns": [_num(v) for v in self.fit.intercept_ci],
            "ns_per_byte": _num(self.ns_per_byte),
            "ns_per_byte_se": _num(self.fit.slope_se),
            "ns_per_byte_ci": [_num(v) for v in self.fit.slope_ci],
            "cycles_per_byte": _num(self.cycles_per_byte),
            "half_size_bytes": _num(self.half_size),
            "r2": _num(self.fit.r2),
            "largest_size_cycles_per_byte": _num(self.largest_cycles_per_byte),
        }


@dataclass
class RunResults:
    run: RunInfo
    machine: dict[str, Any]
    libraries: list[dict[str, Any]]
    cases: list[CaseResult]
    failures: list[dict[str, Any]]
    fits: list[OverheadFit] = field(default_factory=list)

    @property
    def tsc_hz(self) -> float | None:
        return self.machine.get("tsc_hz")

    def ok_cases(self) -> list[CaseResult]:
        return [c for c in self.cases if c.status == "ok" and c.summary]

    def symmetric_cases(self) -> list[CaseResult]:
        """Successful cases of ciphers, AEADs, hashes and MACs: the per-byte figures."""
        return [c for c in self.ok_cases() if c.symmetric]

    def sizes(self) -> list[int]:
        """Message sizes of the symmetric cases (public-key and KDF cases have sizes of their
        own: 0 for key generation and agreement, a short message or password otherwise)."""
        return sorted({c.size for c in self.symmetric_cases()})

    def labels(self) -> list[str]:
        """provider[/variant] in a stable order: providers alphabetically, default first."""
        pairs = {(c.provider, c.variant != "default", c.variant) for c in self.cases}
        return [p if v == "default" else f"{p}/{v}" for p, _, v in sorted(pairs)]

    def algorithms(self) -> list[str]:
        seen: list[str] = []
        for c in self.cases:
            if c.algorithm not in seen:
                seen.append(c.algorithm)
        return seen


def load(store: Store, run_id: int) -> RunResults:
    machine = store.machine(run_id)
    cases = [_case_result(c) for c in store.cases(run_id)]
    results = RunResults(
        run=store.run(run_id),
        machine=machine,
        libraries=store.libraries(run_id),
        cases=cases,
        failures=store.failures(run_id),
    )
    results.fits = overhead_fits(cases, machine.get("tsc_hz"))
    return results


def _case_result(c: dict[str, Any]) -> CaseResult:
    samples = c["samples"] if c["status"] == "ok" else []
    ns = stats.per_op(samples, 1)
    ticks = stats.per_op(samples, 2)
    heap_keys = (
        "allocs_per_op",
        "frees_per_op",
        "bytes_per_op",
        "peak_live_bytes",
        "prepare_allocs",
        "prepare_bytes",
    )
    heap = {k: c[f"heap_{k}"] for k in heap_keys if c.get(f"heap_{k}") is not None}
    measurement = c.get("measurement") or {}
    # The heap record's further figures (anonymous mmap, minor faults, per-case RSS peak).
    heap |= {k: v for k, v in (measurement.get("heap") or {}).items() if k not in heap}
    cost = dict(c.get("cost") or {})
    return CaseResult(
        id=c["id"],
        provider=c["provider"],
        variant=c["variant"],
        operation=c["operation"],
        algorithm=c["algorithm"],
        size=c["size"],
        input=c["input"],
        align_offset=c["align_offset"],
        aad_bytes=c["aad_bytes"],
        status=c["status"],
        reason=c["reason"] or "",
        gate=c["gate"] or {},
        iterations=c["iterations"],
        raw_samples=samples,
        ns=ns,
        summary=stats.summarize(ns),
        ticks_per_op=stats.median(ticks) if ticks.size and ticks.any() else None,
        heap=heap,
        max_rss_kb=c["max_rss_kb"],
        spec=c["spec"] or {},
        kind=security.kind_of(c["algorithm"], c["operation"], bool(cost)),
        cost=cost,
        measurement=measurement,
    )


# A fit needs this many sizes: with two, the line passes through both points and says nothing
# about how well a line describes the data.
MIN_FIT_SIZES = 3
# The fit takes only sizes where t(n) = a + b·n can hold (as libgcrypt's bench-slope does, which
# fits 16–4112 B in 64 B steps): whole multiples of 64 B, so no hash or cipher block is partly
# filled, and at most 16 KiB, so input and output stay in the L1/L2 caches. Larger sizes add
# cache and memory effects the line has no term for; their cycles per byte are shown apart.
FIT_BLOCK = 64
FIT_MAX_SIZE = 16384


def fit_sizes(sizes: list[int]) -> list[int]:
    """The sizes of a sweep the overhead fit uses."""
    return [n for n in sizes if n > 0 and n % FIT_BLOCK == 0 and n <= FIT_MAX_SIZE]


def overhead_fits(cases: list[CaseResult], tsc_hz: float | None) -> list[OverheadFit]:
    groups: dict[tuple, list[CaseResult]] = {}
    for c in cases:
        if c.status == "ok" and c.summary and c.summary.median > 0 and c.symmetric:
            groups.setdefault(c.group_key(), []).append(c)
    fits = []
    for key, members in groups.items():
        if is_baseline(members[0]):
            continue
        members.sort(key=lambda c: c.size)
        usable = set(fit_sizes([c.size for c in members]))
        fitted = [c for c in members if c.size in usable]
        if len({c.size for c in fitted}) < MIN_FIT_SIZES:
            continue
        fit = stats.fit_overhead([c.size for c in fitted], [c.ns for c in fitted])
        fits.append(
            OverheadFit(
                *key[:7],  # all but the cost: symmetric cases have none
                sizes=[c.size for c in fitted],
                fit=fit,
                tsc_hz=tsc_hz,
                largest_cycles_per_byte=members[-1].cycles_per_byte,
            )
        )
    return fits


# ---- the harness floor ---------------------------------------------------------------------------

# The built-in provider that measures the harness alone (native/src/providers/null.cpp). Its cases
# are a baseline: shown next to the smallest messages' figures, never ranked or recommended.
BASELINE_PROVIDER = "null"


def is_baseline(case: CaseResult) -> bool:
    return case.provider == BASELINE_PROVIDER


def harness_floor(cases: list[CaseResult]) -> dict[int, float]:
    """Median ns per operation of the null provider, by message size: what the harness itself
    costs per call (virtual call, loop, buffer touch). Empty when the run has no null case."""
    return {
        c.size: c.median_ns
        for c in sorted(cases, key=lambda c: c.size)
        if is_baseline(c) and c.status == "ok" and c.summary
    }


def floor_share(case: CaseResult, floor: dict[int, float]) -> float | None:
    """The share of a case's median time that is harness floor (floor at the nearest measured
    size at or below the case's size), e.g. 0.04 for a 16-byte AEAD at 45 ns over a 1.8 ns
    floor; None without a floor or a summary."""
    if not floor or not case.summary or case.median_ns <= 0 or is_baseline(case):
        return None
    at = [n for n in floor if n <= case.size] or [min(floor)]
    return floor[max(at)] / case.median_ns


# ---- machine state around a case -----------------------------------------------------------------

# The core clock may move this much between a case's open and its check before a report warns.
CLOCK_TOLERANCE = 0.02


def clock_moved(clock: dict[str, Any] | None) -> float | None:
    """The relative change of the core clock over a case (a result's `clock`: `ghz_open`,
    `ghz_close`, from the runner's dependent-add probe), when it exceeds CLOCK_TOLERANCE; None
    when it stayed within it or was not measured."""
    if not clock:
        return None
    before, after = clock.get("ghz_open") or 0.0, clock.get("ghz_close") or 0.0
    if before <= 0 or after <= 0:
        return None
    change = after / before - 1
    return change if abs(change) > CLOCK_TOLERANCE else None


def cycles_label(machine: dict[str, Any]) -> str:
    """What the run's cycle figures are, from the machine record: core cycles only where the
    runner found a readable hardware cycle counter (`pmu_cycles`), else TSC reference cycles.
    Reports use this instead of claiming that a machine has no counters."""
    if machine.get("pmu_cycles"):
        return "core cycles (hardware performance counter)"
    return "reference cycles (TSC): no hardware cycle counter was readable on this machine"


def _num(x: float | None) -> float | None:
    """JSON has no NaN or infinity: those become null."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
