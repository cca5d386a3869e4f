"""What a scenario is. Each scenario is a package under `cryptobench/scenarios/` whose
`__init__.py` defines `SCENARIO = Scenario(...)`; the command line, `show`, `report`, `export`,
`compare` and `reproduce` find it there (scenarios/__init__.py) and never import it by name.

A scenario's package has the same rooms every time:

    __init__.py   SCENARIO: its name, help and the hooks below (imports nothing heavy)
    command.py    its arguments and the command: plan → set up → measure → tear down → store
    drivers/ …    what it starts and measures (systems, daemons, programs), one module each
    figures.py    loading a stored run and the terminal summary
    report.py     its HTML report sections
    reproduce.py  `cryptobench reproduce NNN` for the paper it repeats (when it repeats one)

Its data flows one way like the core's: measurements become `Figure`s (cryptobench.figures) or,
for the configuration scenario, its own rows, stored through `Store`; presentation reads them
back from the store.
"""

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptobench.criteria import Claim
from cryptobench.figures import Figure
from cryptobench.report.html import Section
from cryptobench.store import RunInfo, Store


@dataclass
class Reproduction:
    """What `cryptobench reproduce NNN` produced for one paper."""

    paper: str  # "002"
    title: str
    run_ids: list[int]
    text: str  # the side-by-side tables for the terminal
    sections: list[Section]  # for the reproduction report
    claims: list[Claim] = field(default_factory=list)
    not_reproduced: list[str] = field(default_factory=list)  # what could not be done here, why
    deviations: list[str] = field(default_factory=list)  # where our method differs, how and why
    machine: dict[str, Any] = field(default_factory=dict)  # the stored machine record of the run
    libraries: dict[str, str] = field(default_factory=dict)  # library -> version, as measured
    quick: bool = False  # figures from `--quick` (fewer runs, smaller inputs)


@dataclass
class StoredRun:
    """A stored scenario run as the presentation side gets it."""

    info: RunInfo
    machine: dict[str, Any]
    settings: dict[str, Any]
    figures: list[Figure]
    data: Any = None  # what the scenario's own `load` returned


@dataclass(frozen=True)
class Scenario:
    name: str  # `cryptobench scenario NAME`; the run's suite is `scenario:NAME`
    help: str  # one line for --help
    add_arguments: Callable[[argparse.ArgumentParser], None]
    command: Callable[[argparse.Namespace], int]
    summary: Callable[[StoredRun], str]  # what `show` prints
    report_sections: Callable[[StoredRun], list[Section]]  # what `report` shows
    to_json: Callable[[StoredRun], dict[str, Any]]  # what `export --format json` writes
    # Reads what the scenario stored beyond its figures (None: figures only).
    load: Callable[[Store, int], Any] | None = None
    # Figures for `compare` when they are not the stored figures (config keeps its own rows).
    figures: Callable[[StoredRun], list[Figure]] | None = None
    top_level: bool = True  # also `cryptobench NAME`, beside `cryptobench scenario NAME`
    paper: str | None = None  # the paper of ../shared/papers it repeats ("002")
    reproduce: Callable[[argparse.Namespace], Reproduction] | None = None

    @property
    def suite(self) -> str:
        return f"scenario:{self.name}"

    def stored(self, db: Store, run_id: int) -> StoredRun:
        info = db.run(run_id)
        run = StoredRun(
            info=info,
            machine=db.machine(run_id),
            settings=info.settings,
            figures=db.figures(run_id),
        )
        if self.load is not None:
            run.data = self.load(db, run_id)
        return run

    def comparable_figures(self, run: StoredRun) -> list[Figure]:
        return self.figures(run) if self.figures is not None else run.figures


def lazy(module: str, name: str) -> Callable[..., Any]:
    """A scenario hook that imports its module only when called, so finding every scenario at
    start-up stays cheap: `command=lazy("cryptobench.scenarios.x.command", "command")`."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    return call


def settings_of(run: StoredRun) -> dict:
    """The scenario's own settings as its command stored them."""
    return run.settings.get("scenario", {}) if isinstance(run.settings, dict) else {}


