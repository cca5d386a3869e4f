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


    def command(args):
        from cryptobench import lifecycle, store

        db = store.Store.open(args.db)
        with lifecycle.scenario_run(
            db, "demo", settings={}, argv=args.argv, machine={"hostname": "h"}, driver="demo"
        ) as run_id:
            db.add_figures(run_id, [Figure({"thing": "a"}, "speed", "MB/s",
                                           (args.value, args.value, args.value))])
        print(f"stored as run {run_id}")
        return 0


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
    assert cli.main(["demo", "--db", db, "--value", "3"]) == 0
    assert cli.main(["scenario", "demo", "--db", db, "--value", "6"]) == 0
    capsys.readouterr()

    assert cli.main(["show", "1", "--db", db]) == 0
    assert "demo summary: 3.0" in capsys.readouterr().out

    out = tmp_path / "r.html"
    assert cli.main(["report", "1", "--db", db, "-o", str(out)]) == 0
    capsys.readouterr()
    html = out.read_text()
    assert 'id="demo"' in html and "Demo section" in html and "demo figure" in html

    assert cli.main(["export", "1", "--db", db, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["scenario"] == {"figures": 1} and doc["figures"][0]["median"] == 3.0

    out = tmp_path / "x.json"
    assert cli.main(["export", "1", "--db", db, "-f", "gbench", "-o", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    assert "scenario run" in err and "json, csv, md" in err and len(err.splitlines()) == 1
    assert not out.exists()

    assert cli.main(["compare", "1", "2", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "better" in text and "2.000" in text  # 6 MB/s against 3, higher is better
