"""Reads across runs, for `cryptobench serve`: the list of runs with filters, one case's rows in
every run, the consecutive runs of each machine, a run's raw samples by case; for a
report and `recommend`, the verdicts of every run of one suite (leakverdicts.py); and for
`reproduce --stored`, the runs with a given note. Every value a
user sends arrives here as a bound parameter; only the names of sort columns are chosen, from
a fixed table, never taken from the request. The indexes these need are Alembic revision
0010."""

import json
from dataclasses import dataclass
from typing import Any

from cryptobench.figures import Figure
from cryptobench.store.db import Store

# A case's identity, in the order of analysis.CaseResult.key().
CASE_KEY = (
    "provider", "variant", "operation", "algorithm", "input", "align_offset", "aad_bytes",
    "cost", "size",
)  # fmt: skip

SORTS = {
    "id": "runs.id",
    "started": "runs.started_at",
    "suite": "runs.suite",
    "machine": "machine.hostname",
    "status": "runs.status",
}


@dataclass
class RunFilter:
    machine: str | None = None  # hostname
    suite: str | None = None
    scenario: bool | None = None  # only scenario runs (True), only core runs (False)
    library: str | None = None  # a part of a library's version text, e.g. "3.0.2"
    since: str | None = None  # YYYY-MM-DD, inclusive
    until: str | None = None  # YYYY-MM-DD, inclusive
    sort: str = "id"
    descending: bool = True
    limit: int = 100
    offset: int = 0


def list_runs(db: Store, f: RunFilter) -> tuple[list[dict[str, Any]], int]:
    """The runs that pass the filter, one page of them; and how many pass in all."""
    where, params = _where(f)
    total = db.conn.execute(
        f"SELECT COUNT(*) FROM runs LEFT JOIN machine ON machine.run_id = runs.id{where}",
        params,
    ).fetchone()[0]
    order = SORTS.get(f.sort, "runs.id") + (" DESC" if f.descending else " ASC")
    rows = db.conn.execute(
        "SELECT runs.id, runs.started_at, runs.finished_at, runs.status, runs.suite, runs.note,"
        " runs.pid, machine.hostname, machine.cpu_model FROM runs"
        f" LEFT JOIN machine ON machine.run_id = runs.id{where}"
        f" ORDER BY {order}, runs.id DESC LIMIT ? OFFSET ?",
        [*params, f.limit, f.offset],
    ).fetchall()
    runs = [dict(r) for r in rows]
    return runs, total


def runs_noted(db: Store, notes: list[str]) -> list[int]:
    """The runs whose note is one of `notes`, the latest started first (`reproduce --stored`
    finds a paper's runs by the note `reproduce` gave them)."""
    if not notes:
        return []
    marks = ", ".join("?" for _ in notes)
    rows = db.conn.execute(
        f"SELECT id FROM runs WHERE note IN ({marks}) ORDER BY started_at DESC, id DESC", notes
    )
    return [r[0] for r in rows]


def case_counts(db: Store, run_ids: list[int]) -> dict[int, dict[str, int]]:
    """Each run's cases by status."""
    counts: dict[int, dict[str, int]] = {i: {} for i in run_ids}
    if run_ids:
        marks = ", ".join("?" for _ in run_ids)
        for run_id, status, n in db.conn.execute(
            f"SELECT run_id, status, COUNT(*) FROM cases WHERE run_id IN ({marks})"
            " GROUP BY run_id, status",
            run_ids,
        ):
            counts[run_id][status] = n
    return counts


def _where(f: RunFilter) -> tuple[str, list[Any]]:
    terms, params = [], []
    if f.machine:
        terms.append("machine.hostname = ?")
        params.append(f.machine)
    if f.suite:
        terms.append("runs.suite = ?")
        params.append(f.suite)
    if f.scenario is not None:
        terms.append("runs.suite " + ("LIKE" if f.scenario else "NOT LIKE") + " 'scenario:%'")
    if f.library:
        terms.append(
            "EXISTS (SELECT 1 FROM libraries WHERE libraries.run_id = runs.id"
            " AND (libraries.version LIKE ? OR libraries.provider = ?))"
        )
        params += [f"%{f.library}%", f.library]
    if f.since:
        terms.append("runs.started_at >= ?")
        params.append(f.since)
    if f.until:
        # ISO 8601 text sorts as time: every instant of that day is below the next day.
        terms.append("runs.started_at < ?")
        params.append(f.until + "T99")
    return (" WHERE " + " AND ".join(terms) if terms else ""), params


def choices(db: Store) -> dict[str, list[str]]:
    """The machines and suites stored, for the filter's lists."""
    machines = db.conn.execute(
        "SELECT DISTINCT hostname FROM machine WHERE hostname IS NOT NULL ORDER BY hostname"
    )
    suites = db.conn.execute("SELECT DISTINCT suite FROM runs ORDER BY suite")
    return {"machines": [r[0] for r in machines], "suites": [r[0] for r in suites]}


def case_history(db: Store, key: dict[str, Any]) -> list[dict[str, Any]]:
    """One case in every run that measured it, oldest first: the run, its machine, the
    version of the case's library in that run (samples_of gives the case's samples)."""
    rows = db.conn.execute(
        "SELECT cases.id AS case_id, cases.status, runs.id AS run_id, runs.status AS run_status,"
        " runs.started_at,"
        " runs.suite, machine.hostname, machine.cpu_model, libraries.version"
        " FROM cases JOIN runs ON runs.id = cases.run_id"
        " LEFT JOIN machine ON machine.run_id = runs.id"
        " LEFT JOIN libraries ON libraries.run_id = runs.id"
        " AND libraries.provider = cases.provider AND libraries.variant = cases.variant"
        " WHERE cases.algorithm = ? AND cases.operation = ? AND cases.provider = ?"
        " AND cases.variant = ? AND cases.size = ? AND cases.input = ?"
        " AND cases.align_offset = ? AND cases.aad_bytes = ? AND cases.cost = ?"
        " ORDER BY runs.id",
        [key["algorithm"], key["operation"], key["provider"], key["variant"], key["size"],
         key["input"], key["align_offset"], key["aad_bytes"], key["cost"]],
    ).fetchall()  # fmt: skip
    return [dict(r) for r in rows]


