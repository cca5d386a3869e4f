"""Measuring leak tests through the runners' `leak` request (docs/protocol.md): one `serve`
process per (provider, variant), the rounds of every test sent in chunks that take turns across
the providers, so drift on the machine meets every provider alike (with a --budget, until each
cell has its rounds or its share of the time: budget.py); then the paired statistics of
leakstats.py over the whole run at once, and the figures that store it."""

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from cryptobench import leakstats
from cryptobench.figures import Figure, failed
from cryptobench.gate.material import ByteStream, case_params
from cryptobench.gate.vectors import Vectors, public_parts
from cryptobench.runner import RunnerFailure, ServeProcess
from cryptobench.scenarios.leaks.classes import (
    LeakTest,
    aead_classes,
    mac_classes,
    oaep_classes,
    pkcs1v15_classes,
)

TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Slot:
    provider: str
    variant: str
    exe: Path

    @property
    def label(self) -> str:
        return self.provider if self.variant == "default" else f"{self.provider}/{self.variant}"


@dataclass
class Cell:
    """One test on one provider: its classes, what each must do, and the times gathered."""

    slot: Slot
    test: LeakTest
    params: dict[str, Any]
    classes: dict[str, bytes] = field(default_factory=dict)
    expected: dict[str, bytes] = field(default_factory=dict)  # what each valid class gives back
    times: dict[str, list[float]] = field(default_factory=dict)
    problem: str = ""
    # How the invalid classes were rejected: "refused" (an error) or "implicit" (a synthetic
    # message); and how the runner reports a refusal: "status" (the same path as a success) or
    # "exception" (docs/leaks.md, "Valid against invalid").
    rejection: str = ""
    refusal: str = "exception"
    # Invalid classes the provider answered while refusing the base: decoded as valid (a lax
    # decoding), so not compared -- the outcome alone already tells them apart.
    accepted: list[str] = field(default_factory=list)
    # The rounds asked for, the wall time of the cell's chunks (its own measuring time), and
    # why it stopped: its rounds, or its share of a --budget (share_s: that share at the end).
    planned: int = 0
    measuring_s: float = 0.0
    stopped: str = "rounds"
    share_s: float = 0.0

    @property
    def rounds_taken(self) -> int:
        return len(self.times[self.test.class_names[0]]) if self.times else 0

    @property
    def valid_comparable(self) -> bool:
        """Whether the valid class's validity is the secret and it takes the same path through
        the runner as the refused ones."""
        return (
            self.test.valid_secret
            and "valid" in self.classes
            and (self.rejection == "implicit" or self.refusal == "status")
        )

    def comparisons(self) -> list[tuple[str, str, bool]]:
        out = [c for c in self.test.comparisons if c[1] not in self.accepted]
        if self.valid_comparable:
            out = [*out, (self.test.base, "valid", False)]
        return out


class Processes:
    """The serve processes of a run, started on first use and stopped together."""

    def __init__(self) -> None:
        self.procs: dict[Slot, ServeProcess] = {}

    def request(self, slot: Slot, message: dict[str, Any], doing: str) -> dict[str, Any]:
        proc = self.procs.get(slot)
        if proc is None or proc.proc is None or proc.proc.poll() is not None:
            proc = ServeProcess(slot.exe, slot.provider, slot.variant, TIMEOUT_S)
            proc.start()
            self.procs[slot] = proc
        reply = proc.request(message, doing)
        if reply.get("type") == "error":
            raise RunnerFailure(
                "protocol", f"the runner refused the leak request: {reply.get('message')}"
            )
        return reply

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.stop()


def _case(cell: Cell, operation: str | None = None, size: int | None = None) -> dict[str, Any]:
    return {
        "id": f"leak:{cell.test.algorithm}",
        "provider": cell.slot.provider,
        "variant": cell.slot.variant,
        "operation": operation or cell.test.operation,
        "algorithm": cell.test.algorithm,
        "size": cell.test.size if size is None else size,
    }


def _own_output(procs: Processes, cell: Cell, operation: str, message: bytes) -> bytes | None:
    """The provider's own `operation` of the message (through the same request, one round):
    its encryption, or its tag; None, with cell.problem set, when it failed."""
    reply = procs.request(
        cell.slot,
        {
            "cmd": "leak",
            "case": _case(cell, operation),
            "params": cell.params,
            "classes": [message.hex(), message.hex()],
            "rounds": 1,
        },
        f"the valid class ({operation})",
    )
    if reply.get("status") != "ok":
        cell.problem = f"{reply.get('status')}: {reply.get('reason')}"
        return None
    first = reply["outcomes"][0]
    if "out" not in first:
        cell.problem = f"making the valid class ({operation}) failed: {first.get('error')}"
        return None
    return bytes.fromhex(first["out"])


