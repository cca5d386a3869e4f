"""The CSV export: one row per case, the same fields as a JSON result (docs/results.md)."""

import csv as _csv
import io
import json

from cryptobench.analysis import RESULT_FIELDS, RunResults


def render(results: RunResults, with_samples: bool = False) -> str:
    rows = [case.row(results.run.id) for case in results.cases]
    if with_samples:
        # One cell of "iterations:ns:ticks" triples separated by spaces keeps one row per case.
        for row, case in zip(rows, results.cases, strict=True):
            row["raw_samples"] = " ".join(f"{i}:{ns}:{t}" for i, ns, t in case.raw_samples)
    out = io.StringIO()
    fields = list(RESULT_FIELDS) + (["raw_samples"] if with_samples else [])
    writer = _csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(v: object) -> object:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return json.dumps(v, sort_keys=True, separators=(",", ":"))  # cost: {"iterations":10000}
    return v
