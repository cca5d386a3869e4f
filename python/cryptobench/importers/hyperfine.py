"""hyperfine's `--export-json`: results[] with the command and the wall time of every run
(`times`, seconds). Each command becomes one case of operation `run`, a sample per run."""

import json

from cryptobench.errors import UserError
from cryptobench.importers.model import Imported


def parse(text: str) -> list[Imported]:
    try:
        results = json.loads(text)["results"]
        out = [
            Imported(
                "hyperfine", "run", r["command"], 0, [t * 1e9 for t in r["times"]], r["command"]
            )
            for r in results
        ]
    except (ValueError, KeyError, TypeError) as e:
        raise UserError(f"hyperfine: not a hyperfine JSON export ({e})") from None
    if not out:
        raise UserError("hyperfine: no results in the file")
    return out
