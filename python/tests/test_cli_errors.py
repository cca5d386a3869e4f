"""User mistakes end as one line `cryptobench: error: ...` and a non-zero exit, no traceback."""

import pytest
from conftest import error_of, run_cli, store_run

from cryptobench.store import Store


def test_bad_arguments(capsys):
    assert "required: COMMAND" in error_of(capsys)
    assert "invalid choice: 'frobnicate'" in error_of(capsys, "frobnicate")
    assert "'0' is not a positive integer" in error_of(capsys, "run", "--samples", "0")
    assert "invalid choice: 'xml'" in error_of(capsys, "export", "--format", "xml")
    assert "unrecognized arguments: --fast" in error_of(capsys, "runs", "--fast")
    assert "size '12X'" in error_of(capsys, "run", "-s", "12X")
    assert "not allowed with argument --cpu" in error_of(capsys, "run", "--cpu", "1", "--no-pin")


def test_malformed_and_missing_suites(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('algorithms = ["sha256"\nsizes = [64]\n')
    assert "invalid TOML" in error_of(capsys, "run", "--suite", str(bad))
    typo = tmp_path / "typo.toml"
    typo.write_text('algorithms = ["sha256"]\nsizes = [64]\nsampels = 3\n')
    assert "unknown key 'sampels'" in error_of(capsys, "run", "--suite", str(typo))
    assert "unknown suite 'fastest'" in error_of(capsys, "run", "--suite", "fastest")
    assert "cannot read" in error_of(capsys, "run", "--suite", str(tmp_path / "none.toml"))


def test_damaged_or_foreign_database_files(capsys, tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(bytes(range(256)) * 64)
    assert "garbage.db" in error_of(capsys, "runs", "--db", str(garbage))
    assert "garbage.db" in error_of(capsys, "show", "--db", str(garbage))
    assert "no results database" in error_of(capsys, "runs", "--db", str(tmp_path / "none.db"))
    assert "is a directory" in error_of(capsys, "runs", "--db", str(tmp_path))


def test_unknown_runs(capsys, db):
    assert "no run 42" in error_of(capsys, "show", "42", "--db", db)
    assert "no run 9" in error_of(capsys, "compare", "1", "9", "--db", db)
    assert "expected a run number" in error_of(capsys, "report", "last-week", "--db", db)
    assert "already complete" in error_of(capsys, "run", "--resume", "1", "--db", db)
    assert "drop --suite" in error_of(
        capsys, "run", "--resume", "1", "--suite", "quick", "--db", db
    )


def test_unwritable_output(capsys, db, tmp_path):
    target = tmp_path / "missing-dir" / "report.html"
    assert "does not exist" in error_of(capsys, "report", "--db", db, "-o", str(target))
    assert not target.parent.exists()
    assert "--size 77" in error_of(
        capsys, "report", "--db", db, "--size", "77", "-o", str(tmp_path / "r.html")
    )
    assert not (tmp_path / "r.html").exists()


def test_a_missing_runner(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("CRYPTOBENCH_NATIVE", str(tmp_path / "nope"))
    assert "CRYPTOBENCH_NATIVE" in error_of(capsys, "list")


def test_as_a_real_process(tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_text("hello\n" * 1000)
    for args in (
        ["runs", "--db", str(garbage)],
        ["export", "--format", "yaml"],
        ["run", "-s", "x"],
    ):
        done = run_cli(*args)
        assert done.returncode != 0
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith("cryptobench: error: ")
        assert len(done.stderr.strip().splitlines()) == 1


def test_recommend_needs_stored_successful_cases(capsys, tmp_path):
    empty = tmp_path / "empty.db"
    Store.open(empty).close()
    assert "no runs stored" in error_of(capsys, "recommend", "--db", str(empty))
    failed = tmp_path / "failed.db"
    store_run(failed, {}, failed={("alpha", "default", "hash", "sha256", 64): "gate failed"})
    assert "run 1 has no successful cases" in error_of(capsys, "recommend", "--db", str(failed))
    assert "no run 3" in error_of(capsys, "recommend", "--db", str(failed), "--run", "3")
    assert "--level 1000" in error_of(capsys, "recommend", "--db", str(empty), "--level", "1000")


HUGE = "99999999999999999999"  # above SQLite's and the runner's 64-bit integers


def test_numbers_out_of_range_are_one_line_errors(capsys, db, tmp_path):
    quick = ["run", "-p", "openssl", "-a", "sha256", "--dry-run"]
    assert "runner's limit" in error_of(capsys, *quick, "-s", HUGE)
    assert "runner's limit" in error_of(capsys, *quick, "-s", "2G")
    for command in (["show", HUGE], ["report", HUGE], ["compare", "1", HUGE],
                    ["recommend", "--run", HUGE], ["run", "--resume", HUGE]):  # fmt: skip
        assert f"no run {HUGE}" in error_of(capsys, *command, "--db", db)
    assert "'nan' is not a positive number" in error_of(capsys, *quick, "--timeout", "nan")
    for timeout in ("inf", "1e400", "1e-9"):
        assert "--timeout must be between" in error_of(
            capsys, *quick, "-s", "16", "--timeout", timeout
        )
    assert "'samples' must be at most" in error_of(capsys, *quick, "--samples", "99999999999999")
    assert "--cpu 99: not a CPU" in error_of(capsys, "run", "-p", "openssl", "-a", "sha256",
                                             "-s", "16", "--cpu", "99", "--db", db)  # fmt: skip


@pytest.mark.parametrize(
    "line, message",
    [
        ("target_sample_ms = nan", "'target_sample_ms' must be a finite number"),
        ("warmup_ms = inf", "'warmup_ms' must be a finite number"),
        ("timeout_s = inf", "timeout_s must be between"),
        ("samples = 9223372036854775807", "'samples' must be at most"),
        ("seed = -1", "'seed' must be at least 0"),
    ],
)
def test_nonsense_numbers_in_a_suite_file(capsys, tmp_path, line, message):
    suite = tmp_path / "s.toml"
    suite.write_text(f'{line}\nalgorithms = ["sha256"]\nsizes = [64]\n')
    assert message in error_of(capsys, "run", "--suite", str(suite), "--dry-run")


def test_a_note_that_is_not_utf8(capsys, db):
    note = b"\xff".decode("utf-8", "surrogateescape")  # what Python makes of such argv bytes
    assert "--note: not valid UTF-8" in error_of(
        capsys, "run", "-p", "openssl", "-a", "sha256", "-s", "16", "--note", note, "--db", db
    )


def test_show_names_what_the_run_does_not_have(capsys, db):
    assert "has no provider nosuch (it has: alpha)" in error_of(capsys, "show", "-p", "nosuch",
                                                                "--db", db)  # fmt: skip
    assert "has no algorithm md4" in error_of(capsys, "show", "-a", "md4", "--db", db)


def test_a_locked_database_names_the_file(capsys, db, monkeypatch, tmp_path):
    import sqlite3

    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        monkeypatch.setenv("CRYPTOBENCH_DB_WAIT_S", "0.2")
        message = error_of(capsys, "report", "1", "--db", db, "-o", str(tmp_path / "r.html"))
        assert "is locked" in message and db in message
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_every_command_prints_its_help(capsys):
    """--help of every command is text, not a traceback (a bare % in a help string broke
    `cryptobench compare --help`)."""
    import argparse

    from cryptobench.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in commands.choices.items():
        assert parser.format_help().startswith(f"usage: cryptobench {name}"), name
