"""The fidelity bench: reference cases measured by this runner's engine and by Python's own
harness, timeit (the loop of `python -m timeit`), on the same prepared operation and input. The
two alternate so drift on a shared machine hits both; one JSON line per case carries both rounds'
figures, and the coordinator's summary (python/cryptobench/runner_fidelity.py) the ratio.
timeit switches the garbage collector off by default; here it stays on in both, as in a user's
program."""

import gc
import statistics
import sys
import timeit

from .common import ByteStream, Params
from .engine import OpenCase
from .protocol import emit, parse_case

CASES = [
    {"provider": "pyca", "operation": "encrypt", "algorithm": "aes-256-gcm", "size": 16384},
    {"provider": "pyca", "operation": "hash", "algorithm": "sha256", "size": 1024},
    {"provider": "pycryptodome", "operation": "encrypt", "algorithm": "aes-256-gcm", "size": 16384},
]
ROUNDS = 9
SAMPLES = 11
TARGET_MS = 25  # one round of each harness lasts about 0.25 s


def bench() -> int:
    for case in CASES:
        # The coordinator's parameters of a symmetric case: key and IV from ByteStream(seed).
        stream = ByteStream(1)
        spec = parse_case(
            {"id": "bench", "samples": SAMPLES, "target_sample_ms": TARGET_MS, **case}
        )
        spec |= {"warmup_ms": 200.0, "heap_iterations": 1}
        c = OpenCase(spec, Params(key=stream.bytes(32), iv=stream.bytes(12)))
        if c.status != "ok":
            emit(sys.stdout, {"type": "error", "message": f"{case}: {c.status} {c.reason}"})
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
        label = f"{case['provider']} {case['operation']} {case['algorithm']} {case['size']}"
        fidelity = {"type": "fidelity", "case": label, "harness": "timeit"}
        emit(sys.stdout, fidelity | {"engine_ns": engine, "harness_ns": harness})
    return 0
