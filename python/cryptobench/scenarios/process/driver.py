"""Running the measured program as a user's process and taking its cost from the kernel: wall
time between fork and wait4, user and system CPU time and the peak resident set (ru_maxrss, the
high-water mark the kernel keeps) from wait4 — not a polled sample of another process.

The program is started by `cryptobench-spawn`, a tiny launcher built with the project: ru_maxrss
survives exec, so a child forked straight from this Python process (100+ MiB) would report
Python's size as its own peak."""

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from cryptobench.errors import UserError

PROGRAM = "cryptobench-encfile"
LAUNCHER = "cryptobench-spawn"
TIMEOUT_S = 120


@dataclass(frozen=True)
class ProcessCost:
    status: int  # exit status; negative: killed by that signal
    wall_s: float
    user_s: float
    sys_s: float
    max_rss_kib: int
    stderr: str


def find_program(name: str = PROGRAM) -> str:
    """A program of the project next to this Python (make setup installs it), else the build
    tree's."""
    candidates = [
        str(Path(sys.prefix) / "bin" / name),
        str(Path(__file__).resolve().parents[4] / "native" / "build" / name),
    ]
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found:
        return found
    raise UserError(f"{name} was not found; build it with `make setup`")


def measure(argv: list[str], timeout_s: float = TIMEOUT_S) -> ProcessCost:
    """Runs argv to its end under the launcher and returns what it cost. A run that outlives
    the timeout is killed (the launcher, by its pid, and with it its child's pipe) and reported
    with status -9."""
    launcher = find_program(LAUNCHER)
    try:
        done = subprocess.run(
            [launcher, *argv], capture_output=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired as e:
        return ProcessCost(
            -9,
            timeout_s,
            0.0,
            0.0,
            0,
            f"timed out after {timeout_s:g} s" + (e.stderr or b"").decode(errors="replace")[-200:],
        )
    fields = done.stdout.decode().split()
    if done.returncode != 0 or len(fields) != 5:
        return ProcessCost(-1, 0.0, 0.0, 0.0, 0, done.stderr.decode(errors="replace").strip())
    status, wall_ns, user_us, sys_us, rss = (int(v) for v in fields)
    return ProcessCost(
        status,
        wall_ns / 1e9,
        user_us / 1e6,
        sys_us / 1e6,
        rss,
        done.stderr.decode(errors="replace").strip(),
    )


def encfile(
    program: str,
    mode: str,
    provider: str,
    algorithm: str,
    src: Path,
    dst: Path,
    back: Path | None = None,
) -> list:
    """The program's command line. mode "roundtrip" (with `back`): one execution that encrypts
    `src` to `dst` and then decrypts `dst` to `back`, as EvalMe timed them."""
    return [
        program,
        mode,
        "--provider",
        provider,
        "--algorithm",
        algorithm,
        "--in",
        str(src),
        "--out",
        str(dst),
    ] + (["--back", str(back)] if back is not None else [])


def digests(path: Path) -> tuple[str, str]:
    """MD5 (as the paper checked the round trip) and SHA-256."""
    data = path.read_bytes()
    return hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest()
