"""The providers of this runner: one module per library, loaded when first asked for. A library
that cannot be imported leaves its provider listed with `unusable` and the reason. What a
provider offers is probed through its adapter (docs/protocol.md, "What a provider offers")."""

import importlib

from .. import catalogue
from ..common import Params
from ..errors import Unsupported

NAMES = ("pyca", "pycryptodome")
_loaded: dict = {}


class Provider:
    """provider.hpp, Provider: prepare(alg, op, params) returns run(data) -> bytes, which calls
    the library's normal API (keygen: run(_) -> key parts); a verifier or decryption that refuses
    its input raises; what the provider does not offer raises Unsupported before any parameter
    is read."""

    name = ""
    unusable = ""

    def version(self) -> str:
        return ""

    def code_path(self) -> dict:
        return {}

    def prepare(self, alg: str, op: str, params):
        raise NotImplementedError

    def generate_key(self, alg: str) -> dict:
        raise NotImplementedError


class Absent(Provider):
    def __init__(self, name: str, why: str):
        self.name, self.unusable = name, why


def provider_by_name(name: str) -> Provider | None:
    if name not in NAMES:
        return None
    if name not in _loaded:
        try:
            _loaded[name] = importlib.import_module(f".{name}", __name__).PROVIDER
        except ImportError as e:
            _loaded[name] = Absent(name, f"{name} cannot be imported: {e}")
    return _loaded[name]


def all_providers() -> list[Provider]:
    return [provider_by_name(n) for n in NAMES]


_probed: dict[str, dict[str, str]] = {}


def not_offered(p: Provider) -> dict[str, str]:
    """algorithm -> why the provider does not offer it ("" when it does), probed once: every
    operation of every catalogue algorithm prepared with parameters made from the catalogue
    alone; only the adapter's Unsupported means not offered."""
    if p.name not in _probed:
        algorithms = catalogue.ALGORITHMS.items()
        _probed[p.name] = {a: p.unusable or _probe(p, info) for a, info in algorithms}
    return _probed[p.name]


def offered(p: Provider) -> list[str]:
    return [a for a, why in not_offered(p).items() if not why]


def _probe(p: Provider, info: dict) -> str:
    params = Params(
        key=bytes(info["key_bytes"]), iv=bytes(info["iv_bytes"]), salt=bytes(16), out_len=32
    )
    for op in info["operations"]:
        try:
            p.prepare(info["name"], op, params)
        except Unsupported as e:
            return str(e) or f"{p.name} does not offer {info['name']}"
        except Exception:  # the probe's dummy parameters: the gate judges the rest
            pass
    return ""
