"""The `process` scenario: what encrypting a file costs a whole process — CPU, peak memory,
input kinds (the EvalMe paper, 004). `cryptobench process`."""

from typing import Any

from cryptobench.scenarios.base import Scenario, StoredRun, lazy


def _spec(run: StoredRun) -> dict:
    return run.settings.get("scenario", {}) if isinstance(run.settings, dict) else {}


def _summary(run: StoredRun) -> str:
    from cryptobench.scenarios.process.figures import summary

    return summary(run.figures, _spec(run))


def _sections(run: StoredRun) -> list:
    from cryptobench.scenarios.process.report import sections

    return sections(run.figures, _spec(run))


def _to_json(run: StoredRun) -> dict[str, Any]:
    return {"scenario": "process", "settings": _spec(run)}


SCENARIO = Scenario(
    name="process",
    help="what encrypting a file costs a whole process: time, CPU, peak memory, input kinds",
    add_arguments=lazy("cryptobench.scenarios.process.command", "add_arguments"),
    command=lazy("cryptobench.scenarios.process.command", "command"),
    summary=_summary,
    report_sections=_sections,
    to_json=_to_json,
    paper="004",
    reproduce=lazy("cryptobench.scenarios.process.reproduce", "reproduce"),
)
