"""The storage scenario on real mounts (as root, with /dev/fuse): a clean ext4 on a fresh loop
image, gocryptfs and encfs on it; figures, security checks, and nothing left behind."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cryptobench import cli
from cryptobench.scenarios.storage.registry import all_systems
from cryptobench.store import Store

NEEDED = ("gocryptfs", "encfs", "fusermount3", "fio", "losetup", "mkfs.ext4")
pytestmark = pytest.mark.skipif(
    os.geteuid() != 0
    or not os.path.exists("/dev/fuse")
    or any(shutil.which(t) is None for t in NEEDED),
    reason="needs root, /dev/fuse and " + ", ".join(NEEDED) + " (make setup installs them)",
)


def _leftovers(marker: str) -> list[str]:
    mounts = [
        line.split()[1] for line in Path("/proc/mounts").read_text().splitlines() if marker in line
    ]
    loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    return mounts + [line for line in loops.splitlines() if marker in line]


def test_a_small_run_on_real_mounts(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CRYPTOBENCH_STATE_DIR", str(tmp_path / "state"))
    workdir = tmp_path / "work"
    workdir.mkdir()
    db = tmp_path / "r.db"
    argv = [
        "storage",
        "--systems",
        "ext4,gocryptfs,encfs",
        "--backings",
        "ext4",
        "--size",
        "4M",
        "--runs",
        "1",
        "--no-bonnie",
        "--workdir",
        str(workdir),
        "--db",
        str(db),
    ]
    assert cli.main(argv) == 0
    figures = Store.open(db).figures(1)
    dd = {
        f.key["system"]: f
        for f in figures
        if f.metric == "throughput" and f.key.get("workload") == "dd write"
    }
    assert set(dd) == {"ext4", "gocryptfs", "encfs"}
    assert all(f.status == "ok" and f.median > 0 for f in dd.values())
    checks = {
        (f.key["system"], f.key["check"]): f.values[0] for f in figures if f.metric == "passed"
    }
    assert checks[("gocryptfs", "wrong password refused")] == 1.0
    assert checks[("gocryptfs", "plaintext absent from the backing store")] == 1.0
    assert checks[("gocryptfs", "flipped byte detected")] == 1.0  # authenticated
    assert checks[("encfs", "flipped byte detected")] == 0.0  # standard mode has no MAC
    assert _leftovers(str(workdir)) == []
    assert not list(workdir.iterdir())
    # The image under every system is read with direct I/O, so its own cache is no disk.
    assert Store.open(db).run(1).settings["scenario"]["image_direct_io"] is True
    assert cli.main(["show", "1", "--db", str(db)]) == 0
    assert "× clean speed" in capsys.readouterr().out
    # what `reproduce 002` (and `reproduce 002 --stored`) renders from such a stored run
    from cryptobench.scenarios.storage.reproduce import from_run

    rep = from_run(db, 1, quick=True)
    assert "Our dd write × clean ext4: encfs" in rep.text
    assert len([c for c in rep.claims if not c.ours_only]) == 4


def test_bad_input_is_one_line(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    assert cli.main(["storage", "--systems", "zfs", "--db", db]) == 1
    assert "unknown system 'zfs'" in capsys.readouterr().err
    assert cli.main(["storage", "--size", "1K", "--db", db]) == 1
    assert "--size must be between" in capsys.readouterr().err
    assert cli.main(["storage", "--size", "60G", "--workdir", str(tmp_path), "--db", db]) == 1
    err = capsys.readouterr().err
    assert "needs" in err and "free" in err


def test_a_missing_tool_is_a_skip_with_its_reason(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "cryfs" else "/bin/true")
    assert "cryfs not installed" in all_systems()["cryfs"].missing()


KERNEL_AND_BLOCK = ("fscrypt", "qemu-img", "nbdkit", "nbdfuse")


@pytest.mark.skipif(
    any(shutil.which(t) is None for t in KERNEL_AND_BLOCK),
    reason=", ".join(KERNEL_AND_BLOCK) + " needed (make setup installs them)",
)
def test_fscrypt_and_userspace_luks_on_real_mounts(tmp_path, monkeypatch):
    """fscrypt on the run's ext4 image and a LUKS image through nbdkit/nbdfuse/loop: measured,
    a wrong password refused by each, the flipped byte lands in the probe's ciphertext (XTS is
    unauthenticated, so the read returns changed data, not the original), fscrypt skipped on
    tmpfs with its reason, and nothing left behind — not even fscrypt's global files."""
    monkeypatch.setenv("CRYPTOBENCH_STATE_DIR", str(tmp_path / "state"))
    global_files = [p for p in (Path("/etc/fscrypt.conf"), Path("/.fscrypt")) if p.exists()]
    workdir = tmp_path / "work"
    workdir.mkdir()
    db = tmp_path / "r.db"
    argv = ["storage", "--systems", "ext4,fscrypt,luks-nbd", "--backings", "ext4,tmpfs"]
    argv += ["--size", "4M", "--runs", "1", "--no-bonnie", "--workdir", str(workdir)]
    assert cli.main([*argv, "--db", str(db)]) == 0
    figures = Store.open(db).figures(1)
    dd = {
        (f.key["system"], f.key["backing"]): f
        for f in figures
        if f.metric == "throughput" and f.key.get("workload") == "dd write"
    }
    assert {("fscrypt", "ext4"), ("luks-nbd", "ext4"), ("luks-nbd", "tmpfs")} <= set(dd)
    assert all(f.status == "ok" and f.median > 0 for f in dd.values())
    skipped = [f for f in figures if f.status == "skipped" and f.key.get("system") == "fscrypt"]
    assert skipped and "tmpfs has no fscrypt" in skipped[0].reason
    checks = {
        (f.key["system"], f.key["backing"], f.key["check"]): f
        for f in figures
        if f.metric == "passed"
    }
    for system, backing in (("fscrypt", "ext4"), ("luks-nbd", "ext4"), ("luks-nbd", "tmpfs")):
        got = {c: checks[(system, backing, c)] for s, b, c in checks if (s, b) == (system, backing)}
        assert got["wrong password refused"].values == (1.0,)
        assert got["plaintext absent from the backing store"].values == (1.0,)
        assert got["file names hidden"].values == (1.0,)
        flipped = got["flipped byte detected"]
        assert flipped.values == (0.0,)
        assert flipped.extra["detail"] == "not detected: read returned changed data"
    assert _leftovers(str(workdir)) == []
    assert not list(workdir.iterdir())
    assert [p for p in (Path("/etc/fscrypt.conf"), Path("/.fscrypt")) if p.exists()] == global_files


