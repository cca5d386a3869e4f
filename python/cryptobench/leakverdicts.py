"""The constant-time verdicts that `cryptobench leaks` runs stored, read beside a speed run: the
report's constant-time column and `recommend` (docs/leaks.md, "In the report and recommend").

Per provider label (`openssl`, `fault/leaky`) and algorithm, the latest **timing** verdict of
any leaks run in the store (leak / no-leak / inconclusive, with its pair count) and the latest
**taint** verdict (taint-clean / secret-dependent, with its site count), each with the leaks
run it comes from and the CPU that run measured on: a verdict is about that machine and build.
Each check speaks for the operations it ran: a timing test for the one it timed (AEAD and RSA
decryption; MAC verification, which computes the tag as a `mac` case does, so it speaks for
that case too), a taint check for AEAD encryption and decryption.
"""

from dataclasses import dataclass, field
from typing import Any

from cryptobench.figures import Figure
from cryptobench.store import Store
from cryptobench.store.reads import suite_figures

SUITE = "scenario:leaks"
TIMING_METRIC = "median difference"
TAINT_METRIC = "secret-dependent sites"
# The speed cases' operations a timing test of one operation speaks for.
TIMING_COVERS = {"verify": ("verify", "mac")}
# What a taint run ran, when its figure does not say (docs/leaks.md, "What is marked").
TAINT_OPERATIONS = ("encrypt", "decrypt")
NOT_CHECKED = "not checked"


@dataclass(frozen=True)
class Timing:
    """What a `cryptobench leaks` timing run said about one provider's algorithm."""

    verdict: str  # leak | no-leak | inconclusive
    detail: str
    run: int
    pairs: int = 0  # paired measurements per comparison (the fewest, where they differ)
    machine: str = ""  # the CPU the leaks run measured on (a verdict is about that machine)
    operation: str = ""  # the operation timed: decrypt, verify

    @property
    def text(self) -> str:
        where = f", {self.machine}" if self.machine else ""
        return f"{self.verdict}, {self.pairs} pairs (leaks run {self.run}{where})"

    def covers(self, operation: str) -> bool:
        return operation in TIMING_COVERS.get(self.operation, (self.operation,))

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "detail": self.detail,
            "operation": self.operation,
            "pairs": self.pairs,
            "leaks_run": self.run,
            "machine": self.machine,
        }


@dataclass(frozen=True)
class Taint:
    """What a `cryptobench leaks --method taint` run said about one provider's algorithm."""

    verdict: str  # taint-clean | secret-dependent
    sites: int
    run: int
    machine: str = ""
    operations: tuple[str, ...] = TAINT_OPERATIONS

    @property
    def text(self) -> str:
        where = f", {self.machine}" if self.machine else ""
        sites = f" ({self.sites} sites)" if self.sites else ""
        return f"{self.verdict}{sites} (leaks run {self.run}{where})"

    def covers(self, operation: str) -> bool:
        return operation in self.operations

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "sites": self.sites,
            "operations": list(self.operations),
            "leaks_run": self.run,
            "machine": self.machine,
        }


@dataclass(frozen=True)
class Verdicts:
    """Both methods' verdicts on one provider's algorithm (either may be missing)."""

    timing: Timing | None = None
    taint: Taint | None = None

    @property
    def checked(self) -> bool:
        return self.timing is not None or self.taint is not None

    @property
    def leaky(self) -> bool:
        """Found leaking by either method: a timing difference, or a secret-dependent branch or
        memory index."""
        return (self.timing is not None and self.timing.verdict == "leak") or (
            self.taint is not None and self.taint.verdict == "secret-dependent"
        )

    def text(self, operation: str = "") -> str:
        """One cell: "timing: leak, 20000 pairs (leaks run 2, CPU); taint: …", naming the
        operation timed where it is not the case's own."""
        if not self.checked:
            return NOT_CHECKED
        parts = []
        if self.timing:
            op = f" ({self.timing.operation})" if self.timing.operation != operation else ""
            parts.append(f"timing{op}: {self.timing.text}")
        if self.taint:
            parts.append(f"taint: {self.taint.text}")
        return "; ".join(parts)

    def short(self) -> str:
        """The verdicts alone, for a table's cell: "timing leak · taint taint-clean"."""
        if not self.checked:
            return NOT_CHECKED
        parts = [f"timing {self.timing.verdict}"] if self.timing else []
        return " · ".join([*parts, *([f"taint {self.taint.verdict}"] if self.taint else [])])

    def to_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "leaky": self.leaky,
            "timing": self.timing.to_json() if self.timing else None,
            "taint": self.taint.to_json() if self.taint else None,
        }


