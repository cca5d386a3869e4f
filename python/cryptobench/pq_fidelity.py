"""Post-quantum fidelity (issue 27, item 6): our figure for a post-quantum case beside the
library's own benchmark, alternated (ours, theirs, ours, theirs, …) so drift on a shared machine
hits both. A benchmark (`make bench-fidelity-pq`), never a test.

* liboqs: its `speed_sig` and `speed_kem` (built by `make liboqs` beside the library,
  tests/speed_sig.c, speed_kem.c: the mean µs of each operation over a fixed duration, one key)
  against the native `liboqs` provider's keygen / sign / verify of ML-DSA-65 and keygen /
  encaps / decaps of ML-KEM-768;
* Go: testing.B timing crypto/mlkem directly (`cryptobench-mlkembench`, runners/go/cmd/
  mlkembench: the median of 11 testing.B runs of 20 ms, the shape of our own figure) against the
  Go runner's `go` provider's ML-KEM keygen / encaps / decaps.

speed_sig reports one mean over its whole duration; on a loaded machine every preemption lands in
that mean, while our figure is a median of samples, so there the ratio falls far below 1 for
reasons of method, not of the code measured.

The ratio is our median ns/op over theirs (below 1: we report the operation faster). The issue
asks for 0.9–1.1 on a quiet machine. What a ratio outside it has been found to mean
(docs/post-quantum.md, "Fidelity"): the same liboqs code, in one small program, ran up to a third
slower on one vCPU or at one moment than at another, with no change of clock or steal time the
guest can see, so one round's ratio is a sample of the host as much as of the engine; and
key generation's first key per visit was timed cold until the native engine re-warmed it.

    python -m cryptobench.pq_fidelity [--rounds N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cryptobench import lifecycle, versions

SPEED_SIG_ROW = {"keygen": "keypair", "sign": "sign", "verify": "verify"}
SPEED_KEM_ROW = {"keygen": "keygen", "encaps": "encaps", "decaps": "decaps"}
# Bytes signed: speed_sig's 50 (tests/speed_sig.c, message_len), not the suites' 32, so that both
# sides hash the same message.
MESSAGE = 50


@dataclass
class Pair:
    name: str
    provider: str
    algorithm: str
    operation: str
    ours: list[float] = field(default_factory=list)  # ns/op, one per round
    theirs: list[float] = field(default_factory=list)
    error: str = ""

    @property
    def ratio(self) -> float | None:
        if not self.ours or not self.theirs:
            return None
        return statistics.median(self.ours) / statistics.median(self.theirs)


def _bin(name: str) -> Path:
    return Path(sys.prefix) / "bin" / name


def suite_text(provider: str, algorithm: str, operations: list[str]) -> str:
    """A suite of its own for our side (the stock suites may not name this kind:
    docs/methodology.md, "Suites"): 11 samples, speed_sig's message for signatures."""
    kem = {"encaps", "decaps"} & set(operations)  # a KEM's cases take no input: size 0
    ops = ", ".join(f'"{op}"' for op in operations)
    return (
        f'description = "PQ fidelity"\n[[matrix]]\nproviders = ["{provider}"]\n'
        f'algorithms = ["{algorithm}"]\noperations = [{ops}]\n'
        f"sizes = [{0 if kem else MESSAGE}]\nmin_samples = 11\nmax_samples = 11\n"
    )