def prepare_cell(procs: Processes, cell: Cell, info: dict, vectors: Vectors, seed: int) -> None:
    """Makes the cell's classes. AEAD classes start from the provider's own encryption of the
    message, MAC classes from its own tag of it; then the tag is broken."""
    kind = info["kind"]
    if kind in ("aead", "mac"):
        message = ByteStream(seed ^ 0x1234567).bytes(cell.test.size)
        own = _own_output(procs, cell, "encrypt" if kind == "aead" else "mac", message)
        if own is None:
            return
        if kind == "aead":
            cell.classes = aead_classes(own, info["tag_bytes"])
            cell.expected = {"valid": message}
        else:  # a valid tag verifies and gives nothing back
            cell.classes = mac_classes(message, own)
            cell.expected = {"valid": b""}
    elif kind == "pk-encryption":
        public = public_parts(info, vectors.test_key(info["key_type"]))
        if info["family"] == "rsa-pkcs1v15-enc":
            cell.classes, cell.expected = pkcs1v15_classes(public, seed)
        else:
            cell.classes, message = oaep_classes(public, seed)
            cell.expected = {"valid": message}
    else:
        cell.problem = f"no leak classes for {kind} algorithms"


def check_outcomes(cell: Cell, outcomes: list[dict[str, Any]]) -> str:
    """Each class did what it claims: every valid one gave its message back, the invalid ones
    were refused -- or, where the test allows implicit rejection, all answered with some other
    message. Where the base is refused, an invalid class answered anyway is set aside in
    cell.accepted (a lax decoding: reported, not compared). Sets cell.rejection; empty when the
    test can be timed."""
    answered, refused = [], []
    for name, got in zip(cell.test.class_names, outcomes, strict=True):
        want = cell.test.expect.get(name, "error")
        if want == "out":
            if got.get("out") != cell.expected[name].hex():
                return f"class {name}: expected the message back, got {got}"
        elif "error" in got:
            refused.append(name)
        elif got.get("out") in {m.hex() for m in cell.expected.values()}:
            return f"class {name}: an invalid ciphertext gave a valid class's message back"
        else:
            answered.append(name)
    if refused and cell.test.base in refused:
        # Told apart by the outcome itself, before any timing: an oracle of its own, reported
        # (figures()) and left out of the comparisons.
        cell.rejection, cell.accepted = "refused", answered
        return ""
    if not cell.test.implicit_rejection:
        return f"class {answered[0]}: expected a refusal, got an output"
    if refused:
        return (
            f"class {refused[0]} was refused but the base class {cell.test.base} was answered "
            "(implicit rejection for some invalid classes only)"
        )
    cell.rejection = "implicit"
    return ""


def measure_chunk(procs: Processes, cell: Cell, rounds: int, batch: int, seed: int) -> None:
    names = cell.test.class_names
    reply = procs.request(
        cell.slot,
        {
            "cmd": "leak",
            "case": _case(cell),
            "params": cell.params,
            "classes": [cell.classes[n].hex() for n in names],
            "rounds": rounds,
            "batch": batch,
            "seed": seed,
        },
        f"timing {cell.test.name}",
    )
    if reply.get("status") != "ok":
        cell.problem = f"{reply.get('status')}: {reply.get('reason')}"
        return
    if not cell.times:
        cell.refusal = reply.get("refusal", "exception")
        problem = check_outcomes(cell, reply["outcomes"])
        if problem:
            cell.problem = problem
            return
    for name, ns in zip(names, reply["ns"], strict=True):
        cell.times.setdefault(name, []).extend(t / batch for t in ns)


def run_cells(
    cells: list[Cell],
    infos: dict[str, dict],
    rounds: int,
    chunk: int,
    batch: int,
    seed: int,
    progress: Callable[[int, int], None] = lambda done, total: None,
    budget_s: float | None = None,
) -> None:
    """Prepares every cell, then takes `rounds` rounds of each in chunks, the cells in a new
    random order every chunk; with `budget_s`, until each cell has its rounds or its share of
    the budget (budget.py)."""
    vectors = Vectors()
    procs = Processes()
    order = random.Random(seed)
    try:
        for cell in cells:
            info = infos[cell.test.algorithm]
            try:
                cell.params = case_params(info, _case(cell), vectors).to_json()
                prepare_cell(procs, cell, info, vectors, seed)
            except RunnerFailure as e:
                cell.problem = e.message
            cell.planned = rounds

        def take(cell: Cell, n: int, chunk_seed: int) -> None:
            try:
                measure_chunk(procs, cell, n, batch, chunk_seed)
            except RunnerFailure as e:
                cell.problem = e.message

        if budget_s is not None:
            from cryptobench.scenarios.leaks import budget

            budget.run_budgeted(cells, rounds, chunk, budget_s, seed, take, order, progress)
            return
        chunks = (rounds + chunk - 1) // chunk
        for k in range(chunks):
            n = min(chunk, rounds - k * chunk)
            live = [c for c in cells if not c.problem]
            order.shuffle(live)
            for cell in live:
                started = time.perf_counter()
                take(cell, n, seed + k)
                cell.measuring_s += time.perf_counter() - started
            progress(k + 1, chunks)
    finally:
        procs.stop()


