"""`cryptobench storage`: what an encrypted file system costs, beside the clean one."""

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptobench.errors import UserError
from cryptobench.figures import Figure, failed, skipped
from cryptobench.scenarios import packages
from cryptobench.scenarios.base import Started, Target, options_from, run_figure_scenario
from cryptobench.scenarios.storage import security, workloads
from cryptobench.scenarios.storage.model import (
    DEFAULT_SIZE,
    FIO_SECONDS,
    QUICK_RUNS,
    QUICK_SIZE,
    RUNS,
)
from cryptobench.scenarios.storage.registry import all_systems
from cryptobench.scenarios.storage.security import gist
from cryptobench.scenarios.storage.systems import MountFailed

BACKINGS = ("ext4", "tmpfs")


def add_arguments(p: argparse.ArgumentParser) -> None:
    names = ", ".join(all_systems())
    p.add_argument("--systems", metavar="LIST", help=f"systems (default: all: {names})")
    p.add_argument("--size", metavar="SIZE", help="file size for dd, fio, bonnie (default 1G)")
    p.add_argument("--runs", type=int, metavar="N", help=f"repetitions (default {RUNS})")
    p.add_argument(
        "--backings",
        metavar="LIST",
        default=None,
        help="what the encrypted systems sit on: ext4 (a fresh loop image), tmpfs "
        "(default: both; --quick: ext4)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="64 MiB files, one run, every system on ext4: a few minutes",
    )
    p.add_argument("--no-bonnie", action="store_true", help="skip bonnie++")
    p.add_argument("--workdir", type=Path, metavar="DIR", help="where the image is made")
    p.add_argument("--note", default="", help="a note stored with the run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write an HTML report")
    p.add_argument("--json-out", type=Path, metavar="FILE", help="also write the figures as JSON")


def settings(args: "Options") -> dict[str, Any]:
    from cryptobench.units import parse_size

    systems = all_systems()
    chosen = [s.strip() for s in (args.systems or ",".join(systems)).split(",") if s.strip()]
    unknown = [s for s in chosen if s not in systems]
    if unknown or not chosen:
        raise UserError(
            f"--systems: unknown system {unknown[0] if unknown else '(none)'!r} "
            f"(known: {', '.join(systems)})"
        )
    given = args.backings or ("ext4" if args.quick else "ext4,tmpfs")
    backings = [b.strip() for b in given.split(",") if b.strip()]
    if not backings or any(b not in BACKINGS for b in backings):
        raise UserError(f"--backings: expected ext4 and/or tmpfs, not {given!r}")
    size = parse_size(args.size) if args.size else (QUICK_SIZE if args.quick else DEFAULT_SIZE)
    if not 4 << 20 <= size <= 64 << 30:
        raise UserError("--size must be between 4M and 64G")
    runs = args.runs if args.runs is not None else (QUICK_RUNS if args.quick else RUNS)
    if not 1 <= runs <= 50:
        raise UserError("--runs must be between 1 and 50")
    # The tmpfs backing isolates the CPU cost (no disk, so little spread between passes): one
    # pass unless --runs says otherwise, which keeps the default run within half an hour here.
    tmpfs_runs = args.runs if args.runs is not None else 1
    return {
        "systems": chosen,
        "backings": backings,
        "size": size,
        "runs": runs,
        "runs_by_backing": {"ext4": runs, "tmpfs": tmpfs_runs},
        "bonnie": not args.no_bonnie,
    }


def runs_on(spec: dict, backing: str) -> int:
    """Repetitions on a backing (runs stored before runs_by_backing existed: `runs` on both)."""
    return spec.get("runs_by_backing", {}).get(backing, spec["runs"])


def _image_bytes(size: int) -> int:
    return 3 * size + (512 << 20)


def _check_room(workdir: Path, spec: dict) -> None:
    free = shutil.disk_usage(workdir).free
    need = _image_bytes(spec["size"])
    if free < need:
        raise UserError(
            f"{workdir}: {free >> 20} MiB free; --size {spec['size'] >> 20} MiB "
            f"needs {need >> 20} MiB for its image"
        )
    if "tmpfs" in spec["backings"]:
        with open("/proc/meminfo") as f:
            avail = next(int(x.split()[1]) for x in f if x.startswith("MemAvailable")) << 10
        if avail < 3 * spec["size"] + (1 << 30):
            raise UserError(
                f"tmpfs backing: {avail >> 20} MiB of memory free, --size needs "
                f"{(3 * spec['size'] + (1 << 30)) >> 20} MiB"
            )


