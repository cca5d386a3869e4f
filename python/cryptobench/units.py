"""Parsing and formatting of sizes, durations and rates, shared by the CLI, tables and reports."""

import math
import re

from cryptobench.errors import UserError

_SIZE_RE = re.compile(r"^\s*(\d+)\s*([kKmMgG]?)(i?[bB])?\s*$")
_SIZE_FACTORS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text: str | int) -> int:
    """'16', '4K', '4KiB', '1M', '1MiB' -> bytes. Suffixes are binary (K = 1024)."""
    if isinstance(text, bool):
        raise UserError(f"size {text!r}: not a number of bytes")
    if isinstance(text, int):
        if text < 0:
            raise UserError(f"size {text}: must not be negative")
        return text
    m = _SIZE_RE.match(str(text))
    if not m:
        raise UserError(f"size {text!r}: expected bytes such as 16, 4K, 64KiB or 1MiB")
    return int(m.group(1)) * _SIZE_FACTORS[m.group(2).lower()]


def parse_sizes(text: str) -> list[int]:
    sizes = [parse_size(part) for part in text.split(",") if part.strip()]
    if not sizes:
        raise UserError("-s/--sizes: give at least one size")
    return sorted(set(sizes))


def format_size(n: int) -> str:
    """Exact, short: 16 B, 4 KiB, 1 MiB, 1000 B."""
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} B"


def format_ns(ns: float | None) -> str:
    if ns is None or math.isnan(ns):
        return "-"
    for unit, factor in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= factor:
            return f"{ns / factor:.3g} {unit}"
    return f"{ns:.3g} ns"


def format_rate(bytes_per_s: float | None) -> str:
    """Decimal units (MB/s = 10^6 bytes/s), the convention of throughput tables."""
    if bytes_per_s is None or math.isnan(bytes_per_s):
        return "-"
    for unit, factor in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if bytes_per_s >= factor:
            return f"{bytes_per_s / factor:.3g} {unit}"
    return f"{bytes_per_s:.3g} B/s"


def format_ops(ops_per_s: float | None) -> str:
    """Operations per second, decimal prefixes: '1.23k ops/s', '45.6 ops/s'."""
    if ops_per_s is None or math.isnan(ops_per_s):
        return "-"
    for unit, factor in (("M", 1e6), ("k", 1e3)):
        if ops_per_s >= factor:
            return f"{ops_per_s / factor:.3g}{unit} ops/s"
    return f"{ops_per_s:.3g} ops/s"


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"{h}h{m:02d}m"
    if m:
        return f"{m}m{s:02d}s"
    return f"{s}s"


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)([hms])")
_DURATION_FACTORS = {"h": 3600.0, "m": 60.0, "s": 1.0}
MAX_DURATION_S = 30 * 86400.0


def parse_duration(text: str) -> float:
    """'90m', '2h', '600s', '1h30m', '1.5h' -> seconds. A unit is required: a bare '90' could
    be read as seconds or minutes."""
    compact_text = str(text).strip().lower()
    parts = _DURATION_PART.findall(compact_text)
    if not parts or "".join(n + u for n, u in parts) != compact_text:
        raise UserError(f"'{text}' is not a duration (e.g. 90m, 2h, 600s, 1h30m)")
    units = [u for _, u in parts]
    if len(set(units)) != len(units) or units != sorted(units, key="hms".index):
        raise UserError(f"'{text}': each unit once, hours before minutes before seconds")
    seconds = sum(float(n) * _DURATION_FACTORS[u] for n, u in parts)
    if not 0 < seconds <= MAX_DURATION_S:
        raise UserError(f"'{text}': a duration above 0 and at most 30 days")
    return seconds


def format_seconds(seconds: float) -> str:
    """A measured span: '1.5 s' under a minute, else as format_duration ('2m41s', '1h30m')."""
    return f"{seconds:.1f} s" if seconds < 60 else format_duration(seconds)


def compact(v: float) -> str:
    """Three significant digits without exponents for table cells: 2203, 47.2, 0.513."""
    if v is None or math.isnan(v):
        return "-"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


# A memory figure a runner did not measure (it cannot count heap bytes, or the kernel refused the
# resident-set reset) is shown as this, never as 0 (docs/methodology.md, "Memory").
NOT_MEASURED = "not measured"


def format_measured(v: float | None, fmt: str = ".0f") -> str:
    """A memory figure, or 'not measured'."""
    return NOT_MEASURED if v is None else format(v, fmt)


def format_kib(kib: float | None) -> str:
    """A resident-set figure given in KiB: '812 KiB', '64.2 MiB', or 'not measured'."""
    if kib is None:
        return NOT_MEASURED
    if kib >= 1024:
        return f"{kib / 1024:.1f} MiB"
    return f"{kib:.0f} KiB"
