"""The encrypted-containers paper (002): its claims and their criteria.

Data:
  noise              relative noise threshold of this machine
  dd_ratio           {system: dd write MB/s ÷ the clean file system's, same backing}
  block_write_ratio  {system: bonnie block-write K/s ÷ the clean file system's}
  refused            {system: True when it refused a wrong password}
"""

from cryptobench.criteria import Missing, Spec, Verdict, need, noise

PAPER_DD_RATIO = 15_184_980 / 17_939_605  # geli + md ÷ UFS on the same md (dd), 0.85
PAPER_FUSE_RATIO = 23_250 / 32_517  # encfs block write ÷ clean UFS (bonnie), the higher FUSE one
BLOCK_STAND_IN = "luks-nbd"  # geli's stand-in here
FUSE_SYSTEMS = ("encfs", "gocryptfs")  # encfs itself; gocryptfs in cryptofs's place


def _at_most(ratio: dict, systems, bound: float, tol: float, label: str) -> Verdict:
    got = {s: ratio[s] for s in systems if s in ratio}
    if not got:
        raise Missing(label)
    ours = ", ".join(f"{s} {r:.2f}" for s, r in got.items())
    return Verdict(all(r <= bound * (1 + tol) for r in got.values()), ours)


def block_cost(d):
    return _at_most(need(d, "dd_ratio"), (BLOCK_STAND_IN,), PAPER_DD_RATIO, noise(d), "dd_ratio")


def fuse_cost(d):
    ratio = need(d, "block_write_ratio")
    return _at_most(ratio, FUSE_SYSTEMS, PAPER_FUSE_RATIO, noise(d), "block_write_ratio")


def refuses(d):
    refused = need(d, "refused")
    got = {s: refused[s] for s in ("encfs", BLOCK_STAND_IN) if s in refused}
    if not got:
        raise Missing("refused[encfs, luks-nbd]")
    ours = ", ".join(f"{s} {'refused' if r else 'accepted'}" for s, r in got.items())
    return Verdict(all(got.values()), ours)


def cryptofs_accepts(d):
    refused = need(d, "refused")
    accepted = sorted(s for s, r in refused.items() if not r)
    ours = "accepted a wrong password here: " + (", ".join(accepted) or "none")
    if "cryptofs" not in refused:
        return Verdict(None, ours, "cryptofs no longer exists; none of its stand-ins is cryptofs")
    return Verdict(not refused["cryptofs"], ours)


SPECS = (
    Spec(
        "002.1",
        "Encrypting a block device costs about 15% of its write speed: geli on md writes at "
        "0.85 of UFS on the same md",
        "dd outputs of the md and geli sections",
        "dd 15,184,980 B/s (geli + md) against 17,939,605 B/s (UFS on md): 0.85; the 0.54 "
        "against a plain file includes md's own halving",
        "our block-device stand-in (LUKS through nbdkit) writes with dd at most 0.85 × "
        "(1 + noise) of the clean file system on the same backing: encryption costs at least "
        "the paper's share",
        block_cost,
    ),
    Spec(
        "002.2",
        "The FUSE file systems write blocks at 0.65-0.72 of the clean file system",
        "bonnie summary table (block output)",
        "cryptofs 21,015, encfs 23,250 K/s against clean UFS 32,517 K/s (the clean rows used "
        "a 4096 MB file, the encrypted 1024 MB)",
        "encfs and gocryptfs (cryptofs's stand-in) write blocks at most 0.72 × (1 + noise) "
        "of ext4 on the same backing",
        fuse_cost,
    ),
    Spec(
        "002.3",
        "geli and encfs refuse a wrong password",
        "geli section; encfs section",
        "geli creates no device; encfs checks the password against its key",
        "encfs and the LUKS stand-in both refuse to mount with a wrong password",
        refuses,
    ),
    Spec(
        "002.4",
        "cryptofs accepts a wrong password and encrypts with it",
        "cryptofs section",
        "it mounts and lists garbage names",
        "cryptofs mounts with a wrong password (cryptofs itself: its stand-ins are other designs)",
        cryptofs_accepts,
    ),
)
