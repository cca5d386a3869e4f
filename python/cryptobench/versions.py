"""Versioned providers (docs/versions.md): `openssl@3.5`, `aws-lc`, ... built by `make versions`
from the sources crates.io packages carry. The table is native/versions/versions.json; this module
says why one the runners do not list is absent."""

import json
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
TABLE_PATH = REPO_ROOT / "native" / "versions" / "versions.json"


def cache_dir() -> Path:
    """Where `make versions` puts the libraries (CRYPTOBENCH_CACHE overrides)."""
    env = os.environ.get("CRYPTOBENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "cryptobench"


def table() -> dict[str, dict]:
    """provider -> its entry; empty when the table is not there (an installed package alone)."""
    try:
        return json.loads(TABLE_PATH.read_text())["providers"]
    except (OSError, ValueError, KeyError):
        return {}


def built(cache: Path | None = None) -> dict[str, dict]:
    """provider -> its build record (build.json) for every build in the cache."""
    out: dict[str, dict] = {}
    for record in sorted((cache or cache_dir()).glob("*/build.json")):
        try:
            data = json.loads(record.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("provider"), str):
            out.setdefault(data["provider"], {**data, "home": str(record.parent)})
    return out


def absent(listed: set[str], cache: Path | None = None) -> dict[str, str]:
    """Every versioned provider the runners do not list, with the reason."""
    records = built(cache)
    out: dict[str, str] = {}
    for name, entry in table().items():
        if name in listed:
            continue
        if name in records:
            out[name] = (
                f"built in {records[name]['home']} but the native runner was built without it: "
                "make native"
            )
        elif entry.get("recipe"):
            out[name] = f"not built: {entry.get('make', 'make versions')}"
        else:
            out[name] = (
                f"not built: make versions has no recipe for it yet ({entry['crate']} "
                f"{entry['crate_version']} carries {entry['version']})"
            )
    return out
