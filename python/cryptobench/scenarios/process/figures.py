"""What the process figures come to: throughput per cell, the decomposition of a whole process
into start-up, crypto and the rest, whether input kind matters (Kruskal–Wallis), and the
terminal summary."""

import statistics
from dataclasses import dataclass

from cryptobench.figures import Figure
from cryptobench.tables import text_table

MIB = 1 << 20


def _index(figures: list[Figure]) -> dict[tuple, Figure]:
    return {
        (
            f.key.get("provider"),
            f.key.get("algorithm"),
            f.key.get("kind"),
            f.key.get("size"),
            f.key.get("direction"),
            f.metric,
        ): f
        for f in figures
    }


@dataclass
class Decomposition:
    provider: str
    algorithm: str
    kind: str
    size: int
    total_s: float  # median wall time of the encrypting process
    startup_s: float  # the same program on an empty input
    crypto_s: float  # the core's in-process ns/B × size
    rest_s: float  # reading, writing, chunking: what remains

    @property
    def mib_s(self) -> float:
        return self.size / MIB / self.total_s


def decompose(figures: list[Figure]) -> list[Decomposition]:
    idx = _index(figures)
    out = []
    for f in figures:
        k = f.key
        if f.metric != "wall" or f.status != "ok" or k.get("direction") != "encrypt":
            continue
        if k.get("kind") in ("empty", "in-process") or not f.values:
            continue
        startup = idx.get((k["provider"], k["algorithm"], "empty", 0, "encrypt", "wall"))
        per_byte = [
            g
            for key, g in idx.items()
            if key[:3] == (k["provider"], k["algorithm"], "in-process") and key[5] == "ns_per_byte"
        ]
        if not startup or not startup.values or not per_byte or not per_byte[0].values:
            continue
        total = f.median
        crypto = per_byte[0].median * k["size"] / 1e9
        start = startup.median
        out.append(
            Decomposition(
                k["provider"],
                k["algorithm"],
                k["kind"],
                k["size"],
                total,
                start,
                crypto,
                max(0.0, total - start - crypto),
            )
        )
    return out


@dataclass
class KindTest:
    provider: str
    algorithm: str
    size: int
    h: float
    p: float
    epsilon2: float  # effect size: H / (n − 1)
    kinds: int

    @property
    def verdict(self) -> str:
        if self.p >= 0.05:
            return "no evidence that kind matters"
        return "differs" + (" (negligible effect)" if self.epsilon2 < 0.01 else "")


def kind_tests(figures: list[Figure]) -> list[KindTest]:
    """Per provider × algorithm at its largest size: do the encrypting process's wall times
    differ between input kinds? Kruskal–Wallis H over the runs of each kind."""
    from scipy.stats import kruskal

    groups: dict[tuple, dict[str, list[float]]] = {}
    for f in figures:
        k = f.key
        if f.metric != "wall" or f.status != "ok" or k.get("direction") != "encrypt":
            continue
        if k.get("kind") in ("empty", "in-process"):
            continue
        groups.setdefault((k["provider"], k["algorithm"], k["size"]), {})[k["kind"]] = list(
            f.values
        )
    largest: dict[tuple, int] = {}
    for provider, algorithm, size in groups:
        largest[(provider, algorithm)] = max(largest.get((provider, algorithm), 0), size)
    out = []
    for (provider, algorithm), size in sorted(largest.items()):
        by_kind = groups[(provider, algorithm, size)]
        samples = [v for v in by_kind.values() if len(v) >= 2]
        if len(samples) < 2:
            continue
        h, p = kruskal(*samples)
        n = sum(len(v) for v in samples)
        out.append(
            KindTest(
                provider,
                algorithm,
                size,
                float(h),
                float(p),
                float(h) / (n - 1) if n > 1 else 0.0,
                len(samples),
            )
        )
    return out


