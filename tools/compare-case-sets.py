#!/usr/bin/env python3
"""Compares the case sets of two `cryptobench run --json-out` documents: which cases (provider,
variant, operation, algorithm, size, input, alignment, AAD, cost) each has, and with which status.
Figures are not compared: a second run on a shared machine measures other times.

usage: tools/compare-case-sets.py BEFORE.json AFTER.json [--list]

Prints the counts (in all and per provider), every case of BEFORE whose status changed or that is
missing from AFTER, and the cases only AFTER has, grouped by algorithm (every case with --list).
Exit status 0 when every case of BEFORE is in AFTER with the same status, 1 otherwise, 2 on bad
input.
"""

import collections
import json
import sys

KEY = ("provider", "variant", "operation", "algorithm", "size", "input", "align_offset")
KEY += ("aad_bytes", "cost")


def cases(path: str) -> dict[tuple, str]:
    """case key -> status, from the results (ok rows and the rest) of one export."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        rows = doc["results"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"compare-case-sets: {path}: not a cryptobench JSON export ({e})")
    out = {}
    for row in rows:
        key = tuple(json.dumps(row.get(k), sort_keys=True) for k in KEY)
        if key in out:
            sys.exit(f"compare-case-sets: {path}: the case {key} twice")
        out[key] = row["status"]
    return out


def target(key: tuple) -> str:
    """provider/variant of a case key."""
    return f"{json.loads(key[0])}/{json.loads(key[1])}"


def label(key: tuple) -> str:
    return " ".join(str(json.loads(k)) for k in key[:5])


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--list"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    before, after = cases(argv[0]), cases(argv[1])
    for name, doc in (("before", before), ("after", after)):
        counts = collections.Counter(doc.values())
        print(
            f"{name}: {len(doc)} cases, " + ", ".join(f"{n} {s}" for s, n in counts.most_common())
        )
    print("per provider/variant: cases before -> after (of them not ok after)")
    for name in sorted({target(k) for k in [*before, *after]}):
        now = [k for k in after if target(k) == name]
        was, bad = sum(1 for k in before if target(k) == name), sum(after[k] != "ok" for k in now)
        print(f"  {name}: {was} -> {len(now)} ({bad})")
    changed = {k: (s, after[k]) for k, s in before.items() if k in after and after[k] != s}
    gone = sorted(k for k in before if k not in after)
    new = sorted(k for k in after if k not in before)
    same = sum(1 for k, s in before.items() if after.get(k) == s)
    print(
        f"in both with the same status: {same}; status changed: {len(changed)}; gone: {len(gone)}"
    )
    print(f"new: {len(new)}")
    for k, (s, t) in sorted(changed.items()):
        print(f"  changed: {label(k)}: {s} -> {t}")
    for k in gone:
        print(f"  gone: {label(k)} ({before[k]})")
    by_algorithm = collections.Counter(json.loads(k[3]) for k in new)
    for algorithm, n in sorted(by_algorithm.items()):
        statuses = collections.Counter(after[k] for k in new if json.loads(k[3]) == algorithm)
        print(
            f"  new: {algorithm}: {n} cases ({', '.join(f'{c} {s}' for s, c in statuses.items())})"
        )
    if len(argv) == 3:
        for k in new:
            print(f"    {label(k)} ({after[k]})")
    return 0 if not changed and not gone else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