def figure_scenario(name: str, help: str, paper: str | None = None) -> Scenario:
    """A scenario whose measurements are `Figure`s, in the standard rooms of its package
    `cryptobench.scenarios.NAME`: `command.py` (`add_arguments`, `command`), `figures.py`
    (`summary(figures, settings)`), `report.py` (`sections(figures, settings)`) and, when it
    repeats a paper, `reproduce.py` (`reproduce`)."""
    package = f"cryptobench.scenarios.{name}"
    summary, sections = lazy(f"{package}.figures", "summary"), lazy(f"{package}.report", "sections")
    return Scenario(
        name=name,
        help=help,
        add_arguments=lazy(f"{package}.command", "add_arguments"),
        command=lazy(f"{package}.command", "command"),
        summary=lambda run: summary(run.figures, settings_of(run)),
        report_sections=lambda run: sections(run.figures, settings_of(run)),
        to_json=lambda run: {"scenario": name, "settings": settings_of(run)},
        paper=paper,
        reproduce=lazy(f"{package}.reproduce", "reproduce") if paper else None,
    )


def run_figure_scenario(
    args: argparse.Namespace,
    name: str,
    spec: dict[str, Any],
    measure: Callable[[Store, int, Any], None],
    summary: Callable[[list[Figure], dict], str],
    sections: Callable[[list[Figure], dict], list[Section]],
    caps: Any = None,
    **run: Any,
) -> int:
    """The life of a figure-based scenario's run after its arguments were checked: the store,
    the run's ledger (everything the run creates, undone on every ending) and its stored run
    (`lifecycle.scenario_run`, with `run` passed on); `measure(db, run_id, ledger)` measures
    and stores figures; Ctrl-C or SIGTERM keeps what was stored and exits 130. Then the summary,
    the --report page and the --json-out document, from the stored figures and the settings as
    the run stored them last. Returns the exit status."""
    from cryptobench import runner, store
    from cryptobench.errors import EXIT_INTERRUPTED
    from cryptobench.lifecycle import scenario_run
    from cryptobench.scenarios.resources import Ledger

    caps = caps or runner.list_capabilities(runner.find_runner())
    db = store.Store.open(args.db)
    status = 0
    run.setdefault("driver", name)
    try:
        with (
            Ledger(name) as ledger,
            scenario_run(
                db,
                name,
                settings={"scenario": spec},
                argv=args.argv,
                machine=caps.machine,
                note=args.note,
                **run,
            ) as run_id,
        ):
            args.run_id = run_id
            measure(db, run_id, ledger)
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    stored = db.figures(run_id)
    spec = db.run(run_id).settings.get("scenario", spec)
    finish(
        args,
        db,
        run_id,
        summary(stored, spec),
        lambda: sections(stored, spec),
        lambda: {"settings": spec, "figures": [f.to_json() for f in stored]},
    )
    return status


def finish(
    args: argparse.Namespace,
    db: Store,
    run_id: int,
    summary: str,
    sections: Callable[[], list[Section]],
    doc: Callable[[], dict[str, Any]],
) -> None:
    """What every figure-based scenario does after measuring: print its summary, write the
    --report page and the --json-out document when asked, say where the run is stored."""
    from cryptobench.files import write_file
    from cryptobench.report.html import page

    print(summary)
    if getattr(args, "report", None):
        write_file(
            args.report, page(f"cryptobench run {run_id}: {db.run(run_id).suite}", "", sections())
        )
        print(f"report: {args.report}")
    if getattr(args, "json_out", None):
        import json

        write_file(args.json_out, json.dumps(doc(), indent=1, default=str) + "\n")
        print(f"JSON: {args.json_out}")
    print(f"\nstored as run {run_id} in {db.path}")
