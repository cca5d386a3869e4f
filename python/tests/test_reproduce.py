"""`cryptobench reproduce`: each paper's entry, with real measurements, and one report."""

from cryptobench import cli, papers


def test_paper_names(capsys):
    assert papers.parse(["0", "004", "all"]) == ["000", "004", "001", "002", "003", "openssl3"]
    assert papers.parse(["openssl3"]) == ["openssl3"]
    assert cli.main(["reproduce", "9"]) == 1
    assert "unknown paper '9'" in capsys.readouterr().err


def test_reproduce_000_quick_checks_the_thesis_claims(tmp_path, capsys, monkeypatch):
    """The whole path (driver, store, analysis, claims, report) on the smallest grid that keeps
    every part: the thesis's scheme at n = 1, 2 and extrapolated to n = 1000, 2 runs (the real
    --quick grid is a benchmark, not a test)."""
    from cryptobench.scenarios.config import command

    for name, value in {"QUICK_N": (1, 2, 1000), "QUICK_COMPAT_MAX_N": 2, "QUICK_RUNS": 2}.items():
        monkeypatch.setattr(command, name, value)
    from cryptobench import runner
    from cryptobench.store import Store

    # this machine's calibrated noise (of two stand-in A/A runs), which the run keeps (see
    # the_same_from_the_store): runs 1 and 2, so the paper's run is run 3
    machine = runner.list_capabilities(runner.find_runner()).machine
    db = Store.open(tmp_path / "r.db")
    versions = {"cryptobench": "0", "runner": "r", "runner_version": "0", "runner_path": ""}
    a, b = (db.create_run(suite="calibrate", settings={}, argv=[], versions=versions,
                          machine=machine, libraries=[], cases=[]) for _ in "ab")  # fmt: skip
    db.add_calibration(machine, a, b, 0.42, {})
    report = tmp_path / "rep.html"
    status = cli.main(["reproduce", "000", "--quick", "--db", str(tmp_path / "r.db"),
                       "--report", str(report)])  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out
    # each library ran its thesis variant's PBKDF2 (Elektra dfa9bb8), and the claims say so
    kdfs = "gcrypt pbkdf2-sha512, openssl pbkdf2-sha1, botan pbkdf2-sha256"
    summary = next(x for x in out.splitlines() if x.startswith("compat key derivation"))
    assert sorted(summary.split(": ", 1)[1].split(", ")) == sorted(kdfs.split(", "))
    assert f"KDF {kdfs}" in out and "not the thesis's key derivation" not in out
    assert "the libraries rank libgcrypt < OpenSSL < Botan [§6.1" in out
    assert "criterion: per-value cost h(n)/n orders libgcrypt < OpenSSL < Botan" in out
    assert "of the papers' 5 claims (--quick figures)" in out
    assert "Table 6.1" in out and "extrapolated" in out
    html = report.read_text()
    assert 'id="paper-000"' in html and "Does it still hold here?" in html
    assert ">criterion<" in html and "i7-4771" in html
    assert "scenario-config" not in html or "Time against the number of values" in html
    the_same_from_the_store(tmp_path, capsys, out)


def claims_of(out: str, paper: str) -> list[str]:
    """The claim lines (claim and verdict, the paper's figure, criterion, ours) of one paper's
    part of `reproduce`'s output."""
    part = out.split(f"=== {paper}:", 1)[1].split("\n=== ", 1)[0]
    heads = ("* ", "  paper:", "  criterion:", "  ours:")
    return [line for line in part.splitlines() if line.startswith(heads)]


