"""The results store. Every read and write of the database goes through `Store` (db.py); nothing
else in cryptobench speaks SQL. The engine is SQLite (a file, the default) or PostgreSQL (a
postgresql:// URL, for a team), both through SQLAlchemy (engine.py) with the schema from the same
Alembic migrations (migrations/); schema.py keeps the legacy chain of old SQLite files."""

from cryptobench.store.db import (
    DatabaseError,
    RunInfo,
    Store,
    default_path,
    locked_message,
    now,
)
from cryptobench.store.schema import MIGRATIONS, SCHEMA_VERSION

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
