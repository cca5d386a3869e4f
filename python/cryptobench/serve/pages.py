"""What each page of `serve` shows, as plain data: the HTML templates render it and `?format=json`
returns it as it is. Nothing here knows HTTP; a bad parameter raises NotFound or BadRequest."""

import json
from dataclasses import asdict
from typing import Any

import numpy as np

from cryptobench import analysis, compare, noise, scenarios, stats
from cryptobench.compare_figures import compare_figures
from cryptobench.errors import UserError
from cryptobench.plan import cost_json, format_cost
from cryptobench.store import Store, reads
from cryptobench.units import format_ns, format_size

RUNS_PER_PAGE = 100
PAIRS_PER_PAGE = 5


class NotFound(Exception):
    pass


class BadRequest(Exception):
    pass


def integer(
    params: dict[str, str], name: str, default: int | None = None, low: int = 0, high: int = 1 << 62
) -> int:
    text = params.get(name)
    if text in (None, ""):
        if default is None:
            raise BadRequest(f"{name}: missing")
        return default
    try:
        value = int(text)
    except ValueError:
        raise BadRequest(f"{name}: '{text}' is not a whole number") from None
    if not low <= value <= high:
        raise BadRequest(f"{name}: {value} is out of range")
    return value


def _date(params: dict[str, str], name: str) -> str | None:
    text = params.get(name) or None
    if text is not None and not (len(text) == 10 and text[4] == "-" and text[7] == "-"):
        raise BadRequest(f"{name}: '{text}' is not a date YYYY-MM-DD")
    return text


# ---- runs ------------------------------------------------------------------------------------


