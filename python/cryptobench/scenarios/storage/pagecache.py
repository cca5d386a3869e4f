"""A memory-limited control group around a workload, so the page cache cannot hide I/O.

bonnie++'s rule is a file twice the size of RAM; this machine has 24 GiB, so a 1 GiB file would
be rewritten and read back from memory whatever `-r` says. The workload runs in a control group
whose memory limit (which counts the page cache, in cgroup v1 and v2 alike) is half the file: the
pages it caches beyond it are reclaimed, so the rewrite and read phases go through the file
system — as on a machine with that much memory. A FUSE daemon must never be inside such a limit:
its memory reclaim would wait for the writeback of pages only it can write (a deadlock seen here
with nbdfuse), so the daemons stay outside, and their own reads of the backing files may come
from the page cache (the decryption still happens on every read). The group is recorded in the
run's ledger (kind `cgroup`) before it is made; its processes go back to the parent group when it
is removed."""

import contextlib
import itertools
import os
from collections.abc import Callable
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
