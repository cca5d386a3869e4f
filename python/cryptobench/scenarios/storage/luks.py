"""Userspace block encryption: the stand-in for geli, gbde, TrueCrypt and dm-crypt, which cannot
run here (FreeBSD, or no device-mapper in this kernel).

A real LUKS1 image (aes-xts-plain64, made by `qemu-img create -f luks`) is decrypted in user
space by nbdkit's luks filter (GnuTLS), exposed as a file by nbdfuse, attached to a loop device
and mounted as ext4. That is one NBD and one FUSE hop more than dm-crypt, so it is labelled
"userspace block encryption", never dm-crypt. nbdkit and nbdfuse run in the foreground, recorded
by pid; the chain is recorded in the ledger before each step and undone newest first."""

import itertools
import subprocess
import time
from pathlib import Path

from cryptobench.scenarios.resources import Ledger
from cryptobench.scenarios.storage import blocks
from cryptobench.scenarios.storage.model import PASSWORD
from cryptobench.scenarios.storage.systems import (
    MOUNT_TIMEOUT_S,
    Mounted,
    MountFailed,
    System,
    _wait_mounted,
)

IMAGE = "disk.luks"
# qemu-img measures the PBKDF2 rate with the thread's CPU time; on a busy machine a short
# measurement can read zero and it gives up ("Unable to get accurate CPU usage"): retry, with a
# pause (three attempts in a row all failed while a test run shared the machine).
CREATE_ATTEMPTS = 8
_mounts = itertools.count(1)  # each mount its own socket and FUSE directory


def _run(argv: list[str], what: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip()
        raise MountFailed(f"{what}: {message.splitlines()[-1] if message else done.returncode}")
    return done.stdout.strip()


def _passfile(work: Path, password: str) -> Path:
    path = work / f"luks-pass-{abs(hash(password))}"
    path.write_text(password)
    path.chmod(0o600)
    return path


class LuksNbd(System):
    def __init__(self):
        super().__init__(
            "luks-nbd",
            "LUKS aes-xts-plain64, userspace block encryption (nbdkit + nbdfuse + loop + ext4)",
            ("qemu-img", "nbdkit", "nbdfuse", "losetup", "mkfs.ext4", "fusermount3"),
            False,
        )
        self._fresh = False

    def create(self, ledger: Ledger, backing: Path, work: Path, size: int) -> None:
        # Room for the workloads' largest files at once (dd or fio, and bonnie), as the run's
        # own image has.
        image_bytes = 2 * size + (256 << 20)
        secret = f"secret,id=s0,file={_passfile(work, PASSWORD)}"
        options = (
            "key-secret=s0,cipher-alg=aes-256,cipher-mode=xts,ivgen-alg=plain64,"
            "hash-alg=sha256,iter-time=500"
        )
        argv = ["qemu-img", "create", "-q", "-f", "luks", "--object", secret, "-o", options]
        for attempt in range(CREATE_ATTEMPTS):
            try:
                _run([*argv, str(backing / IMAGE), str(image_bytes)], "qemu-img create")
                break
            except MountFailed:
                if attempt + 1 == CREATE_ATTEMPTS:
                    raise
                time.sleep(0.5 * (attempt + 1))
        self._fresh = True

    def mount(self, ledger, backing, mnt, work, password=PASSWORD):
        tag = f"{backing.parent.name}-{next(_mounts)}"
        fusedir = work / f"nbd-{tag}"
        fusedir.mkdir(exist_ok=True)
        mnt.mkdir(parents=True, exist_ok=True)
        log = work / f"{self.name}.log"
        made: list[dict] = []
        try:
            # A Unix socket's path has at most 107 bytes: it goes in a short directory of its own.
            sock = ledger.tempdir(prefix="cb-nbd-") / "s"
            made.append(ledger.entries[-1])
            with open(log, "wb") as out:
                server = ledger.spawn(
                    [
                        "nbdkit",
                        "-f",
                        "--unix",
                        str(sock),
                        "--filter=luks",
                        "file",
                        str(backing / IMAGE),
                        f"passphrase=+{_passfile(work, password)}",
                    ],
                    stdout=out,
                    stderr=out,
                )
                made.append(ledger.entries[-1])
                deadline = time.monotonic() + MOUNT_TIMEOUT_S
                while not sock.exists():
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise MountFailed(f"nbdkit did not start: {log.read_text()[-300:]}")
                    time.sleep(0.05)
                made.append(ledger.add("mount", path=str(fusedir), fuse=True))
                client = ledger.spawn(
                    ["nbdfuse", str(fusedir), "--unix", str(sock)], stdout=out, stderr=out
                )
                made.append(ledger.entries[-1])
            try:
                _wait_mounted(fusedir, client, log)
            except MountFailed:
                # A wrong passphrase: nbdkit refuses the connection and nbdfuse exits.
                server_log = log.read_text(errors="replace")
                reason = [line for line in server_log.splitlines() if "passphrase" in line]
                raise MountFailed(reason[-1] if reason else server_log[-300:]) from None
            # Found by its backing file when released; picked and attached in one call.
            made.append(ledger.add("loop", device=None, backing=str(fusedir / "nbd")))
            # Direct I/O, as for the run's own image: the decrypted device's page cache (the
            # nbdfuse file's, charged to the loop worker) must not serve reads in place of nbdkit.
            device = _run(
                ["losetup", "-f", "--show", "--direct-io=on", str(fusedir / "nbd")], "losetup"
            )
            if self._fresh:
                _run(["mkfs.ext4", "-q", "-F", device], "mkfs.ext4")
                self._fresh = False
            made.append(ledger.add("mount", path=str(mnt)))
            _run(["mount", device, str(mnt)], "mount")
        except BaseException:
            for entry in reversed(made):
                ledger.release(entry)
            raise
        return Mounted(mnt, backing, [server.pid, client.pid], made)

    def unmount(self, ledger, mounted):
        sockdir, server, fuse_mount, client, loop, ext4 = mounted.entries
        for entry in (ext4, loop, fuse_mount, client, server, sockdir):  # nbdfuse exits first
            ledger.release(entry)

    def flip_target(self, mounted, probe):
        image = mounted.backing / IMAGE
        return image, blocks.luks1_payload_offset(image) + blocks.physical_offset(probe) + 100
