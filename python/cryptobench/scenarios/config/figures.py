"""The configuration scenario's figures: tables for the terminal and the report, storing and
loading a run, its JSON, the terminal summary."""

from typing import Any

from cryptobench.errors import UserError
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
from cryptobench.store import Store
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


# ---- storing: through the store's own methods (store/sqlite.py: add_config_figures) ----------


def store_settings(run: ScenarioRun) -> dict[str, Any]:
    """What goes into runs.settings: the request and the driver's facts (versions, skips, notes)."""
    return {
        "scenario": {
            "name": "config",
            "spec": run.spec,
            "info": run.info,
            "skipped": run.skipped,
            "notes": run.notes,
            "extrapolate": run.extrapolate,
        }
    }


def save(db: Store, run_id: int, run: ScenarioRun) -> None:
    """Samples, heap rows and the run's settings."""
    with db.transaction():
        db.add_config_figures(run_id, run.samples, run.heap)
        db.set_settings(run_id, store_settings(run))


def load(db: Store, run_id: int) -> ScenarioRun | None:
    """The scenario run stored under run_id, or None when that run is not one."""
    samples, heap = db.config_figures(run_id)
    try:
        settings = db.run(run_id).settings
    except UserError:  # no such run: not one of this scenario's either
        return None
    meta = settings.get("scenario") if isinstance(settings, dict) else None
    if meta is None and not samples:
        return None
    meta = meta or {}
    return ScenarioRun(
        spec=meta.get("spec", {}),
        info=meta.get("info", {}),
        samples=samples,
        heap=heap,
        skipped=meta.get("skipped", []),
        notes=meta.get("notes", {}),
        done=True,
        extrapolate=meta.get("extrapolate", {}),
    )


def to_json(run: ScenarioRun, results: ScenarioResults | None = None) -> dict[str, Any]:
    """The whole scenario for --json-out: raw samples and heap rows, and what they come to."""
    results = results or run.analyse()
    return {
        "scenario": "config",
        "spec": run.spec,
        "info": run.info,
        "skipped": run.skipped,
        "notes": run.notes,
        "samples": run.samples,
        "heap": run.heap,
        "medians_s": [
            {
                "scheme": s.scheme,
                "provider": s.provider,
                "direction": s.direction,
                "n": n,
                "median_s": m,
                "runs": results.runs[s][n],
            }
            for s in sorted(results.medians, key=_series_order)
            for n, m in results.medians[s].items()
        ],
        "overheads": [
            {
                "scheme": o.series.scheme,
                "provider": o.series.provider,
                "direction": o.series.direction,
                "mean_h_s": o.mean_h_s,
                "mean_f": o.mean_f,
                "n_values": o.n_values,
                "thesis_h_s": o.thesis[0] if o.thesis else None,
                "thesis_f": o.thesis[1] if o.thesis else None,
            }
            for o in results.overheads
        ],
        "thesis_source": THESIS_SOURCE,
    }


# ---- presenting ----------------------------------------------------------------------------------


def summary(results: ScenarioResults, info: dict[str, Any] | None = None) -> str:
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
    return "\n".join(out)
