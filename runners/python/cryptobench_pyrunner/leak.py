"""The `leak` request (docs/protocol.md, "`leak`: input classes timed in turns"): one prepared
operation run on the coordinator's input classes, the classes in a fresh random order every
round, each measurement `batch` back-to-back runs of one class timed with perf_counter_ns.
Nothing here knows what the classes are: the coordinator made them and judges the times."""

import contextlib
import random

from . import catalogue
from .common import parse_bytes
from .engine import now_ns, resolve
from .errors import SpecError, Unsupported
from .protocol import parse_case
from .steps import parse_params

MAX_ROUNDS, MAX_BATCH, MAX_CLASSES, WARMUP_ROUNDS = 1_000_000, 100_000, 16, 16


def _count(req: dict, name: str, default: int, most: int) -> int:
    v = req.get(name, default)
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= most:
        raise SpecError(f"{name}: must be an integer from 1 to {most}")
    return v


def leak(req: dict) -> dict:
    case = req.get("case")
    # MAC verification is no catalogue operation (a `mac` case computes a tag): asked for as a
    # MAC algorithm's `verify`, it is resolved as the `mac` it verifies (as leak.cpp does).
    mac_verify = (
        isinstance(case, dict)
        and case.get("operation") == "verify"
        and (catalogue.find(str(case.get("algorithm"))) or {}).get("kind") == "mac"
    )
    spec = parse_case({**case, "operation": "mac"} if mac_verify else case)
    raw = req.get("classes")
    if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_CLASSES:
        raise SpecError(f"classes: must be an array of 2 to {MAX_CLASSES} hex strings")
    classes = [parse_bytes(c, f"classes[{i}]") for i, c in enumerate(raw)]
    rounds = _count(req, "rounds", 1000, MAX_ROUNDS)
    batch = _count(req, "batch", 1, MAX_BATCH)
    seed = req.get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SpecError("seed: must be a non-negative integer")
    params = req.get("params") or {}
    if not isinstance(params, dict):
        raise SpecError("params: must be an object")
    reply = {"type": "leak", "id": spec["id"], "status": "ok", "reason": ""}
    try:
        info, provider = resolve(spec)
        operation = "verify" if mac_verify else spec["operation"]
        op = provider.prepare(info["name"], operation, parse_params(params))
    except Unsupported as e:
        return {**reply, "status": "unsupported", "reason": str(e)}
    except SpecError:
        raise
    except Exception as e:
        return {**reply, "status": "failed", "reason": str(e) or type(e).__name__}

    outcomes = []
    for c in classes:
        try:
            outcomes.append({"out": bytes(op(c)).hex()})
        except Exception as e:  # a refusal is this class's outcome
            outcomes.append({"error": str(e) or type(e).__name__})

    def measure(c: bytes) -> int:
        t0 = now_ns()
        for _ in range(batch):
            with contextlib.suppress(Exception):  # a refused class is timed like any other
                op(c)
        return now_ns() - t0

    for _ in range(WARMUP_ROUNDS):
        for c in classes:
            measure(c)
    order = list(range(len(classes)))
    rng = random.Random(seed)
    ns = [[0] * rounds for _ in classes]
    for r in range(rounds):
        rng.shuffle(order)
        for k in order:
            ns[k][r] = measure(classes[k])
    return {**reply, "outcomes": outcomes, "batch": batch, "ns": ns}
