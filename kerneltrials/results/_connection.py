"""The SQLite connection under the store: pragmas, schema, short write transactions.

Durability: WAL journal, ``synchronous=FULL``, and every write is its own short
``BEGIN IMMEDIATE`` transaction committed before the method returns, so a process killed
at any point leaves a consistent database that lost at most the write in flight. Several
processes may write to one file: SQLite serialises writers and ``busy_timeout`` makes
them wait instead of failing. (WAL needs a local filesystem, not NFS.)
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from kerneltrials.results._errors import StoreError
from kerneltrials.results._schema import ensure_schema

DEFAULT_DB = "kerneltrials.sqlite"
DB_ENV = "KERNELTRIALS_DB"
BUSY_TIMEOUT_MS = 30_000


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds (what every ``*_at`` column holds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def resolve_db_path(path: str | os.PathLike[str] | None = None) -> Path:
    """``path``, else ``$KERNELTRIALS_DB``, else ``kerneltrials.sqlite`` in the cwd."""
    return Path(path or os.environ.get(DB_ENV) or DEFAULT_DB)


def _pragma(connection: sqlite3.Connection, pragma: str) -> None:
    """Run ``PRAGMA pragma``, retried while another connection holds the lock: switching a
    fresh file to WAL takes an exclusive lock, and SQLite answers a writer racing for it
    with "database is locked" at once, without its busy handler."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            connection.execute(f"PRAGMA {pragma}")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class StoreConnection:
    """One connection to a results database, schema ensured; a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()  # one connection, possibly shared by threads
        self._connection = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
        )
        self._connection.row_factory = sqlite3.Row
        try:
            for pragma in (
                f"busy_timeout = {BUSY_TIMEOUT_MS}",
                "journal_mode = WAL",
                "synchronous = FULL",
                "foreign_keys = ON",
            ):
                _pragma(self._connection, pragma)
            #: the schema version the file had when opened (older ones are migrated)
            self.migrated_from = ensure_schema(self._connection)
        except sqlite3.DatabaseError as error:  # not a database, corrupt, failed migration
            self._connection.close()
            raise StoreError(
                f"cannot open results store {path}: {error} (pass --db with "
                "a kerneltrials store, or a new path to create one)"
            ) from error
        except BaseException:
            self._connection.close()
            raise

    def close(self) -> None:
        """Close the connection (committed data is already on disk)."""
        self._connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"`` for a sound file."""
        return str(self._query("PRAGMA integrity_check")[0][0])

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One immediate transaction, committed on exit (rolled back on error)."""
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def _query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._connection.execute(sql, parameters).fetchall()
