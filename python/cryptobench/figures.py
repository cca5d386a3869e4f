"""A scenario's measured figure: what was measured, in which unit, one value per repetition.

The core measures cases (samples of a timed operation); a scenario measures whole systems —
a file system's MB/s, a tunnel's latency, a process's peak RSS. Each such figure is a `Figure`:
its identity (`key`, e.g. {"system": "gocryptfs", "workload": "dd-write"}), the metric and unit,
which direction is better, and the values of every repetition. The store keeps them as they are
measured; `show`, `export` and `compare` read them without knowing the scenario.
"""

import json
import statistics
from dataclasses import dataclass, field
from typing import Any

BETTER = ("higher", "lower")
STATUSES = ("ok", "failed", "skipped")


@dataclass(frozen=True)
class Figure:
    key: dict[str, Any]
    metric: str
    unit: str
    values: tuple[float, ...] = ()
    better: str = "higher"
    status: str = "ok"
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.better not in BETTER:
            raise ValueError(f"better must be one of {BETTER}, not {self.better!r}")
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {self.status!r}")
        object.__setattr__(self, "values", tuple(float(v) for v in self.values))

    @property
    def identity(self) -> tuple[str, str]:
        """What matches the same figure in two runs: the key and the metric."""
        return (json.dumps(self.key, sort_keys=True), self.metric)

    @property
    def median(self) -> float | None:
        return statistics.median(self.values) if self.values else None

    @property
    def label(self) -> str:
        return " · ".join(str(v) for v in self.key.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "metric": self.metric,
            "unit": self.unit,
            "better": self.better,
            "status": self.status,
            "reason": self.reason,
            "values": list(self.values),
            "median": self.median,
            "extra": self.extra,
        }


def failed(key: dict[str, Any], metric: str, unit: str, reason: str, **extra: Any) -> Figure:
    return Figure(key, metric, unit, status="failed", reason=reason, extra=extra)


def skipped(key: dict[str, Any], metric: str, unit: str, reason: str, **extra: Any) -> Figure:
    return Figure(key, metric, unit, status="skipped", reason=reason, extra=extra)


def pool(figures: list[Figure]) -> list[Figure]:
    """One figure per identity (key and metric), in the order first measured. A scenario may
    store a figure's repetitions one at a time, as each is measured (so a stopped run keeps
    them); they are one figure whose values are every repetition's. Repetitions that failed or
    were skipped beside ones that measured are named in `extra["not_ok"]`; a figure no
    repetition measured keeps its first status and reason."""
    by_identity: dict[tuple[str, str], list[Figure]] = {}
    for f in figures:
        by_identity.setdefault(f.identity, []).append(f)
    out = []
    for group in by_identity.values():
        if len(group) == 1:
            out.append(group[0])
            continue
        ok = [f for f in group if f.status == "ok"]
        if not ok:
            out.append(group[0])
            continue
        extra = {k: v for f in reversed(ok) for k, v in f.extra.items()}
        not_ok = [f"{f.status}: {f.reason}" for f in group if f.status != "ok"]
        if not_ok:
            extra["not_ok"] = not_ok
        first = ok[0]
        values = tuple(v for f in ok for v in f.values)
        out.append(
            Figure(first.key, first.metric, first.unit, values, first.better, "ok", "", extra)
        )
    return out