def rounds_figure(key: dict[str, Any], cell: Cell) -> Figure:
    """The rounds a cell took, of how many asked for, and why it stopped."""
    extra: dict[str, Any] = {
        "planned": cell.planned,
        "stopped": cell.stopped,
        "measuring_s": cell.measuring_s,
        "test": cell.test.name,
    }
    if cell.stopped == "budget":
        extra["share_s"] = cell.share_s
    return Figure(key, "rounds", "rounds", (cell.rounds_taken,), better="higher", extra=extra)


def figures(cells: list[Cell]) -> list[Figure]:
    """The run's figures: per cell the rounds it took (rounds_figure), per class its times, per
    comparison its paired differences with the statistics in `extra`; the comparisons of the
    whole run corrected together."""
    raw: list[leakstats.Comparison] = []
    data: list[np.ndarray] = []
    owner: list[Cell] = []
    out: list[Figure] = []
    for cell in cells:
        key = {
            "provider": cell.slot.label,
            "algorithm": cell.test.algorithm,
            "operation": cell.test.operation,
        }
        if cell.problem:
            out.append(
                failed({**key, "classes": cell.test.name}, "median difference", "ns", cell.problem)
            )
            continue
        for name in cell.accepted:
            out.append(
                failed(
                    {**key, "classes": f"{cell.test.base} vs {name}"},
                    "median difference",
                    "ns",
                    f"{name} was answered, not refused: {cell.slot.label} decodes it as a valid "
                    "ciphertext (the outcome alone tells it from the refused classes)",
                    outcome_oracle=True,
                )
            )
        for name in cell.test.class_names:
            values = cell.times[name]
            out.append(
                Figure(
                    {**key, "class": name},
                    "time per operation",
                    "ns",
                    tuple(values),
                    better="lower",
                )
            )
        out.append(rounds_figure(key, cell))
        mine = []
        for base, other, control in cell.comparisons():
            a, b = cell.times[base], cell.times[other]
            mine.append(leakstats.compare(a, b, base, other, control))
            data.append(leakstats.differences(a, b))
            owner.append(cell)
        # One process, one clock: its step is the largest any of the cell's comparisons shows.
        step = max(c.step_ns for c in mine)
        raw.extend(replace(c, step_ns=step) for c in mine)
    judged = leakstats.judge(raw, data)
    by_cell: dict[int, list[int]] = {}
    for i, cell in enumerate(owner):
        by_cell.setdefault(id(cell), []).append(i)
    for indices in by_cell.values():
        gated = leakstats.gate_on_control([judged[i] for i in indices])
        for i, c in zip(indices, gated, strict=True):
            judged[i] = c
    for c, d, cell in zip(judged, data, owner, strict=True):
        extra = {
            "comparisons_in_run": len(judged),
            "base_median_ns": c.base_median_ns,
            "median_diff_ns": c.median_diff_ns,
            "ci_low": c.ci_low,
            "ci_high": c.ci_high,
            "p_sign": c.p_sign,
            "p_holm": c.p_holm,
            "p_wilcoxon": c.p_wilcoxon,
            "n": c.n,
            "verdict": c.verdict,
            "detail": c.detail,
            "control": c.control,
            "clock_step_ns": c.step_ns,
            "test": cell.test.name,
            "rejection": cell.rejection,
            "refusal": cell.refusal,
        }
        if c.control:
            extra["block_rejection_rate"] = leakstats.control_rejection_rate(d)
            extra["resolution"] = [list(r) for r in leakstats.resolution(d, c.step_ns)]
        key = {
            "provider": cell.slot.label,
            "algorithm": cell.test.algorithm,
            "operation": cell.test.operation,
            "classes": f"{c.base} vs {c.other}",
        }
        out.append(
            Figure(key, "median difference", "ns", tuple(d.tolist()), better="lower", extra=extra)
        )
    return out
