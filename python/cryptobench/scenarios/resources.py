"""Everything a scenario run creates on the machine — mounts, loop devices, network namespaces,
interfaces, processes, temporary directories — recorded in a state file *before* it is created,
torn down in reverse order when the run ends (normally, on Ctrl-C or on an error), and cleaned up
by the next run when a run was killed with SIGKILL and could not do it itself.

    with Ledger("storage") as ledger:          # first cleans up what dead runs recorded
        work = ledger.tempdir()
        ledger.add("loop", device="/dev/loop3", backing=str(image))
        proc = ledger.spawn(["gocryptfs", ...])   # recorded by pid and start time
        ...
    # everything undone here, newest first

Processes are ended by pid, and only when the pid still names the process that was started
(its start time in /proc/PID/stat is compared), never by name.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError

KINDS = ("path", "mount", "loop", "netns", "link", "pid", "cgroup")


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(os.environ.get("CRYPTOBENCH_STATE_DIR") or Path(base) / "cryptobench" / "ledgers")


def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None when there is no such process.
    A pid and its start time name one process, even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may contain spaces; fields after it are plain.
    return int(stat.rsplit(")", 1)[1].split()[19])


def alive(pid: int, started: int | None) -> bool:
    now = start_time(pid)
    return now is not None and (started is None or now == started)


def _run(argv: Sequence[str]) -> None:
    subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30,
                   check=False)  # fmt: skip


def _loops_on(backing: str | None) -> list[str]:
    """The loop devices whose backing file is `backing`."""
    if not backing:
        return []
    try:
        out = subprocess.run(["losetup", "-n", "-O", "NAME", "-j", backing], text=True,
                             capture_output=True, timeout=10, check=False).stdout  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return []
    return out.split()


def _mounted(path: str) -> bool:
    target = os.path.realpath(path)
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == target for line in f if len(line.split()) > 1)


def stop_pid(pid: int, started: int | None, grace_s: float = 5.0) -> None:
    """SIGTERM, then SIGKILL after `grace_s`, to exactly the process recorded."""
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        if not alive(pid, started):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and alive(pid, started):
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
            time.sleep(0.05)


def _remove_cgroup(path: Path, parent: Path) -> None:
    """Its processes back to the parent group, then the (empty) group removed."""
    try:
        pids = (path / "cgroup.procs").read_text().split()
    except OSError:
        return  # already gone
    for pid in pids:
        with contextlib.suppress(OSError):
            (parent / "cgroup.procs").write_text(pid)
    with contextlib.suppress(OSError):
        path.rmdir()


def undo(entry: dict[str, Any]) -> None:
    """Tears one recorded resource down; a resource that is already gone is fine."""
    kind = entry["kind"]
    if kind == "pid":
        stop_pid(int(entry["pid"]), entry.get("started"))
    elif kind == "mount":
        path = entry["path"]
        for argv in (["fusermount3", "-u", path], ["umount", path], ["umount", "-l", path]):
            if not _mounted(path):
                break
            if argv[0] == "fusermount3" and not entry.get("fuse"):
                continue
            _run(argv)
    elif kind == "loop":
        device, backing = entry.get("device"), entry.get("backing")
        if device is None:  # attached by `losetup -f --show`: every device on its backing file
            for name in _loops_on(backing):
                _run(["losetup", "-d", name])
            return
        try:
            out = subprocess.run(["losetup", "-n", "-O", "BACK-FILE", device], text=True,
                                 capture_output=True, timeout=10, check=False).stdout  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            return
        if out.strip() and (backing is None or os.path.realpath(backing) in out):
            _run(["losetup", "-d", device])
    elif kind == "netns":
        _run(["ip", "netns", "delete", entry["name"]])
    elif kind == "link":
        _run(["ip", "link", "delete", entry["name"]])
    elif kind == "cgroup":
        _remove_cgroup(Path(entry["path"]), Path(entry["parent"]))
    elif kind == "path":
        path = Path(entry["path"])
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


class Ledger:
    """The state file of one scenario run: `<state dir>/<scenario>-<pid>.json`."""

    def __init__(self, scenario: str, directory: Path | None = None):
        self.scenario = scenario
        self.directory = Path(directory) if directory else state_dir()
        self.path = self.directory / f"{scenario}-{os.getpid()}.json"
        self.entries: list[dict[str, Any]] = []

    # ---- the state file --------------------------------------------------------------------

    def _save(self) -> None:
        state = {"pid": os.getpid(), "started": start_time(os.getpid()), "entries": self.entries}
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def __enter__(self) -> "Ledger":
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(
                f"cannot create the state directory {self.directory}: {e.strerror}"
            ) from None
        cleanup_stale(self.directory)
        self._save()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        while self.entries:
            self.release(self.entries[-1])
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    # ---- recording -------------------------------------------------------------------------

    def add(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Records a resource before it is created; `release` undoes it and forgets it."""
        if kind not in KINDS:
            raise ValueError(f"unknown resource kind {kind!r}")
        entry = {"kind": kind, **fields}
        self.entries.append(entry)
        self._save()
        return entry

    def forget(self, entry: dict[str, Any]) -> None:
        """The resource is gone by other means (a clean unmount, a process that exited)."""
        if entry in self.entries:
            self.entries.remove(entry)
            self._save()

    def release(self, entry: dict[str, Any]) -> None:
        try:
            undo(entry)
        finally:
            self.forget(entry)

    def tempdir(self, prefix: str = "cryptobench-") -> Path:
        """A fresh temporary directory, removed with everything in it at the end."""
        path = Path(tempfile.mkdtemp(prefix=f"{prefix}{self.scenario}-"))
        self.add("path", path=str(path))
        return path

    def spawn(self, argv: Sequence[str], **popen: Any) -> subprocess.Popen:
        """Starts a process and records it by pid and start time (ended by pid at the end)."""
        proc = subprocess.Popen(list(argv), **popen)
        self.add("pid", pid=proc.pid, started=start_time(proc.pid), argv=list(argv)[:4])
        return proc

    def adopt_pid(self, pid: int, what: str = "") -> dict[str, Any]:
        """Records a process that started itself (a daemon's pid file)."""
        return self.add("pid", pid=pid, started=start_time(pid), argv=[what])


def cleanup_stale(directory: Path | None = None) -> list[str]:
    """Undoes what runs that died without cleaning up recorded (their process is gone).
    Returns one line per state file cleaned, for the caller to tell the user."""
    directory = Path(directory) if directory else state_dir()
    cleaned = []
    for path in sorted(directory.glob("*.json")):
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if alive(int(state.get("pid", 0)), state.get("started")):
            continue  # a run still going on
        entries = state.get("entries", [])
        for entry in reversed(entries):
            with contextlib.suppress(Exception):
                undo(entry)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        cleaned.append(f"{path.name}: {len(entries)} leftovers of a killed run removed")
    return cleaned
