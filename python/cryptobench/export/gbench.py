"""Google Benchmark's JSON (`--benchmark_format=json`), so its tools/compare.py and the
dashboards that read that format work on our runs. Each case is one benchmark family named
`provider/algorithm/operation/size`; its samples are the repetitions (run_type "iteration",
time per operation in ns), followed by the mean, median and stddev aggregates Google Benchmark
itself writes for repeated benchmarks."""

import json as _json
import statistics
from typing import Any

from cryptobench.analysis import RunResults


def _entry(
    name: str, run_name: str, family: int, ns: float, iterations: int, size: int, **extra: Any
) -> dict:
    entry = {
        "name": name,
        "family_index": family,
        "per_family_instance_index": 0,
        "run_name": run_name,
        "threads": 1,
        "iterations": iterations,
        "real_time": ns,
        "cpu_time": ns,
        "time_unit": "ns",
        **extra,
    }
    if size and ns > 0:
        entry["bytes_per_second"] = size / (ns / 1e9)
    return entry


def document(results: RunResults, with_samples: bool = False) -> dict[str, Any]:
    run, m = results.run, results.machine
    benchmarks = []
    for family, c in enumerate(results.ok_cases()):
        name = f"{c.label}/{c.algorithm_label}/{c.operation}/{c.size}"
        times = [float(t) for t in c.ns]
        n = len(times)
        for i, t in enumerate(times):
            benchmarks.append(
                _entry(
                    name,
                    name,
                    family,
                    t,
                    c.iterations or 1,
                    c.size,
                    run_type="iteration",
                    repetitions=n,
                    repetition_index=i,
                )
            )
        stats = {
            "mean": statistics.fmean(times),
            "median": statistics.median(times),
            "stddev": statistics.stdev(times) if n > 1 else 0.0,
        }
        for aggregate, value in stats.items():
            benchmarks.append(
                _entry(
                    f"{name}_{aggregate}",
                    name,
                    family,
                    value,
                    n,
                    c.size,
                    run_type="aggregate",
                    repetitions=n,
                    aggregate_name=aggregate,
                    aggregate_unit="time",
                )
            )
    return {
        "context": {
            "date": run.started_at,
            "host_name": m.get("hostname", ""),
            "executable": f"{run.runner} {run.runner_version} (cryptobench run {run.id})",
            "num_cpus": m.get("cores", 0),
            "mhz_per_cpu": round((m.get("tsc_hz") or 0) / 1e6),
            "cpu_scaling_enabled": m.get("governor") not in (None, "performance"),
            "caches": [],
            "library_build_type": "release",
            "cryptobench_suite": run.suite,
        },
        "benchmarks": benchmarks,
    }


def render(results: RunResults, with_samples: bool = False) -> str:
    return _json.dumps(document(results, with_samples), indent=2, allow_nan=False) + "\n"
