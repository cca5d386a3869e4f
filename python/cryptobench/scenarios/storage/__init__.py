"""The `storage` scenario: what an encrypted file system costs beside the clean one (the 2009
comparison, 002). `cryptobench storage`."""

from cryptobench.scenarios.base import Scenario, StoredRun, lazy


def _spec(run: StoredRun) -> dict:
    return run.settings.get("scenario", {}) if isinstance(run.settings, dict) else {}


def _summary(run: StoredRun) -> str:
    from cryptobench.scenarios.storage.figures import summary

    return summary(run.figures, _spec(run))


def _sections(run: StoredRun) -> list:
    from cryptobench.scenarios.storage.report import sections

    return sections(run.figures, _spec(run))


SCENARIO = Scenario(
    name="storage",
    help="what an encrypted file system costs beside the clean one: dd, fio, bonnie++, metadata",
    add_arguments=lazy("cryptobench.scenarios.storage.command", "add_arguments"),
    command=lazy("cryptobench.scenarios.storage.command", "command"),
    summary=_summary,
    report_sections=_sections,
    to_json=lambda run: {"scenario": "storage", "settings": _spec(run)},
    paper="002",
    reproduce=lazy("cryptobench.scenarios.storage.reproduce", "reproduce"),
)
