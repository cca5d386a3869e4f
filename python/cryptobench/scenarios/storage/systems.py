"""The file systems measured, one small adapter each: what it needs, how to create it on a
backing directory, how to mount it (its daemon in the foreground, so the run knows its pid and
can end it by pid), and whether it authenticates its data.

A mount is recorded in the run's ledger before it is made and undone at the end whatever
happens; the daemon is a ledger `pid` entry."""

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from cryptobench.scenarios.resources import Ledger
from cryptobench.scenarios.storage.model import PASSWORD

MOUNT_TIMEOUT_S = 60


class MountFailed(Exception):
    pass


@dataclass
class Mounted:
    path: Path  # where the workloads run
    backing: Path  # where the ciphertext (or the data) lives
    pids: list[int] = field(default_factory=list)  # processes whose CPU time counts
    entries: list[dict] = field(default_factory=list)  # ledger entries to release on unmount


def is_mounted(path: Path) -> bool:
    target = os.path.realpath(path)
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == target for line in f)


def _wait_mounted(path: Path, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + MOUNT_TIMEOUT_S
    while time.monotonic() < deadline:
        if is_mounted(path):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    # Whole lines (the last few KB): the reader picks the one that says what went wrong.
    tail = log.read_text(errors="replace")[-4000:].split("\n", 1)[-1] if log.exists() else ""
    raise MountFailed(f"did not mount (exit {proc.poll()}): {tail.strip()}")


@dataclass
class System:
    name: str
    label: str
    tools: tuple[str, ...]
    authenticated: bool | None  # detects a flipped byte on read
    fuse: bool = True
    needs_root: bool = False
    encrypted: bool = True  # the security checks apply

    def missing(self) -> str | None:
        absent = [t for t in self.tools if shutil.which(t) is None]
        if absent:
            return f"{', '.join(absent)} not installed (`make apt-storage` installs it)"
        if self.fuse and not os.path.exists("/dev/fuse"):
            return "no /dev/fuse"
        if (self.fuse or self.needs_root) and os.geteuid() != 0:
            return "needs root"
        return None

    def unsupported_on(self, backing_kind: str) -> str | None:
        """Why the system cannot sit on this backing ("ext4" or "tmpfs"), or None."""
        return None

    # ---- per system -------------------------------------------------------------------------

    def create(self, ledger: Ledger, backing: Path, work: Path, size: int) -> None:
        """Makes a new encrypted directory in `backing` (nothing for clean baselines); `size`
        is the workloads' file size."""

    def at_rest_files(self, backing: Path) -> list[Path] | None:
        """Where to look for leaked plaintext, when not the files under `backing`."""
        return None

    def flip_target(self, mounted: "Mounted", probe: Path) -> tuple[Path, int] | None:
        """Where the probe's ciphertext lies (file, offset), when not in a backing file of its
        own; asked while mounted."""
        return None

    def mount_argv(self, backing: Path, mnt: Path, work: Path, password: str) -> list[str]:
        """The daemon's command line, in the foreground (FUSE systems override it)."""
        raise MountFailed(f"{self.name} has no daemon to start")

    def mount_env(self, backing: Path, password: str) -> dict[str, str]:
        return {}

    def mount_stdin(self, password: str) -> bytes | None:
        return None

    # ---- common ----------------------------------------------------------------------------

    def mount(
        self, ledger: Ledger, backing: Path, mnt: Path, work: Path, password: str = PASSWORD
    ) -> Mounted:
        mnt.mkdir(parents=True, exist_ok=True)
        log = work / f"{self.name}.log"
        mount_entry = ledger.add("mount", path=str(mnt), fuse=True)
        with open(log, "wb") as out:  # this attempt's messages only
            proc = ledger.spawn(
                self.mount_argv(backing, mnt, work, password),
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=out,
                env={**os.environ, **self.mount_env(backing, password)},
            )
        pid_entry = ledger.entries[-1]
        if proc.stdin is not None:
            data = self.mount_stdin(password)
            try:
                if data:
                    proc.stdin.write(data)
                proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            _wait_mounted(mnt, proc, log)
        except MountFailed:
            ledger.release(pid_entry)
            ledger.release(mount_entry)
            raise
        return Mounted(mnt, backing, [proc.pid], [pid_entry, mount_entry])

    def unmount(self, ledger: Ledger, mounted: Mounted) -> None:
        subprocess.run(
            ["fusermount3", "-u", str(mounted.path)], capture_output=True, timeout=60, check=False
        )
        for entry in mounted.entries:  # the daemon exits on unmount; if not, by its pid
            ledger.release(entry)


class Gocryptfs(System):
    def __init__(self, xchacha: bool = False):
        name = "gocryptfs-xchacha" if xchacha else "gocryptfs"
        label = "gocryptfs, XChaCha20-Poly1305" if xchacha else "gocryptfs, AES-256-GCM"
        super().__init__(name, label, ("gocryptfs", "fusermount3"), True)
        self.xchacha = xchacha

    def _passfile(self, work: Path, password: str) -> Path:
        path = work / f"pass-{abs(hash(password))}"
        path.write_text(password + "\n")
        path.chmod(0o600)
        return path

    def create(self, ledger, backing, work, size):
        argv = ["gocryptfs", "-init", "-q", "-passfile", str(self._passfile(work, PASSWORD))]
        subprocess.run(
            [*argv, *(["-xchacha"] if self.xchacha else []), str(backing)],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def mount_argv(self, backing, mnt, work, password):
        return [
            "gocryptfs",
            "-f",
            "-q",
            "-passfile",
            str(self._passfile(work, password)),
            str(backing),
            str(mnt),
        ]


class Encfs(System):
    def __init__(self, paranoia: bool = False):
        name = "encfs-paranoia" if paranoia else "encfs"
        label = "encfs, paranoia (AES-256, MAC per block)" if paranoia else "encfs, standard"
        super().__init__(name, label, ("encfs", "fusermount3"), paranoia)
        self.paranoia = paranoia
        self._creating = False

    def create(self, ledger, backing, work, size):
        self._creating = True  # encfs creates its volume on the first mount

    def mount_argv(self, backing, mnt, work, password):
        return ["encfs", "-f", "--stdinpass", "-S", str(backing.resolve()), str(mnt.resolve())]

    def mount_stdin(self, password: str) -> bytes:
        if self._creating:
            self._creating = False
            return (("p" if self.paranoia else "") + "\n" + password + "\n").encode()
        return (password + "\n").encode()


class Cryfs(System):
    def __init__(self):
        super().__init__("cryfs", "CryFS", ("cryfs", "fusermount3"), True)

    def mount_argv(self, backing, mnt, work, password):
        config = work / f"cryfs-{backing.parent.name}.config"  # one per backing file system
        return ["cryfs", "-f", "--config", str(config), str(backing), str(mnt)]

    def mount_env(self, backing, password):
        return {"CRYFS_FRONTEND": "noninteractive", "CRYFS_NO_UPDATE_CHECK": "true"}

    def mount_stdin(self, password: str) -> bytes:
        return (password + "\n").encode()


class Securefs(System):
    def __init__(self):
        super().__init__("securefs", "securefs", ("securefs", "fusermount3"), True)

    def create(self, ledger, backing, work, size):
        subprocess.run(
            ["securefs", "create", "--pass", PASSWORD, str(backing)],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def mount_argv(self, backing, mnt, work, password):
        return ["securefs", "mount", "--pass", password, str(backing), str(mnt)]


class RcloneCrypt(System):
    def __init__(self):
        super().__init__("rclone-crypt", "rclone crypt mount", ("rclone", "fusermount3"), None)

    def mount_argv(self, backing, mnt, work, password):
        # Writes go through the local cache (dd's fdatasync needs it) and are uploaded to the
        # backing directory at once on close, so the unmount finds them written.
        return [
            "rclone",
            "mount",
            "cbcrypt:",
            str(mnt),
            "--vfs-cache-mode",
            "writes",
            "--vfs-write-back",
            "0s",
            "--cache-dir",
            str(work / "rclone-cache"),
        ]

    def mount_env(self, backing, password):
        obscured = subprocess.run(
            ["rclone", "obscure", password], capture_output=True, text=True, check=True, timeout=30
        ).stdout.strip()
        return {
            "RCLONE_CONFIG_CBCRYPT_TYPE": "crypt",
            "RCLONE_CONFIG_CBCRYPT_REMOTE": str(backing),
            "RCLONE_CONFIG_CBCRYPT_PASSWORD": obscured,
            "RCLONE_CONFIG": "/dev/null",
        }


class Ext4(System):
    """The clean baseline: a directory on the run's fresh ext4 image itself."""

    def __init__(self):
        super().__init__("ext4", "ext4 (clean)", (), None, fuse=False, encrypted=False)

    def mount(self, ledger, backing, mnt, work, password=PASSWORD):
        backing.mkdir(parents=True, exist_ok=True)
        return Mounted(backing, backing)

    def unmount(self, ledger, mounted):
        pass


class Tmpfs(System):
    """Memory only: what is left when the disk is taken away (CPU cost of the FS layers)."""

    def __init__(self):
        super().__init__(
            "tmpfs",
            "tmpfs (clean, in memory)",
            ("mount",),
            None,
            fuse=False,
            needs_root=True,
            encrypted=False,
        )

    def mount(self, ledger, backing, mnt, work, password=PASSWORD):
        mnt.mkdir(parents=True, exist_ok=True)
        entry = ledger.add("mount", path=str(mnt))
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=90%", "tmpfs", str(mnt)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode != 0:
            ledger.release(entry)
            raise MountFailed(done.stderr.strip())
        return Mounted(mnt, mnt, [], [entry])

    def unmount(self, ledger, mounted):
        for entry in mounted.entries:
            ledger.release(entry)
