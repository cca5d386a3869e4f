"""Every file system the storage scenario measures, by name, in the order it measures them: the
FUSE and clean adapters of `systems.py`, the kernel's fscrypt and the LUKS stand-in, each in its
own module, which only this registry names."""

from cryptobench.scenarios.storage.fscrypt import Fscrypt
from cryptobench.scenarios.storage.luks import LuksNbd
from cryptobench.scenarios.storage.systems import (
    Cryfs,
    Encfs,
    Ext4,
    Gocryptfs,
    RcloneCrypt,
    Securefs,
    System,
    Tmpfs,
)


def all_systems() -> dict[str, System]:
    systems = [
        Ext4(),
        Tmpfs(),
        Gocryptfs(),
        Gocryptfs(xchacha=True),
        Encfs(),
        Encfs(paranoia=True),
        Cryfs(),
        Securefs(),
        RcloneCrypt(),
        Fscrypt(),
        LuksNbd(),
    ]
    return {s.name: s for s in systems}
