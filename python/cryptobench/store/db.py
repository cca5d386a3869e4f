"""The results store: runs, machine records, cases, raw samples, failures and scenario figures,
in an SQLite file (the embedded default) or a PostgreSQL database (a team's shared store).

Both engines go through SQLAlchemy, and both get their schema from the same Alembic migrations
(store/migrations); the SQL below is the standard subset both speak. An SQLite file of an
older cryptobench is first brought to schema 6 by the legacy chain it was written with
(store/schema.py, numbered by SQLite's `user_version`), then continues with Alembic. A database
from a newer cryptobench is refused rather than guessed at.

A run's cases are all written, as `pending`, when the run is planned. Each case is then completed
in one transaction (its row, its samples, its failure record), so a run killed at any moment leaves
a consistent database: complete cases and pending ones, which `run --resume` measures.
"""

import json
import os
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.figures import Figure, pool
from cryptobench.plan import CaseSpec
from cryptobench.store import engine as engines
from cryptobench.store.schema import MIGRATIONS, SCHEMA_VERSION

MAX_ROW_ID = (1 << 63) - 1  # SQLite's largest integer

# What a damaged or locked database raises mid-command; the command line turns it into one line.
DatabaseError = engines.DatabaseError


def _wait_s() -> float:
    """How long a command waits for another one writing to the same database (seconds)."""
    try:
        return max(0.0, float(os.environ.get("CRYPTOBENCH_DB_WAIT_S", "30")))
    except ValueError:
        return 30.0


def locked_message(path: Path | str) -> str:
    return (
        f"database {path} is locked: another cryptobench is writing to it; wait for it to "
        "finish, or use another --db"
    )


def default_path() -> Path | str:
    """$CRYPTOBENCH_DB (a file or a postgresql:// URL), else the user's data directory."""
    if os.environ.get("CRYPTOBENCH_DB"):
        value = os.environ["CRYPTOBENCH_DB"]
        return value if engines.is_url(value) else Path(value)
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "cryptobench" / "results.db"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class RunInfo:
    id: int
    started_at: str
    finished_at: str | None
    status: str
    suite: str
    note: str
    settings: dict[str, Any]
    cryptobench_version: str
    runner: str
    runner_version: str
    runner_path: str
    pid: int | None
    hostname: str
    counts: dict[str, int]  # status -> cases


