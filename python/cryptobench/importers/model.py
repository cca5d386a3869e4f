"""What every importer gives: one `Imported` entry per case of the other tool, named in the
catalogue's words where a name fits."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Imported:
    provider: str  # the tool, e.g. "openssl-speed"
    operation: str  # encrypt, hash, sign, run, …
    algorithm: str  # a catalogue name where one fits, else the tool's own name, lower case
    size: int  # message bytes (0 for public-key operations and whole commands)
    ns_per_op: list[float]  # one value per measurement the tool reported
    source: str  # the tool's own name for it


def catalogue_name(name: str) -> str:
    """'AES-256-GCM', 'AES-256/GCM(16)', 'SHA-256', 'ChaCha20Poly1305' → catalogue names."""
    n = re.sub(r"\(.*?\)|\[.*?\]", "", name).strip().lower()
    n = n.replace("/", "-").replace("_", "-").replace(" ", "")
    aliases = {
        "chacha20poly1305": "chacha20-poly1305",
        "sha-256": "sha256",
        "sha-1": "sha1",
        "sha-384": "sha384",
        "sha-512": "sha512",
        "sha3-256": "sha3-256",
    }
    return aliases.get(n, re.sub(r"^sha-(\d)", r"sha\1", n))
