"""The results store. Every read and write of the database goes through `Store`; nothing else in
cryptobench speaks SQL. Today's backend is one SQLite file (sqlite.py); the schema and its
migrations are in schema.py."""

from cryptobench.store.schema import MIGRATIONS, SCHEMA_VERSION
from cryptobench.store.sqlite import (
    DatabaseError,
    RunInfo,
    Store,
    default_path,
    locked_message,
    now,
)

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "DatabaseError",
    "RunInfo",
    "Store",
    "default_path",
    "locked_message",
    "now",
]