def constant_time(
    figures: list[Figure], run_id: int, machine: str = ""
) -> dict[tuple[str, str], Timing]:
    """(provider, algorithm) -> its timing verdict in a leaks run's figures: leak when any of
    its comparisons (A/A controls aside) is one, no-leak when all are, else inconclusive. A class
    the provider answered where it refused the base (a lax decoding) is a leak by its outcome
    alone, whatever the timing of the other classes says."""
    found: dict[tuple[str, str], list[tuple[str, str, int]]] = {}
    operations: dict[tuple[str, str], str] = {}
    for f in figures:
        if f.metric != TIMING_METRIC or f.extra.get("control"):
            continue
        key = (f.key["provider"], f.key["algorithm"])
        if f.extra.get("outcome_oracle"):
            found.setdefault(key, []).append(("leak", f"by its outcome: {f.reason}", 0))
        elif f.status == "ok":
            n = int(f.extra.get("n", len(f.values)))
            found.setdefault(key, []).append((f.extra["verdict"], f.extra.get("detail", ""), n))
        else:
            continue
        operations[key] = f.key.get("operation", "")
    out = {}
    for key, verdicts in found.items():
        pairs = min((n for v, d, n in verdicts if n), default=0)
        leaks = [d for v, d, _ in verdicts if v == "leak"]
        if leaks:
            verdict, detail = "leak", leaks[0]
        elif all(v == "no-leak" for v, _, _ in verdicts):
            verdict, detail = "no-leak", verdicts[0][1]
        else:
            verdict, detail = "inconclusive", verdicts[0][1]
        out[key] = Timing(verdict, detail, run_id, pairs, machine, operations[key])
    return out


def taint_verdicts(
    figures: list[Figure], run_id: int, machine: str = ""
) -> dict[tuple[str, str], Taint]:
    """(provider, algorithm) -> its taint verdict in a `--method taint` run's figures (a
    provider that could not be checked has none)."""
    out = {}
    for f in figures:
        if f.metric != TAINT_METRIC or f.status != "ok":
            continue
        e = f.extra
        sites = sum(g.get("sites", 0) for g in e.get("groups", [])) + len(
            e.get("verdict_suppressions_overused", {})
        )
        ran = sorted({name.split("-")[0] for name in e.get("operations", {})})
        out[f.key["provider"], f.key["algorithm"]] = Taint(
            e["verdict"], sites, run_id, machine, tuple(ran) or TAINT_OPERATIONS
        )
    return out


@dataclass
class Checks:
    """The latest verdicts per (provider label, algorithm) of the leaks runs read."""

    timing: dict[tuple[str, str], Timing] = field(default_factory=dict)
    taint: dict[tuple[str, str], Taint] = field(default_factory=dict)
    runs: list[int] = field(default_factory=list)  # the leaks runs read, newest first

    def __bool__(self) -> bool:
        return bool(self.timing or self.taint)

    def of(self, label: str, algorithm: str, operation: str | None = None) -> Verdicts:
        """The verdicts on a provider's algorithm; with `operation`, only the checks that
        speak for it."""
        timing = self.timing.get((label, algorithm))
        taint = self.taint.get((label, algorithm))
        if operation is not None:
            timing = timing if timing and timing.covers(operation) else None
            taint = taint if taint and taint.covers(operation) else None
        return Verdicts(timing, taint)


def machine_text(machine: dict[str, Any]) -> str:
    """The CPU a run measured on, from its stored machine record."""
    return str(machine.get("cpu_model") or machine.get("hostname") or "")


def load(db: Store, run: int | None = None) -> Checks:
    """Every leaks run's verdicts in the store, the newest run's winning per provider label and
    algorithm; or only those of one leaks run."""
    by_run: dict[int, list[Figure]] = {}
    for run_id, f in suite_figures(db, SUITE, (TIMING_METRIC, TAINT_METRIC)):
        if run is None or run_id == run:
            by_run.setdefault(run_id, []).append(f)
    checks = Checks(runs=sorted(by_run, reverse=True))
    for run_id in checks.runs:
        machine = machine_text(db.machine(run_id))
        for key, t in constant_time(by_run[run_id], run_id, machine).items():
            checks.timing.setdefault(key, t)
        for key, s in taint_verdicts(by_run[run_id], run_id, machine).items():
            checks.taint.setdefault(key, s)
    return checks