# Real bonnie++ 2.00a CSV lines from this machine (-f: no per-character columns).
BONNIE_TOO_FAST = (
    "1.98,2.00a,vm,1,1795604475,64M,,8192,5,,,+++++,+++,+++++,+++,,,+++++,+++,+++++,+++,"
    ",,,,,,,,,,,,,,,,,,2448us,94us,,4037us,7864us,,,,,,"
)
BONNIE_TIMED = (
    "1.98,2.00a,vm,1,1795604475,1G,,8192,5,,,90470,26,41660,29,,,310512,41,1834,62,"
    ",,,,,,,,,,,,,,,,,,2448us,94us,,4037us,7864us,,,,,,"
)


def test_bonnie_columns_it_could_not_time_are_skipped_with_the_reason_not_dropped():
    from cryptobench.scenarios.storage.workloads import TOO_FAST, parse_bonnie

    key = {"system": "ext4", "backing": "ext4"}
    fast = parse_bonnie("bonnie output\n" + BONNIE_TOO_FAST + "\n", key)
    by_workload = {(f.key["workload"], f.metric): f for f in fast}
    for name in ("write", "rewrite", "read"):
        f = by_workload[(f"bonnie {name}", "throughput")]
        assert (f.status, f.reason, f.unit) == ("skipped", TOO_FAST, "K/s")
    assert by_workload[("bonnie seeks", "rate")].status == "skipped"
    assert not [f for f in fast if f.metric == "cpu"]

    timed = {(f.key["workload"], f.metric): f for f in parse_bonnie(BONNIE_TIMED, key)}
    assert timed[("bonnie write", "throughput")].values == (90470.0,)
    assert timed[("bonnie read", "cpu")].values == (41.0,)
    assert timed[("bonnie seeks", "rate")].values == (1834.0,)
    assert "bonnie putc" not in {w for w, _ in timed}


