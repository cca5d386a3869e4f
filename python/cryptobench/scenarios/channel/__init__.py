"""The `channel` scenario: what a protected channel costs — TLS handshakes, VPN latency, bulk
transfer through OpenVPN, IPsec and WireGuard (the 2015 offload thesis, 003).
`cryptobench channel`."""

from typing import Any

from cryptobench.scenarios.base import Scenario, StoredRun, lazy


def _spec(run: StoredRun) -> dict:
    return run.settings.get("scenario", {}) if isinstance(run.settings, dict) else {}


def _summary(run: StoredRun) -> str:
    from cryptobench.scenarios.channel.figures import summary

    return summary(run.figures, _spec(run))


def _sections(run: StoredRun) -> list:
    from cryptobench.scenarios.channel.report import sections

    return sections(run.figures, _spec(run))


def _to_json(run: StoredRun) -> dict[str, Any]:
    return {"scenario": "channel", "settings": _spec(run)}


SCENARIO = Scenario(
    name="channel",
    help="what a protected channel costs: TLS handshakes, VPN latency, bulk transfer with CPU",
    add_arguments=lazy("cryptobench.scenarios.channel.command", "add_arguments"),
    command=lazy("cryptobench.scenarios.channel.command", "command"),
    summary=_summary,
    report_sections=_sections,
    to_json=_to_json,
    paper="003",
    reproduce=lazy("cryptobench.scenarios.channel.reproduce", "reproduce"),
)
