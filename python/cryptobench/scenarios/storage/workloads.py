"""What runs on each mounted file system, each returning figures: dd-style sequential write
and read (fdatasync, page cache dropped before reading), fio, metadata (untar, ls -lR, rm -r),
space on the backing store, and bonnie++. CPU% counts every process involved: the workload's
own children (rusage) and the file system's daemon (/proc/PID/stat)."""

import contextlib
import json
import os
import resource
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from cryptobench.figures import Figure, skipped

MIB = 1 << 20
TIMEOUT_S = 1800


def _proc_cpu_s(pids: list[int]) -> float:
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(
    argv: list[str], pids: list[int], cwd: Path | None = None, preexec=None
) -> tuple[float, float, str]:
    """Runs argv; returns (wall seconds, CPU% of it and the daemons, stdout)."""
    cpu0, own0 = _proc_cpu_s(pids), _children_cpu_s()
    start = time.perf_counter()
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=cwd,
        check=False,
        preexec_fn=preexec,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        how = (
            f"killed by signal {-done.returncode}"
            if done.returncode < 0
            else f"exit {done.returncode}"
        )
        raise RuntimeError(f"{argv[0]} {how}: {done.stderr.strip()[-300:]}".rstrip(": "))
    cpu = _proc_cpu_s(pids) - cpu0 + _children_cpu_s() - own0
    return wall, 100.0 * cpu / wall if wall > 0 else 0.0, done.stdout


def drop_caches() -> None:
    """Whatever was written must come from the disk (or the daemon) when read back."""
    os.sync()
    # Not root: the read may come from the page cache; the docs say so.
    with contextlib.suppress(OSError):
        Path("/proc/sys/vm/drop_caches").write_text("3\n")


