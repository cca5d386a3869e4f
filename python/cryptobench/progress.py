"""A one-line progress bar with ETA on stderr, drawn only when stderr is a terminal."""

import shutil
import sys
import time
from typing import TextIO

from cryptobench.units import format_duration


class ProgressBar:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self.last_draw = 0.0
        self.first_done: int | None = None

    def update(self, done: int, total: int, label: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.first_done is None:
            self.first_done, self.started = done, now  # ETA from work done in this session
        if now - self.last_draw < 0.1 and done < total:
            return
        self.last_draw = now
        width = shutil.get_terminal_size((80, 20)).columns
        fraction = done / total if total else 1.0
        worked = done - self.first_done
        elapsed = now - self.started
        eta = format_duration(elapsed / worked * (total - done)) if worked > 0 else "?"
        head = f"{fraction * 100:3.0f}% ETA {eta:>6} "
        bar_width = max(10, min(40, width // 3))
        filled = int(bar_width * fraction)
        bar = "[" + "#" * filled + "." * (bar_width - filled) + "] "
        line = head + bar + label
        self.stream.write("\r" + line[: width - 1].ljust(width - 1))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            width = shutil.get_terminal_size((80, 20)).columns
            self.stream.write("\r" + " " * (width - 1) + "\r")
            self.stream.flush()
