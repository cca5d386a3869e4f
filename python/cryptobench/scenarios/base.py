"""What a scenario is. Each scenario is a package under `cryptobench/scenarios/` whose
`__init__.py` defines `SCENARIO = Scenario(...)`; the command line, `show`, `report`, `export`,
`compare` and `reproduce` find it there (scenarios/__init__.py) and never import it by name.

A scenario's package has the same rooms every time:

    __init__.py   SCENARIO: its name, help and the hooks below (imports nothing heavy)
    command.py    its arguments and the command: plan → set up → measure → tear down → store
    drivers/ …    what it starts and measures (systems, daemons, programs), one module each
    figures.py    loading a stored run and the terminal summary
    report.py     its HTML report sections
    reproduce.py  `cryptobench reproduce NNN` for the paper it repeats (when it repeats one):
                  `measure` it, and its reproduction `from_run` (new or already stored)

Its data flows one way like the core's: measurements become `Figure`s (cryptobench.figures),
stored through `Store`; presentation reads them back from the store. A scenario is started from
code as from the command line: `command.py`'s `start(options, target)` takes a typed options
object and a `Target` and returns `Started` (the run and its exit status).
"""

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.figures import Figure
from cryptobench.report.html import Section
from cryptobench.store import RunInfo, Store


@dataclass
class StoredRun:
    """A stored scenario run as the presentation side gets it."""

    info: RunInfo
    machine: dict[str, Any]
    settings: dict[str, Any]
    figures: list[Figure]


@dataclass(frozen=True)
class Target:
    """Where a scenario's run is stored and what is written beside it: the database, the note
    and the command line stored with the run, the --report page and the --json-out document
    (None: not written). `cryptobench NAME` makes one from its arguments; `reproduce` its own."""

    db: Path | str | None = None
    note: str = ""
    argv: tuple[str, ...] = ()
    report: Path | None = None
    json_out: Path | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "Target":
        return cls(
            db=getattr(args, "db", None),
            note=getattr(args, "note", "") or "",
            argv=tuple(getattr(args, "argv", ())),
            report=getattr(args, "report", None),
            json_out=getattr(args, "json_out", None),
        )


@dataclass(frozen=True)
class Started:
    """A scenario's run once it ended: its number in the store and the exit status (0, or
    EXIT_INTERRUPTED after Ctrl-C or SIGTERM; what was measured is stored either way)."""

    run_id: int
    status: int


def comma_list(text: str | None, what: str) -> tuple[str, ...] | None:
    """`"a, b"` → ('a', 'b'); None when the option was not given; an empty list is an error."""
    if text is None:
        return None
    values = tuple(v.strip() for v in text.split(",") if v.strip())
    if not values:
        raise UserError(f"{what}: an empty list")
    return values


def options_from(cls: type, args: argparse.Namespace) -> Any:
    """A scenario's options dataclass from its parsed command line: each field is the argument
    of the same name."""
    return cls(**{f.name: getattr(args, f.name) for f in fields(cls) if hasattr(args, f.name)})


