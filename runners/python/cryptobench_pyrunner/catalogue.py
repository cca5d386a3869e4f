"""The algorithm catalogue: the repository's catalogue/algorithms.json, read where the runner runs
from (build.sh's wrapper runs it from its source in the repository); no copy in this tree.
python/tests/test_catalogue.py checks that `list` prints its entries unchanged.
"""

import json
from pathlib import Path

FILE = Path(__file__).resolve().parents[3] / "catalogue" / "algorithms.json"
ALGORITHMS: dict[str, dict] = {a["name"]: a for a in json.loads(FILE.read_text())["algorithms"]}

PUBLIC_KEY_KINDS = ("keypair", "signature", "pk-encryption", "key-agreement", "kem")


def find(name: str) -> dict | None:
    return ALGORITHMS.get(name)


def is_public_key_or_kdf(info: dict) -> bool:
    return info["kind"] in PUBLIC_KEY_KINDS or info["kind"] == "kdf"
