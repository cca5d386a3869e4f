"""The configuration scenario's data: the thesis's constants and figures, one driver run as it
came (ScenarioRun) and what it comes to (ScenarioResults: medians, h and f against no encryption).

The thesis behind confcrypt (CONFCRYPT.md, last section) wrote (encrypted) and read (decrypted) a
configuration of n values with no encryption, whole-file OpenPGP encryption and per-value
encryption per library; 11 runs, median; the overhead h = y - x and the factor f = y / x against
no encryption, averaged over n (its Tables 6.1 and 6.2). This scenario repeats it with the
thesis's scheme (compatibility mode) and confcrypt's own, per provider.
"""

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# The thesis's configuration sizes, exactly.
THESIS_N: tuple[int, ...] = (
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 17, 20, 25, 30, 31, 32, 35, 40, 50, 51, 52, 55, 56,
    57, 60, 70, 80, 90, 100, 150, 175, 200, 250, 300, 350, 400, 500, 1000,
)  # fmt: skip
QUICK_N: tuple[int, ...] = (1, 10, 100, 1000)
THESIS_RUNS = 11
# --quick: a few minutes instead of half an hour. Fewer runs, the thesis's three libraries, and
# the thesis's scheme (seconds per operation at n = 1000) measured only up to QUICK_COMPAT_MAX_N;
# its time at larger n is extrapolated from its measured linear fit and labelled as such.
QUICK_RUNS = 3
# The thesis's three libraries: `reproduce 000` measures these (quick or not); `scenario config`
# measures every provider that offers the algorithms unless told otherwise.
THESIS_PROVIDERS = ("gcrypt", "openssl", "botan")
QUICK_PROVIDERS = THESIS_PROVIDERS
QUICK_COMPAT_MAX_N = 100

# Schemes, in the order tables and plots show them. "plain" is the baseline x.
SCHEMES: dict[str, str] = {
    "plain": "no encryption",
    "wholefile": "whole file: OpenPGP encrypt + sign via gpg",
    "compat": "per value, the thesis's scheme (PBKDF2 x 15,000 per value, AES-256-CBC; PBKDF2's "
    "hash that of the library's variant: SHA-512 libgcrypt, SHA-1 OpenSSL, SHA-256 Botan)",
    "confcrypt": "per value, confcrypt (one key unwrap per file, AES-256-GCM per value)",
}
PER_PROVIDER = ("compat", "confcrypt")
DIRECTIONS = ("write", "read")  # the thesis's "encryption" and "decryption"
THESIS_DIRECTION_NAME = {"write": "encryption", "read": "decryption"}
# PBKDF2's hash in the thesis's scheme: "thesis" gives each library its variant's (Elektra at the
# thesis's commit dfa9bb8, src/plugins/crypto/*_operations.c): libgcrypt SHA-512, OpenSSL SHA-1,
# Botan SHA-256; any other library SHA-512 (libgcrypt's). Or one hash for every library.
COMPAT_KDFS = ("thesis", "sha512", "sha256", "sha1")
# What a provider must offer to be measured by default (`scenario config` without --providers).
REQUIRED_ALGORITHMS = (("aes-256-gcm", "encrypt"), ("pbkdf2-sha512", "derive"))

# The thesis's published averages over all n: overhead h in seconds and factor f.
# Table 6.1 (per-value encryption, by library) and Table 6.2 (whole-file, GnuPG).
THESIS_TABLE: dict[tuple[str, str], tuple[float, float]] = {
    ("compat/gcrypt", "read"): (1.168, 1837.868),
    ("compat/openssl", "read"): (1.805, 2835.492),
    ("compat/botan", "read"): (4.125, 6459.077),
    ("compat/gcrypt", "write"): (1.171, 192.912),
    ("compat/openssl", "write"): (1.808, 297.236),
    ("compat/botan", "write"): (4.124, 675.795),
    ("wholefile", "read"): (0.005, 25.609),
    ("wholefile", "write"): (0.007, 2.791),
}
THESIS_SOURCE = "the thesis, Table 6.1 (per value, by library) and Table 6.2 (whole file, GnuPG)"
# Reading 1,000 values in the thesis, in seconds: Tables A.1-A.4 (kdb get), row n = 1000, the
# median of its 11 runs.
THESIS_READ_1000: dict[str, float] = {
    "plain": 0.003064,
    "compat/gcrypt": 10.708561,
    "compat/openssl": 16.639539,
    "compat/botan": 38.059056,
}

