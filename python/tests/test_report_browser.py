"""The report in a real browser (headless Chromium): its script runs, long tables get a filter
box and sort on a click of their heading, and a link to a case unfolds the table that holds it.
The DOM after the page's script ran is what Chromium prints with --dump-dom."""

import shutil
import subprocess

import pytest
from conftest import store_run, sweep

from cryptobench import analysis, report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


def dom(tmp_path, page, fragment: str = "") -> str:
    flags = [*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    done = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", f"file://{page}{fragment}"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout


@pytest.fixture
def page(tmp_path):
    timings = {}
    sizes = (16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)
    for provider in ("alpha", "beta", "gamma", "delta"):
        timings |= sweep(provider, "default", "encrypt", "aes-256-gcm", 200, 0.5, sizes=sizes)
    db, run_id = store_run(tmp_path / "r.db", timings)
    path = tmp_path / "report.html"
    path.write_text(report.render(analysis.load(db, run_id)))
    return path


def test_the_script_makes_tables_interactive(tmp_path, page):
    html = dom(tmp_path, page)
    assert html.count('class="interactive"') >= 3  # every table with a heading
    assert 'class="filter"' in html  # the 36-case table has a filter box
    assert "The answer: fastest at 128 bits" in html.split("Machine and software")[0]


def test_a_link_to_a_case_unfolds_its_table(tmp_path, page):
    assert "<details open" not in dom(tmp_path, page)
    html = dom(tmp_path, page, "#case-beta-aes_256_gcm-encrypt-4096")
    unfolded = html.split("<details open")[1]
    assert 'id="case-beta-aes_256_gcm-encrypt-4096"' in unfolded
