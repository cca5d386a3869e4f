"""A scenario is a package that registers itself: dropped into cryptobench/scenarios, it shows up
in --help, runs as a command, and its run is shown, reported, exported and compared — without
any other file naming it."""

import json
import textwrap

import pytest

from cryptobench import cli, scenarios

DEMO = textwrap.dedent("""
    from cryptobench.figures import Figure
    from cryptobench.report.html import Section
    from cryptobench.scenarios.base import Scenario


    def add_arguments(p):
        p.add_argument("--value", type=float, default=2.0)
        p.add_argument("--report")
        p.add_argument("--json-out")


    def command(args):
        from types import SimpleNamespace

        from cryptobench.scenarios.base import Target, run_figure_scenario

        def measure(db, run_id, ledger):
            db.add_figures(run_id, [Figure({"thing": "a"}, "speed", "MB/s",
                                           (args.value, args.value, args.value))])

        caps = SimpleNamespace(machine={"hostname": "h"})
        target = Target.from_args(args)
        return run_figure_scenario(SCENARIO, target, {}, measure, caps=caps).status


    SCENARIO = Scenario(
        name="demo",
        help="a demonstration scenario",
        add_arguments=add_arguments,
        command=command,
        summary=lambda run: f"demo summary: {run.figures[0].median}",
        report_sections=lambda run: [Section("demo", "Demo section", "<p>demo figure</p>")],
        to_json=lambda run: {"figures": len(run.figures)},
    )
""")


@pytest.fixture
def demo_scenario(tmp_path, monkeypatch):
    package = tmp_path / "pkgs" / "demo"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(DEMO)
    monkeypatch.setattr(scenarios, "__path__", [*scenarios.__path__, str(tmp_path / "pkgs")])
    scenarios.registry.cache_clear()
    yield
    scenarios.registry.cache_clear()


def test_a_scenario_package_registers_itself(demo_scenario, tmp_path, capsys):
    assert "demo" in scenarios.registry()
    assert "config" in scenarios.registry()
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "demo" in capsys.readouterr().out

    db = str(tmp_path / "r.db")
    own = [tmp_path / "own.html", tmp_path / "own.json"]
    argv = ["demo", "--db", db, "--value", "3", "--report", str(own[0]), "--json-out", str(own[1])]
    assert cli.main(argv) == 0
    assert cli.main(["scenario", "demo", "--db", db, "--value", "6"]) == 0
    capsys.readouterr()

    assert cli.main(["show", "1", "--db", db]) == 0
    assert "demo summary: 3.0" in capsys.readouterr().out

    out = tmp_path / "r.html"
    assert cli.main(["report", "1", "--db", db, "-o", str(out)]) == 0
    capsys.readouterr()
    html = out.read_text()
    assert 'id="demo"' in html and "Demo section" in html and "demo figure" in html
    assert out.read_bytes() == own[0].read_bytes()  # --report is `report N`, byte for byte

    assert cli.main(["export", "1", "--db", db, "--format", "json"]) == 0
    text = capsys.readouterr().out
    assert text.encode() == own[1].read_bytes()  # --json-out is `export N -f json`
    doc = json.loads(text)
    assert doc["scenario"] == {"figures": 1} and doc["figures"][0]["median"] == 3.0

    out = tmp_path / "x.json"
    assert cli.main(["export", "1", "--db", db, "-f", "gbench", "-o", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    assert "scenario run" in err and "json, csv, md" in err and len(err.splitlines()) == 1
    assert not out.exists()

    assert cli.main(["compare", "1", "2", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "better" in text and "2.000" in text  # 6 MB/s against 3, higher is better