def our_ns_per_op(
    provider: str, algorithm: str, operations: list[str], cpu: int
) -> dict[str, float]:
    """One `cryptobench run` of the provider's cases (the coordinator's gate first, as always),
    its runner pinned to `cpu`: operation -> median ns/op."""
    suite = suite_text(provider, algorithm, operations)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        (Path(tmp) / "pq.toml").write_text(suite)
        argv = [sys.executable, "-m", "cryptobench", "run", "--suite", str(Path(tmp) / "pq.toml")]
        argv += ["--db", str(Path(tmp) / "r.db"), "--json-out", str(out), "--cpu", str(cpu)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
        if done.returncode != 0 or not out.exists():
            raise ValueError(f"cryptobench run: {(done.stderr or done.stdout).strip()[-300:]}")
        results = json.loads(out.read_text())["results"]
    got = {}
    for r in results:
        if r["provider"] != provider or r["algorithm"] != algorithm:
            continue
        if r["status"] != "ok":
            raise ValueError(
                f"{provider} {r['operation']} {algorithm}: {r['status']}: {r['reason']}"
            )
        got[r["operation"]] = r["median_ns"]
    missing = [op for op in operations if op not in got]
    if missing:
        raise ValueError(f"{provider} measured no {', '.join(missing)} of {algorithm}")
    return got


def default_cpu() -> int:
    """The CPU our runners pin themselves to by default: the last one this process may use."""
    return max(os.sched_getaffinity(0))


def parse_speed(out: str, row: str) -> float:
    """liboqs's speed_kem/speed_sig table: `name | iterations | total s | mean µs | …`."""
    m = re.search(rf"^{re.escape(row)}\s*\|\s*\d+\s*\|\s*[\d.]+\s*\|\s*([\d.]+)", out, re.M)
    if not m:
        raise ValueError(f"no '{row}' row in liboqs's speed output")
    return float(m.group(1)) * 1000


def _pinned_output(argv: list[str], name: str, cpu: int) -> str:
    """A reference tool's standard output, run pinned to `cpu`, where our runner ran."""
    done = subprocess.run(
        argv,
        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(f"{name} exited {done.returncode}: {done.stderr.strip()[:200]}")
    return done.stdout


def liboqs_ns_per_op(
    speed: Path, oqs_name: str, seconds: int = 1, cpu: int | None = None
) -> dict[str, float]:
    """`speed_sig` or `speed_kem` (by the tool's name) for one liboqs algorithm."""
    cpu = default_cpu() if cpu is None else cpu
    out = _pinned_output([str(speed), "--duration", str(seconds), oqs_name], speed.name, cpu)
    rows = SPEED_KEM_ROW if speed.name == "speed_kem" else SPEED_SIG_ROW
    return {op: parse_speed(out, row) for op, row in rows.items()}


def go_ns_per_op(param: str, benchtime: str = "20ms", cpu: int | None = None) -> dict[str, float]:
    name = "cryptobench-mlkembench"
    cpu = default_cpu() if cpu is None else cpu
    argv = [str(_bin(name)), "-param", param, "-benchtime", benchtime]
    out = _pinned_output(argv, name, cpu)
    return {k: v * 1.0 for k, v in json.loads(out).items() if k != "param"}


def run(rounds: int = 5, cpu: int | None = None) -> list[Pair]:
    """`rounds` alternations of ours and theirs, every process pinned to `cpu` (by default the
    last CPU): `cryptobench run` is given it, since left alone it moves its runners off a CPU
    another run's runners are pinned to, and the tools would then run on another CPU than ours."""
    cpu = default_cpu() if cpu is None else cpu
    liboqs = [
        Pair(f"liboqs {op} ml-dsa-65", "liboqs", "ml-dsa-65", op)
        for op in ("keygen", "sign", "verify")
    ]
    liboqs_kem = [
        Pair(f"liboqs {op} ml-kem-768", "liboqs", "ml-kem-768", op)
        for op in ("keygen", "encaps", "decaps")
    ]
    go = [
        Pair(f"go {op} ml-kem-768", "go", "ml-kem-768", op) for op in ("keygen", "encaps", "decaps")
    ]
    record = versions.built().get("liboqs")
    tools = Path(record["home"]) / "prefix" / "bin" if record else Path("/nonexistent")
    speed_sig, speed_kem = tools / "speed_sig", tools / "speed_kem"
    for group, tool in ((liboqs, speed_sig), (liboqs_kem, speed_kem)):
        if not tool.exists():
            for p in group:
                p.error = f"liboqs's {tool.name} not built (make liboqs)"
    if not _bin("cryptobench-mlkembench").exists():
        for p in go:
            p.error = "cryptobench-mlkembench not built (make setup builds it with the Go runner)"
    groups = [
        (liboqs, lambda: liboqs_ns_per_op(speed_sig, "ML-DSA-65", cpu=cpu)),
        (liboqs_kem, lambda: liboqs_ns_per_op(speed_kem, "ML-KEM-768", cpu=cpu)),
        (go, lambda: go_ns_per_op("768", cpu=cpu)),
    ]
    for _ in range(rounds):
        for group, theirs in groups:
            live = [p for p in group if not p.error]
            if not live:
                continue
            try:
                ours = our_ns_per_op(
                    live[0].provider, live[0].algorithm, [p.operation for p in live], cpu
                )
                tool = theirs()
            except (ValueError, subprocess.TimeoutExpired, OSError) as e:
                for p in live:
                    p.error = str(e)
                continue
            for p in live:
                p.ours.append(ours[p.operation])
                p.theirs.append(tool[p.operation])
    return liboqs + liboqs_kem + go


CAVEAT = (
    "theirs: liboqs's mean of per-call gettimeofday times over 1 s (preemptions included) or "
    "Go's testing.B median; ours: the median of 2 ms samples. On a VM the same AVX2 code can "
    "run a third slower on one vCPU or at one moment than another (docs/post-quantum.md, "
    '"Fidelity"): trust a ratio outside 0.9-1.1 only when it repeats across runs.'
)


def table(pairs: list[Pair]) -> str:
    lines = [f"{'pair':28} {'ours ns/op':>12} {'theirs ns/op':>13} {'ratio':>7}"]
    for p in pairs:
        if p.error:
            lines.append(f"{p.name:28} {'-':>12} {'-':>13} {'-':>7}  {p.error}")
            continue
        o, t = statistics.median(p.ours), statistics.median(p.theirs)
        lines.append(f"{p.name:28} {o:12.0f} {t:13.0f} {p.ratio:7.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cryptobench.pq_fidelity", description=__doc__)
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the pairs as JSON")
    ap.add_argument(
        "--cpu", type=int, metavar="N", help="the CPU every process runs on (default: the last)"
    )
    args = ap.parse_args(argv)
    if not 1 <= args.rounds <= 50:
        print("pq_fidelity: --rounds must be between 1 and 50", file=sys.stderr)
        return 2
    allowed = os.sched_getaffinity(0)
    if args.cpu is not None and args.cpu not in allowed:
        print(f"pq_fidelity: --cpu {args.cpu}: not a CPU this process may use", file=sys.stderr)
        return 2
    cpu = default_cpu() if args.cpu is None else args.cpu
    _, busy = lifecycle.runner_pinning(cpu, False)  # another run's runners pinned there too?
    if busy:
        print(busy, file=sys.stderr)
    load_before = os.getloadavg()[0]
    pairs = run(args.rounds, cpu)
    load_after = os.getloadavg()[0]
    print(f"CPU {cpu}; load average {load_before:.2f} before, {load_after:.2f} after")
    print(table(pairs))
    print(CAVEAT)
    if args.json:
        record = {"cpu": cpu, "load": [load_before, load_after]}
        record["pairs"] = [vars(p) | {"ratio": p.ratio} for p in pairs]
        args.json.write_text(json.dumps(record, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
