"""Application scenarios: what cryptography costs a whole system (DESIGN.md, "Scenarios").

Every package here whose `__init__.py` defines `SCENARIO` (a `base.Scenario`) is a scenario;
this module finds them, so adding one never edits the command line, the report or `reproduce`.
"""

import importlib
import pkgutil
from functools import cache

from cryptobench.scenarios.base import Scenario


@cache
def registry() -> dict[str, Scenario]:
    """Every scenario, by name, in name order."""
    found: dict[str, Scenario] = {}
    for module in pkgutil.iter_modules(__path__):
        if not module.ispkg:
            continue
        scenario = getattr(importlib.import_module(f"{__name__}.{module.name}"), "SCENARIO", None)
        if isinstance(scenario, Scenario):
            found[scenario.name] = scenario
    return dict(sorted(found.items()))


def for_suite(suite: str) -> Scenario | None:
    """The scenario that stored a run of this suite (`scenario:NAME`), or None for a core run."""
    if not suite.startswith("scenario:"):
        return None
    return registry().get(suite.removeprefix("scenario:"))


def for_paper(paper: str) -> list[Scenario]:
    return [s for s in registry().values() if s.paper == paper]
