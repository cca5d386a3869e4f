"""The `config` scenario: what encrypting configuration values costs an application — the
thesis behind confcrypt, repeated (its Tables 6.1 and 6.2). `cryptobench scenario config`."""

from typing import Any

from cryptobench.figures import Figure
from cryptobench.scenarios.base import Scenario, StoredRun


def _add_arguments(parser: Any) -> None:
    from cryptobench.scenarios.config.command import add_arguments

    add_arguments(parser)


def _command(args: Any) -> int:
    from cryptobench.scenarios.config.command import command

    return command(args)


def _load(db: Any, run_id: int) -> Any:
    from cryptobench.scenarios.config.figures import load

    return load(db, run_id)


def _summary(run: StoredRun) -> str:
    from cryptobench.scenarios.config.figures import summary

    if run.data is None:
        return "no figures stored"
    return summary(run.data.analyse(), run.data.info)


def _sections(run: StoredRun) -> list:
    from cryptobench.scenarios.config.report import section

    return [section(run.data, run.machine)] if run.data is not None else []


def _to_json(run: StoredRun) -> dict[str, Any]:
    from cryptobench.scenarios.config.figures import to_json

    return to_json(run.data) if run.data is not None else {}


def _figures(run: StoredRun) -> list[Figure]:
    """One figure per scheme/provider, n and direction: the times of its runs, in seconds."""
    if run.data is None:
        return []
    times: dict[tuple, list[float]] = {}
    for s in run.data.samples:
        key = (s["scheme"], s.get("provider") or "", int(s["n"]), s["direction"])
        times.setdefault(key, []).append(s["ns"] / 1e9)
    return [
        Figure(
            {"scheme": scheme, "provider": provider, "n": n, "direction": direction},
            "time",
            "s",
            tuple(values),
            better="lower",
        )
        for (scheme, provider, n, direction), values in times.items()
    ]


def _reproduce(args: Any) -> Any:
    from cryptobench.scenarios.config.reproduce import reproduce

    return reproduce(args)


SCENARIO = Scenario(
    name="config",
    help="the thesis's benchmark: writing and reading encrypted configuration files",
    add_arguments=_add_arguments,
    command=_command,
    summary=_summary,
    report_sections=_sections,
    to_json=_to_json,
    load=_load,
    figures=_figures,
    top_level=False,
    paper="000",
    reproduce=_reproduce,
)
