"""The timing engine: one open case, its calibration, heap pass and samples, with the semantics of
native/src/core/engine.cpp (docs/runners.md puts the two side by side).

An operation is a prepared callable `run(data) -> bytes` that calls the library's normal API, so
the interpreter's per-call cost is part of every figure, as it is for a Python user.
"""

import math
import time
import tracemalloc
from dataclasses import replace
from itertools import repeat

from . import catalogue, rss, variants
from .common import ByteStream, Params
from .errors import SpecError, Unsupported
from .providers import not_offered, provider_by_name
from .steps import parse_params

now_ns = time.perf_counter_ns  # CLOCK_MONOTONIC on Linux, what timeit uses
MAX_ITERATIONS = 1 << 40
SLACK = 128
# A sample that starts this long after the previous one ended is a new visit: it re-warms for
# about REWARM_NS first (engine.hpp, kVisitGapNs and kRewarmNs).
VISIT_GAP_NS = 50_000
REWARM_NS = 750_000
NOT_IN_PLACE = (
    "the library's Python API returns a new bytes object for every call: measured out of place"
)


def make_input(kind: str, n: int, seed: int) -> bytes:
    if kind == "zeros":
        return bytes(n)
    data = ByteStream(seed ^ 0x1234567).bytes(n)
    if kind == "text":
        printable = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_=\n"
        data = bytes(printable[b % len(printable)] for b in data)
    return data


def case_input(spec: dict, info: dict) -> bytes:
    """The case's own input: the message, or nothing for key generation, key agreement and
    key encapsulation."""
    takes = spec["operation"] != "keygen" and info["kind"] not in ("key-agreement", "kem")
    return make_input(spec["input"], spec["size"] if takes else 0, spec["seed"])


def calibrate(body, target_ns: float, warmup_ns: float) -> int:
    """Warm-up, then the count doubles until a batch lasts a quarter of the target; the fastest
    of three timings of that count is scaled to the target (engine.cpp, calibrate)."""
    start = now_ns()
    while True:
        body(1)
        if now_ns() - start >= warmup_ns:
            break

    def timed(n: int) -> int:
        t0 = now_ns()
        body(n)
        return now_ns() - t0

    n = 1
    elapsed = timed(n)
    while elapsed < target_ns / 4 and n < MAX_ITERATIONS:
        n *= 2
        elapsed = timed(n)
    elapsed = min(elapsed, timed(n), timed(n))
    if elapsed <= 0:
        return n
    return int(max(1, min(round(n * target_ns / elapsed), MAX_ITERATIONS)))


def resolve(spec: dict):
    """What makes a parsed case unsupported before any library work (engine.cpp, open())."""
    provider = provider_by_name(spec["provider"])
    running = variants.CURRENT[spec["provider"]]
    if spec.get("variant") not in ("", None, running):
        raise Unsupported(
            f"this runner runs {spec['provider']} as variant '{running}'; start one with "
            f"--variant {spec['provider']}={spec['variant']}"
        )
    spec["variant"] = running
    why = not_offered(provider).get(spec["algorithm"])
    if why:
        raise Unsupported(why)
    return catalogue.find(spec["algorithm"]), provider


