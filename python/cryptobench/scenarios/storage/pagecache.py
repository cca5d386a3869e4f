"""A memory-limited control group around a workload, so the page cache cannot hide I/O.

bonnie++'s rule is a file twice the size of RAM; this machine has 24 GiB, so a 1 GiB file would
be rewritten and read back from memory whatever `-r` says. The workload and the file system's
daemons are put, for the workload's duration only, in a control group whose memory limit (which
counts the page cache, in cgroup v1 and v2 alike) is half the file: the pages they cache beyond
it are reclaimed, so the rewrite and read phases go through the file system — as on a machine
with that much memory. The group is recorded in the run's ledger (kind `cgroup`) before it is
made; its processes go back to the parent group when it is removed."""

import contextlib
import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from cryptobench.scenarios.resources import Ledger

V2_ROOT = Path("/sys/fs/cgroup")
V1_ROOT = Path("/sys/fs/cgroup/memory")
_groups = itertools.count(1)


def own_memory_group() -> tuple[Path, str] | tuple[None, str]:
    """This process's memory control group and its limit file, or None and the reason."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError as e:
        return None, f"cannot read /proc/self/cgroup: {e.strerror}"
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(",") and (V1_ROOT / path.lstrip("/")).is_dir():
            return V1_ROOT / path.lstrip("/"), "memory.limit_in_bytes"
    for line in lines:
        if line.startswith("0::"):
            group = V2_ROOT / line[3:].lstrip("/")
            enabled = group / "cgroup.subtree_control"
            if enabled.exists() and "memory" in enabled.read_text().split():
                return group, "memory.max"
    return None, "no memory control group (cgroup v1 memory, or v2 with memory enabled)"


class PageCacheLimit:
    """A child of this process's memory group with `limit` bytes; `None` path when it could not
    be made (then `why` says why and the workload runs without it)."""

    def __init__(self, ledger: Ledger, limit: int):
        self.limit = limit
        self.path: Path | None = None
        parent, limit_file = own_memory_group()
        if parent is None:
            self.why = limit_file
            return
        path = parent / f"cryptobench-{os.getpid()}-{next(_groups)}"
        self._entry = ledger.add("cgroup", path=str(path), parent=str(parent))
        try:
            path.mkdir()
            (path / limit_file).write_text(str(limit))
        except OSError as e:
            ledger.release(self._entry)
            self.why = f"cannot make a memory control group in {parent}: {e.strerror}"
            return
        self.path, self.parent, self.why = path, parent, ""
        self._ledger = ledger

    def preexec(self) -> Callable[[], None] | None:
        """For Popen: the child joins the group before it executes the workload."""
        if self.path is None:
            return None
        procs = str(self.path / "cgroup.procs")

        def join() -> None:
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

        return join

    @contextlib.contextmanager
    def holding(self, pids: list[int]) -> Iterator[None]:
        """The daemons in the group for the block's duration, then back in the parent."""
        moved = []
        try:
            if self.path is not None:
                for pid in pids:
                    with contextlib.suppress(OSError):  # a daemon that has exited
                        (self.path / "cgroup.procs").write_text(str(pid))
                        moved.append(pid)
            yield
        finally:
            for pid in moved:
                with contextlib.suppress(OSError):
                    (self.parent / "cgroup.procs").write_text(str(pid))

    def peak(self) -> int | None:
        """The group's highest memory use (page cache included), where the kernel reports it."""
        if self.path is None:
            return None
        for name in ("memory.max_usage_in_bytes", "memory.peak"):
            with contextlib.suppress(OSError, ValueError):
                return int((self.path / name).read_text())
        return None

    def close(self) -> None:
        if self.path is not None:
            self._ledger.release(self._entry)
            self.path = None
