"""`cryptobench leaks --budget`: the measurement fits a time the user chooses (docs/leaks.md,
"A time budget").

Every cell (provider × test) that survived preparation gets an equal share of the budget,
counted in its own measuring time: the wall time of its chunks' requests, end to end. Chunks
take turns across the cells in a new random order each pass, as without a budget; a cell takes
no further chunk once it has its rounds or has used its share. A cell that finished (its rounds
reached, or failed) frees what it left unused: a cell's share is always the budget not spent by
the finished cells, divided equally among the cells still measuring, so the unused time goes
in equal parts to the others (and a cell that stopped at its share takes chunks again when its
share grows).

The rule reads the clock and the round counts only, never the measured times of one class
against another: a round's duration is the same whichever of its classes is slower, so the
stopping point carries no information on a comparison's sign and the tests stay exact (stopping
when the data look significant would inflate false positives)."""

import math
import random
import time
from collections.abc import Callable
from typing import Protocol


class Cell(Protocol):
    """What the budget reads and writes of a measured cell (measure.Cell, which calls this
    module: named structurally, so the two modules do not import each other)."""

    problem: str
    measuring_s: float
    stopped: str
    share_s: float

    @property
    def rounds_taken(self) -> int: ...


# The first chunk of a cell under a budget: a tenth of the usual chunk, which tells the cell's
# cost per round before it commits to a whole chunk (an RSA chunk of libgcrypt's is ~25 s).
PROBE_FRACTION = 10


def share(cells: "list[Cell]", rounds: int, budget_s: float) -> float:
    """What each cell still measuring may use in all: the budget less what the finished cells
    used, in equal parts."""
    finished = [c for c in cells if c.problem or c.rounds_taken >= rounds]
    going = len(cells) - len(finished)
    if not going:
        return 0.0
    return max(0.0, budget_s - sum(c.measuring_s for c in finished)) / going


def chunk_size(cell: "Cell", share_s: float, rounds: int, chunk: int) -> int:
    """The rounds of the cell's next chunk: the usual chunk, but never more than half of what
    its share has left at its cost per round so far (so a chunk rarely overruns the share by
    more than a round), nor more than its rounds need."""
    left = rounds - cell.rounds_taken
    if cell.rounds_taken == 0:
        return max(1, min(left, chunk // PROBE_FRACTION))
    per_round = cell.measuring_s / cell.rounds_taken
    fits = math.floor((share_s - cell.measuring_s) / (2 * per_round)) if per_round > 0 else chunk
    return max(1, min(chunk, left, fits))


def run_budgeted(
    cells: "list[Cell]",
    rounds: int,
    chunk: int,
    budget_s: float,
    seed: int,
    measure: "Callable[[Cell, int, int], None]",
    order: random.Random,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> None:
    """Takes chunks of the live cells in turns until each has its rounds or its share.
    `measure(cell, n, seed)` takes n rounds of the cell (setting cell.problem on failure)."""
    live = [c for c in cells if not c.problem]
    k = 0
    while True:
        now = share(live, rounds, budget_s)
        turn = [c for c in live if not c.problem and c.rounds_taken < rounds]
        turn = [c for c in turn if c.measuring_s < now]
        if not turn:
            break
        order.shuffle(turn)
        for cell in turn:
            now = share(live, rounds, budget_s)  # grows as cells finish within the pass
            if cell.measuring_s >= now or cell.problem:
                continue
            n = chunk_size(cell, now, rounds, chunk)
            started = time.perf_counter()
            measure(cell, n, seed + k)
            cell.measuring_s += time.perf_counter() - started
        k += 1
        spent = sum(c.measuring_s for c in live)
        progress(min(round(spent), round(budget_s)), round(budget_s))
    final = share(live, rounds, budget_s)
    for cell in live:
        if not cell.problem and cell.rounds_taken < rounds:
            cell.stopped, cell.share_s = "budget", final
