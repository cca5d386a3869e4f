"""The paper 001's questions asked of a stored run: per security level the provider ranking,
the linearity in input length it relied on (least-squares fit and R²), and Java ÷ native."""

from dataclasses import dataclass

import numpy as np

from cryptobench.analysis import CaseResult
from cryptobench.reproductions.java import model
from cryptobench.tables import text_table


def level_of(bits: int | None) -> str:
    """The highest of the paper's levels the strength reaches ('0': below level 1)."""
    if bits is None:
        return "?"
    reached = [name for name, _, need in model.LEVELS if bits >= need]
    return reached[-1] if reached else "0"


def figure(c: CaseResult) -> float | None:
    """MB/s for what is spent per byte; operations per second for the rest."""
    if c.symmetric:
        return None if c.bytes_per_s is None else c.bytes_per_s / 1e6
    return c.ops_per_s


def unit(c: CaseResult) -> str:
    return "MB/s" if c.symmetric else "ops/s"


def at_focus(cases: list[CaseResult]) -> list[CaseResult]:
    """Each sweep at the paper's 1 MB (the largest size below it in a quick run); sizeless and
    size-limited cases (OAEP, key generation) as they are."""
    out: dict[tuple, CaseResult] = {}
    for c in cases:
        k = (c.provider, c.variant, c.operation, c.algorithm)
        best = out.get(k)
        if c.size <= model.FOCUS_SIZE and (best is None or c.size > best.size):
            out[k] = c
    return list(out.values())


def rankings(cases: list[CaseResult]) -> str:
    """Per level, per algorithm and operation: the providers from fastest to slowest."""
    rows = []
    focus = at_focus(cases)
    keys = sorted({(level_of(c.security_bits), c.algorithm, c.operation) for c in focus})
    for level, alg, op in keys:
        group = [c for c in focus if (c.algorithm, c.operation) == (alg, op) and figure(c)]
        if not group:
            continue
        group.sort(key=lambda c: -(figure(c) or 0))
        ranking = " > ".join(f"{c.label} {figure(c):.4g}" for c in group)
        size = group[0].size
        rows.append([level, alg, op, size_text(size), unit(group[0]), ranking])
    return text_table(["level", "algorithm", "op", "size", "unit", "ranking (fastest first)"], rows)


def size_text(size: int) -> str:
    if not size:
        return "-"
    return f"{size >> 10} KiB" if size >= 1024 else f"{size} B"


@dataclass
class Fit:
    label: str
    algorithm: str
    operation: str
    a_ns: float
    b_ns_per_byte: float
    r2: float
    points: int


def linear_fits(cases: list[CaseResult]) -> list[Fit]:
    """Ordinary least squares t(n) = a + b·n over each sweep's sizes, and its R² (the paper
    relied on time being proportional to length; it did no test), for ciphers, hashes and MACs."""
    sweeps: dict[tuple, list[CaseResult]] = {}
    for c in cases:
        # Time spent per byte only: a signature's cost is its private-key operation, whatever
        # the length of the message it hashes.
        if c.symmetric and c.median_ns:
            sweeps.setdefault((c.label, c.algorithm, c.operation), []).append(c)
    fits = []
    for (label, alg, op), group in sorted(sweeps.items()):
        if len({c.size for c in group}) < 3:
            continue
        n = np.array([c.size for c in group], dtype=float)
        t = np.array([c.median_ns for c in group], dtype=float)
        b, a = np.polyfit(n, t, 1)
        pred = a + b * n
        ss_res = float(np.sum((t - pred) ** 2))
        ss_tot = float(np.sum((t - t.mean()) ** 2))
        r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
        fits.append(Fit(label, alg, op, float(a), float(b), r2, len(group)))
    return fits


def fits_table(fits: list[Fit]) -> str:
    rows = [
        [f.label, f.algorithm, f.operation, f.points, f"{f.a_ns / 1e3:.1f}",
         f"{f.b_ns_per_byte:.3f}", f"{f.r2:.5f}"]
        for f in fits
    ]  # fmt: skip
    return text_table(["provider", "algorithm", "op", "sizes", "a (µs)", "b (ns/byte)", "R²"], rows)


def ratios(cases: list[CaseResult]) -> list[tuple[str, str, str, float]]:
    """(provider, algorithm, op, Java figure ÷ native figure) at the focus size; > 1: the Java
    provider is faster."""
    focus = at_focus(cases)
    native = {
        (c.algorithm, c.operation): figure(c)
        for c in focus
        if c.provider == model.NATIVE and c.variant == "default" and figure(c)
    }
    out = []
    for c in focus:
        ref = native.get((c.algorithm, c.operation))
        if c.provider in model.JAVA_PROVIDERS and ref and figure(c):
            out.append((c.label, c.algorithm, c.operation, figure(c) / ref))
    return sorted(out)


def ratios_table(rs: list[tuple[str, str, str, float]]) -> str:
    algs = sorted({(a, o) for _, a, o, _ in rs})
    labels = sorted({p for p, _, _, _ in rs})
    got = {(p, a, o): r for p, a, o, r in rs}
    rows = [
        [a, o, *(f"{got[(p, a, o)]:.2f}" if (p, a, o) in got else "-" for p in labels)]
        for a, o in algs
    ]
    return text_table(["algorithm", "op", *labels], rows)
