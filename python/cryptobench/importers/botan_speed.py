"""`botan speed --format=json`: a JSON array of {algo, op, events, nanos, buf_size, bps}; for
buffer operations `events` counts bytes, so one operation is one buffer of buf_size bytes."""

import json

from cryptobench.errors import UserError
from cryptobench.importers.model import Imported, catalogue_name

PROVIDER = "botan-speed"
OPERATIONS = {
    "encrypt": "encrypt",
    "decrypt": "decrypt",
    "hash": "hash",
    "mac": "mac",
    "sign": "sign",
    "verify": "verify",
    "key agreements": "derive",
}


def parse(text: str) -> list[Imported]:
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise UserError(f"botan speed: not JSON ({e})") from None
    if not isinstance(doc, list):
        raise UserError("botan speed: expected a JSON array (botan speed --format=json)")
    out = []
    for entry in doc:
        try:
            op = OPERATIONS.get(entry["op"])
            if op is None or not entry.get("nanos") or not entry.get("events"):
                continue  # key schedules and other set-up figures
            size = int(entry.get("buf_size", 0))
            operations = entry["events"] / size if size else entry["events"]
            ns = entry["nanos"] / operations
            out.append(
                Imported(PROVIDER, op, catalogue_name(entry["algo"]), size, [ns], entry["algo"])
            )
        except (KeyError, TypeError, ZeroDivisionError):
            raise UserError(f"botan speed: cannot read the entry {entry!r}") from None
    if not out:
        raise UserError("no operations in the botan speed output")
    return out
