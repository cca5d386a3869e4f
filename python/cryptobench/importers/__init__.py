"""Reading other tools' results into a run, so an existing figure stands beside ours: one module
per tool, each with `parse(text) -> list[Imported]` (model.py). Imported cases are marked as such
and were never gated by cryptobench."""

from collections.abc import Callable

from cryptobench.importers import botan_speed, hyperfine, openssl_speed
from cryptobench.importers.model import Imported


def parsers() -> dict[str, Callable[[str], list[Imported]]]:
    return {
        "openssl-speed": openssl_speed.parse,
        "botan-speed": botan_speed.parse,
        "hyperfine": hyperfine.parse,
    }
