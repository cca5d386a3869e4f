"""The storage scenario's settings and the 2009 paper's figures (002), decoded from its tables."""

QUICK_SIZE = 64 << 20
DEFAULT_SIZE = 1 << 30
RUNS = 3
QUICK_RUNS = 1
FIO_SECONDS = 10  # each fio job stops at the file's end or after this long
PASSWORD = "cryptobench-storage-test-password"
WRONG_PASSWORD = "not-the-password"
MARKER = b"CRYPTOBENCH-PLAINTEXT-MARKER-7f3a"
NAME_MARKER = "cryptobench-visible-name-7f3a"

# The paper's dd runs: 4 GiB from /dev/random with bs=1m on FreeBSD (bytes per second).
PAPER_DD: dict[str, float] = {
    "clean file system (file)": 28_293_392,
    "ufs on md (vnode)": 17_939_605,
    "ufs on ggate": 18_490_249,
    "geli + md": 15_184_980,
}
# Its bonnie summary table, decoded: machine -> (MB, per-char out K/s, %CPU, block out K/s,
# %CPU, rewrite K/s, %CPU, per-char in K/s, %CPU, block in K/s, %CPU, seeks/s, %CPU).
BONNIE_COLUMNS = (
    "MB",
    "putc K/s",
    "putc %CPU",
    "write K/s",
    "write %CPU",
    "rewrite K/s",
    "rewrite %CPU",
    "getc K/s",
    "getc %CPU",
    "read K/s",
    "read %CPU",
    "seeks/s",
    "seeks %CPU",
)
PAPER_BONNIE: dict[str, tuple[float, ...]] = {
    "geli + md": (1024, 17178, 25.7, 18324, 8.4, 5684, 2.2, 14492, 15.1, 15185, 2.3, 139.8, 0.7),
    "geli + ggate": (1024, 13855, 20.6, 12018, 5.2, 6388, 2.7, 19021, 21.8, 22473, 4.2, 136.5, 0.7),
    "gbde + md": (1024, 4436, 5.3, 4349, 1.7, 2695, 1.2, 12920, 13.7, 17078, 2.9, 130.1, 0.7),
    "gbde + ggate": (1024, 1971, 2.2, 1970, 0.8, 1480, 0.6, 13812, 15.2, 17206, 3.0, 120.3, 0.6),
    "fusefs + cryptofs": (
        1024,
        17207,
        23.8,
        21015,
        10.7,
        6494,
        3.5,
        16202,
        17.1,
        16829,
        3.2,
        70.1,
        1.2,
    ),
    "fusefs + encfs": (
        1024,
        19073,
        25.3,
        23250,
        11.4,
        7676,
        3.9,
        16402,
        18.4,
        19187,
        3.5,
        70.3,
        1.2,
    ),
    "cleanfs + su_on": (
        4096,
        33745,
        33.5,
        32517,
        12.8,
        10681,
        4.4,
        34911,
        35.9,
        39035,
        7.7,
        80.1,
        0.5,
    ),
    "cleanfs + su_off": (
        4096,
        34918,
        33.4,
        35108,
        12.9,
        11188,
        4.5,
        37268,
        38.3,
        39513,
        7.6,
        84.6,
        0.5,
    ),
}
PAPER_SOURCE = "the 2009 comparison (002): its dd runs and its bonnie summary tables"
# What stands in here for the paper's systems.
STAND_INS = {
    "geli / gbde / TrueCrypt (block devices)": "luks-nbd: LUKS aes-xts-plain64 decrypted in "
    "user space by nbdkit's luks filter (no device-mapper here)",
    "cryptofs (FUSE)": "gocryptfs, CryFS, securefs, rclone crypt",
    "encfs (FUSE)": "encfs (standard and paranoia)",
    "clean UFS": "ext4 on a loop image, and tmpfs",
    "(not in the paper)": "fscrypt, the kernel's file-level encryption on ext4",
}
