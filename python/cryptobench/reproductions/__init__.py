"""What repeats each paper for `cryptobench reproduce NNN` (commands/reproduce.py): the scenario
whose `reproduction` module repeats it, else one of the reproductions here that a core run
repeats (not a scenario). Every such module has the same two functions, so a paper measured now
and a paper rendered from a run already in the store (`--stored`, stored.py) go through the same
code:

    measure(target, quick) -> int | Reproduction
        measures the paper at its settings (or the quick variant), its run stored in
        `target.db` with the note `reproduce NNN[ --quick]`; the run's id, or, when the paper
        cannot be measured on this machine, the Reproduction that says why
    from_run(db, run_id, quick) -> Reproduction
        the paper's figures beside ours and its claims judged, from that stored run

This module only names them, so finding one stays cheap."""

import importlib
from types import ModuleType

from cryptobench import scenarios

CORE: dict[str, str] = {
    "001": "cryptobench.reproductions.java.reproduce",
    "openssl3": "cryptobench.reproductions.openssl3.reproduce",
}


def module_for(paper: str) -> ModuleType | None:
    """The module that repeats the paper (`measure` and `from_run`), or None: nothing in this
    build repeats it."""
    for scenario in scenarios.for_paper(paper):
        if scenario.reproduction:
            return importlib.import_module(scenario.reproduction)
    if paper in CORE:
        return importlib.import_module(CORE[paper])
    return None
