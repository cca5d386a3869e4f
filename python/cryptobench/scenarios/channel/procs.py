"""Processes of the channel scenario: daemons started in a namespace with their log in the run's
directory, waited for by their own readiness signal (a log line or a probe command), recorded in
the ledger by pid and stopped by pid; and the CPU time of every process involved, from
/proc/PID/stat (daemons, including the children they reaped) and wait4 (clients)."""

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cryptobench.scenarios.resources import Ledger

TICK = os.sysconf("SC_CLK_TCK")


class DaemonFailed(Exception):
    """A daemon that did not start, or a handshake that never completed; the message ends
    with the last lines of its log."""


def tail(path: Path, lines: int = 6) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return " | ".join(text.strip().splitlines()[-lines:]) or "(empty log)"


@dataclass
class Daemon:
    name: str
    proc: subprocess.Popen
    log: Path
    entry: dict = field(default_factory=dict)  # its ledger entry
    started_at: float = field(default_factory=time.monotonic)  # when it was spawned

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None


def start(
    ledger: Ledger,
    name: str,
    argv: Sequence[str],
    log: Path,
    env: dict[str, str] | None = None,
    own_log: bool = False,
) -> Daemon:
    """Starts argv in the foreground (recorded by pid); its output goes to `log` unless it
    writes the log itself (`own_log`). The log starts empty, so readiness is this start's."""
    full_env = {**os.environ, **(env or {})}
    log.unlink(missing_ok=True)
    spawned = time.monotonic()
    with open(os.devnull if own_log else log, "wb") as out:
        proc = ledger.spawn(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=full_env
        )
    return Daemon(name, proc, log, ledger.entries[-1], spawned)


def stop(ledger: Ledger, daemon: Daemon) -> None:
    ledger.release(daemon.entry)
    if daemon.proc.returncode is None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            daemon.proc.wait(timeout=5)


def start_ready(
    ledger: Ledger,
    name: str,
    argv: Sequence[str],
    log: Path,
    ready: Callable[[], bool],
    timeout_s: float = 20.0,
    env: dict[str, str] | None = None,
    own_log: bool = False,
) -> Daemon:
    """`start` and `wait_ready`; a daemon that does not become ready is stopped (by pid) before
    DaemonFailed goes on to the caller."""
    daemon = start(ledger, name, argv, log, env, own_log)
    try:
        wait_ready(daemon, ready, timeout_s, "ready")
    except BaseException:
        stop(ledger, daemon)
        raise
    return daemon


def listening(argv_prefix: Sequence[str], port: int, proto: str = "t") -> Callable[[], bool]:
    """Whether something listens on `port` (TCP "t" or UDP "u") where `argv_prefix` runs
    (an `ip netns exec NS` prefix, or [] here)."""

    def check() -> bool:
        done = quiet([*argv_prefix, "ss", f"-Hln{proto}", f"sport = :{port}"], 5)
        return f":{port}" in done.stdout

    return check


def wait_ready(
    daemon: Daemon,
    ready: Callable[[], bool],
    timeout_s: float,
    what: str = "ready",
) -> float:
    """Polls `ready` until it holds (returns the seconds since the daemon was spawned) or
    raises DaemonFailed with the end of the daemon's log when the daemon exits or the time runs
    out."""
    began = time.monotonic()
    deadline = began + timeout_s
    while time.monotonic() < deadline:
        if ready():
            return time.monotonic() - daemon.started_at
        if not daemon.alive():
            raise DaemonFailed(
                f"{daemon.name} exited ({daemon.proc.returncode}) before {what}: {tail(daemon.log)}"
            )
        time.sleep(0.02)
    raise DaemonFailed(f"{daemon.name} not {what} after {timeout_s:.0f} s: {tail(daemon.log)}")


def log_has(path: Path, text: str, count: int = 1) -> Callable[[], bool]:
    def check() -> bool:
        try:
            return path.read_text(errors="replace").count(text) >= count
        except OSError:
            return False

    return check


def count_in(path: Path, text: str) -> int:
    try:
        return path.read_text(errors="replace").count(text)
    except OSError:
        return 0


def quiet(
    argv: Sequence[str], timeout_s: float = 30, stdin: str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(argv), input=stdin, capture_output=True, text=True, timeout=timeout_s, check=False
    )


# ---- CPU -------------------------------------------------------------------------------------


def cpu_s(pid: int, started: int | None = None) -> float:
    """utime + stime of the process and of the children it has reaped, in seconds (0 when the
    pid is gone or now names another process)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    if started is not None and int(fields[19]) != started:
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICK


class CpuMeter:
    """CPU seconds of a set of long-lived processes over a window: `begin()`, work,
    `end()` → {name: seconds}."""

    def __init__(self, daemons: Sequence[Daemon]):
        self.daemons = list(daemons)
        self.start: dict[str, float] = {}

    def _read(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for d in self.daemons:
            out[d.name] = out.get(d.name, 0.0) + cpu_s(d.pid, d.entry.get("started"))
        return out

    def begin(self) -> None:
        self.start = self._read()

    def end(self) -> dict[str, float]:
        now = self._read()
        return {k: max(0.0, now[k] - self.start.get(k, 0.0)) for k in now}


def settle_children(daemons: Sequence[Daemon], timeout_s: float = 3.0) -> None:
    """Waits (bounded) until the daemons' per-connection children have exited and been reaped,
    so their CPU time shows in the daemon's cutime/cstime."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        busy = False
        for d in daemons:
            for task in Path(f"/proc/{d.pid}/task").glob("*/children"):
                with contextlib.suppress(OSError):
                    busy = busy or bool(task.read_text().strip())
        if not busy:
            return
        time.sleep(0.05)


@dataclass
class Finished:
    returncode: int
    wall_s: float
    cpu_s: float  # the process and every descendant it waited for
    stdout: str
    stderr: str


def run_client(
    argv: Sequence[str], timeout_s: float, env: dict[str, str] | None = None
) -> Finished:
    """Runs a client to completion; its own CPU time comes from wait4, not a poll."""
    import tempfile
    import threading

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        began = time.perf_counter()
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env={**os.environ, **(env or {})},
        )
        # A blocking wait4 (no polling beside the measurement), bounded by a kill timer.
        timer = threading.Timer(timeout_s, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - began
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Finished(
            proc.returncode,
            wall,
            usage.ru_utime + usage.ru_stime,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )
