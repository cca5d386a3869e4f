"""Latency: `ping` from namespace B to the far end of a channel, one payload size at a time,
a bounded number of echoes at a short interval; every echo's round-trip time is kept."""

import re
import statistics

from cryptobench.figures import Figure, failed
from cryptobench.scenarios.channel import procs
from cryptobench.scenarios.channel.topology import Topology

INTERVAL_S = 0.002


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def ping(topo: Topology, target: str, payload: int, echoes: int, key: dict) -> Figure:
    key = {**key, "payload": payload}
    deadline = int(echoes * INTERVAL_S * 4 + 10)
    argv = [
        "ping",
        "-n",
        "-c",
        str(echoes),
        "-i",
        str(INTERVAL_S),
        "-s",
        str(payload),
        "-W",
        "2",
        "-w",
        str(deadline),
        target,
    ]
    try:
        done = procs.quiet(topo.in_b(argv), timeout_s=deadline + 10)
    except Exception as e:  # a hung ping is a failed figure, not a failed run
        return failed(key, "rtt", "ms", f"ping: {e}")
    rtts = [float(x) for x in re.findall(r"time=([\d.]+) ms", done.stdout)]
    if not rtts:
        why = (done.stderr or done.stdout).strip()[-200:]
        return failed(key, "rtt", "ms", f"no echo came back (exit {done.returncode}): {why}")
    extra = {
        "min": min(rtts),
        "median": statistics.median(rtts),
        "mean": statistics.fmean(rtts),
        "p99": p99(rtts),
        "lost": echoes - len(rtts),
    }
    return Figure(key, "rtt", "ms", rtts, "lower", extra=extra)


def measure(topo: Topology, target: str, key: dict, payloads, echoes: int) -> list[Figure]:
    """`key` names the channel ({"channel": …, "accel": …})."""
    return [ping(topo, target, p, echoes, {"part": "latency", **key}) for p in payloads]