def the_same_from_the_store(tmp_path, capsys, live_out: str) -> None:
    """`--stored` renders the live run's claims and verdicts again without measuring, from the
    store the run was pushed to (where no calibration is stored: the run keeps the noise
    threshold it was judged by), as one paper of `all`, the others not run. (One rendering:
    each draws the section's plots, a few seconds.)"""
    from cryptobench.reproductions import stored
    from cryptobench.scenarios import evidence
    from cryptobench.store import Store

    db = str(tmp_path / "r.db")
    live = claims_of(live_out, "000")
    assert len([x for x in live if x.startswith("* ")]) == 5 + 1  # the thesis's, and ours
    kept = Store.open(db).run(3).settings["reproduce"]
    assert kept["load_average"]["readings"] >= 2 and kept["noise"]["threshold"] == 0.42
    assert "from run 3 (reproduce 000 --quick)" in live_out and "load average " in live_out
    assert stored.latest(Store.open(db), "000", quick=True) == stored.Choice("000", 3, True)
    assert stored.named(Store.open(db), "000", "3") == stored.Choice("000", 3, True)

    team = tmp_path / "team.db"
    assert cli.main(["push", "3", "--db", db, "--to", str(team)]) == 0
    assert evidence.of_run(team, 1)[2].threshold == 0.42  # no calibration there: the kept one
    report = tmp_path / "all.html"
    argv = ["reproduce", "all", "--quick", "--stored", "--db", str(team), "--report", str(report)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert claims_of(out, "000") == live
    assert "from run 1 (reproduce 000 --quick)" in out
    assert "not reproduced here: not run: no complete --quick run of paper 002" in out
    assert "undecided of the papers' 26 claims" in out  # the five papers, openssl3 not run
    html = report.read_text()
    assert all(f'id="paper-{p}"' in html for p in ("000", "001", "002", "003", "004"))
    assert 'id="paper-openssl3"' not in html
    assert "From run 1 (reproduce 000 --quick)" in html and "Rendered from runs already" in html


def test_a_paper_nothing_repeats_says_so(tmp_path, capsys, monkeypatch):
    """Every paper is repeated today; a build without the scenario that repeats one (a part
    left out) must still answer with the reason, not fail."""
    from cryptobench.commands import reproduce

    monkeypatch.setattr(reproduce.reproductions.scenarios, "for_paper", lambda number: [])
    assert cli.main(["reproduce", "003", "--db", str(tmp_path / "r.db")]) == 0
    out = capsys.readouterr().out
    assert "not reproduced here" in out
    assert "0 hold, 0 do not hold, 8 undecided of the papers' 8 claims" in out


def test_every_paper_is_repeated_by_something():
    """Each paper has a module that measures it and renders it from a stored run."""
    from cryptobench import reproductions

    for number in papers.PAPERS:
        module = reproductions.module_for(number)
        assert callable(module.measure) and callable(module.from_run), number


def test_the_report_shows_criteria_both_machines_and_a_tally_of_the_papers_claims():
    """A paper whose data are all missing still lists every claim (undecided, with the reason),
    so the tally's denominator is the paper's fixed list; our own claims are apart."""
    from cryptobench.criteria import evaluate, specs_for
    from cryptobench.report.reproduction import Reproduction, render

    rep = Reproduction(
        "000", "t", [], "", [], evaluate(specs_for("000"), {}), ["no device"],
        deviations=["one KDF for all"], machine={"cpu_model": "Test CPU 9000", "cores": 2},
        libraries={"botan": "2.19.3"}, quick=True,
    )  # fmt: skip
    html = render([rep], quick=True)
    assert ">criterion<" in html and "Tables A.1-A.4" in html
    assert "i7-4771" in html and "Test CPU 9000" in html and "botan 2.19.3" in html
    assert "0 hold, 0 do not hold, 5 undecided of the papers&#x27; 5 claims" in html
    assert "Our own claims" in html and "one KDF for all" in html
    assert html.count("quick run") >= 2  # the intro and the paper's section


def test_an_interrupted_paper_stops_reproduce_all(tmp_path, capsys, monkeypatch, native_runner):
    """Ctrl-C or SIGTERM during one paper ends `reproduce` there: its run is stored as
    interrupted, the papers after it are not started, and the exit status is 130. (Each
    scenario catches the interrupt to keep what it measured, so without this check `reproduce
    all` went on to the next paper.)"""
    from cryptobench import runner
    from cryptobench.commands import reproduce
    from cryptobench.report.reproduction import Reproduction
    from cryptobench.store import Store

    caps = runner.list_capabilities(native_runner)
    path = tmp_path / "r.db"
    started: list[str] = []

    def one(number, target, quick):  # what a scenario leaves after Ctrl-C: an interrupted run
        started.append(number)
        db = Store.open(target.db)
        run_id = db.create_run(
            suite=f"scenario:{number}", settings={}, argv=[], machine=caps.machine, libraries=[],
            versions={"cryptobench": "0", "runner": "r", "runner_version": "0", "runner_path": ""},
            cases=[],
        )  # fmt: skip
        db.set_status(run_id, "interrupted" if number == "001" else "complete")
        db.close()
        return Reproduction(number, "t", [run_id], "", [])

    monkeypatch.setattr(reproduce, "reproduce_one", one)
    status = cli.main(["reproduce", "000", "001", "004", "--quick", "--db", str(path)])
    assert status == 130
    assert started == ["000", "001"]
    assert "004: not started (001 was interrupted)" in capsys.readouterr().out
