"""`cryptobench reproduce PAPER --stored`: a paper's reproduction from a run already in the store
instead of a new measurement, so one report can gather papers measured at different times
(each in its own quiet window, copied into one store with `cryptobench push`).

A paper's run is the one `cryptobench reproduce PAPER` made: its note is `reproduce PAPER` (a
full run) or `reproduce PAPER --quick`, and its suite is that of what repeats the paper (the
paper's scenario, or a core run for the papers in `CORE`). By default the paper's latest
started run of the kind asked for (full, or `--quick`) that finished complete; `--run
PAPER=N` names one, of either kind. The reproduction itself is the paper's own `from_run`, the
same code that renders it right after measuring."""

from dataclasses import dataclass

from cryptobench import lifecycle, papers, reproductions, scenarios
from cryptobench.errors import UserError
from cryptobench.store import RunInfo, Store
from cryptobench.store.reads import runs_noted

# Not one of the five papers: `all --stored` shows it only when the store has a run of it.
SHOWN_IF_STORED = ("openssl3",)


def note_of(paper: str, quick: bool) -> str:
    """The note `reproduce PAPER [--quick]` stores with the paper's run."""
    return f"reproduce {paper}" + (" --quick" if quick else "")


def _suite_fits(paper: str, suite: str) -> bool:
    scenario = scenarios.for_suite(suite)
    if scenario is not None:
        return scenario.paper == paper
    return not suite.startswith("scenario:") and paper in reproductions.CORE


def kind_of(info: RunInfo, paper: str) -> bool | None:
    """Whether the run is a `--quick` (True) or a full (False) run of the paper; None when
    `reproduce PAPER` did not make it."""
    for quick in (False, True):
        if info.note == note_of(paper, quick) and _suite_fits(paper, info.suite):
            return quick
    return None


def finished(info: RunInfo) -> bool:
    return info.status == "complete" and bool(info.finished_at)


def _kind(quick: bool) -> str:
    return "--quick" if quick else "full"


@dataclass(frozen=True)
class Choice:
    """The stored run a paper's reproduction is made from; `run_id` None: none, `why`."""

    paper: str
    run_id: int | None
    quick: bool
    why: str = ""


def latest(db: Store, paper: str, quick: bool) -> Choice:
    """The paper's latest started run of this kind that finished complete."""
    unfinished = []
    for run_id in runs_noted(db, [note_of(paper, quick)]):
        info = db.run(run_id)
        if kind_of(info, paper) is None:
            continue
        if finished(info):
            return Choice(paper, run_id, quick)
        unfinished.append(f"run {run_id} is {lifecycle.displayed_status(info)}")
    why = (
        f"no complete {_kind(quick)} run of paper {paper} in {db.path}"
        + (f" ({', '.join(unfinished)})" if unfinished else "")
        + f": measure it with `cryptobench reproduce {paper}{' --quick' if quick else ''}` "
        "(and `cryptobench push` it here), or name a run with --run"
    )
    return Choice(paper, None, quick, why)


def named(db: Store, paper: str, ref: str) -> Choice:
    """The run `--run PAPER=REF` names, which must be a complete run of that paper."""
    given = f"--run {paper}={ref}"
    run_id = db.resolve_run(ref)
    info = db.run(run_id)
    quick = kind_of(info, paper)
    if quick is None:
        raise UserError(
            f"{given}: run {run_id} is not a run of paper {paper} (its note is "
            f"{info.note!r}, its suite {info.suite}; `reproduce {paper}` notes its run "
            f"{note_of(paper, False)!r} or {note_of(paper, True)!r})"
        )
    if not finished(info):
        raise UserError(
            f"{given}: run {run_id} did not finish (it is {lifecycle.displayed_status(info)}); "
            f"name a complete run of paper {paper}"
        )
    return Choice(paper, run_id, quick)


def parse_runs(values: list[str] | None, asked: list[str]) -> dict[str, str]:
    """`--run 000=12 --run 4=15` → {'000': '12', '004': '15'}, each a paper asked for."""
    out: dict[str, str] = {}
    for value in values or []:
        name, sep, ref = (x.strip() for x in value.partition("="))
        if not sep or not name or not ref or name == "all":
            raise UserError(f"--run {value}: expected PAPER=RUN, e.g. --run 000=12")
        (paper,) = papers.parse([name])
        if paper not in asked:
            raise UserError(f"--run {value}: paper {paper} is not among the papers asked for")
        if paper in out:
            raise UserError(f"--run {value}: a second run for paper {paper}")
        out[paper] = ref
    return out


def choose(db: Store, asked: list[str], named_papers: set[str], runs: dict[str, str],
           quick: bool) -> list[Choice]:  # fmt: skip
    """The run of each paper asked for. A paper named on the command line needs one (a one-line
    error, before anything is rendered); a paper asked for only through `all` without one is
    kept as not run, except `openssl3`, which `all` shows only when it has a run."""
    choices = []
    for paper in asked:
        choice = named(db, paper, runs[paper]) if paper in runs else latest(db, paper, quick)
        if choice.run_id is None:
            if paper in named_papers:
                raise UserError(choice.why)
            if paper in SHOWN_IF_STORED:
                continue
        choices.append(choice)
    return choices
