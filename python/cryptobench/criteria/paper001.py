"""The 2008 Java-providers paper (001): its claims and their criteria.

Data:
  noise     relative noise threshold of this machine
  sweeps    [{"label", "n_small", "t_small", "n_large", "t_large"}]: seconds per operation of
            each cipher/hash/MAC sweep at its smallest and largest input length
  pairs     [{"java", "native", "library", "ratio"}]: the same library called through JCA and
            natively, Java ÷ native throughput at the focus size (our claim)
"""

import statistics

from cryptobench.criteria import Spec, Verdict, need, noise


def proportional(d):
    tol = noise(d)
    sweeps = need(d, "sweeps")
    ratios = sorted(
        ((s["t_large"] / s["t_small"]) / (s["n_large"] / s["n_small"]), s["label"]) for s in sweeps
    )
    median = statistics.median(r for r, _ in ratios)
    outside = [f"{label} {r:.2f}" for r, label in ratios if abs(r - 1) > tol]
    ours = (
        f"time ratio ÷ length ratio, median over {len(ratios)} sweeps {median:.3f} "
        f"(lowest {ratios[0][0]:.3f}, highest {ratios[-1][0]:.3f}); beyond ±{tol:.0%}: "
        + (", ".join(outside[:6]) + (" …" if len(outside) > 6 else "") if outside else "none")
    )
    return Verdict(abs(median - 1) <= tol, ours)


def same_library(d):
    pairs = need(d, "pairs")
    ours = "; ".join(
        f"{p['java']} ÷ {p['native']} ({p['library']}) {p['ratio']:.2f}" for p in pairs
    )
    worst = min(p["ratio"] for p in pairs)
    return Verdict(worst >= 0.5, ours)


SPECS = (
    Spec(
        "001.1",
        "Encryption time is proportional to the input length",
        "§3.1",
        "128 KB takes half as long as 256 KB (no statistical test; 128 KB-2 MB)",
        "for the median sweep, t(largest) ÷ t(smallest) divided by the length ratio is 1 "
        "within the machine's noise (proportional, not merely linear with an intercept)",
        proportional,
    ),
    Spec(
        "001.x",
        "Calling a native library through JCA keeps at least half its native throughput",
        "ours: the paper's JSafe-vs-BSafe question (§2.2, §3.2); its answer is not in the excerpt",
        "not in the excerpt",
        "every same-library pair (Java ÷ native) at least 0.5",
        same_library,
        ours_only=True,
    ),
)
