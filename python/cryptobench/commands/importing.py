"""`cryptobench import FILE --format openssl-speed|botan-speed|hyperfine`: another tool's
figures as a run of their own, marked imported and not gated, to show and compare beside ours.
Every figure is checked before anything is stored, and the run is stored in one transaction:
a file that fails leaves no run behind."""

import argparse
from pathlib import Path

from cryptobench import __version__, importers, plan, runner, store
from cryptobench.errors import UserError
from cryptobench.files import read_text
from cryptobench.runner import Outcome


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "import", parents=[db], help="store another tool's results as a run (not gated)"
    )
    c.add_argument("file", type=Path, metavar="FILE")
    c.add_argument("--format", "-f", required=True, choices=sorted(importers.parsers()))
    c.add_argument("--note", default="", help="a note stored with the run")
    c.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    try:
        args.note.encode("utf-8")
    except UnicodeEncodeError:
        raise UserError("--note: not valid UTF-8 text") from None
    text = read_text(args.file, "import file")
    entries = importers.parsers()[args.format](text)
    cases = [
        (
            plan.CaseSpec(
                e.provider, "default", e.operation, e.algorithm, e.size, samples=len(e.ns_per_op)
            ),
            e,
        )
        for e in entries
    ]
    try:
        machine = runner.list_capabilities(runner.find_runner()).machine
    except UserError:
        machine = {}
    db = store.Store.open(args.db)
    with db.transaction():
        run_id = db.create_run(
            suite=f"imported:{args.format}",
            settings={"imported_from": str(args.file)},
            argv=args.argv,
            versions={
                "cryptobench": __version__,
                "runner": args.format,
                "runner_version": "",
                "runner_path": str(args.file),
            },
            machine=machine,
            libraries=[],
            cases=[spec for spec, _ in cases],
            note=args.note or f"imported from {args.file.name}",
        )
        by_key = {spec.key(): e for spec, e in cases}
        for case_id, spec in db.pending_cases(run_id):
            e = by_key[spec.key()]
            db.complete_case(
                Outcome(
                    case_id,
                    spec,
                    "ok",
                    gate={"imported": f"{args.format}: {e.source}; not gated by cryptobench"},
                    iterations=1,
                    samples=[(1, max(1, round(ns)), 0) for ns in e.ns_per_op],
                )
            )
        db.set_status(run_id, "complete")
    print(f"stored {len(cases)} imported cases as run {run_id} in {db.path}")
    return 0
