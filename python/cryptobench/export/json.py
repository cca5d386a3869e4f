"""The JSON export: a stable, documented document (docs/results.md). Bump FORMAT_VERSION when a
field changes meaning or disappears; adding fields does not need a bump."""

import json as _json
from typing import Any

from cryptobench.analysis import RunResults

FORMAT = "cryptobench-results"
FORMAT_VERSION = 1


def document(results: RunResults, with_samples: bool = False) -> dict[str, Any]:
    run = results.run
    rows = []
    for case in results.cases:
        row = case.row(run.id)
        if with_samples:
            row["raw_samples"] = [
                {"iterations": i, "ns": ns, "ticks": t} for i, ns, t in case.raw_samples
            ]
        rows.append(row)
    return {
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
            "runner": run.runner,
            "runner_version": run.runner_version,
        },
        "machine": results.machine,
        "libraries": results.libraries,
        "results": rows,
        "fits": [fit.row(run.id) for fit in results.fits],
        "failures": [
            {
                key: f.get(key)
                for key in (
                    "provider",
                    "variant",
                    "operation",
                    "algorithm",
                    "size",
                    "kind",
                    "message",
                )
            }
            for f in results.failures
        ],
    }


def render(results: RunResults, with_samples: bool = False) -> str:
    return _json.dumps(document(results, with_samples), indent=2, allow_nan=False) + "\n"