def test_a_refusal_is_told_by_the_line_that_says_what_went_wrong():
    from cryptobench.scenarios.storage.security import gist

    cryfs = (
        "did not mount (exit 11): CryFS Version 0.11.3\n\nPassword: \n"
        "Deriving encryption key (this can take some time)...done\n"
        "Error 11: Failed to decrypt the config file. Did you enter the correct password?\n"
    )
    assert gist(cryfs) == (
        "Error 11: Failed to decrypt the config file. Did you enter the correct password?"
    )
    long = "[Error] " + "x" * 300 + " Invalid password and/or keyfile"
    told = gist(long, limit=60)
    assert told.startswith("…") and told.endswith("Invalid password and/or keyfile")
    assert len(told) <= 61
    assert gist("") == "" and gist("just one line") == "just one line"


def test_bonnie_runs_in_a_page_cache_limit_except_where_the_data_is_memory(tmp_path, monkeypatch):
    """On a disk-backed system bonnie++ and the daemon run in a memory-limited control group;
    on tmpfs the limit would end the writer (tmpfs pages cannot be reclaimed), so it has none —
    and no bonnie figure fails (a first default run had bonnie++ killed by signal 9 on tmpfs)."""
    from cryptobench.scenarios.storage.pagecache import own_memory_group

    monkeypatch.setenv("CRYPTOBENCH_STATE_DIR", str(tmp_path / "state"))
    workdir = tmp_path / "work"
    workdir.mkdir()
    db = tmp_path / "r.db"
    argv = ["storage", "--systems", "tmpfs,gocryptfs", "--backings", "ext4", "--size", "8M"]
    argv += ["--runs", "1", "--workdir", str(workdir), "--db", str(db)]
    assert cli.main(argv) == 0
    figures = Store.open(db).figures(1)
    assert not [f for f in figures if f.status == "failed"], [
        f.reason for f in figures if f.status == "failed"
    ]
    bonnie = {
        f.key["system"]: f
        for f in figures
        if f.key.get("workload") == "bonnie write" and f.metric == "throughput"
    }
    assert set(bonnie) == {"tmpfs", "gocryptfs"}
    assert bonnie["tmpfs"].extra["page_cache_limit"] is None
    expected = 128 << 20 if own_memory_group()[0] is not None else None
    assert bonnie["gocryptfs"].extra["page_cache_limit"] == expected
    assert _leftovers(str(workdir)) == []


def test_the_default_measures_three_passes_on_ext4_and_one_on_tmpfs_unless_told():
    import argparse

    from cryptobench.scenarios.storage.command import add_arguments, runs_on, settings
    from cryptobench.scenarios.storage.figures import _runs_text

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    default = settings(parser.parse_args([]))
    assert (runs_on(default, "ext4"), runs_on(default, "tmpfs")) == (3, 1)
    assert _runs_text(default) == "3 runs on ext4, 1 run on tmpfs"
    told = settings(parser.parse_args(["--runs", "2"]))
    assert (runs_on(told, "ext4"), runs_on(told, "tmpfs")) == (2, 2)
    assert _runs_text(told) == "2 runs"
    assert runs_on({"runs": 4}, "tmpfs") == 4  # a run stored before the split
