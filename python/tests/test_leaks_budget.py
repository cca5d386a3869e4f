"""`cryptobench leaks --budget DURATION` (docs/leaks.md, "A time budget"): the measurement
stops at about its budget, each provider × test cell measuring for an equal share of it, so a
cheap operation takes many more rounds than an expensive one in the same time; the rounds each
cell took are stored and shown by the run, `show` and the report; a run without --budget takes
every cell's rounds as before; a bad duration is one line and exit status 2."""

import json
import re
from datetime import datetime
from html import unescape
from pathlib import Path

import pytest
from conftest import run_cli

from cryptobench.errors import UserError
from cryptobench.scenarios.leaks import budget
from cryptobench.scenarios.leaks.classes import aead_test
from cryptobench.scenarios.leaks.command import Options, check_options
from cryptobench.scenarios.leaks.measure import Cell, Slot
from cryptobench.units import parse_duration

BUDGET_S = 3.0
# A cell's last chunk is at most half of what its share has left, so it overruns its share by
# about a round; a generous bound for a machine shared with other builds.
OVERRUN_S = 3.0
# Starting the runner, making the classes, the statistics and storing, on a busy machine.
PREPARING_S = 30.0


def _cells(out: Path) -> dict[str, dict]:
    return {
        f["key"]["algorithm"]: {"rounds": f["values"][0], **f["extra"]}
        for f in json.loads(out.read_text())["figures"]
        if f["metric"] == "rounds"
    }


def test_a_budgeted_run_stops_at_its_budget_in_equal_shares(tmp_path, native_runner):
    """AES-256-GCM decryption of 64 bytes (~µs) and RSA-2048-OAEP decryption (~ms) on OpenSSL,
    with far more rounds asked for than fit: both stop at their share of 3 s, the AEAD cell
    with many more rounds."""
    db, out, page = tmp_path / "b.db", tmp_path / "b.json", tmp_path / "b.html"
    done = run_cli(
        "leaks", "-p", "openssl", "-a", "aes-256-gcm,rsa-2048-oaep-sha256",
        "--rounds", "1000000", "--budget", "3s",
        "--db", str(db), "--json-out", str(out), "--report", str(page),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cells = _cells(out)
    assert set(cells) == {"aes-256-gcm", "rsa-2048-oaep-sha256"}
    for cell in cells.values():
        assert cell["stopped"] == "budget" and cell["planned"] == 1_000_000
        assert 0 < cell["rounds"] < 1_000_000
        # Each used its share (the loop ends only then) and overran it by little.
        assert BUDGET_S / 2 <= cell["measuring_s"] <= BUDGET_S / 2 + OVERRUN_S
    spent = sum(c["measuring_s"] for c in cells.values())
    assert BUDGET_S <= spent <= BUDGET_S + OVERRUN_S
    fast, slow = cells["aes-256-gcm"]["rounds"], cells["rsa-2048-oaep-sha256"]["rounds"]
    assert fast > 10 * slow
    # Every comparison's pairs are the rounds its cell took.
    for f in json.loads(out.read_text())["figures"]:
        if f["metric"] == "median difference":
            assert f["extra"]["n"] == cells[f["key"]["algorithm"]]["rounds"]
    line = f"rounds (openssl aes-256-gcm): {int(fast):,} of 1,000,000 (budget)"
    assert line in done.stdout
    shown = run_cli("show", "1", "--db", str(db))
    assert shown.returncode == 0 and line in shown.stdout
    assert f"rounds (openssl rsa-2048-oaep-sha256): {int(slow):,} of 1,000,000" in shown.stdout
    assert "budget 3s:" in shown.stdout
    assert line in unescape(re.sub(r"<[^>]+>", "", page.read_text()))
    stored = json.loads(out.read_text())
    assert stored["scenario"]["settings"]["budget_s"] == BUDGET_S
    # The whole stored run, preparation and statistics included, in wall-clock seconds.
    started, finished = (
        datetime.fromisoformat(stored["run"][k]) for k in ("started_at", "finished_at")
    )
    assert (finished - started).total_seconds() <= BUDGET_S + OVERRUN_S + PREPARING_S


def test_budget_applies_with_quick_and_a_run_without_it_takes_every_round(tmp_path, native_runner):
    """--quick asks 1,000 RSA rounds, more than a 2 s budget holds for OpenSSL's ~0.9 ms
    decryption of six classes; without --budget every cell takes its rounds, stored as such,
    and the run prints no budget lines."""
    out = tmp_path / "q.json"
    done = run_cli(
        "leaks", "--quick", "--budget", "2s", "-p", "openssl", "-a", "rsa-2048-oaep-sha256",
        "--db", str(tmp_path / "q.db"), "--json-out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cell = _cells(out)["rsa-2048-oaep-sha256"]
    assert cell["planned"] == 1000 and cell["stopped"] == "budget" and cell["rounds"] < 1000
    out = tmp_path / "r.json"
    done = run_cli(
        "leaks", "-p", "openssl", "-a", "aes-256-gcm", "--rounds", "300",
        "--db", str(tmp_path / "r.db"), "--json-out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cell = _cells(out)["aes-256-gcm"]
    assert (cell["rounds"], cell["planned"], cell["stopped"]) == (300, 300, "rounds")
    assert not re.search(r"^(budget |rounds \()", done.stdout, re.M), done.stdout
    assert "budget_s" not in json.loads(out.read_text())["scenario"]["settings"]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90m", 5400), ("2h", 7200), ("600s", 600), ("1h30m", 5400), ("1.5h", 5400), ("3s", 3)],
)
def test_a_budget_is_a_duration_with_units(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["90", "5x", "0s", "-1m", "1m1h", "1h1h", "m", "31d", "99999h"])
def test_a_bad_budget_is_refused(text):
    with pytest.raises(UserError):
        parse_duration(text)


def test_a_bad_budget_is_one_line_and_exit_2():
    done = run_cli("leaks", "--budget", "90", "-p", "openssl")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cryptobench: error: argument --budget:")
    assert "'90' is not a duration" in lines[0]
    # Taint runs each operation once: a budget there is refused, not ignored.
    with pytest.raises(UserError, match="--budget"):
        check_options(Options(method="taint", budget=60.0))


def test_what_a_finished_cell_leaves_goes_to_the_others_in_equal_parts():
    """Budget 9 s over three cells: 3 s each. One took its 100 rounds in 1 s, so the two still
    measuring share the 8 s left: 4 s each; a failed cell's time is spent, the rest shared."""

    def cell(rounds: int, used: float, problem: str = "") -> Cell:
        test = aead_test("aes-256-gcm")
        c = Cell(Slot("openssl", "default", Path("x")), test, {}, problem=problem)
        c.times = {n: [1.0] * rounds for n in test.class_names} if rounds else {}
        c.measuring_s = used
        return c

    going = [cell(40, 2.0), cell(10, 2.5)]
    assert budget.share([cell(0, 0.0), *going], 100, 9.0) == pytest.approx(3.0)
    assert budget.share([cell(100, 1.0), *going], 100, 9.0) == pytest.approx(4.0)
    assert budget.share([cell(5, 0.5, "crashed"), *going], 100, 9.0) == pytest.approx(4.25)
    assert budget.share([cell(100, 1.0), cell(100, 2.0)], 100, 9.0) == 0.0
