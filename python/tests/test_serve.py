"""`cryptobench serve` as a user meets it: the real server over a real SQLite file and a real
PostgreSQL, pages fetched over HTTP. A regression shows on the regressions page and nothing
else does; stored text comes back escaped; the store cannot be written through it; bad URLs are
404 pages; a non-loopback address needs --public."""

import json

import pytest
from conftest import run_cli, store_run, sweep
from serve_server import Served

from cryptobench.figures import Figure
from cryptobench.store import DatabaseError, Store

SLOWER = ("beta", "default", "encrypt", "aes-256-gcm", 4096)
SCRIPT = "<script>alert('x')</script>"


def two_runs(target: str) -> None:
    """Two runs of one machine; in the second, one case is 1.5 times slower and the note holds
    a script."""
    timings = {}
    for provider in ("alpha", "beta"):
        timings |= sweep(provider, "default", "encrypt", "aes-256-gcm", 200, 0.5)
    db, _ = store_run(target, timings)
    db.close()
    db, second = store_run(target, timings | {SLOWER: timings[SLOWER] * 1.5})
    db.conn.execute("UPDATE runs SET note = ? WHERE id = ?", (SCRIPT, second))
    run = db.create_run(
        suite="scenario:storage",
        settings={},
        argv=["cryptobench", "scenario", "storage"],
        versions={"cryptobench": "t", "runner": "-", "runner_version": "-", "runner_path": "-"},
        machine={"hostname": "h"},
        libraries=[],
        cases=[],
        note="figures",
    )
    db.add_figures(run, [Figure({"system": SCRIPT}, "throughput", "MB/s", (10.0, 11.0, 12.0))])
    db.set_status(run, "complete")
    db.close()


@pytest.fixture(scope="module")
def sqlite_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("serve") / "r.db"
    two_runs(str(path))
    return path


@pytest.fixture(scope="module")
def served(sqlite_store, tmp_path_factory):
    server = Served(str(sqlite_store), tmp_path_factory.mktemp("log") / "serve.log")
    yield server
    server.stop()


def test_the_regressions_page_shows_the_slower_case_and_nothing_else(served):
    data = served.get("/api/regressions").json()
    assert [(p["run_a"], p["run_b"]) for p in data["pairs"]] == [(1, 2)]
    slower = data["pairs"][0]["slower"]
    assert [s["case"] for s in slower] == ["beta aes-256-gcm encrypt 4 KiB"]
    assert 1.4 < slower[0]["ratio"] < 1.6 and slower[0]["q"] < 0.05
    assert data["pairs"][0]["compared"] == 10
    page = served.get("/regressions").text
    assert "beta aes-256-gcm encrypt 4 KiB" in page and "1 slower" in page
    assert "alpha aes-256-gcm" not in page


def test_every_page_has_html_and_the_same_data_as_json(served):
    history = "/history?provider=beta&operation=encrypt&algorithm=aes-256-gcm&size=4096"
    for path in ("/runs", history, "/regressions", "/compare?a=1&b=2", "/scenarios"):
        page = served.get(path)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        api = served.get("/api" + path)
        assert api.status_code == 200 and api.headers["content-type"] == "application/json"
        sep = "&" if "?" in path else "?"
        assert served.get(path + sep + "format=json").json() == api.json()
    runs = served.get("/api/runs").json()
    assert [r["id"] for r in runs["runs"]] == [3, 2, 1] and runs["total"] == 3
    assert [r["id"] for r in served.get("/api/runs?sort=id&order=asc").json()["runs"]] == [1, 2, 3]
    assert [r["id"] for r in served.get("/api/runs?kind=scenario").json()["runs"]] == [3]
    assert served.get("/api/runs?library=beta%201.0").json()["total"] == 2
    assert served.get("/api/runs?machine=nowhere").json()["total"] == 0
    points = served.get("/api" + history).json()["machines"]["h"]
    assert [p["run_id"] for p in points] == [1, 2]
    assert points[0]["ci_low_ns"] <= points[0]["median_ns"] <= points[0]["ci_high_ns"]
    assert 1.4 < points[1]["median_ns"] / points[0]["median_ns"] < 1.6
    compared = served.get("/api/compare?a=1&b=2").json()
    assert [r["case"] for r in compared["rows"]] == ["beta aes-256-gcm encrypt 4 KiB"]
    figures = served.get("/api/scenarios").json()["runs"][0]["figures"]
    assert figures[0]["median"] == 11.0