# How `runs` marks a scenario run (runs.suite); its figures are stored as Figures (figures.py:
# to_figures), its driver facts in runs.settings["scenario"].
STORE_SUITE = "scenario:config"


@dataclass(frozen=True)
class Series:
    """One line of the scenario: a scheme (with its provider, when it has one) and a direction."""

    scheme: str
    provider: str  # "" for plain and wholefile
    direction: str

    @property
    def label(self) -> str:
        return f"{self.scheme}/{self.provider}" if self.provider else self.scheme


@dataclass
class Overhead:
    series: Series
    n_values: list[int]
    mean_h_s: float  # mean over n of (median y - median x), seconds
    mean_f: float  # mean over n of (median y / median x)
    thesis: tuple[float, float] | None  # the thesis's (h, f) for the same line, if it has one


@dataclass
class ScenarioResults:
    medians: dict[Series, dict[int, float]]  # series -> n -> median seconds
    runs: dict[Series, dict[int, int]]  # series -> n -> number of runs
    heap: dict[Series, dict[int, dict[str, float]]]  # series -> n -> heap figures
    overheads: list[Overhead]
    skipped: list[dict[str, str]] = field(default_factory=list)
    ranges: dict[Series, dict[int, tuple[float, float]]] = field(default_factory=dict)  # min, max
    # series -> n -> seconds estimated from the series' linear fit t(n) = a + b·n over the n it
    # was measured at (only where a run asked for it, e.g. --quick's thesis scheme at n = 1000)
    extrapolated: dict[Series, dict[int, float]] = field(default_factory=dict)

    def n_values(self) -> list[int]:
        return sorted({n for by_n in self.medians.values() for n in by_n})

    def labels(self) -> list[str]:
        """scheme[/provider] in table order."""
        out: list[str] = []
        for s in sorted(self.medians, key=_series_order):
            if s.label not in out:
                out.append(s.label)
        return out


@dataclass
class ScenarioRun:
    """Everything one driver run reported, as it came."""

    spec: dict[str, Any]  # what the driver was asked (without the throwaway paths)
    info: dict[str, Any] = field(default_factory=dict)
    samples: list[dict[str, Any]] = field(default_factory=list)
    heap: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    notes: dict[str, list[str]] = field(default_factory=dict)  # series label -> notes
    done: bool = False
    # scheme -> n values not measured for it but estimated from its fit (stored with the run)
    extrapolate: dict[str, list[int]] = field(default_factory=dict)

    def merge(self, other: "ScenarioRun") -> None:
        """Adds a second driver pass (other schemes or sizes) to this run."""
        self.samples += other.samples
        self.heap += other.heap
        self.skipped += [s for s in other.skipped if s not in self.skipped]
        self.notes.update(other.notes)
        self.info = self.info or other.info
        for key in ("schemes", "n"):
            self.spec[key] = list(
                dict.fromkeys([*self.spec.get(key, []), *other.spec.get(key, [])])
            )
        self.done = self.done and other.done

    def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "sample":
            self.samples.append(message)
        elif kind == "heap":
            self.heap.append(message)
        elif kind == "skip":
            self.skipped.append(
                {k: str(message.get(k, "")) for k in ("scheme", "provider", "reason")}
            )
        elif kind == "notes":
            label = Series(message["scheme"], message.get("provider") or "", "").label
            self.notes[label] = list(message.get("notes", []))
        elif kind == "info":
            self.info = {k: v for k, v in message.items() if k != "type"}
        elif kind == "done":
            self.done = True

    def expected_samples(self) -> int:
        """Samples the driver will print in all, once its skips are known."""
        lines = 0
        for scheme in self.spec["schemes"]:
            if scheme in PER_PROVIDER:
                skipped = sum(1 for s in self.skipped if s["scheme"] == scheme)
                lines += len(self.spec["providers"]) - skipped
            else:
                lines += 1
        return lines * len(self.spec["n"]) * self.spec["runs"] * len(DIRECTIONS)

    def analyse(self) -> ScenarioResults:
        results = analyse(self.samples, self.heap, self.skipped)
        results.extrapolated = extrapolate(results.medians, self.extrapolate)
        return results


