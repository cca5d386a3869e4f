"""The `storage` scenario: what an encrypted file system costs beside the clean one (the 2009
comparison, 002). `cryptobench storage`."""

from typing import Any

from cryptobench.scenarios.base import Scenario, StoredRun


def _add_arguments(parser: Any) -> None:
    from cryptobench.scenarios.storage.command import add_arguments

    add_arguments(parser)


def _command(args: Any) -> int:
    from cryptobench.scenarios.storage.command import command

    return command(args)


def _spec(run: StoredRun) -> dict:
    return run.settings.get("scenario", {}) if isinstance(run.settings, dict) else {}


def _summary(run: StoredRun) -> str:
    from cryptobench.scenarios.storage.figures import summary

    return summary(run.figures, _spec(run))


def _sections(run: StoredRun) -> list:
    from cryptobench.scenarios.storage.report import sections

    return sections(run.figures, _spec(run))


def _reproduce(args: Any) -> Any:
    from cryptobench.scenarios.storage.reproduce import reproduce

    return reproduce(args)


SCENARIO = Scenario(
    name="storage",
    help="what an encrypted file system costs beside the clean one: dd, fio, bonnie++, metadata",
    add_arguments=_add_arguments,
    command=_command,
    summary=_summary,
    report_sections=_sections,
    to_json=lambda run: {"scenario": "storage", "settings": _spec(run)},
    paper="002",
    reproduce=_reproduce,
)
