"""Where a file's bytes lie on the device below it, for the systems whose ciphertext is not a
file of its own (fscrypt on the run's ext4 image, the LUKS image under an ext4): the security
check flips a byte of exactly the probe file's ciphertext, not a random byte of a big image."""

import fcntl
import os
import struct
import subprocess
from pathlib import Path

FS_IOC_FIEMAP = 0xC020660B
FIEMAP_FLAG_SYNC = 0x1
_HEADER = struct.Struct("=QQIIII")  # fm_start, fm_length, fm_flags, mapped, count, reserved
_EXTENT = struct.Struct("=QQQQQIIII")  # logical, physical, length, 2 reserved, flags, 3 reserved


def physical_offset(path: Path) -> int:
    """The byte offset on the file system's device of the file's first byte (FIEMAP)."""
    request = bytearray(_HEADER.pack(0, 2**64 - 1, FIEMAP_FLAG_SYNC, 0, 1, 0))
    request += bytes(_EXTENT.size)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, FS_IOC_FIEMAP, request)
    finally:
        os.close(fd)
    mapped = _HEADER.unpack_from(request)[3]
    if mapped < 1:
        raise OSError(f"{path}: no extent mapped")
    return _EXTENT.unpack_from(request, _HEADER.size)[1]


def device_of(mount_point: Path) -> str:
    target = os.path.realpath(mount_point)
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) > 1 and fields[1] == target:
                return fields[0]
    raise OSError(f"{mount_point} is not a mount point")


def loop_backing(device: str) -> Path:
    """The image file behind a loop device."""
    out = subprocess.run(
        ["losetup", "-n", "-O", "BACK-FILE", device],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    ).stdout.strip()
    if not out:
        raise OSError(f"{device} is not a loop device with a backing file")
    return Path(out)


def luks1_payload_offset(image: Path) -> int:
    """Where the encrypted sectors begin in a LUKS1 image (header field payload-offset, in
    512-byte sectors, big-endian at byte 104)."""
    with open(image, "rb") as f:
        header = f.read(108)
    if header[:6] != b"LUKS\xba\xbe" or int.from_bytes(header[6:8], "big") != 1:
        raise OSError(f"{image}: not a LUKS1 image")
    return int.from_bytes(header[104:108], "big") * 512


def contains(path: Path, needle: bytes, chunk: int = 8 << 20) -> bool:
    """Whether the file holds `needle`, read in chunks (images are gigabytes)."""
    keep = len(needle) - 1
    tail = b""
    with open(path, "rb") as f:
        while block := f.read(chunk):
            if needle in tail + block:
                return True
            tail = block[-keep:] if keep else b""
    return False


def flip_byte(path: Path, offset: int) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0x01]))
        f.flush()
        os.fsync(f.fileno())