# ---- analysis ------------------------------------------------------------------------------------


def series_of(row: dict[str, Any]) -> Series:
    return Series(row["scheme"], row.get("provider") or "", row["direction"])


def analyse(
    samples: Iterable[dict[str, Any]],
    heap_rows: Iterable[dict[str, Any]] = (),
    skipped: Iterable[dict[str, str]] = (),
) -> ScenarioResults:
    """Medians per (series, n); h and f against plain of the same direction, averaged over the n
    both have (the thesis's method)."""
    times: dict[Series, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in samples:
        times[series_of(s)][int(s["n"])].append(s["ns"] / 1e9)
    medians = {
        k: {n: statistics.median(v) for n, v in sorted(by_n.items())} for k, by_n in times.items()
    }
    counts = {k: {n: len(v) for n, v in sorted(by_n.items())} for k, by_n in times.items()}
    ranges = {
        k: {n: (min(v), max(v)) for n, v in sorted(by_n.items())} for k, by_n in times.items()
    }
    heap: dict[Series, dict[int, dict[str, float]]] = defaultdict(dict)
    for h in heap_rows:
        heap[series_of(h)][int(h["n"])] = {
            "allocs": h["allocs"],
            "bytes": h["bytes"],
            "peak_live_bytes": h["peak_live_bytes"],
        }
    overheads = []
    for series in sorted(medians, key=_series_order):
        if series.scheme == "plain":
            continue
        base = medians.get(Series("plain", "", series.direction), {})
        common = [n for n in medians[series] if n in base and base[n] > 0]
        if not common:
            continue
        h = [medians[series][n] - base[n] for n in common]
        f = [medians[series][n] / base[n] for n in common]
        overheads.append(
            Overhead(
                series,
                common,
                statistics.fmean(h),
                statistics.fmean(f),
                THESIS_TABLE.get((series.label, series.direction)),
            )
        )
    return ScenarioResults(medians, counts, dict(heap), overheads, list(skipped), ranges)


def _series_order(s: Series) -> tuple:
    scheme = list(SCHEMES).index(s.scheme) if s.scheme in SCHEMES else len(SCHEMES)
    return (DIRECTIONS.index(s.direction), scheme, s.provider)


def extrapolate(
    medians: dict[Series, dict[int, float]], targets: dict[str, list[int]]
) -> dict[Series, dict[int, float]]:
    """For each series of a scheme in `targets`, the least-squares line t(n) = a + b·n through its
    medians, evaluated at the target n it was not measured at. The thesis's scheme costs one
    PBKDF2 per value, so its time is linear in n: the fit is the model, not a guess."""
    out: dict[Series, dict[int, float]] = {}
    for series, by_n in medians.items():
        wanted = [n for n in targets.get(series.scheme, ()) if n not in by_n]
        if not wanted or len(by_n) < 2:
            continue
        ns, ts = list(by_n), list(by_n.values())
        mean_n, mean_t = statistics.fmean(ns), statistics.fmean(ts)
        b = sum((n - mean_n) * (t - mean_t) for n, t in zip(ns, ts, strict=True)) / sum(
            (n - mean_n) ** 2 for n in ns
        )
        a = mean_t - b * mean_n
        out[series] = {n: a + b * n for n in wanted}
    return out
