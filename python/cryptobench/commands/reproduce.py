"""`cryptobench reproduce 000|001|002|003|004|all [--quick] [--report FILE]`: each paper's
experiment at its settings, our figures beside its figures, and one reproduction report."""

import argparse
from pathlib import Path

from cryptobench import papers, reproductions, scenarios, store
from cryptobench.criteria import Claim, complete, tally, tally_text
from cryptobench.errors import EXIT_INTERRUPTED
from cryptobench.files import write_file
from cryptobench.report.reproduction import Reproduction
from cryptobench.scenarios.base import Target


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "reproduce",
        parents=[db],
        help="repeat a paper's experiment and print our figures beside the paper's",
    )
    c.add_argument("papers", nargs="+", metavar="PAPER", help=f"{'|'.join(papers.PAPERS)}|all")
    c.add_argument(
        "--quick", action="store_true", help="each paper's quick variant: a few minutes each"
    )
    c.add_argument("--report", type=Path, metavar="FILE", help="write the reproduction report")
    c.set_defaults(func=cmd_reproduce)


def reproduce_one(number: str, target: Target, quick: bool) -> Reproduction:
    """Repeats one paper: the scenario (or core reproduction) that repeats it, started from
    code with the run stored in `target`."""
    paper = papers.PAPERS[number]
    for scenario in scenarios.for_paper(number):
        if scenario.reproduce is not None:
            return scenario.reproduce(target, quick)
    if number in reproductions.CORE:  # a paper a core run repeats (not a scenario)
        return reproductions.CORE[number](target, quick)
    reason = f"nothing in this cryptobench repeats it yet ({paper.repeated_by} is not available)"
    return Reproduction(number, paper.title, [], "", [], not_reproduced=[reason])


def claim_text(c: Claim) -> str:
    who = "ours, not counted" if c.ours_only else c.source
    return (
        f"\n* {c.claim} [{who}]: {c.verdict}"
        + (f" ({c.reason})" if c.reason else "")
        + f"\n  paper:     {c.paper}\n  criterion: {c.criterion}\n  ours:      {c.ours}"
    )


def interrupted(db_path, rep: Reproduction) -> bool:
    """Whether Ctrl-C or SIGTERM ended one of the paper's runs: the store says so (the run's
    status), so the papers after it are not started."""
    if not rep.run_ids:
        return False
    db = store.Store.open_readonly(db_path)
    try:
        return any(db.run(i).status == "interrupted" for i in rep.run_ids)
    finally:
        db.close()


def cmd_reproduce(args: argparse.Namespace) -> int:
    numbers = papers.parse(args.papers)
    done: list[Reproduction] = []
    stopped = ""
    for number in numbers:
        if stopped:
            print(f"\n=== {number}: not started ({stopped}) ===")
            continue
        paper = papers.PAPERS[number]
        print(f"\n=== {number}: {paper.title} ({paper.year}) ===\n", flush=True)
        rep = reproduce_one(number, Target(db=args.db, argv=tuple(args.argv)), args.quick)
        rep.claims = complete(number, rep.claims, "; ".join(rep.not_reproduced) or "no run")
        done.append(rep)
        if rep.text:
            print(rep.text)
        for claim in rep.claims:
            print(claim_text(claim))
        for item in rep.not_reproduced:
            print(f"\nnot reproduced here: {item}")
        if interrupted(args.db, rep):
            stopped = f"{number} was interrupted"
    counts = tally(c for r in done for c in r.claims)
    print(f"\n{tally_text(counts)}" + (" (--quick figures)" if args.quick else ""))
    if args.report:
        from cryptobench.report.reproduction import render

        write_file(args.report, render(done, quick=args.quick))
        print(f"\nreproduction report: {args.report}")
    return EXIT_INTERRUPTED if stopped else 0
