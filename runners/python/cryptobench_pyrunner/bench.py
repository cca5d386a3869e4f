"""The fidelity bench: reference cases measured by this runner's engine and by Python's own
harness, timeit (the loop of `python -m timeit`), on the same prepared operation and input. The
two alternate so drift on a shared machine hits both; the ratio of the medians should be 0.9-1.1.
timeit switches the garbage collector off by default; here it stays on in both, as in a user's
program."""

import gc
import statistics
import timeit

from .common import ByteStream, Params
from .engine import OpenCase

CASES = [
    {"provider": "pyca", "operation": "encrypt", "algorithm": "aes-256-gcm", "size": 16384},
    {"provider": "pyca", "operation": "hash", "algorithm": "sha256", "size": 1024},
    {"provider": "pycryptodome", "operation": "encrypt", "algorithm": "aes-256-gcm", "size": 16384},
]
ROUNDS = 9
SAMPLES = 11
TARGET_MS = 25  # one round of each harness lasts about 0.25 s


def _spec(case: dict) -> dict:
    return {
        "id": "bench",
        "variant": "",
        "input": "random",
        "align_offset": 0,
        "aad_bytes": 0,
        "samples": SAMPLES,
        "batch": 1,
        "target_sample_ms": TARGET_MS,
        "warmup_ms": 200.0,
        "heap_iterations": 1,
        "seed": 1,
        "agreement": False,
        "cost": {},
        "inplace": True,
        **case,
    }


def bench() -> int:
    print(f"fidelity: cryptobench engine vs timeit, median of {ROUNDS} alternating rounds")
    print(f"{'case':44} {'engine ns/op':>14} {'timeit':>14} {'ratio':>8}")
    worst = 1.0
    for case in CASES:
        # The coordinator's parameters of a symmetric case: key and IV from ByteStream(seed).
        stream = ByteStream(1)
        c = OpenCase(_spec(case), Params(key=stream.bytes(32), iv=stream.bytes(12)))
        if c.status != "ok":
            print(f"{case}: {c.status} {c.reason}")
            return 1
        timer = timeit.Timer(
            "run(data)", setup="gc.enable()", globals={"run": c.run, "data": c.input, "gc": gc}
        )
        number = max(1, c.iterations * SAMPLES // 5)
        engine, harness = [], []
        for _ in range(ROUNDS):
            c.samples = []
            for _ in range(SAMPLES):
                c.sample()
            engine.append(statistics.median(s["ns"] / s["iterations"] for s in c.samples))
            times = timer.repeat(repeat=5, number=number)
            harness.append(statistics.median(times) / number * 1e9)
        e, h = statistics.median(engine), statistics.median(harness)
        ratio = e / h
        worst = max(worst, ratio, 1 / ratio)
        label = f"{case['provider']} {case['operation']} {case['algorithm']} {case['size']}"
        print(f"{label:44} {e:14.1f} {h:14.1f} {ratio:8.3f}")
    if worst > 1.1:
        print("some ratio is outside 0.9-1.1")
        return 1
    print("all ratios within 0.9-1.1")
    return 0
