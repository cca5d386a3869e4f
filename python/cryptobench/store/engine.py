"""The database engines under the store: SQLAlchemy for the connection and the dialect, Alembic
for the schema. Store (db.py) writes its SQL with `?` placeholders in the standard subset that
SQLite and PostgreSQL share; the adapter here binds them by name for SQLAlchemy and gives rows
that read by column name or position. Nothing here knows a table."""

import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.util import CommandError

DatabaseError = sa.exc.DBAPIError
MIGRATIONS_DIR = Path(__file__).with_name("migrations")
BASELINE = "0006"


class UnknownRevision(Exception):
    """The database is at a schema revision this cryptobench does not know (a newer one)."""


def is_url(target: str) -> bool:
    return target.startswith(("postgresql://", "postgresql+psycopg://", "postgres://"))


def redacted(url: str) -> str:
    """The URL without its password, for messages and the store's name."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def reason(e: Exception) -> str:
    """The driver's own one-line message."""
    text = str(getattr(e, "orig", None) or e)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__


class Row:
    """A result row: row["column"], row[0], dict(row)."""

    def __init__(self, row: sa.Row):
        self._row = row
        self._map = row._mapping

    def __getitem__(self, key: int | str) -> Any:
        return self._row[key] if isinstance(key, int) else self._map[key]

    def keys(self) -> list[str]:
        return list(self._map.keys())


class Result:
    def __init__(self, rows: list[Row]):
        self.rows = rows

    def fetchone(self) -> Row | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[Row]:
        return self.rows

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)


_PLACEHOLDER = re.compile(r"\?")


def _named(sql: str, params: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    names = iter(range(len(params) + 1))
    text = _PLACEHOLDER.sub(lambda _: f":p{next(names)}", sql)
    return text, {f"p{i}": v for i, v in enumerate(params)}


class Connection:
    """One connection for the store's lifetime. A statement outside `transaction()` is its
    own transaction, as with SQLite's autocommit; `transaction()` groups statements."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine
        self.sa = engine.connect()
        self.dialect = engine.dialect.name
        self._depth = 0

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.sa.info["immediate"] = True
        self._depth = 1
        try:
            with self.sa.begin():
                yield
        finally:
            self._depth = 0
            self.sa.info["immediate"] = False

    def _run(self, sql: str, params: Sequence[Any] | list[dict]) -> Result:
        if self.dialect == "sqlite" and sql.lstrip().upper().startswith("PRAGMA"):
            raw = self.raw_sqlite()
            return Result([_PragmaRow(r) for r in raw.execute(sql, tuple(params)).fetchall()])
        text, bound = _named(sql, params)
        result = self.sa.execute(sa.text(text), bound)
        return Result([Row(r) for r in result] if result.returns_rows else [])

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        if self._depth:
            return self._run(sql, params)
        with self.sa.begin():
            return self._run(sql, params)

    def tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Rows as plain tuples, for reads of many rows where wrapping each one costs more
        than the query."""
        text, bound = _named(sql, params)
        with self.sa.begin():
            return [tuple(r) for r in self.sa.execute(sa.text(text), bound).all()]

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = list(rows)
        if not rows:
            return
        text, _ = _named(sql, rows[0])
        bound = [_named(sql, r)[1] for r in rows]
        if self._depth:
            self.sa.execute(sa.text(text), bound)
            return
        with self.sa.begin():
            self.sa.execute(sa.text(text), bound)

    def tables(self) -> list[str]:
        if self.sa.in_transaction():
            return sa.inspect(self.sa).get_table_names()
        with self.sa.begin():
            return sa.inspect(self.sa).get_table_names()

    def raw_sqlite(self) -> sqlite3.Connection:
        return self.sa.connection.driver_connection

    def close(self) -> None:
        self.sa.close()
        self.engine.dispose()


class _PragmaRow(tuple):
    pass


def connect_sqlite(path: Path, wait_s: float) -> Connection:
    engine = sa.create_engine(
        f"sqlite:///{path}",
        connect_args={"timeout": wait_s, "isolation_level": None},
        poolclass=sa.pool.StaticPool,
    )

    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn, _record) -> None:
        dbapi_conn.execute("PRAGMA foreign_keys = ON")
        # A commit per case must not stall measuring; NORMAL stays consistent after a crash
        # of this process (only a power cut can lose the last commits).
        dbapi_conn.execute("PRAGMA synchronous = NORMAL")

    @sa.event.listens_for(engine, "begin")
    def _begin(conn) -> None:
        # SQLite's own BEGIN, since the driver's implicit transactions are off; writes take
        # the file's write lock at once (IMMEDIATE), so check-then-act is atomic.
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("immediate") else "BEGIN")

    return Connection(engine)


def connect_sqlite_readonly(path: Path, wait_s: float) -> Connection:
    """The file opened by SQLite itself as read-only (`mode=ro`): a write fails in SQLite,
    whatever the code above asks."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    engine = sa.create_engine(
        "sqlite://",
        creator=lambda: sqlite3.connect(
            uri, uri=True, timeout=wait_s, isolation_level=None, check_same_thread=False
        ),
        poolclass=sa.pool.StaticPool,
    )

    @sa.event.listens_for(engine, "begin")
    def _begin(conn) -> None:
        conn.exec_driver_sql("BEGIN")

    return Connection(engine)


def connect_url(url: str, wait_s: float, read_only: bool = False) -> Connection:
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    connect_args: dict[str, Any] = {"connect_timeout": max(1, int(wait_s))}
    if read_only:
        # Every transaction of the session is READ ONLY: the server refuses any write.
        connect_args["options"] = "-c default_transaction_read_only=on"
    engine = sa.create_engine(url, connect_args=connect_args)
    return Connection(engine)


def _config(conn: Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["connection"] = conn.sa
    return cfg


def stamp_baseline(conn: Connection) -> None:
    """An SQLite file the legacy chain brought to version 6: Alembic takes over from here."""
    with conn.sa.begin():
        command.stamp(_config(conn), BASELINE)


def at_head(conn: Connection) -> bool:
    """Whether the database's schema is the newest revision this cryptobench knows."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_config(conn)).get_current_head()
    with conn.sa.begin():
        current = MigrationContext.configure(conn.sa).get_current_revision()
    return current == head


def upgrade(conn: Connection) -> None:
    try:
        with conn.sa.begin():
            command.upgrade(_config(conn), "head")
    except CommandError as e:
        if "Can't locate revision" in str(e):
            raise UnknownRevision(str(e)) from None
        raise
