"""Results a team shares: runs pushed from local SQLite stores into a real PostgreSQL server
(started by the test, stopped after), listed, shown, reported and compared from there."""

import json

import pytest
from conftest import store_run

from cryptobench import cli
from cryptobench.store import Store

postgres_server = pytest.importorskip("postgres_server")

pytestmark = pytest.mark.skipif(
    postgres_server.binaries() is None, reason="PostgreSQL (Debian's postgresql) is not installed"
)


@pytest.fixture(scope="module")
def team_url():
    server = postgres_server.Server()
    try:
        yield server.url
    finally:
        server.stop()


KEY = ("alpha", "default", "hash", "sha256", 1024)


def test_push_list_report_and_compare_across_machines(team_url, tmp_path, capsys):
    laptop, ci = tmp_path / "laptop.db", tmp_path / "ci.db"
    store_run(laptop, {KEY: 1000.0}, n=21, seed=1)
    db_ci, ci_run = store_run(ci, {KEY: 700.0}, n=21, seed=2)
    record = {**db_ci.machine(ci_run), "hostname": "ci-runner"}
    db_ci.conn.execute(
        "UPDATE machine SET hostname = ?, record = ? WHERE run_id = ?",
        ("ci-runner", json.dumps(record), ci_run),
    )

    assert cli.main(["push", "1", "--db", str(laptop), "--to", team_url]) == 0
    assert "copied to" in capsys.readouterr().out
    assert cli.main(["push", "1", "--db", str(ci), "--to", team_url]) == 0
    capsys.readouterr()
    assert cli.main(["push", "1", "--db", str(laptop), "--to", team_url]) == 0
    assert "already in" in capsys.readouterr().out  # pushed twice, stored once

    assert cli.main(["runs", "--db", team_url]) == 0
    listing = capsys.readouterr().out
    assert "  h\n" in listing and "ci-runner" in listing
    assert len(Store.open(team_url).runs()) == 2

    assert cli.main(["show", "2", "--db", team_url]) == 0
    assert "alpha" in capsys.readouterr().out
    report = tmp_path / "team.html"
    assert cli.main(["report", "1", "--db", team_url, "-o", str(report)]) == 0
    assert "The answer" in report.read_text()
    assert cli.main(["compare", "1", "2", "--db", team_url]) == 0
    text = capsys.readouterr().out
    assert "different machines (hostname: 'h' vs 'ci-runner')" in text
    assert "faster" in text  # 30% faster on the CI machine


def test_a_scenario_run_travels_with_its_figures(team_url, tmp_path):
    from cryptobench.figures import Figure

    local = Store.open(tmp_path / "r.db")
    run_id = local.create_run(
        suite="scenario:demo",
        settings={},
        argv=[],
        machine={"hostname": "h"},
        libraries=[],
        versions={"cryptobench": "0", "runner": "x", "runner_version": "0", "runner_path": ""},
        cases=[],
    )
    figure = Figure({"system": "ext4"}, "throughput", "MB/s", (1.0, 2.0, 3.0))
    local.add_figures(run_id, [figure])
    assert cli.main(["push", str(run_id), "--db", str(tmp_path / "r.db"), "--to", team_url]) == 0
    team = Store.open(team_url)
    [copied] = [r for r in team.runs() if r.suite == "scenario:demo"]
    assert team.figures(copied.id) == [figure]


def test_a_bad_url_is_one_line(tmp_path, capsys):
    bad = "postgresql://nobody@/nodb?host=/nonexistent&port=1"
    assert cli.main(["runs", "--db", bad]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cryptobench: error: database postgresql://") and err.count("\n") == 1
