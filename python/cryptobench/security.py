"""Security levels: each algorithm's strength in bits and what NIST SP 800-57, BSI TR-02102-1 and
ECRYPT-CSA D5.4 say about it, from the package's data file data/security_levels.toml.

The file is checked as it is loaded: a missing field, an unknown status or kind, a year that is
not a year, or an entry for a document the file does not cite is an error naming the entry.
`recommend`, the report and the exports read it through `levels()`.
"""

import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from cryptobench.capabilities import KINDS
from cryptobench.errors import UserError

DOCUMENTS = ("nist", "bsi", "ecrypt")
STATUSES = (
    "recommended",
    "acceptable",
    "legacy",
    "not recommended",
    "disallowed",
    "not covered",
)
# The security strengths SP 800-57 Part 1 works with (Table 2); results are grouped by the largest
# of these an algorithm reaches. 0: broken (MD5).
LEVELS = (0, 80, 112, 128, 192, 256)
DATA_FILE = "security_levels.toml"


@dataclass(frozen=True)
class Document:
    key: str  # nist, bsi, ecrypt
    name: str  # "BSI TR-02102-1"
    title: str
    version: str
    url: str

    @property
    def citation(self) -> str:
        return f"{self.name}, {self.title}, {self.version}"


@dataclass(frozen=True)
class Verdict:
    """One document's word on one algorithm: `status` through the year `until` (if any), `then`
    afterwards."""

    status: str
    note: str = ""
    until: int | None = None
    then: str | None = None

    def at(self, year: int) -> str:
        if self.until is not None and year > self.until and self.then:
            return self.then
        return self.status

    def describe(self, year: int) -> str:
        """'acceptable until 2030', 'not recommended (since 2024)', 'recommended'."""
        now = self.at(year)
        if self.until is None:
            return now
        if year <= self.until:
            return f"{now} until {self.until}"
        return f"{now} (since {self.until + 1})"


@dataclass(frozen=True)
class Rating:
    algorithm: str
    kind: str
    strength: int  # bits
    basis: str  # why that many bits
    verdicts: dict[str, Verdict]  # document key -> verdict
    category: int | None = None  # NIST PQC security category (1-5) of a post-quantum algorithm

    @property
    def level(self) -> int:
        """The largest SP 800-57 strength category (LEVELS) the algorithm reaches."""
        return max(level for level in LEVELS if level <= self.strength)

    def disallowed_by(self, year: int) -> list[str]:
        return [doc for doc, v in self.verdicts.items() if v.at(year) == "disallowed"]


@dataclass(frozen=True)
class SecurityLevels:
    documents: dict[str, Document]
    ratings: dict[str, Rating]

    def get(self, algorithm: str) -> Rating | None:
        return self.ratings.get(algorithm)

    def strongest(self) -> int:
        return max(r.strength for r in self.ratings.values())


def current_year() -> int:
    return datetime.now(UTC).year


@cache
def levels() -> SecurityLevels:
    """The package's data file, loaded and checked once."""
    text = (resources.files("cryptobench") / "data" / DATA_FILE).read_text("utf-8")
    return parse(text, f"cryptobench/data/{DATA_FILE}")


def parse(text: str, where: str) -> SecurityLevels:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{where}: invalid TOML: {e}") from None
    _only(doc, {"documents", "algorithms"}, where)
    documents = {}
    for key, d in _table(doc, "documents", where).items():
        here = f"{where}: documents.{key}"
        if key not in DOCUMENTS:
            raise UserError(f"{here}: unknown document (known: {', '.join(DOCUMENTS)})")
        _only(d, {"name", "title", "version", "url"}, here)
        fields = ("name", "title", "version", "url")
        documents[key] = Document(key, *(_text(d, f, here) for f in fields))
    missing = [k for k in DOCUMENTS if k not in documents]
    if missing:
        raise UserError(f"{where}: documents: {', '.join(missing)} missing")
    ratings = {}
    for name, a in _table(doc, "algorithms", where).items():
        here = f"{where}: algorithms.{name}"
        if not isinstance(a, dict):
            raise UserError(f"{here}: must be a table")
        _only(a, {"kind", "strength", "basis", "category", *DOCUMENTS}, here)
        kind = _text(a, "kind", here)
        if kind not in KINDS:
            raise UserError(f"{here}: kind '{kind}' is not one of {', '.join(KINDS)}")
        strength = a.get("strength")
        if isinstance(strength, bool) or not isinstance(strength, int) or not 0 <= strength <= 512:
            raise UserError(f"{here}: strength must be a number of bits (0-512), got {strength!r}")
        verdicts = {d: _verdict(a.get(d), f"{here}.{d}") for d in DOCUMENTS}
        category = a.get("category")
        if category is not None and (isinstance(category, bool) or category not in range(1, 6)):
            raise UserError(f"{here}: category must be a NIST PQC category 1-5, got {category!r}")
        ratings[name] = Rating(name, kind, strength, _text(a, "basis", here), verdicts, category)
    if not ratings:
        raise UserError(f"{where}: no algorithms")
    return SecurityLevels(documents, ratings)


def _verdict(v: Any, where: str) -> Verdict:
    if not isinstance(v, dict):
        raise UserError(f"{where}: missing (every algorithm needs a verdict of every document)")
    _only(v, {"status", "note", "until", "then"}, where)
    status = _text(v, "status", where)
    if status not in STATUSES:
        raise UserError(f"{where}: status '{status}' is not one of {', '.join(STATUSES)}")
    note = v.get("note", "")
    if not isinstance(note, str):
        raise UserError(f"{where}: note must be a string")
    until, then = v.get("until"), v.get("then")
    if (until is None) != (then is None):
        raise UserError(f"{where}: 'until' and 'then' go together")
    if until is not None:
        if isinstance(until, bool) or not isinstance(until, int) or not 1990 <= until <= 2100:
            raise UserError(f"{where}: until must be a year, got {until!r}")
        if then not in STATUSES:
            raise UserError(f"{where}: then '{then}' is not one of {', '.join(STATUSES)}")
    return Verdict(status, note, until, then)


def _table(doc: dict, key: str, where: str) -> dict:
    value = doc.get(key)
    if not isinstance(value, dict):
        raise UserError(f"{where}: '{key}' table missing")
    return value


def _text(d: dict, key: str, where: str) -> str:
    value = d.get(key)
    if not isinstance(value, str) or not value:
        raise UserError(f"{where}: '{key}' must be a non-empty string")
    return value


def _only(d: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(d) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed))
        raise UserError(f"{where}: unknown key '{unknown[0]}' (known: {known})")


# ---- kinds -----------------------------------------------------------------------------------


def kind_of(algorithm: str, operation: str, has_cost: bool = False) -> str:
    """An algorithm's kind: from the data file, which covers the whole catalogue; for a name it
    does not know (a newer runner's), a guess from the operation."""
    rating = levels().get(algorithm)
    if rating:
        return rating.kind
    guesses = {
        "hash": "hash",
        "mac": "mac",
        "sign": "signature",
        "verify": "signature",
        "keygen": "keypair",
        "derive": "kdf" if has_cost else "key-agreement",
        "encaps": "kem",
        "decaps": "kem",
    }
    return guesses.get(operation, "cipher")
