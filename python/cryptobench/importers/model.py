"""What every importer gives: one `Imported` entry per case of the other tool, named in the
catalogue's words where a name fits; and the checks every figure passes before anything is stored
(finite, positive, in range, of the right type, no case twice)."""

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from cryptobench.errors import UserError

# What an imported figure may be: a time per operation above zero and below a day, a message
# size up to 1 TiB, a name of printable text. Anything else is a broken or hostile file.
MAX_NS = 86_400e9
MAX_SIZE = 1 << 40
MAX_NAME = 200
MAX_ENTRIES = 100_000


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


def load_json(text: str, tool: str) -> Any:
    """JSON of another tool: one line of error for anything that is not (NaN and Infinity are
    not JSON numbers; nesting beyond the parser's depth is refused)."""

    def no_constant(name: str) -> None:
        raise ValueError(f"{name} is not a number")

    try:
        return json.loads(text, parse_constant=no_constant)
    except RecursionError:
        raise UserError(f"{tool}: not JSON (nested too deeply)") from None
    except ValueError as e:
        raise UserError(f"{tool}: not JSON ({e})") from None


def number(value: Any, what: str) -> float:
    """A JSON or text number as a finite float; booleans and strings are not numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(f"{what}: {value!r} is not a number")
    try:
        out = float(value)
    except OverflowError:
        raise UserError(f"{what}: {value!r} is out of range") from None
    if not math.isfinite(out):
        raise UserError(f"{what}: {value!r} is not a finite number")
    return out


def check(entries: list[Imported], tool: str) -> list[Imported]:
    """Every figure finite, positive and in range, every name printable text, no case twice:
    checked before anything is stored."""
    if not entries:
        raise UserError(f"{tool}: no results in the file")
    if len(entries) > MAX_ENTRIES:
        raise UserError(f"{tool}: more than {MAX_ENTRIES} results")
    seen: set[tuple] = set()
    for e in entries:
        where = f"{tool}: {e.source!r}"[: MAX_NAME + 20]
        for name in (e.algorithm, e.source):
            if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
                raise UserError(f"{tool}: a name must be text of 1 to {MAX_NAME} characters")
            if not name.isprintable():
                raise UserError(f"{tool}: the name {name[:MAX_NAME]!r} is not printable text")
        if isinstance(e.size, bool) or not isinstance(e.size, int) or not 0 <= e.size <= MAX_SIZE:
            raise UserError(f"{where}: size {e.size!r} is not between 0 and {MAX_SIZE} bytes")
        if not e.ns_per_op:
            raise UserError(f"{where}: no measurements")
        for ns in e.ns_per_op:
            if not (isinstance(ns, float) and math.isfinite(ns) and 0 < ns <= MAX_NS):
                raise UserError(f"{where}: a time of {ns!r} ns is not above 0 and below a day")
        key = (e.provider, e.operation, e.algorithm, e.size)
        if key in seen:
            raise UserError(f"{where}: the same case appears twice in the file")
        seen.add(key)
    return entries
