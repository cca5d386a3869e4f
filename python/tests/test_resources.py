"""The ledger of what a scenario run creates: torn down at the end, and by the next run after a
SIGKILL. Real processes, files and (as root) loop devices."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cryptobench.scenarios import resources
from cryptobench.scenarios.resources import Ledger

ROOT = os.geteuid() == 0 and shutil.which("losetup") is not None


def test_everything_recorded_is_undone_at_the_end(tmp_path):
    with Ledger("t", tmp_path / "state") as ledger:
        work = ledger.tempdir()
        (work / "f").write_text("x")
        proc = ledger.spawn(["sleep", "60"])
        assert (tmp_path / "state" / f"t-{os.getpid()}.json").exists()
    assert not work.exists()
    assert resources.start_time(proc.pid) is None  # ended (and reaped) by its pid
    assert list((tmp_path / "state").glob("*.json")) == []


def test_an_error_inside_still_tears_down(tmp_path):
    with pytest.raises(RuntimeError), Ledger("t", tmp_path / "state") as ledger:
        work = ledger.tempdir()
        raise RuntimeError("boom")
    assert not work.exists()


def test_a_reused_pid_is_not_killed(tmp_path):
    proc = subprocess.Popen(["sleep", "60"])
    try:
        entry = {"kind": "pid", "pid": proc.pid, "started": resources.start_time(proc.pid) + 1}
        resources.undo(entry)  # another process's start time: not ours to end
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def _killed_run(tmp_path: Path, body: str) -> dict:
    """Runs a child that records resources in a ledger and then is SIGKILLed."""
    script = "\n".join(
        [
            "import json, time",
            "from pathlib import Path",
            "from cryptobench.scenarios.resources import Ledger",
            f"ledger = Ledger('t', Path({str(tmp_path / 'state')!r})).__enter__()",
            "out = {}",
            textwrap.dedent(body),
            "print(json.dumps(out), flush=True)",
            "time.sleep(60)",
        ]
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    line = child.stdout.readline()
    child.send_signal(signal.SIGKILL)
    child.wait()
    return json.loads(line)


def test_the_next_run_cleans_up_after_a_sigkill(tmp_path):
    out = _killed_run(
        tmp_path,
        "out['dir'] = str(ledger.tempdir()); out['pid'] = ledger.spawn(['sleep', '60']).pid",
    )
    assert Path(out["dir"]).exists()
    assert resources.start_time(out["pid"]) is not None
    cleaned = resources.cleanup_stale(tmp_path / "state")
    assert len(cleaned) == 1
    assert not Path(out["dir"]).exists()
    deadline = time.monotonic() + 10
    while resources.start_time(out["pid"]) is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert resources.start_time(out["pid"]) is None
    assert list((tmp_path / "state").glob("*.json")) == []


ATTACH = (
    "dev = subprocess.run(['losetup', '-f', '--show', {image!r}], capture_output=True,"
    " text=True, check=True).stdout.strip()\n"
)


@pytest.mark.skipif(not ROOT, reason="loop devices need root and losetup")
@pytest.mark.parametrize(
    "recorded",
    [
        # the device recorded once it is attached
        ATTACH + "ledger.add('loop', device=dev, backing={image!r}); out['dev'] = dev",
        # as the storage scenario records it: the entry first, without a device (`losetup -f
        # --show` picks and attaches in one call, so the device is known only after); the next
        # run finds the device by its backing file
        "ledger.add('loop', device=None, backing={image!r})\n" + ATTACH + "out['dev'] = dev",
    ],
    ids=["by-device", "by-backing-file"],
)
def test_a_loop_device_of_a_killed_run_is_detached(tmp_path, recorded):
    image = tmp_path / "img"
    image.write_bytes(b"\0" * (1 << 20))
    out = _killed_run(tmp_path, "import subprocess\n" + recorded.format(image=str(image)))
    listed = subprocess.run(["losetup", "-j", str(image)], capture_output=True, text=True).stdout
    assert out["dev"] in listed
    resources.cleanup_stale(tmp_path / "state")
    listed = subprocess.run(["losetup", "-j", str(image)], capture_output=True, text=True).stdout
    assert listed.strip() == ""
