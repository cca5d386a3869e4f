"""`cryptobench list`: providers, variants, versions and the support matrix."""

import argparse
import json

from cryptobench import runner, terminal


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser("list", help="providers, variants, versions and the support matrix")
    c.add_argument("--json", action="store_true", help="print the runner's capabilities as JSON")
    c.set_defaults(func=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    caps = runner.discover()
    if args.json:
        print(json.dumps(caps.raw, indent=2))
        return 0
    print(terminal.capabilities_text(caps))
    return 0