@dataclass(frozen=True)
class Scenario:
    name: str  # `cryptobench scenario NAME`; the run's suite is `scenario:NAME`
    help: str  # one line for --help
    add_arguments: Callable[[argparse.ArgumentParser], None]
    command: Callable[[argparse.Namespace], int]
    summary: Callable[[StoredRun], str]  # what `show` prints
    report_sections: Callable[[StoredRun], list[Section]]  # what `report` shows
    to_json: Callable[[StoredRun], dict[str, Any]]  # what `export --format json` writes
    top_level: bool = True  # also `cryptobench NAME`, beside `cryptobench scenario NAME`
    paper: str | None = None  # the paper of ../shared/papers it repeats ("002")
    # `cryptobench reproduce NNN`: the module that repeats the paper, with `measure(target,
    # quick)` (starts the scenario from code) and `from_run(db, run_id, quick)` (the paper's
    # Reproduction from a stored run: the one just measured, or one already in the store).
    reproduction: str | None = None

    @property
    def suite(self) -> str:
        return f"scenario:{self.name}"

    def stored(self, db: Store, run_id: int) -> StoredRun:
        info = db.run(run_id)
        return StoredRun(
            info=info,
            machine=db.machine(run_id),
            settings=info.settings,
            figures=db.figures(run_id),
        )

    # ---- the one presentation of a stored run: `report N`, `export N` and --report/--json-out

    def report_page(self, db: Store, run_id: int) -> str:
        """The HTML report of one of this scenario's runs (`cryptobench report N`, --report)."""
        from cryptobench import analysis, report

        sections = self.report_sections(self.stored(db, run_id))
        return report.render(analysis.load(db, run_id), extra=sections)

    def export(self, db: Store, run_id: int, fmt: str) -> str:
        """One of this scenario's runs as `fmt` (`cryptobench export N -f FMT`, --json-out); a
        format that does not fit a scenario run is refused."""
        from cryptobench import analysis
        from cryptobench.export import figures

        if fmt not in figures.FORMATS:
            raise UserError(
                f"--format {fmt}: run {run_id} is a scenario run ({self.suite}), which exports "
                f"as {', '.join(figures.FORMATS)}"
            )
        stored = self.stored(db, run_id)
        return figures.render(fmt, analysis.load(db, run_id), stored.figures, self.to_json(stored))


def lazy(module: str, name: str) -> Callable[..., Any]:
    """A scenario hook that imports its module only when called, so finding every scenario at
    start-up stays cheap: `command=lazy("cryptobench.scenarios.x.command", "command")`."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    return call


def settings_of(run: StoredRun) -> dict:
    """The scenario's own settings as its command stored them."""
    return run.settings.get("scenario", {}) if isinstance(run.settings, dict) else {}


def figure_scenario(
    name: str, help: str, paper: str | None = None, top_level: bool = True
) -> Scenario:
    """A scenario whose measurements are `Figure`s, in the standard rooms of its package
    `cryptobench.scenarios.NAME`: `command.py` (`add_arguments`, `command`), `figures.py`
    (`summary(figures, settings)`), `report.py` (`sections(figures, settings)`) and, when it
    repeats a paper, `reproduce.py` (`measure(target, quick)`, `from_run(db, run_id, quick)`)."""
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
        top_level=top_level,
        paper=paper,
        reproduction=f"{package}.reproduce" if paper else None,
    )


def run_figure_scenario(
    scenario: Scenario,
    target: Target,
    spec: dict[str, Any],
    measure: Callable[[Store, int, Any], None],
    caps: Any = None,
    **run: Any,
) -> Started:
    """The life of a figure-based scenario's run after its arguments were checked: the store,
    the run's ledger (everything the run creates, undone on every ending) and its stored run
    (`lifecycle.scenario_run`, with `run` passed on); `measure(db, run_id, ledger)` measures
    and stores figures; Ctrl-C or SIGTERM keeps what was stored and ends with EXIT_INTERRUPTED.
    Then the summary, and the --report page and --json-out document, which are exactly what
    `cryptobench report N` and `cryptobench export N -f json` write for the run."""
    from cryptobench import runner, store
    from cryptobench.errors import EXIT_INTERRUPTED
    from cryptobench.files import write_file
    from cryptobench.lifecycle import scenario_run
    from cryptobench.scenarios.resources import Ledger

    caps = caps or runner.list_capabilities(runner.find_runner())
    db = store.Store.open(target.db)
    status = 0
    run.setdefault("driver", scenario.name)
    try:
        with (
            Ledger(scenario.name) as ledger,
            scenario_run(
                db,
                scenario.name,
                settings={"scenario": spec},
                argv=list(target.argv),
                machine=caps.machine,
                note=target.note,
                **run,
            ) as run_id,
        ):
            measure(db, run_id, ledger)
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
    print(scenario.summary(scenario.stored(db, run_id)))
    if target.report:
        write_file(target.report, scenario.report_page(db, run_id))
        print(f"report: {target.report}")
    if target.json_out:
        write_file(target.json_out, scenario.export(db, run_id, "json"))
        print(f"JSON: {target.json_out}")
    print(f"\nstored as run {run_id} in {db.path}")
    return Started(run_id, status)
