"""The configuration scenario's figures: tables for the terminal and the report, a driver run
as stored figures and back, the terminal summary."""

import json
from typing import Any

from cryptobench.figures import Figure
from cryptobench.scenarios.config.model import (
    DIRECTIONS,
    THESIS_DIRECTION_NAME,
    THESIS_READ_1000,
    THESIS_SOURCE,
    ScenarioResults,
    ScenarioRun,
    Series,
    _series_order,
)
from cryptobench.tables import text_table


def overhead_rows(results: ScenarioResults) -> list[list[str]]:
    """The overhead table with the thesis's figures beside ours, for terminal and report."""
    rows = []
    for o in results.overheads:
        thesis_h, thesis_f = o.thesis if o.thesis else (None, None)
        rows.append(
            [
                THESIS_DIRECTION_NAME[o.series.direction],
                o.series.label,
                f"{o.mean_h_s:.4f}",
                f"{o.mean_f:.2f}",
                "" if thesis_h is None else f"{thesis_h:.3f}",
                "" if thesis_f is None else f"{thesis_f:.3f}",
                str(len(o.n_values)),
            ]
        )
    return rows


OVERHEAD_HEADERS = [
    "direction",
    "scheme/provider",
    "h (s), ours",
    "f, ours",
    "h (s), thesis",
    "f, thesis",
    "n values",
]


def time_at(results: ScenarioResults, n: int, direction: str) -> list[tuple[str, float]]:
    """(series label, median seconds) at one n, e.g. reading 1,000 values."""
    out = []
    for series in sorted(results.medians, key=_series_order):
        if series.direction == direction and n in results.medians[series]:
            out.append((series.label, results.medians[series][n]))
    return out


def headline_n(results: ScenarioResults) -> int | None:
    """1,000 values (the thesis's headline figure) when measured, else the largest n."""
    ns = results.n_values()
    if not ns:
        return None
    return 1000 if 1000 in ns else ns[-1]


TIME_HEADERS = [
    "scheme/provider",
    "write, median",
    "write, min–max",
    "read, median",
    "read, min–max",
    "read, vs compat",
    "read, thesis (about)",
    "runs",
]


def time_rows(results: ScenarioResults, n: int) -> list[list[str]]:
    """Per scheme/provider: median and range of writing and reading n values; for confcrypt
    the speed-up over the thesis's scheme on the same provider; the thesis's n = 1000 reads."""
    rows = []
    for label in results.labels():
        scheme, _, provider = label.partition("/")
        cells = [label]
        for direction in DIRECTIONS:
            s = Series(scheme, provider, direction)
            median = results.medians.get(s, {}).get(n)
            low, high = results.ranges.get(s, {}).get(n, (None, None))
            fitted = results.extrapolated.get(s, {}).get(n)
            if median is None and fitted is not None:
                cells.append(f"≈{_seconds(fitted)}")
                cells.append("extrapolated (fit)")
                continue
            cells.append(_seconds(median))
            cells.append("-" if low is None else f"{_seconds(low)} – {_seconds(high)}")
        read = results.medians.get(Series(scheme, provider, "read"), {}).get(n)
        compat_series = Series("compat", provider, "read")
        compat = results.medians.get(compat_series, {}).get(n)
        if compat is None:
            compat = results.extrapolated.get(compat_series, {}).get(n)
        cells.append(
            f"{compat / read:.0f}× faster"
            if scheme == "confcrypt" and read and compat is not None
            else ""
        )
        thesis = THESIS_READ_1000.get(label) if n == 1000 else None
        cells.append("" if thesis is None else _seconds(thesis))
        counts = [results.runs.get(Series(scheme, provider, d), {}).get(n, 0) for d in DIRECTIONS]
        cells.append(str(min(counts)))
        rows.append(cells)
    return rows


HEAP_HEADERS = [
    "scheme/provider",
    "direction",
    "allocations",
    "bytes allocated",
    "peak live bytes",
    "allocations per value",
]


def heap_rows(results: ScenarioResults, n: int) -> list[list[str]]:
    rows = []
    for series in sorted(results.heap, key=_series_order):
        figures = results.heap[series].get(n)
        if not figures:
            continue
        rows.append(
            [
                series.label,
                series.direction,
                f"{figures['allocs']:.0f}",
                _bytes(figures["bytes"]),
                _bytes(figures["peak_live_bytes"]),
                f"{figures['allocs'] / n:.1f}",
            ]
        )
    return rows


def _seconds(v: float | None) -> str:
    if v is None:
        return "-"
    if v >= 1:
        return f"{v:.2f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.2f} ms"
    return f"{v * 1e6:.0f} µs"


