"""`cryptobench push RUN --to URL`: copy a local run into a team's store (PostgreSQL), once."""

import argparse

from cryptobench import store
from cryptobench.store import copy


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "push", parents=[db], help="copy a run into another store (a team's PostgreSQL), once"
    )
    c.add_argument("run", metavar="RUN", help="run number or latest")
    c.add_argument("--to", required=True, metavar="URL|FILE", help="the store to copy it to")
    c.set_defaults(func=cmd_push)


def cmd_push(args: argparse.Namespace) -> int:
    source = store.Store.open(args.db, create=False)
    run_id = source.resolve_run(args.run)
    target = store.Store.open(args.to)
    new_id, copied = copy.copy_run(source, run_id, target)
    if copied:
        print(f"run {run_id} copied to {target.path} as run {new_id}")
    else:
        print(f"run {run_id} is already in {target.path} as run {new_id}: nothing copied")
    return 0
