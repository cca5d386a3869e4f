"""The pass/fail table beside the figures: a wrong password must be refused, the plaintext and
the file names must not appear on the backing store, and a flipped byte in a backing file is
detected on read (where the system authenticates its data) or not."""

import os
import subprocess
from pathlib import Path

from cryptobench.figures import Figure
from cryptobench.scenarios.resources import Ledger
from cryptobench.scenarios.storage import blocks
from cryptobench.scenarios.storage.model import MARKER, NAME_MARKER, WRONG_PASSWORD
from cryptobench.scenarios.storage.systems import Mounted, MountFailed, System

# Words that mark the line of a daemon's output that says what went wrong.
TELLING = ("error", "fail", "incorrect", "invalid", "not correct", "denied", "refused", "integrity")


def gist(message: str, limit: int = 200) -> str:
    """The line of a tool's output that says what happened (the last one naming an error, else
    the last line), on one line; when too long, its end from a word boundary."""
    lines = [" ".join(line.split()) for line in message.splitlines() if line.strip()]
    if not lines:
        return ""
    telling = [line for line in lines if any(w in line.lower() for w in TELLING)]
    line = (telling or lines)[-1]
    if len(line) <= limit:
        return line
    tail = line[-limit:]
    return "…" + (tail.split(" ", 1)[1] if " " in tail else tail)


def _check(key: dict, name: str, passed: bool, detail: str) -> Figure:
    detail = " ".join(detail.split())
    return Figure(
        {**key, "check": name}, "passed", "bool", [1.0 if passed else 0.0], extra={"detail": detail}
    )


def write_probe(mounted: Mounted) -> Path:
    """A file whose name and content are recognisable, big enough to span several blocks."""
    probe = mounted.path / NAME_MARKER
    probe.write_bytes(MARKER * (65536 // len(MARKER) + 1))
    os.sync()
    return probe


def _backing_files(backing: Path) -> list[Path]:
    skip = ("gocryptfs.conf", ".encfs6.xml", "cryfs.config", ".securefs.json")
    return [p for p in backing.rglob("*") if p.is_file() and not p.name.endswith(skip)]


def at_rest(key: dict, backing: Path, files: list[Path] | None = None) -> list[Figure]:
    """`files`: where the ciphertext is when not in files under `backing` (an image)."""
    files = _backing_files(backing) if files is None else files
    leaked = [p for p in files if blocks.contains(p, MARKER)]
    names = [p for p in backing.rglob("*") if NAME_MARKER in p.name]
    return [
        _check(
            key,
            "plaintext absent from the backing store",
            not leaked,
            f"marker found in {leaked[0].name}" if leaked else f"{len(files)} files searched",
        ),
        _check(
            key,
            "file names hidden",
            not names,
            f"visible: {names[0].name}" if names else "no backing name shows the file name",
        ),
    ]


def wrong_password(
    system: System, ledger: Ledger, backing: Path, mnt: Path, work: Path, key: dict
) -> Figure:
    try:
        mounted = system.mount(ledger, backing, mnt, work, WRONG_PASSWORD)
    except MountFailed as e:
        return _check(key, "wrong password refused", True, gist(str(e)))
    listing = sorted(p.name for p in mounted.path.iterdir())
    system.unmount(ledger, mounted)
    return _check(
        key,
        "wrong password refused",
        False,
        "mounted with a wrong password; it shows "
        + ("an empty tree" if not listing else f"{len(listing)} entries"),
    )


def flipped_byte(
    system: System,
    ledger: Ledger,
    backing: Path,
    mnt: Path,
    work: Path,
    key: dict,
    target: tuple[Path, int] | None = None,
) -> Figure:
    """Flips one byte of the probe's ciphertext: at `target` (file, offset) when the system
    said where it lies, else in the middle of the largest backing file."""
    if target is None:
        files = sorted(_backing_files(backing), key=lambda p: p.stat().st_size)
        if not files:
            return _check(key, "flipped byte detected", False, "no backing file to flip")
        target = (files[-1], files[-1].stat().st_size // 2)
    try:
        blocks.flip_byte(*target)
    except OSError as e:
        return _check(key, "flipped byte detected", False, f"cannot flip a byte: {e}")
    with open("/proc/sys/vm/drop_caches", "w") as f:  # no decrypted copy survives in memory
        f.write("3\n")
    try:
        mounted = system.mount(ledger, backing, mnt, work)
    except MountFailed as e:
        return _check(key, "flipped byte detected", True, f"refused to mount: {gist(str(e))}")
    try:
        done = subprocess.run(
            ["cat", str(mounted.path / NAME_MARKER)], capture_output=True, timeout=60, check=False
        )
        if done.returncode != 0:
            return _check(
                key,
                "flipped byte detected",
                True,
                f"read failed: {gist(done.stderr.decode(errors='replace'))}",
            )
        expected = MARKER * (65536 // len(MARKER) + 1)
        silent = (
            "read returned changed data" if done.stdout != expected else "read returned the data"
        )
        return _check(key, "flipped byte detected", False, f"not detected: {silent}")
    finally:
        system.unmount(ledger, mounted)
