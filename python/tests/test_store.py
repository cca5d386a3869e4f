"""The results store: schema, migrations, atomic cases, and refusing files it cannot trust."""

import json
import sqlite3

import pytest
from conftest import store_run

from cryptobench import store
from cryptobench.errors import UserError
from cryptobench.plan import CaseSpec
from cryptobench.runner import Outcome


def test_a_new_database_has_the_current_schema(tmp_path):
    db = store.Store.open(tmp_path / "new" / "results.db")
    assert db.schema_version() == store.SCHEMA_VERSION
    tables = set(db._tables())
    assert {"runs", "machine", "libraries", "cases", "samples", "failures"} <= tables


def test_default_location_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("CRYPTOBENCH_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert store.default_path() == tmp_path / "data" / "cryptobench" / "results.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert store.default_path() == tmp_path / "home" / ".local/share/cryptobench/results.db"
    monkeypatch.setenv("CRYPTOBENCH_DB", str(tmp_path / "x.db"))
    assert store.default_path() == tmp_path / "x.db"


def test_an_old_database_is_migrated_and_keeps_its_runs(tmp_path):
    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path)
    conn.executescript(store.MIGRATIONS[0])
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO runs (started_at, status, suite, settings, argv, cryptobench_version,"
        " runner, runner_version, runner_path) VALUES ('2024-01-01T00:00:00+00:00', 'complete',"
        " 'quick', '{}', '[]', '0.0.1', 'cryptobench-native', '0.1.0', '/x')"
    )
    conn.commit()
    conn.close()

    db = store.Store.open(path)
    assert db.schema_version() == store.SCHEMA_VERSION
    [run] = db.runs()
    assert (run.suite, run.status, run.note) == ("quick", "complete", "")


