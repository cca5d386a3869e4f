"""The summary of a runner's fidelity bench (`make bench-go`, `bench-rust`, `bench-python`,
`bench-jvm`): the runner measures its reference cases with its engine and with its language's
standard harness in alternating rounds and prints one JSON line per case (docs/runners.md; any
other line, a harness's own report, is not read); this prints the medians of the rounds, their
ratio and whether every ratio is within 0.9-1.1, once for every runner. A round is one figure, or
the per-operation times of its samples, whose median is its figure.

    python -m cryptobench.runner_fidelity RUNNER [ARG]...   (runs `RUNNER bench ARG...`)
"""

import json
import statistics
import subprocess
import sys

LOW, HIGH = 0.9, 1.1


def _figures(rounds: list) -> list[float]:
    return [statistics.median(r) if isinstance(r, list) else r for r in rounds]


def summarise(lines, out) -> int:
    """0 when every case's ratio of medians is within LOW-HIGH, 1 otherwise or on an error line."""
    outside, cases = 0, 0
    for line in lines:
        try:
            m = json.loads(line) if line.startswith("{") else {"type": "other"}
        except ValueError:
            m = {"type": "other"}  # a harness's own output that happens to start with "{"
        if m.get("type") == "error":
            print(m["message"], file=out)
            return 1
        if m.get("type") != "fidelity":
            continue
        engine, harness = _figures(m["engine_ns"]), _figures(m["harness_ns"])
        if not cases:
            note = f" ({m['note']})" if m.get("note") else ""
            print(
                f"fidelity: engine vs {m['harness']}, {len(engine)} alternating rounds{note}",
                file=out,
            )
            print(f"{'case':44} {'engine ns/op':>14} {'harness ns/op':>16} {'ratio':>8}", file=out)
        cases += 1
        e, h = statistics.median(engine), statistics.median(harness)
        outside += not LOW <= e / h <= HIGH
        print(f"{m['case']:44} {e:14.1f} {h:16.1f} {e / h:8.3f}", file=out)
        # Every round's figure, so a ratio outside the range shows whether one harness had a slow
        # stretch of the machine or settled on slower code.
        for name, rounds in (("engine", engine), (m["harness"], harness)):
            print(f"  rounds, {name + ':':10} {' '.join(f'{x:.1f}' for x in rounds)}", file=out)
    if not cases:
        print("the bench measured no case", file=out)
        return 1
    verdict = f"{outside} of {cases} ratios outside" if outside else "all ratios within"
    print(f"{verdict} {LOW}-{HIGH}", file=out)
    return 1 if outside else 0


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m cryptobench.runner_fidelity RUNNER [ARG]...", file=sys.stderr)
        return 2
    try:
        p = subprocess.Popen([argv[0], "bench", *argv[1:]], stdout=subprocess.PIPE, text=True)
    except OSError as e:
        print(
            f"runner_fidelity: cannot run {argv[0]}: {e.strerror} (build it first)", file=sys.stderr
        )
        return 2
    with p:
        code = summarise(p.stdout, sys.stdout)
    return code or (1 if p.returncode else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
