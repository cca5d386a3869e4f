"""The providers of this runner: one module per library, loaded when first asked for. A library
that cannot be imported leaves its provider listed with `unusable` and the reason."""

import importlib

NAMES = ("pyca", "pycryptodome")
_loaded: dict = {}


class Provider:
    """provider.hpp, Provider: prepare(alg, op, params) returns run(data) -> bytes, which calls
    the library's normal API; a verifier or decryption that refuses its input raises."""

    name = ""
    unusable = ""

    def algorithms(self) -> list[str]:
        return []

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
