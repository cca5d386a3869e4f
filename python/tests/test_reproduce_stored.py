"""`cryptobench reproduce PAPER --stored`: which stored run a paper is rendered from, and the
one-line errors when there is none or the one named is wrong. The rendering itself (the same
claims and verdicts as the live run) is checked on a real run in test_reproduce.py."""

import pytest
from conftest import error_of

from cryptobench import cli
from cryptobench.reproductions import stored
from cryptobench.store import Store

VERSIONS = {"cryptobench": "0", "runner": "r", "runner_version": "0", "runner_path": ""}


def add_run(db: Store, suite: str, note: str, status: str = "complete") -> int:
    run_id = db.create_run(suite=suite, settings={}, argv=[], versions=VERSIONS, cases=[],
                           machine={"hostname": "h", "cpu_model": "c"}, libraries=[],
                           note=note)  # fmt: skip
    if status != "running":
        db.set_status(run_id, status)
    return run_id


@pytest.fixture
def runs(tmp_path):
    """A store with runs of paper 000 of both kinds, finished and not, and look-alikes."""
    path = tmp_path / "r.db"
    db = Store.open(path)
    ids = {
        "full": add_run(db, "scenario:config", "reproduce 000"),
        "quick": add_run(db, "scenario:config", "reproduce 000 --quick"),
        "quick, interrupted": add_run(
            db, "scenario:config", "reproduce 000 --quick", "interrupted"
        ),
        "other scenario": add_run(db, "scenario:storage", "reproduce 000 --quick"),
        "003's core run": add_run(db, "default", "reproduce 003: core figures for the channel"),
        "running": add_run(db, "scenario:config", "reproduce 000", "running"),
    }
    return path, db, ids


def test_the_latest_complete_run_of_the_kind_asked_for(runs):
    _, db, ids = runs
    assert stored.latest(db, "000", quick=True) == stored.Choice("000", ids["quick"], True)
    assert stored.latest(db, "000", quick=False) == stored.Choice("000", ids["full"], False)
    none = stored.latest(db, "002", quick=True)
    assert none.run_id is None and "no complete --quick run of paper 002" in none.why
    newer = add_run(db, "scenario:config", "reproduce 000 --quick")
    assert stored.latest(db, "000", quick=True).run_id == newer


def test_a_run_is_the_papers_by_its_note_and_its_suite(runs):
    _, db, ids = runs
    assert stored.kind_of(db.run(ids["quick"]), "000") is True
    assert stored.kind_of(db.run(ids["full"]), "000") is False
    assert stored.kind_of(db.run(ids["other scenario"]), "000") is None  # storage repeats 002
    assert stored.kind_of(db.run(ids["003's core run"]), "003") is None
    core = add_run(db, "openssl3", "reproduce openssl3 --quick")
    assert stored.kind_of(db.run(core), "openssl3") is True


def test_no_run_a_wrong_run_or_an_unfinished_one_is_one_line(runs, capsys):
    path, _, ids = runs
    db = ["--db", str(path)]
    err = error_of(capsys, "reproduce", "002", "--stored", *db)
    assert "no complete full run of paper 002" in err and "cryptobench reproduce 002" in err
    err = error_of(capsys, "reproduce", "000", "--stored", "--run", f"000={ids['other scenario']}",
                   *db)  # fmt: skip
    assert f"run {ids['other scenario']} is not a run of paper 000" in err
    err = error_of(capsys, "reproduce", "000", "--stored", "--run",
                   f"000={ids['quick, interrupted']}", *db)  # fmt: skip
    assert "did not finish (it is interrupted)" in err
    err = error_of(capsys, "reproduce", "000", "--stored", "--run", f"0={ids['running']}", *db)
    assert "did not finish (it is stopped)" in err
    assert "no run 99" in error_of(capsys, "reproduce", "000", "--stored", "--run", "000=99", *db)
    assert "expected PAPER=RUN" in error_of(capsys, "reproduce", "000", "--stored", "--run", "1")
    err = error_of(capsys, "reproduce", "000", "--stored", "--run", "002=1", *db)
    assert "paper 002 is not among the papers asked for" in err
    assert "with --stored" in error_of(capsys, "reproduce", "000", "--run", "000=1", *db)
    missing = ["--db", str(path.parent / "none.db")]
    assert "no results database" in error_of(capsys, "reproduce", "000", "--stored", *missing)


def test_a_named_paper_without_a_run_stops_before_anything_is_rendered(runs, capsys):
    path, _, _ = runs
    assert cli.main(["reproduce", "000", "002", "--quick", "--stored", "--db", str(path)]) == 1
    captured = capsys.readouterr()
    assert "=== 000" not in captured.out
    assert "no complete --quick run of paper 002" in captured.err
