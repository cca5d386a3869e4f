"""fscrypt: the kernel's file-level encryption on ext4 (policy v2, contents AES-256-XTS, names
AES-256-CTS), managed with the `fscrypt` tool and a custom passphrase protector.

"Mounting" is `fscrypt unlock` (the key goes into the file system's keyring) and unmounting is
`fscrypt lock`; there is no daemon. The run's ext4 image is made with `-O encrypt`. `fscrypt`
needs its global configuration `/etc/fscrypt.conf` and the root file system's `/.fscrypt`: when
they are absent the run creates them, records them in its ledger and removes them at the end.
The kernel's AES-XTS driver is recorded with the run (`kernel_cipher`): on a kernel without
AES-NI glue it is the generic constant-time AES, and the figures describe that kernel."""

import os
import subprocess
from pathlib import Path

from cryptobench.scenarios.resources import Ledger
from cryptobench.scenarios.storage import blocks
from cryptobench.scenarios.storage.model import PASSWORD
from cryptobench.scenarios.storage.systems import Mounted, MountFailed, System

TIMEOUT_S = 120
GLOBAL = (Path("/etc/fscrypt.conf"), Path("/.fscrypt"))


def _fscrypt(*args: str, password: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["fscrypt", *args, "--quiet"],
        input=password.encode() if password is not None else None,
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def _require(done: subprocess.CompletedProcess, what: str) -> None:
    if done.returncode != 0:
        message = (done.stderr or done.stdout).decode(errors="replace").strip()
        raise MountFailed(f"{what}: {message.splitlines()[-1] if message else done.returncode}")


class Fscrypt(System):
    def __init__(self):
        super().__init__(
            "fscrypt",
            "fscrypt on ext4 (kernel, AES-256-XTS)",
            ("fscrypt", "losetup"),
            False,
            fuse=False,
            needs_root=True,
        )
        self._fresh = False

    def unsupported_on(self, backing_kind: str) -> str | None:
        if backing_kind != "ext4":
            return f"fscrypt needs ext4 with the encrypt feature; {backing_kind} has no fscrypt"
        return None

    def create(self, ledger: Ledger, backing: Path, work: Path, size: int) -> None:
        if not GLOBAL[0].exists():
            for path in GLOBAL:
                if not path.exists():
                    ledger.add("path", path=str(path))
            _require(_fscrypt("setup", "--force", "--time=100ms"), "fscrypt setup")
        root = backing.parent  # the run's ext4 image, mounted
        if not (root / ".fscrypt").exists():
            _require(_fscrypt("setup", str(root), "--force"), f"fscrypt setup {root}")
        self._fresh = True

    def mount(self, ledger, backing, mnt, work, password=PASSWORD):
        if self._fresh:
            self._fresh = False
            done = _fscrypt(
                "encrypt",
                str(backing),
                "--source=custom_passphrase",
                f"--name=cryptobench-{os.getpid()}",
                password=password,
            )
            _require(done, "fscrypt encrypt")
        else:
            _require(_fscrypt("unlock", str(backing), password=password), "fscrypt unlock")
        return Mounted(backing, backing)

    def unmount(self, ledger, mounted):
        os.sync()
        _fscrypt("lock", str(mounted.path))

    def at_rest_files(self, backing: Path) -> list[Path]:
        # Locked, the files cannot be read through the file system (ENOKEY): look at the image.
        return [blocks.loop_backing(blocks.device_of(backing.parent))]

    def flip_target(self, mounted, probe):
        image = blocks.loop_backing(blocks.device_of(mounted.backing.parent))
        return image, blocks.physical_offset(probe) + 100
