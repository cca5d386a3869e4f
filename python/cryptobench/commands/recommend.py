"""`cryptobench recommend`: the fastest measured algorithm and provider per kind of primitive at
a security level."""

import argparse
import json

from cryptobench import analysis, leakverdicts, noise, store
from cryptobench.commands.common import positive_int
from cryptobench.errors import UserError
from cryptobench.tables import text_table
from cryptobench.units import format_size, parse_size


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "recommend",
        parents=[db],
        help="the fastest measured algorithm and provider per kind at a security level",
    )
    c.add_argument(
        "--level",
        type=positive_int,
        default=128,
        metavar="BITS",
        help="security strength in bits the algorithm must reach (default: 128)",
    )
    c.add_argument(
        "--size",
        metavar="BYTES",
        help="message size for ciphers, AEADs, hashes and MACs (default: 16 KiB, else the "
        "nearest measured size)",
    )
    c.add_argument("--run", default="latest", metavar="RUN", help="run number (default: latest)")
    c.add_argument(
        "--leaks",
        metavar="RUN",
        help="take the constant-time verdicts from this `cryptobench leaks` run only "
        "(default: the latest of every leaks run in the store)",
    )
    c.add_argument(
        "--avoid-leaky",
        action="store_true",
        help="pass over every provider and algorithm a leaks run found leaky (by timing or "
        "by taint)",
    )
    c.add_argument("--json", action="store_true", help="print the answer as JSON")
    c.set_defaults(func=cmd_recommend)


def cmd_recommend(args: argparse.Namespace) -> int:
    from cryptobench import recommend, security

    size = parse_size(args.size) if args.size is not None else recommend.DEFAULT_SIZE
    if size <= 0:
        raise UserError("--size must be at least 1 byte")
    recommend.check_level(args.level)
    db = store.Store.open(args.db, create=False)
    results = analysis.load(db, db.resolve_run(args.run))
    if not results.ok_cases():
        raise UserError(f"run {results.run.id} has no successful cases to recommend from")
    threshold = noise.for_machine(db, results.machine).threshold
    checks = _checks(db, args)
    rec = recommend.recommend(
        results,
        level=args.level,
        size=size,
        noise=threshold,
        checks=checks,
        avoid_leaky=args.avoid_leaky,
    )
    if args.json:
        print(json.dumps(recommend.to_json(rec), indent=2, allow_nan=False))
        return 0
    r = results.run
    print(
        f"run {r.id} ({r.suite}, {r.started_at}): the fastest per kind at ≥ {rec.level} bits of "
        f"security that no document disallows in {rec.year};\nciphers, AEADs, hashes and MACs "
        f"by throughput at {format_size(size)}, the others by operations per second"
    )
    print()
    print(
        text_table(
            [
                "kind",
                "algorithm",
                "provider",
                "figure",
                "bits",
                "NIST / BSI / ECRYPT-CSA",
                *(["constant time"] if checks else []),
                "note",
            ],
            recommend.text_rows(rec),
        )
    )
    print()
    for key, doc in security.levels().documents.items():
        print(f"{key}: {doc.citation}")
    return 0


def _checks(db: store.Store, args: argparse.Namespace) -> leakverdicts.Checks:
    """The constant-time verdicts to show: every leaks run's latest, or one run's (--leaks)."""
    run = None
    if args.leaks:
        run = db.resolve_run(args.leaks)
        if db.run(run).suite != leakverdicts.SUITE:
            raise UserError(f"--leaks {args.leaks}: run {run} is not a leaks run")
    checks = leakverdicts.load(db, run)
    if args.avoid_leaky and not checks:
        where = f"leaks run {run}" if run else f"{db.path}"
        raise UserError(
            f"--avoid-leaky: no constant-time verdict in {where} (store a `cryptobench leaks` "
            "run there first)"
        )
    return checks
