"""Exports of a scenario run: its figures as JSON (beside the scenario's own document), CSV or
Markdown, in the same three formats as a core run."""

import csv as _csv
import io
import json as _json
from typing import Any

from cryptobench.analysis import RunResults
from cryptobench.export.json import FORMAT_VERSION
from cryptobench.figures import Figure
from cryptobench.tables import markdown_table

FORMAT = "cryptobench-scenario-results"
FORMATS = ("json", "csv", "md")  # gbench needs cases: a scenario run has none
COLUMNS = ["key", "metric", "unit", "better", "status", "median", "n", "values", "reason"]


def _row(f: Figure) -> list[Any]:
    return [
        " · ".join(f"{k}={v}" for k, v in f.key.items()),
        f.metric,
        f.unit,
        f.better,
        f.status,
        "" if f.median is None else f"{f.median:.6g}",
        len(f.values),
        " ".join(f"{v:.6g}" for v in f.values),
        f.reason,
    ]


def render(
    fmt: str, results: RunResults, figures: list[Figure], scenario_doc: dict[str, Any]
) -> str:
    if fmt == "json":
        run = results.run
        doc = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "run": {
                "id": run.id,
                "suite": run.suite,
                "note": run.note,
                "status": run.status,
                "started_at": run.started_at,
                "finished_at": run.finished_at,
                "cryptobench_version": run.cryptobench_version,
            },
            "machine": results.machine,
            "figures": [f.to_json() for f in figures],
            "scenario": scenario_doc,
        }
        return _json.dumps(doc, indent=2, allow_nan=False, default=str) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = _csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(_row(f) for f in figures)
        return out.getvalue()
    if fmt == "md":
        return markdown_table(COLUMNS, [[str(v) for v in _row(f)] for f in figures]) + "\n"
    raise ValueError(f"a scenario run does not export as {fmt!r} (formats: {FORMATS})")
