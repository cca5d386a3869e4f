"""Every registered scenario as `cryptobench scenario NAME` and, for most, `cryptobench NAME`:
found in the registry (cryptobench/scenarios), never imported by name."""

import argparse

from cryptobench import scenarios


def register(sub, db: argparse.ArgumentParser) -> None:
    registry = scenarios.registry()
    c = sub.add_parser("scenario", help="application scenarios: what crypto costs an application")
    group = c.add_subparsers(dest="scenario", required=True, metavar="SCENARIO")
    for scenario in registry.values():
        s = group.add_parser(scenario.name, parents=[db], help=scenario.help)
        scenario.add_arguments(s)
        s.set_defaults(func=scenario.command)
    for scenario in registry.values():
        if scenario.top_level:
            s = sub.add_parser(scenario.name, parents=[db], help=scenario.help)
            scenario.add_arguments(s)
            s.set_defaults(func=scenario.command)