def _bytes(v: float) -> str:
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= factor:
            return f"{v / factor:.1f} {unit}"
    return f"{v:.0f} B"


# ---- storing: as figures, like every scenario ---------------------------------------------------
#
# A sample (one timed write or read) is one repetition of the figure "time" (seconds) of its
# scheme, provider, n and direction; a heap line is three figures of one value; a skipped
# scheme/provider is a skipped "time" figure with the driver's reason. What the driver said
# about itself (versions, notes) and what a --quick run extrapolates are settings of the run.

TIME = "time"
HEAP = (("allocs", "heap allocations", "calls"), ("bytes", "heap bytes", "B"),
        ("peak_live_bytes", "peak live heap", "B"))  # fmt: skip
SETTINGS = ("info", "notes", "extrapolate")  # beside the driver's spec in settings["scenario"]


def _key(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "scheme": row["scheme"],
        "provider": row.get("provider") or "",
        "n": int(row["n"]),
        "direction": row["direction"],
    }


def sample_figure(sample: dict[str, Any]) -> Figure:
    return Figure(_key(sample), TIME, "s", (sample["ns"] / 1e9,), better="lower")


def heap_figures(row: dict[str, Any]) -> list[Figure]:
    return [Figure(_key(row), metric, unit, (row[field],), better="lower")
            for field, metric, unit in HEAP]  # fmt: skip


def skip_figure(skip: dict[str, str]) -> Figure:
    key = {"scheme": skip["scheme"], "provider": skip.get("provider") or ""}
    return Figure(key, TIME, "s", better="lower", status="skipped", reason=skip.get("reason", ""))


def to_figures(run: ScenarioRun) -> list[Figure]:
    """Everything a driver run measured, as the figures the store keeps."""
    return [
        *(sample_figure(s) for s in run.samples),
        *(f for h in run.heap for f in heap_figures(h)),
        *(skip_figure(s) for s in run.skipped),
    ]


def stored_settings(run: ScenarioRun) -> dict[str, Any]:
    """The run's settings["scenario"]: the driver's spec, its facts and the extrapolation."""
    return {**run.spec, **{k: getattr(run, k) for k in SETTINGS}}


def from_figures(figures: list[Figure], settings: dict[str, Any]) -> ScenarioRun:
    """The driver run a stored run's figures and settings come from (samples in run order)."""
    run = ScenarioRun(
        spec={k: v for k, v in settings.items() if k not in SETTINGS},
        info=settings.get("info", {}),
        notes=settings.get("notes", {}),
        extrapolate=settings.get("extrapolate", {}),
        done=True,
    )
    heap: dict[str, dict[str, Any]] = {}
    fields = {metric: field for field, metric, _ in HEAP}
    for f in figures:
        if f.status == "skipped" and f.metric == TIME:
            run.skipped.append({**f.key, "reason": f.reason})
        elif f.status != "ok":
            continue
        elif f.metric == TIME:
            run.samples += [
                {**f.key, "run": i, "ns": round(v * 1e9)} for i, v in enumerate(f.values)
            ]
        elif f.metric in fields and f.values:
            row = heap.setdefault(json.dumps(f.key, sort_keys=True), dict(f.key))
            row[fields[f.metric]] = f.values[-1]
    run.heap = [row for row in heap.values() if all(k in row for k, _, _ in HEAP)]
    return run


# ---- presenting ----------------------------------------------------------------------------------


def summary(figures: list[Figure], settings: dict[str, Any]) -> str:
    """What `show` and the command print for a stored run."""
    run = from_figures(figures, settings)
    if not run.samples:
        return "no figures stored"
    return summary_of(run.analyse(), run.info)


def summary_of(results: ScenarioResults, info: dict[str, Any] | None = None) -> str:
    """The terminal summary: time for the headline n, the overhead table beside the thesis's,
    skips."""
    out = []
    n = headline_n(results)
    if n is not None:
        out.append(f"Writing and reading a configuration of {n} values (median of the runs):")
        out.append(text_table(TIME_HEADERS, time_rows(results, n)))
        out.append("")
    if results.overheads:
        out.append(f"Overhead against no encryption, averaged over n; thesis: {THESIS_SOURCE}:")
        out.append(text_table(OVERHEAD_HEADERS, overhead_rows(results)))
    for s in results.skipped:
        out.append(f"skipped {s['scheme']}/{s['provider']}: {s['reason']}")
    if info and info.get("gpg"):
        out.append(f"gpg: {info['gpg']}; compat unwraps its master password with gpg every time")
    if info and info.get("compat_kdf"):
        kdfs = ", ".join(f"{p} {k}" for p, k in info["compat_kdf"].items())
        out.append(f"compat key derivation per library (the thesis's variants): {kdfs}")
    return "\n".join(out)