def runs_page(db: Store, params: dict[str, str], cache: dict | None = None) -> dict[str, Any]:
    kind = params.get("kind") or ""
    if kind not in ("", "core", "scenario"):
        raise BadRequest(f"kind: '{kind}' is not core or scenario")
    sort = params.get("sort") or "id"
    if sort not in reads.SORTS:
        raise BadRequest(f"sort: '{sort}' is not one of {', '.join(reads.SORTS)}")
    order = params.get("order") or "desc"
    if order not in ("asc", "desc"):
        raise BadRequest(f"order: '{order}' is not asc or desc")
    page = integer(params, "page", 1, low=1, high=10**9)
    f = reads.RunFilter(
        machine=params.get("machine") or None,
        suite=params.get("suite") or None,
        scenario={"": None, "core": False, "scenario": True}[kind],
        library=params.get("library") or None,
        since=_date(params, "since"),
        until=_date(params, "until"),
        sort=sort,
        descending=order == "desc",
        limit=RUNS_PER_PAGE,
        offset=(page - 1) * RUNS_PER_PAGE,
    )
    runs, total = reads.list_runs(db, f)
    _add_counts(db, runs, {} if cache is None else cache)
    for r in runs:
        r["cases"] = sum(r["counts"].values())
        r["done"] = sum(n for s, n in r["counts"].items() if s != "pending")
        r["failed"] = r["counts"].get("failed", 0)
    shown = {k: v for k, v in params.items() if k != "format" and v}
    return {
        "filter": shown,
        "runs": runs,
        "total": total,
        "page": page,
        "pages": max(1, -(-total // RUNS_PER_PAGE)),
        "choices": reads.choices(db),
    }


def _add_counts(db: Store, runs: list[dict[str, Any]], cache: dict) -> None:
    """Each run's cases by status. A complete run's counts cannot change, so they are counted
    once (a page of 100 runs of 3,000 cases is 300,000 index entries) and kept."""
    known = cache.setdefault("counts", {})
    counted = reads.case_counts(db, [r["id"] for r in runs if r["id"] not in known])
    for r in runs:
        if r["id"] in counted:
            r["counts"] = counted[r["id"]]
            if r["status"] == "complete":
                known[r["id"]] = r["counts"]
        else:
            r["counts"] = known[r["id"]]


# ---- one case across runs --------------------------------------------------------------------


def case_key(params: dict[str, str]) -> dict[str, Any]:
    """A case's identity from the query string; everything but its name has the defaults of
    a planned case."""
    key: dict[str, Any] = {}
    for name in ("provider", "operation", "algorithm"):
        if not params.get(name):
            raise BadRequest(f"{name}: missing")
        key[name] = params[name]
    key["variant"] = params.get("variant") or "default"
    key["input"] = params.get("input") or "random"
    key["size"] = integer(params, "size")
    key["align_offset"] = integer(params, "align_offset", 0)
    key["aad_bytes"] = integer(params, "aad_bytes", 0)
    try:
        cost = json.loads(params.get("cost") or "{}")
        key["cost"] = cost_json({str(k): int(v) for k, v in cost.items()})
    except (ValueError, TypeError, AttributeError):
        raise BadRequest("cost: not a JSON object of whole numbers") from None
    return key


def key_query(key: tuple | dict) -> dict[str, Any]:
    """The query string of a case's history page, from its identity."""
    d = key if isinstance(key, dict) else dict(zip(reads.CASE_KEY, key, strict=True))
    out = {k: d[k] for k in ("provider", "operation", "algorithm", "size")}
    defaults = {"variant": "default", "input": "random", "align_offset": 0, "aad_bytes": 0}
    out |= {k: d[k] for k, v in defaults.items() if d[k] != v}
    if d["cost"] not in ("{}", None):
        out["cost"] = d["cost"]
    return out


def case_title(d: dict[str, Any]) -> str:
    label = d["provider"] + ("" if d["variant"] == "default" else f"/{d['variant']}")
    cost = json.loads(d["cost"]) if isinstance(d["cost"], str) else d["cost"]
    algorithm = d["algorithm"] + (f" ({format_cost(cost)})" if cost else "")
    return f"{label} {algorithm} {d['operation']} {format_size(d['size'])}"


def history_page(db: Store, params: dict[str, str], cache: dict | None = None) -> dict[str, Any]:
    key = case_key(params)
    rows = reads.case_history(db, key)
    if not rows:
        raise NotFound(f"no run measured {case_title(key)}")
    figures = _case_figures(db, rows, {} if cache is None else cache)
    lines: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        machine = r["hostname"] or r["cpu_model"] or "unknown machine"
        median, low, high, n = figures.get(r["case_id"], (None, None, None, 0))
        line = lines.setdefault(machine, [])
        previous = line[-1]["version"] if line else None
        line.append({
            "run_id": r["run_id"],
            "started_at": r["started_at"],
            "suite": r["suite"],
            "status": r["status"],
            "version": r["version"],
            "version_changed": bool(line) and r["version"] != previous,
            "median_ns": median,
            "ci_low_ns": low,
            "ci_high_ns": high,
            "n_samples": n,
        })  # fmt: skip
    return {"case": key, "title": case_title(key), "machines": lines}


def _case_figures(db: Store, rows: list[dict[str, Any]], cache: dict) -> dict[int, tuple]:
    """Each measured point's (median, CI low, CI high, samples): the median and the bootstrap
    95% interval of bootstrap_median_ci, the points of one sample count drawn together. A
    case of a complete run cannot change, so its figures are computed once and kept."""
    known = cache.setdefault("case_figures", {})
    wanted = [r for r in rows if r["status"] == "ok" and r["case_id"] not in known]
    samples = reads.samples_of(db, [r["case_id"] for r in wanted])
    by_size: dict[int, list[tuple[int, np.ndarray]]] = {}
    fresh = {}
    for r in wanted:
        ns = stats.per_op([(i, n, 0) for i, n in samples.get(r["case_id"], [])], 1)
        if ns.size:
            by_size.setdefault(ns.size, []).append((r["case_id"], ns))
    for group in by_size.values():
        values = np.stack([ns for _, ns in group])
        low, high = stats.bootstrap_median_cis(values)
        for (case_id, ns), lo, hi in zip(group, low, high, strict=True):
            fresh[case_id] = (stats.median(ns), float(lo), float(hi), int(ns.size))
    for r in wanted:
        if r["case_id"] in fresh and r["run_status"] == "complete":
            known[r["case_id"]] = fresh[r["case_id"]]
    return {r["case_id"]: known.get(r["case_id"]) or fresh.get(r["case_id"]) for r in rows
            if r["case_id"] in known or r["case_id"] in fresh}  # fmt: skip


# ---- regressions -----------------------------------------------------------------------------


def regressions_page(db: Store, params: dict[str, str], cache: dict) -> dict[str, Any]:
    """Per machine (hostname and CPU model) and suite, each complete core run against the one
    before it, newest first, a page of pairs at a time; `slower` cases by compare's rule with
    the machine's calibrated noise as threshold."""
    before = integer(params, "before", 1 << 62, low=1)
    pairs = [p for p in regression_pairs(db) if p[1]["id"] < before]
    page = pairs[:PAIRS_PER_PAGE]
    versions = reads.versions(db, sorted({r["id"] for p in page for r in p}))
    out = []
    for a, b in page:
        found = noise.for_machine(db, {"hostname": b["hostname"], "cpu_model": b["cpu_model"]})
        verdicts = _verdicts(db, a["id"], b["id"], found.threshold, cache)
        va, vb = versions[a["id"]], versions[b["id"]]
        out.append({
            "machine": b["hostname"] or b["cpu_model"] or "unknown machine",
            "cpu_model": b["cpu_model"],
            "suite": b["suite"],
            "run_a": a["id"],
            "run_b": b["id"],
            "started_b": b["started_at"],
            "threshold": found.threshold,
            "noise_source": found.source,
            **verdicts,
            "version_changes": [
                f"{p}{'' if v == 'default' else '/' + v}: {va[(p, v)]} → {vb[(p, v)]}"
                for p, v in sorted(vb) if (p, v) in va and va[(p, v)] != vb[(p, v)]
            ],
        })  # fmt: skip
    more = len(pairs) > PAIRS_PER_PAGE
    return {
        "pairs": out,
        "alpha": compare.DEFAULT_ALPHA,
        "next_before": page[-1][1]["id"] if more else None,
    }


def warm_regressions(db: Store, cache: dict) -> int:
    """Computes every pair's verdicts, newest first, into `cache` (the server's, shared with
    the requests: each entry is set whole, once), with its own store and its own samples, so
    that a regressions page answers from memory however old. Returns the pairs done."""
    own: dict = {}
    pairs = regression_pairs(db)
    for a, b in pairs:
        found = noise.for_machine(db, {"hostname": b["hostname"], "cpu_model": b["cpu_model"]})
        key = ("pair", a["id"], b["id"], found.threshold)
        if key not in cache:
            cache[key] = _verdicts(db, a["id"], b["id"], found.threshold, own)
    return len(pairs)


def regression_pairs(db: Store) -> list[tuple[dict, dict]]:
    """Each complete core run with the one before it of the same machine and suite, newest
    first."""
    pairs, last = [], {}
    for r in reads.machine_sequences(db):
        line = (r["hostname"], r["cpu_model"], r["suite"])
        if line in last:
            pairs.append((last[line], r))
        last[line] = r
    return pairs[::-1]


def _verdicts(db: Store, a: int, b: int, threshold: float, cache: dict) -> dict[str, Any]:
    """A pair's tally and slower cases. Complete runs do not change, so a pair's verdicts are
    kept for the server's lifetime (a few slower rows each), and the last runs' samples for
    the pairs that share them."""
    key = ("pair", a, b, threshold)
    if key not in cache:
        changes = compare.changes(_per_op(db, a, cache), _per_op(db, b, cache), threshold)
        slower = sorted((c for c in changes if c.verdict == "slower"), key=lambda c: -c.ratio)
        cache[key] = {
            "compared": len(changes),
            "faster": sum(1 for c in changes if c.verdict == "faster"),
            "slower": [_change_row(c) for c in slower],
        }
    return cache[key]


def _per_op(db: Store, run_id: int, cache: dict) -> dict[tuple, np.ndarray]:
    samples = cache.setdefault("samples", {})
    if run_id not in samples:
        if len(samples) >= 2 * (PAIRS_PER_PAGE + 1):
            samples.pop(next(iter(samples)))
        per_op = {}
        for k, (ns, iterations) in reads.ok_samples(db, run_id).items():
            n, it = np.array(ns, dtype=float), np.array(iterations, dtype=float)
            per_op[k] = n[it > 0] / it[it > 0]  # stats.per_op
        samples[run_id] = per_op
    return samples[run_id]


def _change_row(c: compare.Change) -> dict[str, Any]:
    d = dict(zip(reads.CASE_KEY, c.key, strict=True))
    return {
        "case": case_title(d),
        "history": key_query(d),
        "median_a": format_ns(c.median_a),
        "median_b": format_ns(c.median_b),
        "ratio": c.ratio,
        "ci_low": c.ci_low,
        "ci_high": c.ci_high,
        "q": c.q,
    }


# ---- one run, two runs, scenario runs --------------------------------------------------------


def run_id(db: Store, text: str) -> int:
    try:
        return db.resolve_run(text)
    except UserError as e:
        raise NotFound(str(e)) from None


def compare_page(db: Store, params: dict[str, str]) -> dict[str, Any]:
    a, b = run_id(db, params.get("a", "")), run_id(db, params.get("b", ""))
    show_all = params.get("all") == "1"
    run_a, run_b = analysis.load(db, a), analysis.load(db, b)
    scenario_a = scenarios.for_suite(run_a.run.suite)
    scenario_b = scenarios.for_suite(run_b.run.suite)
    head = {"a": a, "b": b, "all": show_all, "suite_a": run_a.run.suite, "suite_b": run_b.run.suite}
    if scenario_a is not None or scenario_b is not None:
        if scenario_a is not scenario_b:
            raise BadRequest(f"runs {a} and {b} measured different things")
        rows = []
        for c in compare_figures(
            scenario_a.stored(db, a).figures, scenario_a.stored(db, b).figures, 0.05
        ):
            if c.verdict != "same" or show_all:
                f = c.figure
                rows.append({
                    "case": f.label, "metric": f"{f.metric} ({f.unit}, {f.better} is better)",
                    "a": c.a.median if c.a else None, "b": c.b.median if c.b else None,
                    "ratio": c.ratio, "p": c.p, "verdict": c.verdict,
                })  # fmt: skip
        return head | {"kind": "figures", "threshold": 0.05, "rows": rows, "warnings": []}
    found = noise.for_machine(db, run_b.machine)
    comparisons = compare.compare_runs(run_a, run_b, found.threshold)
    rows = []
    for c in comparisons:
        if c.verdict == "same" and not show_all:
            continue
        ref = c.a or c.b
        rows.append({
            "case": f"{ref.label} {ref.algorithm_label} {ref.operation} {format_size(ref.size)}",
            "history": key_query(ref.key()),
            "a": format_ns(c.a.median_ns) if c.a else None,
            "b": format_ns(c.b.median_ns) if c.b else None,
            "ratio": c.ratio, "ci_low": c.ci_low, "ci_high": c.ci_high, "q": c.q,
            "verdict": c.verdict + (" (unstable)" if c.unstable else ""),
        })  # fmt: skip
    return head | {
        "kind": "cases",
        "threshold": found.threshold,
        "noise_source": found.source,
        "warnings": compare.warnings(run_a, run_b),
        "tally": compare.tally(comparisons),
        "rows": rows,
    }


def scenarios_page(db: Store, params: dict[str, str]) -> dict[str, Any]:
    page = integer(params, "page", 1, low=1, high=10**9)
    f = reads.RunFilter(scenario=True, limit=20, offset=(page - 1) * 20)
    runs, total = reads.list_runs(db, f)
    for r in runs:
        r["figures"] = [
            {
                "figure": fig.label,
                "metric": fig.metric,
                "unit": fig.unit,
                "better": fig.better,
                "status": fig.status,
                "median": fig.median,
                "repetitions": len(fig.values),
                "reason": fig.reason,
            }
            for fig in db.figures(r["id"])
        ]
    return {"runs": runs, "total": total, "page": page, "pages": max(1, -(-total // 20))}


def as_json(data: Any) -> Any:
    """Dataclasses and numpy numbers as JSON's own types."""
    if hasattr(data, "__dataclass_fields__"):
        return as_json(asdict(data))
    if isinstance(data, dict):
        return {str(k): as_json(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [as_json(v) for v in data]
    if isinstance(data, np.generic):
        return data.item()
    if isinstance(data, float) and not np.isfinite(data):
        return None
    return data