def dd(path: Path, size: int, pids: list[int], key: dict) -> list[Figure]:
    f = path / "dd.bin"
    count = max(1, size // MIB)
    wall, cpu, _ = timed(
        [
            "dd",
            "if=/dev/zero",
            f"of={f}",
            "bs=1M",
            f"count={count}",
            "conv=fdatasync",
            "status=none",
        ],
        pids,
    )
    out = [
        Figure({**key, "workload": "dd write"}, "throughput", "MB/s", [count * MIB / wall / 1e6]),
        Figure({**key, "workload": "dd write"}, "cpu", "%", [cpu], "lower"),
    ]
    drop_caches()
    wall, cpu, _ = timed(["dd", f"if={f}", "of=/dev/null", "bs=1M", "status=none"], pids)
    out += [
        Figure({**key, "workload": "dd read"}, "throughput", "MB/s", [count * MIB / wall / 1e6]),
        Figure({**key, "workload": "dd read"}, "cpu", "%", [cpu], "lower"),
    ]
    f.unlink()
    return out


def fio(path: Path, size: int, pids: list[int], key: dict, seconds: int) -> list[Figure]:
    out = []
    jobs = (
        ("fio seq write", "write", "1M"),
        ("fio seq read", "read", "1M"),
        ("fio rand read 4k", "randread", "4k"),
    )
    for name, rw, bs in jobs:
        if rw != "write":
            drop_caches()
        argv = [
            "fio",
            "--name=cb",
            f"--directory={path}",
            f"--rw={rw}",
            f"--bs={bs}",
            f"--size={max(size, 4 * MIB)}",
            "--ioengine=psync",
            "--end_fsync=1",
            f"--runtime={seconds}",
            "--time_based=0",
            "--output-format=json",
        ]
        _, cpu, stdout = timed(argv, pids)
        job = json.loads(stdout[stdout.index("{") :])["jobs"][0]
        side = job["write" if rw == "write" else "read"]
        k = {**key, "workload": name}
        out.append(Figure(k, "throughput", "MB/s", [side["bw_bytes"] / 1e6]))
        out.append(Figure(k, "iops", "1/s", [side["iops"]]))
        pct = side.get("clat_ns", {}).get("percentile", {})
        for label, q in (("p50", "50.000000"), ("p99", "99.000000")):
            if q in pct:
                out.append(Figure(k, f"latency {label}", "µs", [pct[q] / 1e3], "lower"))
        out.append(Figure(k, "cpu", "%", [cpu], "lower"))
    for f in path.glob("cb.*"):
        f.unlink()
    return out


def tarball(cache: Path) -> tuple[Path, str, int]:
    """Many small files built once from this machine (/usr/share/doc), with its sha256."""
    import hashlib

    path = cache / "metadata-tree.tar"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        # a temporary name of its own: two runs (or two test workers) may build it at once
        fd, tmp_name = tempfile.mkstemp(dir=cache, suffix=".tmp")
        os.close(fd)
        tmp = Path(tmp_name)
        tmp.chmod(0o644)  # as a file written in place would be
        with tarfile.open(tmp, "w") as tar:
            count = 0
            for root, _dirs, files in os.walk("/usr/share/doc"):
                for name in sorted(files):
                    p = Path(root) / name
                    if p.is_file() and not p.is_symlink() and count < 4000:
                        tar.add(p, arcname=str(p.relative_to("/usr/share")))
                        count += 1
        os.replace(tmp, path)
    with tarfile.open(path) as tar:
        members = len(tar.getmembers())
    return path, hashlib.sha256(path.read_bytes()).hexdigest(), members


def metadata(path: Path, tar: Path, pids: list[int], key: dict) -> list[Figure]:
    target = path / "tree"
    target.mkdir()
    out = []
    for name, argv in (
        ("untar", ["tar", "xf", str(tar), "-C", str(target)]),
        ("ls -lR", ["ls", "-lR", str(target)]),
        ("rm -r", ["rm", "-r", str(target)]),
    ):
        if name == "ls -lR":
            drop_caches()
        wall, _, _ = timed(argv, pids)
        out.append(Figure({**key, "workload": name}, "time", "s", [wall], "lower"))
    return out


def _backing_bytes(backing: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(backing):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(root) / name).lstat().st_size
    return total


def space(path: Path, backing: Path, key: dict) -> list[Figure]:
    before = _backing_bytes(backing)
    f = path / "space.bin"
    f.write_bytes(os.urandom(1_000_000))
    os.sync()
    time.sleep(0.5)  # a daemon that writes back lazily (rclone)
    used = _backing_bytes(backing) - before
    f.unlink()
    return [
        Figure(
            {**key, "workload": "1,000,000-byte file"},
            "bytes on backing store",
            "B",
            [used],
            "lower",
        )
    ]


def bonnie(path: Path, size: int, pids: list[int], key: dict, preexec=None) -> list[Figure]:
    """bonnie++ with -r set to half the file size, so its own rule (file ≥ 2 × RAM) holds
    without writing twice the machine's memory; the page cache is dropped before it, and
    `preexec` puts it in a control group whose memory (page cache included) is limited to that
    half (`pagecache.py`), so the cache cannot hide the rewrite and read phases. Its
    per-character tests are skipped (-f): bonnie++ 2.x does them with one system call per byte,
    which on a FUSE file system is one round trip to the daemon per byte (64 M of them for a
    64 MiB file: minutes per system). Block write, rewrite, block read and seeks remain."""
    size_mb = max(2, size // MIB)
    argv = [
        "bonnie++",
        "-d",
        str(path),
        "-s",
        str(size_mb),
        "-r",
        str(size_mb // 2),
        "-n",
        "0",
        "-u",
        "root",
        "-q",
        "-f",
    ]
    drop_caches()
    _, _, stdout = timed(argv, pids, preexec=preexec)
    return parse_bonnie(stdout, key)


# bonnie++ prints "+++++" (or "+++") for a test that ended too quickly for it to time.
TOO_FAST = (
    "bonnie++ printed +++++: the test ended too quickly for it to time (the file is too small "
    "for this system; use a larger --size)"
)


def parse_bonnie(stdout: str, key: dict) -> list[Figure]:
    """bonnie++ 2.x CSV: version,…,name,…,size,…,putc,putc_cpu,put_block,put_block_cpu,rewrite,
    rewrite_cpu,getc,getc_cpu,get_block,get_block_cpu,seeks,seeks_cpu,… A column it could not
    time is a skipped figure with the reason, never a silent gap; the per-character columns are
    empty with -f and are left out."""
    line = next(x for x in stdout.splitlines() if x.count(",") > 10)
    f = line.split(",")
    names = ("putc", "write", "rewrite", "getc", "read", "seeks")
    start = 9  # putc, in bonnie++'s CSV format 1.98 (bonnie++ 1.98 and 2.x)
    out = []
    for i, name in enumerate(names):
        value, cpu = f[start + 2 * i].strip(), f[start + 2 * i + 1].strip()
        k = {**key, "workload": f"bonnie {name}"}
        metric, unit = ("rate", "1/s") if name == "seeks" else ("throughput", "K/s")
        if "+" in value:
            out.append(skipped(k, metric, unit, TOO_FAST))
        elif value:
            out.append(Figure(k, metric, unit, [float(value)]))
        if cpu and "+" not in cpu:
            out.append(Figure(k, "cpu", "%", [float(cpu)], "lower"))
    return out
