"""The memory-limited control group bonnie++ runs in: a real cgroup (as root), a real file
read through it, the page cache it leaves measured with fincore; and the group is gone at the
end, also after its run was killed."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cryptobench.scenarios.resources import Ledger, cleanup_stale
from cryptobench.scenarios.storage.pagecache import PageCacheLimit, own_memory_group

MIB = 1 << 20
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or own_memory_group()[0] is None or shutil.which("fincore") is None,
    reason="needs root, a memory control group and fincore (util-linux)",
)


def _resident(path: Path) -> int:
    out = subprocess.run(["fincore", "-b", "-n", "-o", "RES", str(path)], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    return int(out.split()[0])


def _read_cold(path: Path, preexec=None) -> None:
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3\n")
    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True, preexec_fn=preexec)


def test_a_file_read_inside_the_limit_cannot_stay_in_the_page_cache(tmp_path):
    big = Path("/var/tmp") / f"cb-pagecache-{os.getpid()}"
    try:
        big.write_bytes(os.urandom(64 * MIB))
        _read_cold(big)
        assert _resident(big) > 60 * MIB  # without the limit the whole file stays cached
        with Ledger("test-pagecache", tmp_path / "state") as ledger:
            limit = PageCacheLimit(ledger, 16 * MIB)
            assert not limit.why and limit.path.is_dir()
            _read_cold(big, limit.preexec())
            assert _resident(big) <= 17 * MIB
            assert 0 < limit.peak() <= 16 * MIB
            group = limit.path
            limit.close()
            assert not group.exists() and not ledger.entries
    finally:
        big.unlink(missing_ok=True)


KILLED_RUN = """
import os, signal, sys
from pathlib import Path
from cryptobench.scenarios.resources import Ledger
from cryptobench.scenarios.storage.pagecache import PageCacheLimit
ledger = Ledger("test-pagecache", Path(sys.argv[1])).__enter__()
limit = PageCacheLimit(ledger, 16 << 20)
print(limit.path, flush=True)
(limit.path / "cgroup.procs").write_text(str(os.getpid()))
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_group_left_by_a_killed_run_is_removed_by_the_next(tmp_path):
    state = tmp_path / "state"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_RUN, str(state)], capture_output=True, text=True
    )
    assert killed.returncode == -9
    group = Path(killed.stdout.strip())
    assert group.is_dir()  # the killed run could not remove it
    cleaned = cleanup_stale(state)
    assert len(cleaned) == 1 and not group.exists()
