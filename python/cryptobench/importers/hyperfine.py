"""hyperfine's `--export-json`: results[] with the command and the wall time of every run
(`times`, seconds). Each command becomes one case of operation `run`, a sample per run."""

from cryptobench.errors import UserError
from cryptobench.importers.model import Imported, check, load_json, number

TOOL = "hyperfine"


def parse(text: str) -> list[Imported]:
    doc = load_json(text, TOOL)
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, list):
        raise UserError(f"{TOOL}: not a hyperfine JSON export (no 'results' list)")
    out = []
    for r in results:
        command = r.get("command") if isinstance(r, dict) else None
        times = r.get("times") if isinstance(r, dict) else None
        if not isinstance(command, str) or not isinstance(times, list):
            raise UserError(f"{TOOL}: a result without a 'command' text and a 'times' list")
        ns = [number(t, f"{TOOL}: {command!r}") * 1e9 for t in times]
        out.append(Imported(TOOL, "run", command, 0, ns, command))
    return check(out, TOOL)