def samples_of(db: Store, case_ids: list[int]) -> dict[int, list[tuple[int, int]]]:
    """The raw samples (iterations, ns) of these cases, in sample order."""
    out: dict[int, list[tuple[int, int]]] = {}
    for start in range(0, len(case_ids), 500):
        chunk = case_ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        for case_id, iterations, ns in db.conn.execute(
            f"SELECT case_id, iterations, ns FROM samples WHERE case_id IN ({marks})"
            " ORDER BY case_id, idx",
            chunk,
        ):
            out.setdefault(case_id, []).append((iterations, ns))
    return out


def run_cases(db: Store, run_id: int) -> list[dict[str, Any]]:
    """A run's cases by identity (no samples), in plan order."""
    rows = db.conn.execute(
        f"SELECT id, status, {', '.join(CASE_KEY)} FROM cases WHERE run_id = ? ORDER BY seq",
        (run_id,),
    )
    return [dict(r) for r in rows]


def ok_samples(db: Store, run_id: int) -> dict[tuple, tuple[list[int], list[int]]]:
    """The raw samples of every measured case of a run, by case identity: (ns, iterations),
    each in sample order. On PostgreSQL one row per case, its samples aggregated as text: a
    run of 3,000 cases is 3,000 rows over the connection instead of 33,000 (the rows, not the
    database, are what takes the time). SQLite, in the process, reads them row by row."""
    keys = ", ".join("cases." + k for k in CASE_KEY)
    width = len(CASE_KEY)
    out: dict[tuple, tuple[list[int], list[int]]] = {}
    if db.dialect == "postgresql":
        sql = (
            f"SELECT {keys}, string_agg(CAST(samples.ns AS TEXT), ',' ORDER BY samples.idx),"
            " string_agg(CAST(samples.iterations AS TEXT), ',' ORDER BY samples.idx)"
            " FROM cases JOIN samples ON samples.case_id = cases.id"
            f" WHERE cases.run_id = ? AND cases.status = 'ok' GROUP BY cases.id, {keys}"
        )
        for r in db.conn.tuples(sql, (run_id,)):
            ns, iterations = r[width].split(","), r[width + 1].split(",")
            out[r[:width]] = ([int(v) for v in ns], [int(v) for v in iterations])
        return out
    sql = (
        f"SELECT {keys}, samples.ns, samples.iterations FROM cases"
        " JOIN samples ON samples.case_id = cases.id"
        " WHERE cases.run_id = ? AND cases.status = 'ok' ORDER BY cases.id, samples.idx"
    )
    for r in db.conn.tuples(sql, (run_id,)):
        ns, iterations = out.setdefault(r[:width], ([], []))
        ns.append(r[width])
        iterations.append(r[width + 1])
    return out


def machine_sequences(db: Store) -> list[dict[str, Any]]:
    """Every complete core run with its machine (hostname, CPU model), oldest first: the
    sequences in which consecutive runs of one machine and suite are compared."""
    rows = db.conn.execute(
        "SELECT runs.id, runs.started_at, runs.suite, runs.note, machine.hostname,"
        " machine.cpu_model FROM runs LEFT JOIN machine ON machine.run_id = runs.id"
        " WHERE runs.status = 'complete' AND runs.suite NOT LIKE 'scenario:%' ORDER BY runs.id"
    )
    return [dict(r) for r in rows]


def versions(db: Store, run_ids: list[int]) -> dict[int, dict[tuple[str, str], str]]:
    """Each run's library versions by (provider, variant)."""
    out: dict[int, dict[tuple[str, str], str]] = {i: {} for i in run_ids}
    for start in range(0, len(run_ids), 500):
        chunk = run_ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        for r in db.conn.execute(
            f"SELECT run_id, provider, variant, version FROM libraries WHERE run_id IN ({marks})",
            chunk,
        ):
            out[r[0]][(r[1], r[2])] = r[3]
    return out


def suite_figures(db: Store, suite: str, metrics: tuple[str, ...]) -> list[tuple[int, Figure]]:
    """The figures of these metrics in every run of one suite, newest run first, each with its
    run id and without its values: a leaks run's comparison holds every paired difference, and
    what is read here is the verdict in `extra` (leakverdicts.py)."""
    if not metrics:
        return []
    marks = ", ".join("?" for _ in metrics)
    rows = db.conn.execute(
        "SELECT figures.run_id, figures.key, figures.metric, figures.unit, figures.better,"
        " figures.status, figures.reason, figures.extra FROM figures"
        " JOIN runs ON runs.id = figures.run_id"
        f" WHERE runs.suite = ? AND figures.metric IN ({marks})"
        " ORDER BY figures.run_id DESC, figures.seq",
        [suite, *metrics],
    )
    return [
        (
            r[0],
            Figure(
                key=json.loads(r[1]),
                metric=r[2],
                unit=r[3],
                better=r[4],
                status=r[5],
                reason=r[6],
                extra=json.loads(r[7]),
            ),
        )
        for r in rows
    ]
