"""The algorithm catalogue: a copy of what `cryptobench-native list` prints.

catalogue.json is copied from the native runner (native/src/core/algorithms.cpp is the source);
python/tests/test_runner_protocol.py checks that the copies are equal.
"""

import json
from importlib import resources

ALGORITHMS: dict[str, dict] = {
    a["name"]: a
    for a in json.loads(resources.files(__package__).joinpath("catalogue.json").read_text())
}

PUBLIC_KEY_KINDS = ("keypair", "signature", "pk-encryption", "key-agreement")


def find(name: str) -> dict | None:
    return ALGORITHMS.get(name)


def is_public_key_or_kdf(info: dict) -> bool:
    return info["kind"] in PUBLIC_KEY_KINDS or info["kind"] == "kdf"
