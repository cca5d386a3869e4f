"""The process's resident set across a heap pass (docs/protocol.md, `result.heap`): tracemalloc
sees only the Python heap, so memory a C or Rust extension takes (OpenSSL's Argon2 buffers) is
seen here or nowhere. Before the pass: VmRSS, then the resident high-water mark is reset
(`/proc/self/clear_refs`, "5"); after it: VmHWM. A figure that cannot be read is None ("not
measured"), never 0. The same procedure as native/src/core/heap.cpp."""

import resource

_STATUS = "/proc/self/status"
_lifetime_peak_kb = 0  # VmHWM folded in before each reset, so max_rss_kb stays the lifetime peak


def _status_kb(key: str) -> int | None:
    try:
        with open(_STATUS, encoding="ascii") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _reset_peak() -> bool:
    global _lifetime_peak_kb
    _lifetime_peak_kb = max(_lifetime_peak_kb, _status_kb("VmHWM:") or 0)
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


class PeakPass:
    """Made just before a heap pass (reads VmRSS, resets the mark); end() right after it gives
    the result's rss_before_kb and rss_peak_kb."""

    def __init__(self) -> None:
        self.before_kb = _status_kb("VmRSS:")
        self.reset = _reset_peak()

    def end(self) -> dict:
        peak_kb = _status_kb("VmHWM:") if self.reset else None
        return {"rss_before_kb": self.before_kb, "rss_peak_kb": peak_kb}


def max_rss_kb() -> int:
    """The process's peak resident set over its life, despite the resets of the heap passes."""
    return max(_lifetime_peak_kb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
