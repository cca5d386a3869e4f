"""The constant-time section of a speed run's report: for each provider, algorithm and operation
the run measured, what the `cryptobench leaks` runs in the same results file said about it
(leakverdicts.py), or "not checked"."""

from html import escape

from cryptobench.analysis import RunResults
from cryptobench.leakverdicts import NOT_CHECKED, Checks, Verdicts
from cryptobench.report.html import how, html_table

HEADERS = [
    "provider",
    "algorithm",
    "operation",
    "timing verdict",
    "pairs",
    "taint verdict",
    "sites",
    "machine (CPU)",
    "leaks run",
]


def rows(results: RunResults, checks: Checks) -> list[list[object]]:
    """One row per (provider, algorithm, operation) of the run, checked ones first."""
    seen: set[tuple[str, str, str]] = set()
    out: list[list[object]] = []
    here = results.machine.get("cpu_model")
    for c in results.cases:
        key = (c.label, c.algorithm, c.operation)
        if key in seen:
            continue
        seen.add(key)
        out.append([*key, *_cells(checks.of(*key), c.operation, here)])
    return sorted(out, key=lambda r: r[3] == NOT_CHECKED and r[5] == NOT_CHECKED)


def _cells(v: Verdicts, operation: str, here: str | None) -> list[object]:
    t, s = v.timing, v.taint
    timing = NOT_CHECKED
    if t:
        timed = f" (timed: {t.operation})" if t.operation != operation else ""
        timing = t.verdict + (f": {t.detail}" if t.detail else "") + timed
    machines = sorted({m for m in (t and t.machine, s and s.machine) if m})
    machine = ", ".join(m if m == here else f"{m} (not this run's CPU)" for m in machines)
    runs = sorted({r for r in (t and t.run, s and s.run) if r})
    return [
        timing,
        t.pairs if t else "-",
        s.verdict if s else NOT_CHECKED,
        s.sites if s else "-",
        machine or "-",
        ", ".join(map(str, runs)) or "-",
    ]


def section(results: RunResults, checks: Checks) -> str:
    if not checks:
        return (
            "<p>No <code>cryptobench leaks</code> run in this results file: nothing this run "
            "measured was checked for constant time (docs/leaks.md).</p>"
        )
    runs = ", ".join(map(str, checks.runs))
    return html_table(HEADERS, rows(results, checks), numeric={4, 6}) + how(
        "From the <code>cryptobench leaks</code> runs stored in the same results file (runs "
        f"{escape(runs)}), the latest verdict of each method per provider (and variant) and "
        "algorithm. <i>Timing</i>: input classes that differ only in a secret (a tag wrong in "
        "its first or its last byte; Marvin's RSA ciphertexts) timed in pairs, with an A/A "
        "control: <i>leak</i> (a difference of at least X ns), <i>no-leak</i> (none larger than "
        "Y ns) or <i>inconclusive</i>, over the pairs shown; it speaks for the operation it "
        "timed (MAC verification for a MAC). <i>Taint</i>: the key marked secret under "
        "valgrind's memcheck; <i>secret-dependent</i> counts the branches and memory indexes "
        "that depend on it (AES-GCM encryption and decryption). A verdict is about the machine "
        "and build it was measured on: the CPU is shown, marked where it is not this run's. "
        "<i>Not checked</i>: no leaks run in this file checked it. docs/leaks.md."
    )
