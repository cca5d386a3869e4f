"""Reproductions of the papers that a core run repeats (not a scenario): `cryptobench reproduce
NNN` looks here after the scenarios (commands/reproduce.py). Each is a package with a
`reproduce(target, quick) -> Reproduction`; this module only names them, so finding one stays
cheap."""

from collections.abc import Callable

from cryptobench.report.reproduction import Reproduction
from cryptobench.scenarios.base import lazy

CORE: dict[str, Callable[..., Reproduction]] = {
    "001": lazy("cryptobench.reproductions.java.reproduce", "reproduce"),
    "openssl3": lazy("cryptobench.reproductions.openssl3.reproduce", "reproduce"),
}