def throughput_rows(figures: list[Figure]) -> list[list[str]]:
    rows = []
    idx = _index(figures)
    for f in figures:
        k = f.key
        if (
            f.metric != "wall"
            or k.get("direction") != "encrypt"
            or k.get("kind")
            in (
                "empty",
                "in-process",
                None,
            )
        ):
            continue
        if f.status != "ok":
            rows.append(
                [
                    k.get("provider", "-"),
                    k.get("algorithm", "-"),
                    k.get("kind", "-"),
                    _size(k.get("size")),
                    "-",
                    "-",
                    "-",
                    "-",
                    f"{f.status}: {f.reason}",
                ]
            )
            continue
        dec = idx.get((k["provider"], k["algorithm"], k["kind"], k["size"], "decrypt", "wall"))
        rss = idx.get((k["provider"], k["algorithm"], k["kind"], k["size"], "encrypt", "peak_rss"))
        cpu = idx.get((k["provider"], k["algorithm"], k["kind"], k["size"], "encrypt", "cpu"))
        rows.append(
            [
                k["provider"],
                k["algorithm"],
                k["kind"],
                _size(k["size"]),
                f"{k['size'] / MIB / f.median:.1f}",
                f"{k['size'] / MIB / dec.median:.1f}" if dec and dec.median else "-",
                f"{cpu.median * 1e3:.1f}" if cpu else "-",
                f"{rss.median / 1024:.2f}" if rss else "-",
                f"{f.extra.get('outliers', 0)} outliers" if f.extra.get("outliers") else "",
            ]
        )
    return rows


THROUGHPUT_HEADERS = [
    "provider",
    "algorithm",
    "kind",
    "size",
    "enc MiB/s",
    "dec MiB/s",
    "enc CPU ms",
    "peak RSS MiB",
    "note",
]


def _size(size: int | None) -> str:
    if not size:
        return "0"
    return f"{size >> 20} MiB" if size >= MIB and size % MIB == 0 else f"{size >> 10} KiB"


def summary(figures: list[Figure], spec: dict) -> str:
    lines = []
    rows = throughput_rows(figures)
    if rows:
        lines += [
            "Whole process, median of the runs (MiB/s = size ÷ wall time):",
            text_table(THROUGHPUT_HEADERS, rows),
        ]
    parts = decompose(figures)
    if parts:
        largest = max(p.size for p in parts)
        chosen = [
            p
            for p in parts
            if p.size in (largest, min(p.size for p in parts)) and p.kind == parts[0].kind
        ]
        lines += [
            "",
            "Where the time goes (encrypt): start-up = the program on an empty input; crypto = "
            "the core's in-process ns/B × size; rest = reading, writing, chunking:",
            text_table(
                [
                    "provider",
                    "algorithm",
                    "size",
                    "total ms",
                    "start-up ms",
                    "crypto ms",
                    "rest ms",
                    "crypto share",
                ],
                [
                    [
                        p.provider,
                        p.algorithm,
                        _size(p.size),
                        f"{p.total_s * 1e3:.1f}",
                        f"{p.startup_s * 1e3:.1f}",
                        f"{p.crypto_s * 1e3:.2f}",
                        f"{p.rest_s * 1e3:.1f}",
                        f"{p.crypto_s / p.total_s:.0%}",
                    ]
                    for p in chosen
                ],
            ),
        ]
    tests = kind_tests(figures)
    if tests:
        lines += [
            "",
            "Does the input kind matter? Kruskal–Wallis over the kinds' runs, at the largest size:",
            text_table(
                ["provider", "algorithm", "size", "kinds", "H", "p", "ε²", "verdict"],
                [
                    [
                        t.provider,
                        t.algorithm,
                        _size(t.size),
                        t.kinds,
                        f"{t.h:.2f}",
                        f"{t.p:.3g}",
                        f"{t.epsilon2:.3f}",
                        t.verdict,
                    ]
                    for t in tests
                ],
            ),
        ]
    for kind, why in (spec.get("skipped_kinds") or {}).items():
        lines.append(f"skipped {kind}: {why}")
    hf = [f for f in figures if f.metric == "wall (hyperfine)" and f.status == "ok"]
    if hf:
        idx = _index(figures)
        lines += ["", "Cross-check with hyperfine (the same encrypt command, its median):"]
        for f in hf:
            k = f.key
            ours = idx.get((k["provider"], k["algorithm"], k["kind"], k["size"], "encrypt", "wall"))
            if ours and ours.median:
                lines.append(
                    f"  {k['provider']} {k['algorithm']} {_size(k['size'])}: ours "
                    f"{ours.median * 1e3:.1f} ms, hyperfine {statistics.median(f.values) * 1e3:.1f}"
                    f" ms, ratio {statistics.median(f.values) / ours.median:.3f}"
                )
    return "\n".join(lines)
