"""`cryptobench fidelity`: our figure beside each library's own benchmark tool's (openssl speed,
botan speed, Crypto++'s cryptest), run alternately on one pinned CPU; the ratio should be
0.97–1.03, or the pair names the known difference in method."""

import argparse
import json
import statistics

from cryptobench import fidelity, runner
from cryptobench.commands.common import positive_int
from cryptobench.tables import text_table


def register(sub, db: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "fidelity", help="our figures beside openssl speed, botan speed and cryptest, alternately"
    )
    c.add_argument("--rounds", type=positive_int, default=3, help="alternations (default: 3)")
    c.add_argument("--json", action="store_true", help="print the pairs as JSON")
    c.set_defaults(func=cmd_fidelity)


def cmd_fidelity(args: argparse.Namespace) -> int:
    results = fidelity.check(runner.find_runner(), rounds=args.rounds)
    if args.json:
        print(json.dumps([r.row() for r in results], indent=2))
        return 0
    rows = []
    for r in results:
        rows.append(
            [
                r.pair.name,
                f"{statistics.median(r.cryptobench_bps) / 1e6:.0f}" if r.cryptobench_bps else "-",
                f"{statistics.median(r.tool_bps) / 1e6:.0f}" if r.tool_bps else "-",
                f"{r.ratio:.3f}" if r.ratio is not None else "-",
                ("agrees" if r.agrees else "differs") if r.ratio is not None else r.error,
            ]
        )
    print(
        f"median of {args.rounds} alternations each; ratio = cryptobench ÷ tool, agreement "
        f"{fidelity.LOW}–{fidelity.HIGH}"
    )
    print(
        text_table(["pair", "cryptobench MB/s (median)", "tool MB/s (median)", "ratio", ""], rows)
    )
    for r in results:
        if r.ratio is not None and not r.agrees and r.pair.differences:
            print(f"\n{r.pair.name}: known differences in method: {r.pair.differences}")
    return 0