def _run(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise UserError(f"{argv[0]}: {done.stderr.strip()[-200:]}")
    return done.stdout.strip()


def make_base(ledger, work: Path, backing: str, size: int) -> Path:
    """The fresh file system everything of this backing sits on."""
    base = work / f"base-{backing}"
    base.mkdir()
    if backing == "tmpfs":
        ledger.add("mount", path=str(base))
        _run(["mount", "-t", "tmpfs", "-o", f"size={3 * size + (512 << 20)}", "tmpfs", str(base)])
        return base
    image = work / "ext4.img"
    with open(image, "wb") as f:
        f.truncate(_image_bytes(size))
    # -O encrypt: fscrypt needs the feature; files outside an encrypted directory are unchanged.
    _run(
        [
            "mkfs.ext4",
            "-q",
            "-F",
            "-O",
            "encrypt",
            "-E",
            "lazy_itable_init=0,lazy_journal_init=0",
            str(image),
        ]
    )
    # Found by its backing file when released: `losetup -f --show` picks a free device and
    # attaches it in one call (a `losetup -f` first and an attach after could lose the device to
    # another run in between).
    ledger.add("loop", device=None, backing=str(image))
    # Direct I/O: the image file's own page cache (charged to the loop worker, outside any limit
    # and never dropped between bonnie's phases) must not stand in for the disk.
    device = _run(["losetup", "-f", "--show", "--direct-io=on", str(image)])
    ledger.add("mount", path=str(base))
    _run(["mount", device, str(base)])
    return base


def measure_system(
    db, run_id, ledger, system, base: Path, work: Path, backing: str, spec: dict, tar: Path
) -> None:
    key = {"system": system.name, "backing": backing}
    in_memory = backing == "tmpfs" or system.name == "tmpfs"
    back = base / f"{system.name}-data"
    mnt = work / f"{system.name}-{backing}-mnt"
    back.mkdir()
    try:
        system.create(ledger, back, work, spec["size"])
        mounted = system.mount(ledger, back, mnt, work)
    except (MountFailed, subprocess.SubprocessError, OSError) as e:
        db.add_figures(run_id, [failed(key, "mount", "-", gist(str(e), 300))])
        return
    measured = False
    target = None
    try:
        for repetition in range(runs_on(spec, backing)):
            figs: list[Figure] = []
            repeated = [
                lambda: workloads.dd(mounted.path, spec["size"], mounted.pids, key),
                lambda: workloads.metadata(mounted.path, tar, mounted.pids, key),
                lambda: workloads.space(mounted.path, mounted.backing, key),
            ]
            # fio and bonnie++ once: the paper repeated dd; a fio job already averages over its
            # time-bounded run (with latency percentiles), and bonnie's table is one pass moving
            # four times the file.
            once = [
                lambda: workloads.fio(mounted.path, spec["size"], mounted.pids, key, FIO_SECONDS)
            ]
            if spec["bonnie"]:
                once.append(lambda: bonnie(ledger, mounted, spec["size"], key, in_memory))
            for workload in repeated + (once if repetition == 0 else []):
                try:
                    figs += workload()
                except (
                    RuntimeError,
                    subprocess.SubprocessError,
                    OSError,
                    ValueError,
                    StopIteration,
                    KeyError,
                ) as e:
                    figs.append(failed(key, "workload", "-", str(e)[-300:]))
            db.add_figures(run_id, figs)
            measured = True
        if system.encrypted:
            try:
                probe = security.write_probe(mounted)
            except OSError as e:
                why = f"cannot write the probe file: {e.strerror}"
                db.add_figures(run_id, [failed(key, "security checks", "-", why)])
                measured = False  # nothing to check at rest
            else:
                try:
                    target = system.flip_target(mounted, probe)
                except OSError:
                    target = None  # the check then flips a byte of the largest backing file
    finally:
        system.unmount(ledger, mounted)
    if system.encrypted and measured:
        checks = security.at_rest(key, back, system.at_rest_files(back))
        checks.append(security.wrong_password(system, ledger, back, mnt, work, key))
        checks.append(security.flipped_byte(system, ledger, back, mnt, work, key, target))
        db.add_figures(run_id, checks)
    shutil.rmtree(back, ignore_errors=True)


def bonnie(ledger, mounted, size: int, key: dict, in_memory: bool) -> list[Figure]:
    """bonnie++ in a control group whose memory, page cache included, is half the file: the
    cache cannot hide its rewrite and read of the file system's files."""
    import dataclasses

    from cryptobench.scenarios.storage.pagecache import PageCacheLimit

    if in_memory:
        # tmpfs pages are the data itself and cannot be reclaimed (no swap): a limit would only
        # end the writer, and there is no disk for the page cache to hide.
        figs = workloads.bonnie(mounted.path, size, mounted.pids, key)
        note = {"page_cache_limit": None, "why": "the data is in memory (tmpfs): nothing to hide"}
        return [dataclasses.replace(f, extra={**f.extra, **note}) for f in figs]
    # At least 128 MiB: the daemons' own working memory counts too, and a FUSE daemon ended by
    # the limit would be a failure of the harness, not of the file system.
    limit = PageCacheLimit(ledger, max(size // 2, 128 << 20))
    try:
        # bonnie++ alone: a FUSE daemon inside the limit deadlocks (its memory reclaim waits for
        # the writeback of pages only it can write: nbdfuse hung a run here for ten minutes).
        figs = workloads.bonnie(mounted.path, size, mounted.pids, key, limit.preexec())
        peak = limit.peak()
    finally:
        limit.close()
    note = (
        {"page_cache_limit": limit.limit, "memory_peak": peak}
        if not limit.why
        else {"page_cache_limit": None, "why": limit.why}
    )
    return [dataclasses.replace(f, extra={**f.extra, **note}) for f in figs]


def crypto_ceiling(db, run_id) -> None:
    """gocryptfs -speed: its ciphers alone, in memory (Go's testing.Benchmark on 4 KiB)."""
    import re

    if shutil.which("gocryptfs") is None:
        return
    out = subprocess.run(
        ["gocryptfs", "-speed"], capture_output=True, text=True, timeout=300, check=False
    ).stdout
    figs = [
        Figure(
            {"system": "gocryptfs -speed", "cipher": m.group(1)},
            "throughput",
            "MB/s",
            [float(m.group(2))],
        )
        for m in re.finditer(r"^(\S+)\s+([\d.]+) MB/s", out, re.M)
    ]
    db.add_figures(run_id, figs)


@dataclass(frozen=True)
class Options:
    """What `cryptobench storage` measures (the command line's options, typed; None: the
    default the option's help names)."""

    systems: str | None = None  # comma-separated
    size: str | None = None  # "1G"
    runs: int | None = None
    backings: str | None = None  # "ext4,tmpfs"
    quick: bool = False
    no_bonnie: bool = False
    workdir: Path | None = None


def command(args: argparse.Namespace) -> int:
    return start(options_from(Options, args), Target.from_args(args)).status


def start(options: Options, target: Target) -> Started:
    """Measures the systems, stores the run; see run_figure_scenario for the rest of its life."""
    from cryptobench.scenarios.storage import SCENARIO

    spec = settings(options)
    systems = all_systems()
    packages.require(
        "storage",
        [t for name in spec["systems"] for t in systems[name].tools]
        + ["dd", "fio"]
        + (["bonnie++"] if spec["bonnie"] else []),
    )
    if os.geteuid() != 0:
        raise UserError("cryptobench storage needs root (loop devices, mounts, FUSE)")
    workdir = options.workdir or Path("/var/tmp")
    _check_room(workdir, spec)

    def measure(db, run_id: int, ledger) -> None:
        work = ledger.tempdir()
        if options.workdir:
            import tempfile

            work = Path(tempfile.mkdtemp(prefix="cryptobench-storage-", dir=workdir))
            ledger.add("path", path=str(work))
        measure_all(db, run_id, ledger, spec, work)

    return run_figure_scenario(SCENARIO, target, spec, measure)


def measure_all(db, run_id: int, ledger, spec: dict[str, Any], work: Path) -> None:
    """Every system on every backing, with the metadata tarball, the kernel's cipher and the
    crypto ceilings; each figure stored as it is measured."""
    systems = all_systems()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    tar, digest, members = workloads.tarball(cache / "cryptobench")
    spec["metadata_tarball"] = {"files": members, "sha256": digest}
    spec["kernel_cipher"] = _kernel_cipher()
    db.set_settings(run_id, {"scenario": spec})
    for name in spec["systems"]:
        why = systems[name].missing()
        if why:
            db.add_figures(run_id, [skipped({"system": name}, "mount", "-", why)])
    for backing in spec["backings"]:
        base = make_base(ledger, work, backing, spec["size"])
        if backing == "ext4":
            spec["image_direct_io"] = _direct_io(base)
            db.set_settings(run_id, {"scenario": spec})
        for name in spec["systems"]:
            system = systems[name]
            if system.missing() or (backing == "tmpfs" and name in ("tmpfs",)):
                continue
            why = system.unsupported_on(backing)
            if why:
                key = {"system": name, "backing": backing}
                db.add_figures(run_id, [skipped(key, "mount", "-", why)])
                continue
            print(f"run {run_id}: {system.label} on {backing}", file=sys.stderr, end="",
                  flush=True)  # fmt: skip
            began, ended = time.monotonic(), " interrupted"
            try:
                measure_system(db, run_id, ledger, system, base, work, backing, spec, tar)
                ended = ""
            finally:
                took = time.monotonic() - began
                print(f" ({took:.0f} s{ended})", file=sys.stderr, flush=True)
    crypto_ceiling(db, run_id)


def _direct_io(base: Path) -> bool:
    """Whether the loop device under `base` reads and writes its image with direct I/O (the
    kernel falls back to cached I/O where the image's file system cannot do it, e.g. tmpfs)."""
    device = next(
        line.split()[0] for line in Path("/proc/self/mounts").read_text().splitlines()
        if line.split()[1] == os.path.realpath(base)
    )  # fmt: skip
    try:
        return Path(f"/sys/block/{Path(device).name}/loop/dio").read_text().strip() == "1"
    except OSError:
        return False


def _kernel_cipher() -> str:
    """The kernel's AES-XTS driver (what fscrypt or dm-crypt would use here)."""
    try:
        text = Path("/proc/crypto").read_text()
    except OSError:
        return "unknown"
    blocks = text.split("\n\n")
    xts = [b for b in blocks if "name         : xts(aes)" in b]
    for b in xts:
        for line in b.splitlines():
            if line.startswith("driver"):
                return line.split(":", 1)[1].strip()
    return "no xts(aes) registered (loaded on first use)"
