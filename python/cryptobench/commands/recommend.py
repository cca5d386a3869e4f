"""`cryptobench recommend`: the fastest measured algorithm and provider per kind of primitive at
a security level."""

import argparse
import json

from cryptobench import analysis, noise, store
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
        help="a `cryptobench leaks` run: show each choice's constant-time verdict from it",
    )
    c.add_argument(
        "--avoid-leaky",
        action="store_true",
        help="with --leaks: pass over every provider and algorithm that run found leaky",
    )
    c.add_argument("--json", action="store_true", help="print the answer as JSON")
    c.set_defaults(func=cmd_recommend)


def cmd_recommend(args: argparse.Namespace) -> int:
    from cryptobench import recommend, security

    size = parse_size(args.size) if args.size is not None else recommend.DEFAULT_SIZE
    if size <= 0:
        raise UserError("--size must be at least 1 byte")
    recommend.check_level(args.level)
    if args.avoid_leaky and not args.leaks:
        raise UserError("--avoid-leaky needs --leaks RUN (the leaks run to take the verdicts from)")
    db = store.Store.open(args.db, create=False)
    results = analysis.load(db, db.resolve_run(args.run))
    if not results.ok_cases():
        raise UserError(f"run {results.run.id} has no successful cases to recommend from")
    threshold = noise.for_machine(db, results.machine).threshold
    leaks = {}
    if args.leaks:
        leaks_run = db.resolve_run(args.leaks)
        if db.run(leaks_run).suite != "scenario:leaks":
            raise UserError(f"--leaks {args.leaks}: run {leaks_run} is not a leaks run")
        m = db.machine(leaks_run)
        machine = " ".join(str(m[k]) for k in ("hostname", "cpu_model") if m.get(k))
        leaks = recommend.constant_time(db.figures(leaks_run), leaks_run, machine)
    rec = recommend.recommend(
        results,
        level=args.level,
        size=size,
        noise=threshold,
        leaks=leaks,
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
                *(["constant time"] if leaks else []),
                "note",
            ],
            recommend.text_rows(rec),
        )
    )
    print()
    for key, doc in security.levels().documents.items():
        print(f"{key}: {doc.citation}")
    return 0