def test_one_run_is_the_report_and_the_export(served, sqlite_store, tmp_path):
    page = served.get("/runs/2").text
    out = tmp_path / "report.html"
    assert run_cli("report", "2", "--db", str(sqlite_store), "-o", str(out)).returncode == 0
    # The same page as `cryptobench report 2`, below the serve's links.
    assert out.read_text().split("<body>", 1)[1] in page
    export = run_cli("export", "2", "--db", str(sqlite_store), "-f", "json")
    assert served.get("/api/runs/2").json() == json.loads(export.stdout)


def test_stored_text_is_escaped(served):
    for path in ("/runs", "/runs/2", "/scenarios"):
        page = served.get(path).text
        assert SCRIPT not in page
        assert "&lt;script&gt;alert(" in page
    assert served.get("/api/runs").json()["runs"][1]["note"] == SCRIPT


def test_bad_urls_are_error_pages_with_security_headers(served):
    for path, status in (
        ("/runs/99", 404), ("/runs/abc", 404), ("/nowhere", 404), ("/api/runs/99", 404),
        ("/history?provider=x", 400), ("/history?provider=x&operation=y&algorithm=z&size=1", 404),
        ("/runs?sort=evil", 400), ("/runs?since=yesterday", 400), ("/compare?a=1&b=99", 404),
        ("/compare?a=1&b=3", 400), ("/regressions?before=x", 400),
        ("/runs?page=99999999999999999", 400), ("/scenarios?page=0", 400),
    ):  # fmt: skip
        page = served.get(path)
        assert page.status_code == status, path
        assert "Traceback" not in page.text
        assert page.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in page.headers["content-security-policy"]
    assert served.get("/api/runs/99").json()["status"] == 404
    assert served.get("/runs/2").headers["x-frame-options"] == "DENY"


def test_the_store_is_opened_read_only(sqlite_store, served):
    before = sqlite_store.read_bytes()
    served.get("/regressions")
    db = Store.open_readonly(sqlite_store)
    with pytest.raises(DatabaseError, match="readonly"):
        db.conn.execute("UPDATE runs SET note = 'changed'")
    db.close()
    assert sqlite_store.read_bytes() == before


def test_a_network_address_needs_public(tmp_path):
    done = run_cli("serve", "--db", str(tmp_path / "none.db"), "--host", "0.0.0.0")
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and "add --public" in done.stderr
    done = run_cli("serve", "--db", str(tmp_path / "none.db"))
    assert done.returncode != 0 and "no results database" in done.stderr


postgres_server = pytest.importorskip("postgres_server")


@pytest.mark.skipif(postgres_server.binaries() is None, reason="PostgreSQL is not installed")
def test_serve_over_postgresql_cannot_write(tmp_path):
    server = postgres_server.Server()
    try:
        two_runs(server.url)
        served = Served(server.url, tmp_path / "serve.log")
        try:
            data = served.get("/api/regressions").json()
            assert [s["case"] for s in data["pairs"][0]["slower"]] == [
                "beta aes-256-gcm encrypt 4 KiB"
            ]
            assert "&lt;script&gt;" in served.get("/runs").text
            assert served.get("/runs/2").status_code == 200
        finally:
            served.stop()
        db = Store.open_readonly(server.url)
        with pytest.raises(DatabaseError, match="read-only transaction"):
            db.conn.execute("UPDATE runs SET note = 'changed'")
        db.close()
    finally:
        server.stop()
