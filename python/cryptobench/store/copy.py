"""Copying one run from a store to another (`cryptobench push`): the run, its machine record,
libraries, cases with their raw samples, failures and scenario figures, in one transaction of
the target. A run is known by its uid: pushing it twice finds it there and copies nothing."""

import uuid

from cryptobench.store.db import Store


def run_uid(db: Store, run_id: int) -> str:
    """The run's uid; runs stored before uids existed get one now."""
    row = db.conn.execute("SELECT uid FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row[0]:
        return row[0]
    uid = str(uuid.uuid4())
    db.conn.execute("UPDATE runs SET uid = ? WHERE id = ?", (uid, run_id))
    return uid


def find(db: Store, uid: str) -> int | None:
    row = db.conn.execute("SELECT id FROM runs WHERE uid = ?", (uid,)).fetchone()
    return row[0] if row else None


def copy_run(source: Store, run_id: int, target: Store) -> tuple[int, bool]:
    """Copies the run; returns (its id in the target, whether it was copied now)."""
    uid = run_uid(source, run_id)
    existing = find(target, uid)
    if existing is not None:
        return existing, False
    src = source.conn
    run = src.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
    machine = source.machine(run_id)
    with target.transaction():
        new_id = target.conn.execute(
            "INSERT INTO runs (started_at, finished_at, status, suite, settings, argv,"
            " cryptobench_version, runner, runner_version, runner_path, pid, note, uid)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?) RETURNING id",
            (
                run["started_at"],
                run["finished_at"],
                run["status"],
                run["suite"],
                run["settings"],
                run["argv"],
                run["cryptobench_version"],
                run["runner"],
                run["runner_version"],
                run["runner_path"],
                run["note"],
                uid,
            ),
        ).fetchone()[0]
        target.add_machine(new_id, machine)
        target.add_libraries(new_id, source.libraries(run_id))
        case_ids: dict[int, int] = {}
        columns = [c for c in _case_columns(source) if c not in ("id", "run_id")]
        for case in src.execute("SELECT * FROM cases WHERE run_id = ? ORDER BY seq", (run_id,)):
            placeholders = ", ".join("?" for _ in columns)
            case_ids[case["id"]] = target.conn.execute(
                f"INSERT INTO cases (run_id, {', '.join(columns)}) VALUES (?, {placeholders})"
                " RETURNING id",
                (new_id, *(case[c] for c in columns)),
            ).fetchone()[0]
        samples = src.execute(
            "SELECT samples.* FROM samples JOIN cases ON cases.id = samples.case_id"
            " WHERE cases.run_id = ?",
            (run_id,),
        )
        target.conn.executemany(
            "INSERT INTO samples (case_id, idx, iterations, ns, ticks) VALUES (?, ?, ?, ?, ?)",
            [
                (case_ids[s["case_id"]], s["idx"], s["iterations"], s["ns"], s["ticks"])
                for s in samples
            ],
        )
        target.conn.executemany(
            "INSERT INTO failures (run_id, case_id, kind, message, detail, at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (new_id, case_ids.get(f["case_id"]), f["kind"], f["message"], f["detail"], f["at"])
                for f in src.execute("SELECT * FROM failures WHERE run_id = ?", (run_id,))
            ],
        )
        target.add_figures(new_id, source.figures(run_id))
    return new_id, True


def _case_columns(db: Store) -> list[str]:
    row = db.conn.execute("SELECT * FROM cases LIMIT 1").fetchone()
    if row is not None:
        return row.keys()
    return [
        "id",
        "run_id",
        "seq",
        "provider",
        "variant",
        "operation",
        "algorithm",
        "size",
        "input",
        "align_offset",
        "aad_bytes",
        "cost",
        "spec",
        "status",
        "reason",
        "gate",
        "iterations",
        "calibration_ns",
        "heap_allocs_per_op",
        "heap_frees_per_op",
        "heap_bytes_per_op",
        "heap_peak_live_bytes",
        "heap_prepare_allocs",
        "heap_prepare_bytes",
        "max_rss_kb",
        "runner_summary",
        "completed_at",
    ]