def test_a_database_from_a_newer_cryptobench_is_refused(tmp_path):
    path = tmp_path / "future.db"
    store.Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {store.SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(UserError, match="upgrade cryptobench"):
        store.Store.open(path)


def test_files_that_are_not_results_databases_are_refused(tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not SQLite at all" * 100)
    with pytest.raises(UserError, match=r"garbage\.db"):
        store.Store.open(garbage)

    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.close()
    with pytest.raises(UserError, match="something else"):
        store.Store.open(foreign)

    with pytest.raises(UserError, match="no results database"):
        store.Store.open(tmp_path / "absent.db", create=False)


def test_cases_start_pending_and_complete_one_at_a_time(tmp_path):
    db, run_id = store_run(tmp_path / "r.db", {("alpha", "default", "hash", "sha256", 64): 100.0})
    cases = [CaseSpec("alpha", "default", "hash", "sha256", n) for n in (16, 32, 48)]
    run_id = db.create_run(
        "t",
        {},
        [],
        {"cryptobench": "t", "runner": "r", "runner_version": "1", "runner_path": "/r"},
        {},
        [],
        cases,
    )
    pending = db.pending_cases(run_id)
    assert [c.size for _, c in pending] == [16, 32, 48]

    case_id, case = pending[1]
    db.complete_case(Outcome(case_id, case, "ok", samples=[(10, 1000, 2000), (10, 1100, 2200)]))
    db.complete_case(
        Outcome(
            pending[2][0], pending[2][1], "failed", "crashed", failure="crash", detail="stderr tail"
        )
    )
    assert [c.size for _, c in db.pending_cases(run_id)] == [16]
    assert db.run(run_id).counts == {"pending": 1, "ok": 1, "failed": 1}
    stored = {c["size"]: c for c in db.cases(run_id)}
    assert stored[32]["samples"] == [(10, 1000, 2000), (10, 1100, 2200)]
    [failure] = db.failures(run_id)
    assert (failure["kind"], failure["message"], failure["size"]) == ("crash", "crashed", 48)


def test_a_failed_write_leaves_the_case_pending(tmp_path):
    db, _ = store_run(tmp_path / "r.db", {})
    run_id = db.create_run(
        "t",
        {},
        [],
        {"cryptobench": "t", "runner": "r", "runner_version": "1", "runner_path": "/r"},
        {},
        [],
        [CaseSpec("alpha", "default", "hash", "sha256", 64)],
    )
    [(case_id, case)] = db.pending_cases(run_id)
    broken = Outcome(case_id, case, "ok", samples=[(10, 1000, 2000), ("x", None, None)])
    with pytest.raises(store.DatabaseError):  # a constraint the driver enforces
        db.complete_case(broken)
    assert db.pending_cases(run_id) == [(case_id, case)]
    assert db.cases(run_id)[0]["samples"] == []


def test_resolving_runs(tmp_path):
    db, first = store_run(tmp_path / "r.db", {("alpha", "default", "hash", "sha256", 64): 100.0})
    _, second = store_run(tmp_path / "r.db", {("alpha", "default", "hash", "sha256", 64): 90.0})
    assert db.resolve_run(None) == db.resolve_run("latest") == second
    assert db.resolve_run(str(first)) == first
    with pytest.raises(UserError, match="no run 99"):
        db.resolve_run("99")
    with pytest.raises(UserError, match="expected a run number"):
        db.resolve_run("yesterday")


def v2_database(path):
    """A database as cryptobench wrote it at schema version 2: one run, a measured case with
    samples and a failure, and a pending case."""
    conn = sqlite3.connect(path)
    conn.executescript(store.MIGRATIONS[0])
    conn.executescript(store.MIGRATIONS[1])
    conn.execute("PRAGMA user_version = 2")
    conn.execute(
        "INSERT INTO runs (id, started_at, status, suite, settings, argv, cryptobench_version,"
        " runner, runner_version, runner_path, note) VALUES (1, '2026-01-01T00:00:00+00:00',"
        " 'interrupted', 'quick', '{}', '[]', '0.1.0', 'cryptobench-native', '0.1.0', '/x', 'v2')"
    )
    for case_id, size, status in ((1, 64, "ok"), (2, 1024, "failed"), (3, 4096, "pending")):
        spec = CaseSpec("alpha", "default", "hash", "sha256", size)
        spec_json = {f: getattr(spec, f) for f in CaseSpec.__dataclass_fields__}
        del spec_json["cost"]  # version 2 specs have no cost
        conn.execute(
            "INSERT INTO cases (id, run_id, seq, provider, variant, operation, algorithm, size,"
            " input, align_offset, aad_bytes, spec, status) VALUES (?, 1, ?, 'alpha', 'default',"
            " 'hash', 'sha256', ?, 'random', 0, 0, ?, ?)",
            (case_id, case_id, size, json.dumps(spec_json), status),
        )
    conn.executemany(
        "INSERT INTO samples (case_id, idx, iterations, ns, ticks) VALUES (1, ?, 10, ?, ?)",
        [(i, 1000 + i, 2000 + i) for i in range(5)],
    )
    conn.execute(
        "INSERT INTO failures (run_id, case_id, kind, message, at) VALUES (1, 2, 'crash',"
        " 'runner crashed', '2026-01-01T00:00:01+00:00')"
    )
    conn.commit()
    conn.close()


def test_a_version_2_database_gains_the_cost_and_keeps_samples_and_failures(tmp_path):
    path = tmp_path / "v2.db"
    v2_database(path)

    db = store.Store.open(path)
    assert db.schema_version() == store.SCHEMA_VERSION == 6
    cases = {c["size"]: c for c in db.cases(1)}
    assert [c["cost"] for c in cases.values()] == [{}, {}, {}]
    # Rebuilding the table must not cascade into the samples and failures of the old cases.
    assert cases[64]["samples"] == [(10, 1000 + i, 2000 + i) for i in range(5)]
    [failure] = db.failures(1)
    assert (failure["message"], failure["size"]) == ("runner crashed", 1024)
    assert db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.conn.execute("PRAGMA foreign_key_check").fetchall() == []
    # The stopped run resumes: its pending case comes back as it was planned.
    assert db.pending_cases(1) == [(3, CaseSpec("alpha", "default", "hash", "sha256", 4096))]
    # Deleting a run still cascades through the rebuilt table.
    db.conn.execute("DELETE FROM runs WHERE id = 1")
    assert db.conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 0


def test_the_cost_is_part_of_a_cases_identity_and_survives_a_resume(tmp_path):
    db = store.Store.open(tmp_path / "r.db")
    costs = ({"iterations": 1000}, {"iterations": 100000})
    cases = [CaseSpec("alpha", "default", "derive", "pbkdf2-sha256", 16, cost=c) for c in costs]
    cases.append(
        CaseSpec("alpha", "default", "derive", "scrypt", 16, cost={"N": 1024, "r": 8, "p": 1})
    )
    run_id = db.create_run(
        "t",
        {},
        [],
        {"cryptobench": "t", "runner": "r", "runner_version": "1", "runner_path": "/r"},
        {},
        [],
        cases,
    )
    pending = db.pending_cases(run_id)
    assert [case for _, case in pending] == cases
    assert [case.key() for _, case in pending] == [c.key() for c in cases]
    stored = [c["cost"] for c in db.cases(run_id)]
    assert stored == [{"iterations": 1000}, {"iterations": 100000}, {"N": 1024, "p": 1, "r": 8}]
    # One case per identity: the same cost twice in one run is refused.
    with pytest.raises(store.DatabaseError):  # a constraint the driver enforces
        db.create_run(
            "t",
            {},
            [],
            {"cryptobench": "t", "runner": "r", "runner_version": "1", "runner_path": "/r"},
            {},
            [],
            [cases[0], cases[0]],
        )


def test_scenario_figures_are_appended_and_read_back_in_order(tmp_path):
    from cryptobench.figures import Figure, failed

    db = store.Store.open(tmp_path / "r.db")
    run_id = db.create_run(
        suite="scenario:x",
        settings={},
        argv=["cryptobench"],
        versions={"cryptobench": "0", "runner": "x", "runner_version": "0", "runner_path": ""},
        machine={"hostname": "h"},
        libraries=[],
        cases=[],
    )
    first = Figure({"system": "ext4", "workload": "dd-write"}, "throughput", "MB/s", (1.0, 3.0))
    db.add_figures(run_id, [first])
    db.add_figures(run_id, [failed({"system": "encfs"}, "throughput", "MB/s", "mount failed")])
    got = db.figures(run_id)
    assert got[0] == first and got[0].median == 2.0
    assert (got[1].status, got[1].reason, got[1].values) == ("failed", "mount failed", ())


def test_a_figures_repetitions_stored_one_at_a_time_are_read_as_one_figure(tmp_path):
    """A scenario stores each repetition as it is measured (storage: one row per run); the
    median of the figure is over every repetition, in show, report, export and compare alike."""
    from cryptobench.figures import Figure, skipped

    db = store.Store.open(tmp_path / "r.db")
    run_id = db.create_run(
        suite="scenario:x",
        settings={},
        argv=["cryptobench"],
        versions={"cryptobench": "0", "runner": "x", "runner_version": "0", "runner_path": ""},
        machine={"hostname": "h"},
        libraries=[],
        cases=[],
    )
    key = {"system": "gocryptfs", "workload": "dd write"}
    other = {"system": "encfs", "workload": "dd write"}
    for value in (100.0, 300.0, 200.0):
        db.add_figures(run_id, [Figure(key, "throughput", "MB/s", [value])])
        db.add_figures(run_id, [Figure(other, "throughput", "MB/s", [value / 10])])
    bonnie = {"system": "ext4", "workload": "bonnie read"}
    db.add_figures(run_id, [skipped(bonnie, "throughput", "K/s", "too fast")])
    db.add_figures(run_id, [Figure(bonnie, "throughput", "K/s", [5.0])])
    db.add_figures(run_id, [skipped({"system": "x"}, "mount", "-", "no tool")])
    got = db.figures(run_id)
    assert [(f.key["system"], f.values) for f in got] == [
        ("gocryptfs", (100.0, 300.0, 200.0)),
        ("encfs", (10.0, 30.0, 20.0)),
        ("ext4", (5.0,)),
        ("x", ()),
    ]
    assert got[0].median == 200.0
    assert got[2].status == "ok" and got[2].extra["not_ok"] == ["skipped: too fast"]
    assert (got[3].status, got[3].reason) == ("skipped", "no tool")


def test_a_config_run_in_the_old_tables_opens_as_figures(tmp_path):
    """A file whose config run was stored in the config scenario's own tables (schema 4 to
    Alembic 0008) opens as figures: the store keeps no table for one scenario, and the run
    shows as it did, with the samples per run, the heap, the skip and the driver's facts."""
    from cryptobench.scenarios import registry
    from cryptobench.scenarios.base import settings_of
    from cryptobench.scenarios.config.figures import from_figures

    path = tmp_path / "v4.db"
    conn = sqlite3.connect(path)
    for step in store.MIGRATIONS[:4]:
        conn.executescript(step)
    conn.execute("PRAGMA user_version = 4")
    spec = {"schemes": ["plain", "compat"], "providers": ["openssl", "nettle"], "n": [1, 10],
            "runs": 2, "driver": "/x/confcrypt-bench"}  # fmt: skip
    old = {"name": "config", "spec": spec, "info": {"gpg": "gpg (GnuPG) 2.2.40"},
           "skipped": [{"scheme": "compat", "provider": "nettle", "reason": "no pbkdf2"}],
           "notes": {"plain": ["a note"]}, "extrapolate": {}}  # fmt: skip
    conn.execute(
        "INSERT INTO runs (id, started_at, status, suite, settings, argv, cryptobench_version,"
        " runner, runner_version, runner_path) VALUES (1, '2026-01-01T00:00:00+00:00',"
        " 'complete', 'scenario:config', ?, '[]', '0.1.0', 'confcrypt-bench', '0.1.0', '/x')",
        (json.dumps({"scenario": old}),),
    )
    rows = [
        (scheme, provider, n, direction, run, (1000 if scheme == "plain" else 9000) * n + run)
        for scheme, provider in (("plain", ""), ("compat", "openssl"))
        for n in (1, 10)
        for direction in ("write", "read")
        for run in (1, 0)  # stored out of run order: read back in it
    ]
    conn.executemany(
        "INSERT INTO scenario_samples (run_id, scheme, provider, n, direction, run_index, ns)"
        " VALUES (1, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.execute(
        "INSERT INTO scenario_heap (run_id, scheme, provider, n, direction, allocs, bytes,"
        " peak_live_bytes) VALUES (1, 'compat', 'openssl', 10, 'read', 40, 4096, 1024)"
    )
    conn.commit()
    conn.close()

    db = store.Store.open(path)
    assert not {"scenario_samples", "scenario_heap"} & set(db._tables())
    config = registry()["config"]
    stored = config.stored(db, 1)
    assert settings_of(stored) == {**spec, **{k: old[k] for k in ("info", "notes", "extrapolate")}}
    run = from_figures(stored.figures, settings_of(stored))
    assert sorted(
        (s["scheme"], s["n"], s["direction"], s["run"], s["ns"]) for s in run.samples
    ) == (sorted((r[0], r[2], r[3], r[4], r[5]) for r in rows))
    assert run.heap == [{"scheme": "compat", "provider": "openssl", "n": 10, "direction": "read",
                         "allocs": 40.0, "bytes": 4096.0, "peak_live_bytes": 1024.0}]  # fmt: skip
    assert run.skipped == old["skipped"] and run.info == old["info"]
    text = config.summary(stored)
    assert "compat/openssl" in text and "skipped compat/nettle: no pbkdf2" in text