class OpenCase:
    """A case opened with the coordinator's params; the coordinator gated it before (docs/
    protocol.md, "Who gates")."""

    def __init__(self, spec: dict, params: Params | dict | None):
        self.spec, self.params = spec, params
        self.status, self.reason = "ok", ""
        self.iterations = 0
        self.calibration_ns = 0
        self.samples: list[dict] = []
        self.heap: dict = {}
        self.run = None
        self.input = b""
        self.sink = None  # the last output of every batch: results are consumed
        # The check of the timed instance (protocol.md, step 6).
        self.expected: bytes | None = None
        self.deterministic = False
        self.keygen = False
        self.checked = False
        self.timed_check = ""
        self.layout: dict | None = None
        self.rewarms = 0
        self.last_sample_end = 0
        try:
            self._open()
        except Unsupported as e:
            self.status, self.reason = "unsupported", str(e)
        except Exception as e:  # a library error fails the case, with the library's message
            self.status, self.reason = "failed", str(e) or type(e).__name__
        if self.status != "ok":
            self.run = None

    def _open(self) -> None:
        spec, op = self.spec, self.spec["operation"]
        info, provider = resolve(spec)
        if spec["align_offset"]:
            raise Unsupported(
                "Python's bytes objects are placed by the interpreter: align_offset does not apply"
            )
        params = self.params
        if not isinstance(params, Params):
            if not isinstance(params, dict):
                raise SpecError("params: missing (the coordinator sends the case's parameters)")
            params = parse_params(params)
        alg = info["name"]
        public_key = catalogue.is_public_key_or_kdf(info)
        message = case_input(spec, info)
        self.input = message
        if op == "decrypt":  # this provider's ciphertext of the message
            encrypting = replace(params, keypair=params.public) if public_key else params
            self.input = provider.prepare(alg, "encrypt", encrypting)(message)
            self.expected, self.deterministic = message, True
        if op == "verify":  # this provider's signature of the message
            params.signature = provider.prepare(alg, "sign", params)(message)
        if op == "decaps":  # this provider's own ciphertext of the test key
            encaps = provider.prepare(alg, "encaps", replace(params, keypair=params.public))
            self.input = bytes(encaps(b""))[: info["ciphertext_bytes"]]
        if public_key and op in ("verify", "encrypt", "encaps"):
            params.keypair = params.public
        if op != "decrypt":
            self._reference(provider, info, params)
        self.layout = {"inplace": False}
        if spec["inplace"] and info["kind"] in ("cipher", "aead"):
            self.layout["note"] = NOT_IN_PLACE
        self._heap_and_calibrate(provider, info, params)

    def _reference(self, provider, info: dict, params: Params) -> None:
        """The output of a fresh instance on the case's input, which the timed instance must still
        give after sampling (engine.cpp, compute_reference)."""
        op = self.spec["operation"]
        if op == "keygen":
            self.keygen = True  # nothing to compare
            return
        self.expected = bytes(provider.prepare(info["name"], op, params)(self.input))
        if (op == "encrypt" and info["kind"] == "pk-encryption") or op == "encaps":
            return  # randomised (OAEP, KEM encapsulation)
        # Signatures are deterministic for some schemes (PKCS#1 v1.5, EdDSA) and not for others.
        self.deterministic = op != "sign" or (
            bytes(provider.prepare(info["name"], op, params)(self.input)) == self.expected
        )

    def _heap_and_calibrate(self, provider, info: dict, params: Params) -> None:
        spec, op = self.spec, self.spec["operation"]
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        self.run = provider.prepare(info["name"], op, params)
        self.heap["prepare_bytes"] = max(0, tracemalloc.get_traced_memory()[0] - before)
        tracemalloc.stop()

        t0 = now_ns()
        if op == "keygen":
            self.run_ops(1)  # one key per sample; one untimed key first
            self.iterations = 1
        else:
            self.iterations = calibrate(
                self.run_ops, spec["target_sample_ms"] * 1e6, spec["warmup_ms"] * 1e6
            )
        self.calibration_ns = now_ns() - t0
        heap_ops = min(spec["heap_iterations"], 2) if op == "keygen" else spec["heap_iterations"]
        self._heap_pass(heap_ops)

    def _heap_pass(self, n: int) -> None:
        """tracemalloc over n operations, one at a time: the Python-heap bytes each operation
        holds at its peak (its result and temporaries), and the peak over the pass. Memory the
        libraries take with malloc (OpenSSL, pycryptodome's C code) is not traced, and the
        interpreter counts no allocation calls, so allocs/frees per operation are not reported.
        The process's resident peak across the pass (rss.py) sees what the libraries take."""
        run, data = self.run, self.input
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        peak_sum = peak_max = 0
        resident = rss.PeakPass()
        for _ in range(n):
            tracemalloc.reset_peak()
            start = tracemalloc.get_traced_memory()[0]
            self.sink = run(data)
            peak = tracemalloc.get_traced_memory()[1]
            peak_sum += peak - start
            peak_max = max(peak_max, peak - base)
            self.sink = None
        self.heap |= resident.end()
        tracemalloc.stop()
        self.heap["bytes_per_op"] = peak_sum / n
        self.heap["peak_live_bytes"] = peak_max

    def run_ops(self, n: int) -> None:
        run, data = self.run, self.input
        out = None
        for _ in repeat(None, n):
            out = run(data)
        self.sink = out

    def sample(self) -> dict:
        self._rewarm_if_visit_began()
        n = self.iterations
        t0 = now_ns()
        self.run_ops(n)
        t1 = now_ns()
        s = {"iterations": n, "ns": t1 - t0, "ticks": 0}
        self.samples.append(s)
        self.last_sample_end = t1
        if len(self.samples) >= self.spec["samples"]:
            self.check_timed_instance()
        return s

    def _rewarm_if_visit_began(self) -> None:
        """A sample that begins more than VISIT_GAP_NS after the previous one ended (another case
        or process had the CPU) is preceded by about REWARM_NS of untimed operations; operations
        longer than half a sample warm themselves."""
        if now_ns() - self.last_sample_end <= VISIT_GAP_NS or self.iterations < 2:
            return
        per_op = self.spec["target_sample_ms"] * 1e6 / self.iterations
        self.run_ops(math.ceil(REWARM_NS / per_op))
        self.rewarms += 1

    def check_timed_instance(self) -> None:
        """Once the case has its samples, and at the latest at close: one more run of the timed
        operation on the case's input gives the output a fresh instance gave after the gate
        (deterministic operations). Python objects are immutable and bounds-checked, so there are
        no canaries to check."""
        if self.checked or self.status != "ok":
            return
        self.checked = True
        why = ""
        if not self.keygen:
            try:
                out = bytes(self.run(self.input))
            except Exception as e:
                why = f"the timed instance failed on the case's input: {e}"
            else:
                if self.deterministic and len(out) != len(self.expected):
                    why = (
                        f"the timed instance returned {len(out)} bytes, "
                        f"the gated one {len(self.expected)}"
                    )
                elif self.deterministic and out != self.expected:
                    at = next(
                        i for i, (a, b) in enumerate(zip(out, self.expected, strict=True)) if a != b
                    )
                    why = (
                        f"the timed instance's output differs from the gated instance's (byte {at})"
                    )
        if why:
            self.fail(f"check of the timed instance after sampling: {why}")
            self.timed_check = "failed"
            return
        self.timed_check = (
            "output equals the gated instance's"
            if self.deterministic
            else "randomised output: not compared"
        )

    def fail(self, reason: str) -> None:
        if self.status == "failed" and self.reason:
            return  # the first reason is the one to report
        self.status, self.reason = "failed", reason
        self.samples = []
        self.run = None
