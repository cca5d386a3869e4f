"""`cryptobench reproduce 000|001|002|003|004|openssl3|all [--quick] [--report FILE]`: each
paper's experiment at its settings, our figures beside its figures, and one reproduction report;
with `--stored [--run PAPER=N]`, the same from runs already in the store, measuring nothing."""

import argparse
from pathlib import Path

from cryptobench import papers, reproductions, store
from cryptobench.criteria import Claim, complete, tally, tally_text
from cryptobench.errors import EXIT_INTERRUPTED, UserError
from cryptobench.files import write_file
from cryptobench.report.reproduction import Reproduction
from cryptobench.reproductions import stored
from cryptobench.scenarios import evidence
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
    c.add_argument(
        "--stored",
        action="store_true",
        help="measure nothing: each paper from its latest complete run in --db (of the "
        "--quick kind with --quick), as `reproduce` made it there or `push` copied it in",
    )
    c.add_argument(
        "--run",
        action="append",
        metavar="PAPER=RUN",
        help="with --stored: this stored run for this paper, not its latest (repeatable)",
    )
    c.add_argument("--report", type=Path, metavar="FILE", help="write the reproduction report")
    c.set_defaults(func=cmd_reproduce)


def not_repeated(number: str) -> Reproduction:
    paper = papers.PAPERS[number]
    reason = f"nothing in this cryptobench repeats it yet ({paper.repeated_by} is not available)"
    return Reproduction(number, paper.title, [], "", [], not_reproduced=[reason])


def reproduce_one(number: str, target: Target, quick: bool) -> Reproduction:
    """Repeats one paper: measures it (the scenario or core run that repeats it, stored in
    `target`, the load watched meanwhile and kept with the run), then renders its
    reproduction from that stored run, as `--stored` does."""
    module = reproductions.module_for(number)
    if module is None:
        return not_repeated(number)
    with evidence.LoadWatch() as load:
        measured = module.measure(target, quick)
    if isinstance(measured, Reproduction):  # it cannot be measured here, and says why
        return measured
    evidence.keep(target.db, measured, load.record())
    return module.from_run(target.db, measured, quick)


def from_store(db_path, choice: stored.Choice) -> Reproduction:
    """One paper's reproduction from its stored run, or, without one, the paper as not run."""
    if choice.run_id is None:
        paper = papers.PAPERS[choice.paper]
        return Reproduction(choice.paper, paper.title, [], "", [],
                            not_reproduced=[f"not run: {choice.why}"])  # fmt: skip
    module = reproductions.module_for(choice.paper)
    if module is None:
        return not_repeated(choice.paper)
    return module.from_run(db_path, choice.run_id, choice.quick)


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


def header(number: str) -> None:
    paper = papers.PAPERS[number]
    print(f"\n=== {number}: {paper.title} ({paper.year}) ===\n", flush=True)


def show(rep: Reproduction, db_path) -> None:
    """Completes the paper's claims (a missing one is undecided with the reason), names the run
    they come from, and prints them."""
    rep.claims = complete(rep.paper, rep.claims, "; ".join(rep.not_reproduced) or "no run")
    rep.provenance = [evidence.describe(db_path, i) for i in rep.run_ids]
    for line in rep.provenance:
        print(f"from {line}\n")
    if rep.text:
        print(rep.text)
    for claim in rep.claims:
        print(claim_text(claim))
    for item in rep.not_reproduced:
        print(f"\nnot reproduced here: {item}")


def measured(args: argparse.Namespace, numbers: list[str]) -> tuple[list[Reproduction], str]:
    """Each paper measured now, in turn; an interrupted one stops the papers after it."""
    done: list[Reproduction] = []
    stopped = ""
    for number in numbers:
        if stopped:
            print(f"\n=== {number}: not started ({stopped}) ===")
            continue
        header(number)
        rep = reproduce_one(number, Target(db=args.db, argv=tuple(args.argv)), args.quick)
        show(rep, args.db)
        done.append(rep)
        if interrupted(args.db, rep):
            stopped = f"{number} was interrupted"
    return done, stopped


def from_stored_runs(args: argparse.Namespace, numbers: list[str]) -> list[Reproduction]:
    """Each paper from its stored run; every run is chosen (and every mistake reported) before
    anything is rendered."""
    runs = stored.parse_runs(args.run, numbers)
    db = store.Store.open(args.db, create=False)
    named_papers = set(papers.parse([p for p in args.papers if p != "all"]))
    done = []
    for choice in stored.choose(db, numbers, named_papers, runs, args.quick):
        header(choice.paper)
        rep = from_store(args.db, choice)
        show(rep, args.db)
        done.append(rep)
    return done


def cmd_reproduce(args: argparse.Namespace) -> int:
    numbers = papers.parse(args.papers)
    if args.run and not args.stored:
        raise UserError("--run names a stored run: give it with --stored")
    if args.stored:
        done, stopped = from_stored_runs(args, numbers), ""
    else:
        done, stopped = measured(args, numbers)
    counts = tally(c for r in done for c in r.claims)
    kinds = {r.quick for r in done if r.run_ids} or {args.quick}
    suffix = {
        frozenset({True}): " (--quick figures)",
        frozenset({True, False}): " (some papers' figures from --quick runs)",
    }
    print(f"\n{tally_text(counts)}" + suffix.get(frozenset(kinds), ""))
    if args.report:
        from cryptobench.report.reproduction import render

        write_file(args.report, render(done, quick=args.quick, stored=args.stored))
        print(f"\nreproduction report: {args.report}")
    return EXIT_INTERRUPTED if stopped else 0
