"""`botan speed --format=json`: a JSON array of {algo, op, events, nanos, buf_size, bps}; for
buffer operations `events` counts bytes, so one operation is one buffer of buf_size bytes."""

from cryptobench.errors import UserError
from cryptobench.importers.model import Imported, catalogue_name, check, load_json, number

PROVIDER = TOOL = "botan-speed"
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
    doc = load_json(text, TOOL)
    if not isinstance(doc, list):
        raise UserError(f"{TOOL}: expected a JSON array (botan speed --format=json)")
    out = []
    for entry in doc:
        if not isinstance(entry, dict) or not isinstance(entry.get("algo"), str):
            raise UserError(f"{TOOL}: an entry without an 'algo' name: {str(entry)[:80]}")
        op = OPERATIONS.get(entry.get("op"))  # type: ignore[arg-type]
        if op is None or not entry.get("nanos") or not entry.get("events"):
            continue  # key schedules and other set-up figures
        where = f"{TOOL}: {entry['algo']!r}"
        nanos, events = number(entry["nanos"], where), number(entry["events"], where)
        size = entry.get("buf_size", 0)
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise UserError(f"{where}: buf_size {size!r} is not a non-negative integer")
        operations = events / size if size else events
        if not operations > 0:
            raise UserError(f"{where}: {events!r} events is not a positive count")
        out.append(
            Imported(PROVIDER, op, catalogue_name(entry["algo"]), size, [nanos / operations],
                     entry["algo"])
        )  # fmt: skip
    if not out:
        raise UserError("no operations in the botan speed output")
    return check(out, TOOL)
