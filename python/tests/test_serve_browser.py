"""`cryptobench serve` in a real browser (headless Chromium, Debian's package), over SQLite and
over PostgreSQL: the runs list,
a case's history, the regressions page and a comparison render what a person reads, with the
stored script shown as text and not run. The DOM is what Chromium has after loading the page
(--dump-dom); a screenshot of each page is kept as a test artefact (in
$CRYPTOBENCH_ARTIFACTS if set, else the test's temporary directory)."""

import os
import subprocess
from pathlib import Path

import pytest
from serve_server import Served
from test_report_browser import CHROMIUM, FLAGS
from test_serve import SCRIPT, two_runs

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

HISTORY = "/history?provider=beta&operation=encrypt&algorithm=aes-256-gcm&size=4096"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request, tmp_path_factory):
    """The server over a real SQLite file, then over a real PostgreSQL."""
    here = tmp_path_factory.mktemp("serve")
    database = None
    if request.param == "sqlite":
        target = str(here / "r.db")
    else:
        postgres_server = pytest.importorskip("postgres_server")
        if postgres_server.binaries() is None:
            pytest.skip("PostgreSQL (Debian's postgresql) is not installed")
        database = postgres_server.Server()
        target = database.url
    try:
        two_runs(target)
        server = Served(target, here / "serve.log")
        server.name = request.param
        yield server
        server.stop()
    finally:
        if database is not None:
            database.stop()


def chromium(tmp_path: Path, *args: str) -> str:
    flags = [*FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900"]
    done = subprocess.run(
        [CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout


def show(served: Served, tmp_path: Path, path: str, name: str) -> str:
    """The page's DOM after Chromium loaded it; its screenshot saved as NAME.png."""
    shots = Path(os.environ.get("CRYPTOBENCH_ARTIFACTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / f"{name}-{served.name}.png"
    chromium(tmp_path, f"--screenshot={shot}", served.url + path)
    assert shot.stat().st_size > 1000
    return chromium(tmp_path, "--dump-dom", served.url + path)


def test_the_runs_list_renders(served, tmp_path):
    dom = show(served, tmp_path, "/runs", "serve-runs")
    assert '<table id="runs">' in dom
    for run in ("/runs/1", "/runs/2", "/runs/3"):
        assert f'href="{run}"' in dom
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in dom  # shown as text
    assert SCRIPT not in dom  # and never an element


def test_a_history_page_draws_one_line_per_machine(served, tmp_path):
    dom = show(served, tmp_path, HISTORY, "serve-history")
    assert "History: beta aes-256-gcm encrypt 4 KiB" in dom
    chart = dom.split('<svg xmlns="http://www.w3.org/2000/svg" class="history"')[1]
    assert chart.count('<g class="point">') == 2  # two runs, one point each, with intervals
    assert chart.count("<polyline") == 1  # one machine


def test_the_regressions_page_and_a_comparison_render(served, tmp_path):
    dom = show(served, tmp_path, "/regressions", "serve-regressions")
    assert "1 slower" in dom and "beta aes-256-gcm encrypt 4 KiB" in dom
    dom = show(served, tmp_path, "/compare?a=1&b=2", "serve-compare")
    rows = dom.split('<table id="compare">')[1].split("</table>")[0]
    assert rows.count('<tr class="slower">') == 1 and "1.5" in rows