class Store:
    def __init__(self, conn: engines.Connection, path: Path | str):
        self.conn, self.path = conn, path

    @property
    def dialect(self) -> str:
        return self.conn.dialect

    # ---- opening and migrating ---------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str | None = None, create: bool = True) -> "Store":
        """A results database: a file path (SQLite) or a postgresql:// URL."""
        target = path if path else default_path()
        if engines.is_url(str(target)):
            shown = engines.redacted(str(target))
            try:
                store = cls(engines.connect_url(str(target), _wait_s()), shown)
                store.migrate()
            except engines.DatabaseError as e:
                raise UserError(f"database {shown}: {engines.reason(e)}") from None
            return store
        path = Path(target)
        if not path.exists():
            if not create:
                raise UserError(f"no results database at {path} (run `cryptobench run` first)")
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise UserError(f"cannot create {path.parent}: {e.strerror}") from None
        elif path.is_dir():
            raise UserError(f"database {path}: is a directory")
        try:
            store = cls(engines.connect_sqlite(path, _wait_s()), path)
            store.migrate()
        except engines.DatabaseError as e:
            if "locked" in str(e):
                raise UserError(locked_message(path)) from None
            raise UserError(
                f"database {path}: {engines.reason(e)} (not a cryptobench results file?)"
            ) from None
        return store

    @classmethod
    def open_readonly(cls, path: Path | str | None = None) -> "Store":
        """A results database opened so that nothing can be written through it (`serve`): an
        SQLite file in SQLite's read-only mode, a PostgreSQL session whose transactions are all
        READ ONLY. It is not migrated: an older schema is refused with the command that
        upgrades it."""
        target = path if path else default_path()
        if engines.is_url(str(target)):
            shown: Path | str = engines.redacted(str(target))
            connect = lambda: engines.connect_url(str(target), _wait_s(), read_only=True)  # noqa: E731
        else:
            shown = Path(target)
            if not shown.is_file():
                raise UserError(f"no results database at {shown} (run `cryptobench run` first)")
            connect = lambda: engines.connect_sqlite_readonly(Path(target), _wait_s())  # noqa: E731
        try:
            store = cls(connect(), shown)
            if "runs" not in store._tables():
                raise UserError(f"database {shown} is not a cryptobench results store")
            current = engines.at_head(store.conn)
        except engines.DatabaseError as e:
            raise UserError(f"database {shown}: {engines.reason(e)}") from None
        if not current:
            store.close()
            raise UserError(
                f"database {shown} has an older or newer schema than this cryptobench; "
                f"`cryptobench runs --db {shown}` brings an older one up to date"
            )
        return store

    def migrate(self) -> None:
        """Brings the database to the newest schema: the legacy SQLite chain up to version 6
        where a file needs it, then Alembic's revisions (both engines)."""
        tables = self._tables()
        if self.dialect == "sqlite":
            version = self.schema_version()
            if version > SCHEMA_VERSION:
                raise UserError(
                    f"database {self.path} has schema version {version}; this cryptobench knows "
                    f"versions up to {SCHEMA_VERSION} (upgrade cryptobench)"
                )
            if version > 0 and "runs" not in tables:
                raise UserError(f"database {self.path} is not a cryptobench results file")
            if version == 0 and tables:
                raise UserError(f"database {self.path} is an SQLite file of something else")
            if 0 < version < SCHEMA_VERSION:
                self._legacy_migrate(version)
            if version > 0 and "alembic_version" not in tables:
                engines.stamp_baseline(self.conn)
        elif tables and "runs" not in tables:
            raise UserError(f"database {self.path} holds tables of something else")
        try:
            engines.upgrade(self.conn)
        except engines.UnknownRevision:
            raise UserError(
                f"database {self.path} was written by a newer cryptobench (upgrade cryptobench)"
            ) from None
        if self.dialect == "sqlite" and self.schema_version() == 0:
            self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _legacy_migrate(self, version: int) -> None:
        """SQLite files of cryptobench before Alembic: their own numbered chain, to version 6."""
        raw = self.conn.raw_sqlite()
        # Off for the table rebuilds (see MIGRATIONS[2]); the pragma has no effect inside a
        # transaction, hence here, around all steps.
        raw.execute("PRAGMA foreign_keys = OFF")
        try:
            for target in range(version + 1, SCHEMA_VERSION + 1):
                # One transaction per step: the schema change and its version number land
                # together.
                try:
                    raw.executescript(
                        f"BEGIN;\n{MIGRATIONS[target - 1]}\n"
                        f"PRAGMA user_version = {target};\nCOMMIT;"
                    )
                except BaseException:
                    if raw.in_transaction:
                        raw.execute("ROLLBACK")
                    raise
            broken = raw.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise UserError(
                    f"database {self.path}: {len(broken)} rows lost their references while "
                    "migrating (a damaged file?)"
                )
        finally:
            raw.execute("PRAGMA foreign_keys = ON")

    def schema_version(self) -> int:
        """SQLite's legacy version number (6 once the file reached Alembic's baseline)."""
        if self.dialect != "sqlite":
            return SCHEMA_VERSION
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def _tables(self) -> list[str]:
        return self.conn.tables()

    def _has_table(self, name: str) -> bool:
        return name in self._tables()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit of writes (on SQLite under the file's write lock from the start)."""
        with self.conn.transaction():
            yield

    def close(self) -> None:
        self.conn.close()

    # ---- writing a run ---------------------------------------------------------------------------

    def create_run(
        self,
        suite: str,
        settings: dict[str, Any],
        argv: list[str],
        versions: dict[str, str],
        machine: dict[str, Any],
        libraries: Iterable[dict[str, Any]],
        cases: list[CaseSpec],
        note: str = "",
        uid: str | None = None,
    ) -> int:
        """The run, its machine record and every planned case (pending), in one transaction.
        `uid` names the run across stores (a new one unless a run is being copied)."""
        with self.transaction():
            row = self.conn.execute(
                "INSERT INTO runs (started_at, status, suite, settings, argv, cryptobench_version,"
                " runner, runner_version, runner_path, pid, note, uid)"
                " VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    now(),
                    suite,
                    json.dumps(settings),
                    json.dumps(argv),
                    versions["cryptobench"],
                    versions["runner"],
                    versions["runner_version"],
                    versions["runner_path"],
                    os.getpid(),
                    note,
                    uid or str(uuid.uuid4()),
                ),
            ).fetchone()
            run_id = row[0]
            self.add_machine(run_id, machine)
            self.add_libraries(run_id, libraries)
            self.conn.executemany(
                "INSERT INTO cases (run_id, seq, provider, variant, operation, algorithm, size,"
                " input, align_offset, aad_bytes, cost, spec, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
                [
                    (run_id, seq, *c.key()[:-1], c.cost_json(), json.dumps(_spec_dict(c)))
                    for seq, c in enumerate(cases)
                ],
            )
        return run_id

    def add_machine(self, run_id: int, machine: dict[str, Any]) -> None:
        """A run's machine record: the columns queries use, and the whole record as JSON."""
        self.conn.execute(
            "INSERT INTO machine (run_id, hostname, cpu_model, cores, kernel, os, compiler,"
            " tsc_hz, tsc_invariant, governor, cpu_flags, record)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                machine.get("hostname"),
                machine.get("cpu_model"),
                machine.get("cores"),
                machine.get("kernel"),
                machine.get("os"),
                machine.get("compiler"),
                machine.get("tsc_hz"),
                None if machine.get("tsc_invariant") is None else int(machine["tsc_invariant"]),
                machine.get("governor"),
                json.dumps(machine.get("cpu_flags", [])),
                json.dumps(machine),
            ),
        )

    def add_libraries(self, run_id: int, libraries: Iterable[dict[str, Any]]) -> None:
        self.conn.executemany(
            "INSERT INTO libraries (run_id, provider, variant, version, description,"
            " code_path) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    run_id,
                    lib["provider"],
                    lib["variant"],
                    lib.get("version", ""),
                    lib.get("description", ""),
                    json.dumps(lib.get("code_path", {})),
                )
                for lib in libraries
            ],
        )

    def pending_cases(self, run_id: int) -> list[tuple[int, CaseSpec]]:
        rows = self.conn.execute(
            "SELECT id, spec FROM cases WHERE run_id = ? AND status = 'pending' ORDER BY seq",
            (run_id,),
        )
        return [(r["id"], CaseSpec(**json.loads(r["spec"]))) for r in rows]

    def complete_case(self, outcome: Any) -> None:
        """Stores a runner.Outcome: the case row, its samples and any failure, atomically."""
        heap = outcome.heap or {}
        with self.transaction():
            self.conn.execute(
                "UPDATE cases SET status = ?, reason = ?, gate = ?, iterations = ?,"
                " calibration_ns = ?, heap_allocs_per_op = ?, heap_frees_per_op = ?,"
                " heap_bytes_per_op = ?, heap_peak_live_bytes = ?, heap_prepare_allocs = ?,"
                " heap_prepare_bytes = ?, max_rss_kb = ?, runner_summary = ?, completed_at = ?,"
                " measurement = ? WHERE id = ?",
                (
                    outcome.status,
                    outcome.reason,
                    json.dumps(outcome.gate),
                    outcome.iterations,
                    outcome.calibration_ns,
                    heap.get("allocs_per_op"),
                    heap.get("frees_per_op"),
                    heap.get("bytes_per_op"),
                    heap.get("peak_live_bytes"),
                    heap.get("prepare_allocs"),
                    heap.get("prepare_bytes"),
                    outcome.max_rss_kb,
                    json.dumps(outcome.runner_summary) if outcome.runner_summary else None,
                    now(),
                    json.dumps(outcome.measurement) if outcome.measurement else None,
                    outcome.case_id,
                ),
            )
            self.conn.execute("DELETE FROM samples WHERE case_id = ?", (outcome.case_id,))
            self.conn.executemany(
                "INSERT INTO samples (case_id, idx, iterations, ns, ticks) VALUES (?, ?, ?, ?, ?)",
                [(outcome.case_id, i, *s) for i, s in enumerate(outcome.samples)],
            )
            if outcome.failure:
                self.add_failure(
                    self._run_of(outcome.case_id),
                    outcome.case_id,
                    outcome.failure,
                    outcome.reason,
                    outcome.detail,
                )

    def add_failure(
        self, run_id: int, case_id: int | None, kind: str, message: str, detail: str = ""
    ) -> None:
        self.conn.execute(
            "INSERT INTO failures (run_id, case_id, kind, message, detail, at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, case_id, kind, message, detail, now()),
        )

    def _run_of(self, case_id: int) -> int:
        return self.conn.execute("SELECT run_id FROM cases WHERE id = ?", (case_id,)).fetchone()[0]

    def claim_run(self, run_id: int, busy: Any) -> "RunInfo":
        """Takes a stopped run for measuring, atomically: under the database's write lock, the
        run is refused when `busy(info)` says another process measures it, else marked
        `running` by this process. Two `--resume` of one run started at the same instant
        cannot both measure it: the second waits for the lock and then sees the first."""
        with self.transaction():
            info = self.run(run_id)
            if info.status == "complete":
                raise UserError(f"run {run_id} is already complete")
            if busy(info):
                raise UserError(f"run {run_id} is being measured right now (process {info.pid})")
            self.conn.execute(
                "UPDATE runs SET status = 'running', finished_at = NULL, pid = ? WHERE id = ?",
                (os.getpid(), run_id),
            )
        return info

    def set_status(self, run_id: int, status: str) -> None:
        finished = now() if status != "running" else None
        pid = os.getpid() if status == "running" else None
        with self.transaction():
            self.conn.execute(
                "UPDATE runs SET status = ?, finished_at = ?, pid = ? WHERE id = ?",
                (status, finished, pid, run_id),
            )

    # ---- reading ---------------------------------------------------------------------------------

    def runs(self) -> list[RunInfo]:
        ids = [r[0] for r in self.conn.execute("SELECT id FROM runs ORDER BY id")]
        return [self.run(i) for i in ids]

    def resolve_run(self, ref: str | int | None) -> int:
        """A run id, or 'latest' / None for the newest run."""
        if ref is None or ref == "latest":
            row = self.conn.execute("SELECT MAX(id) FROM runs").fetchone()
            if row[0] is None:
                raise UserError(f"no runs stored in {self.path} yet (try `cryptobench run`)")
            return row[0]
        try:
            run_id = int(ref)
        except (TypeError, ValueError):
            raise UserError(f"run '{ref}': expected a run number or 'latest'") from None
        if not 1 <= run_id <= MAX_ROW_ID:
            raise UserError(f"no run {ref} in {self.path} (see `cryptobench runs`)")
        if not self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone():
            raise UserError(f"no run {run_id} in {self.path} (see `cryptobench runs`)")
        return run_id

    def run(self, run_id: int) -> RunInfo:
        r = self.conn.execute(
            "SELECT runs.*, machine.hostname FROM runs"
            " LEFT JOIN machine ON machine.run_id = runs.id WHERE runs.id = ?",
            (run_id,),
        ).fetchone()
        if r is None:
            raise UserError(f"no run {run_id} in {self.path}")
        counts = {
            row[0]: row[1]
            for row in self.conn.execute(
                "SELECT status, COUNT(*) FROM cases WHERE run_id = ? GROUP BY status", (run_id,)
            )
        }
        return RunInfo(
            id=r["id"],
            started_at=r["started_at"],
            finished_at=r["finished_at"],
            status=r["status"],
            suite=r["suite"],
            note=r["note"],
            settings=json.loads(r["settings"]),
            cryptobench_version=r["cryptobench_version"],
            runner=r["runner"],
            runner_version=r["runner_version"],
            runner_path=r["runner_path"],
            pid=r["pid"],
            hostname=r["hostname"] or "",
            counts=counts,
        )

    def machine(self, run_id: int) -> dict[str, Any]:
        row = self.conn.execute("SELECT record FROM machine WHERE run_id = ?", (run_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def libraries(self, run_id: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT provider, variant, version, description, code_path FROM libraries"
            " WHERE run_id = ? ORDER BY provider, variant",
            (run_id,),
        )
        return [{**dict(r), "code_path": json.loads(r["code_path"])} for r in rows]

    def cases(self, run_id: int) -> list[dict[str, Any]]:
        """Every case of the run with its raw samples, in plan order."""
        rows = self.conn.execute("SELECT * FROM cases WHERE run_id = ? ORDER BY seq", (run_id,))
        cases = []
        for r in rows:
            d = dict(r)
            for key in ("gate", "runner_summary", "spec", "cost", "measurement"):
                d[key] = json.loads(d[key]) if d[key] else None
            d["cost"] = d["cost"] or {}
            cases.append(d)
        samples: dict[int, list[tuple[int, int, int]]] = {}
        for s in self.conn.execute(
            "SELECT samples.case_id, samples.iterations, samples.ns, samples.ticks FROM samples"
            " JOIN cases ON cases.id = samples.case_id WHERE cases.run_id = ?"
            " ORDER BY samples.case_id, idx",
            (run_id,),
        ):
            samples.setdefault(s[0], []).append((s[1], s[2], s[3]))
        for c in cases:
            c["samples"] = samples.get(c["id"], [])
        return cases

    def set_settings(self, run_id: int, settings: dict[str, Any]) -> None:
        """Replaces a run's settings (a scenario adds what it learnt while measuring)."""
        with self.transaction():
            self.conn.execute(
                "UPDATE runs SET settings = ? WHERE id = ?", (json.dumps(settings), run_id)
            )

    # ---- scenario figures ------------------------------------------------------------------------

    def add_figures(self, run_id: int, figures: Iterable[Figure]) -> None:
        """Appends figures to a run, in one transaction: a scenario stores each as it is measured,
        so a run stopped at any moment keeps what it had."""
        with self.transaction():
            (last,) = self.conn.execute(
                "SELECT COALESCE(MAX(seq), -1) FROM figures WHERE run_id = ?", (run_id,)
            ).fetchone()
            self.conn.executemany(
                "INSERT INTO figures (run_id, seq, key, metric, unit, better, status, reason,"
                " vals, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run_id,
                        last + 1 + i,
                        json.dumps(f.key, sort_keys=True),
                        f.metric,
                        f.unit,
                        f.better,
                        f.status,
                        f.reason,
                        json.dumps(list(f.values)),
                        json.dumps(f.extra, sort_keys=True),
                    )
                    for i, f in enumerate(figures)
                ],
            )

    def figures(self, run_id: int) -> list[Figure]:
        """The run's figures, a figure's repetitions stored one row each pooled into one."""
        rows = self.conn.execute(
            "SELECT key, metric, unit, better, status, reason, vals, extra FROM figures"
            " WHERE run_id = ? ORDER BY seq",
            (run_id,),
        )
        return pool([
            Figure(
                key=json.loads(r["key"]),
                metric=r["metric"],
                unit=r["unit"],
                values=tuple(json.loads(r["vals"])),
                better=r["better"],
                status=r["status"],
                reason=r["reason"],
                extra=json.loads(r["extra"]),
            )
            for r in rows
        ])  # fmt: skip

    # ---- calibrations (noise.py) ---------------------------------------------------------------

    def add_calibration(
        self, machine: dict[str, Any], run_a: int, run_b: int, noise: float, figures: dict
    ) -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT INTO calibrations (created_at, hostname, cpu_model, run_a, run_b, noise,"
                " figures) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (now(), machine.get("hostname"), machine.get("cpu_model"), run_a, run_b, noise,
                 json.dumps(figures)),
            )  # fmt: skip

    def latest_calibration(self, hostname: str | None, cpu_model: str | None) -> dict | None:
        row = self.conn.execute(
            "SELECT * FROM calibrations WHERE hostname IS NOT DISTINCT FROM ?"
            " AND cpu_model IS NOT DISTINCT FROM ?"
            " ORDER BY id DESC LIMIT 1",
            (hostname, cpu_model),
        ).fetchone()
        if row is None:
            return None
        return {**dict(row), "figures": json.loads(row["figures"])}

    def failures(self, run_id: int) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT failures.*, cases.provider, cases.variant, cases.operation, cases.algorithm,"
            " cases.size FROM failures LEFT JOIN cases ON cases.id = failures.case_id"
            " WHERE failures.run_id = ? ORDER BY failures.id",
            (run_id,),
        )
        return [dict(r) for r in rows]


def _spec_dict(case: CaseSpec) -> dict[str, Any]:
    spec = {f: getattr(case, f) for f in CaseSpec.__dataclass_fields__}
    spec["cost"] = case.cost_dict()
    return spec
