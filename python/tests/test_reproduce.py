"""`cryptobench reproduce`: each paper's entry, with real measurements, and one report."""

import pytest

from cryptobench import cli, papers


def test_paper_names(capsys):
    assert papers.parse(["0", "004", "all"]) == ["000", "004", "001", "002", "003"]
    assert cli.main(["reproduce", "9"]) == 1
    assert "unknown paper '9'" in capsys.readouterr().err


def test_reproduce_000_quick_checks_the_thesis_claims(tmp_path, capsys):
    report = tmp_path / "rep.html"
    status = cli.main(["reproduce", "000", "--quick", "--db", str(tmp_path / "r.db"),
                       "--report", str(report)])  # fmt: skip
    assert status == 0
    out = capsys.readouterr().out
    assert "The libraries rank libgcrypt < OpenSSL < Botan in overhead" in out
    assert "Table 6.1" in out and "extrapolated" in out
    html = report.read_text()
    assert 'id="paper-000"' in html and "Does it still hold here?" in html
    assert "scenario-config" not in html or "Time against the number of values" in html


@pytest.mark.parametrize("paper", ["003"])
def test_a_paper_nothing_repeats_yet_says_so(tmp_path, capsys, paper):
    assert cli.main(["reproduce", paper, "--db", str(tmp_path / "r.db")]) == 0
    assert "not reproduced here" in capsys.readouterr().out
