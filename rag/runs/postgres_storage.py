"""The PostgreSQL engine of the run history: one database a team's app servers share.

Checkpoints go through `langgraph-checkpoint-postgres` (`PostgresSaver`, its own tables and
migrations via `setup()`), the `runs` table sits in the same database, and both use one psycopg
`ConnectionPool`. Connections are `autocommit=True` with `row_factory=dict_row`, as the saver
requires; our statements run in explicit transactions with tuple rows.

Opening: a direct connection is tried first, so a server that is down or refuses the login gives its
own reason (the pool would only time out). Migrations, ours and the saver's, run under a PostgreSQL
advisory lock, so two servers starting at once do not race on `CREATE TABLE`.

Credentials: `location`, every message and every log line carry the URL without its password
(`rag.redaction`); libpq's own messages are passed through the same filter, and the password itself,
should a message echo it, is masked.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from typing import Any, Iterator, Optional
from urllib.parse import parse_qsl, unquote, urlsplit

import psycopg
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg.rows import dict_row, tuple_row
from psycopg_pool import ConnectionPool, PoolTimeout

from rag.errors import HistoryUnavailableError
from rag.redaction import MASK, redact_url, redact_urls_in_text
from rag.runs import schema
from rag.runs.mirrored_saver import MirroredSaver
from rag.runs.run_info import now_iso
from rag.runs.storage import DATABASE_RECOVERY, Execute, HistoryStorage

RECOVERY = DATABASE_RECOVERY

#: Connect timeout in seconds for the first connection, the pool's connections and a wait for a pooled one:
#: short, because a Step that writes a checkpoint while the database is down waits this long once (then the
#: run goes on in memory, `rag.runs.mirrored_saver`).
CONNECT_TIMEOUT = int(os.environ.get("RAG_HISTORY_CONNECT_TIMEOUT", "3") or 3)
#: Advisory lock key for migrations (any constant shared by every app server of the database).
_MIGRATION_LOCK = 7_150_015
#: Errors that mean the database cannot be used (down, gone, login refused), as opposed to a bad statement.
_UNUSABLE = (psycopg.OperationalError, PoolTimeout)


class _WatchedPostgresSaver(PostgresSaver):
    """PostgresSaver that reports a lost database: a checkpoint write that fails because the server went
    away turns the history off (the app goes on in memory), as a damaged SQLite file does."""

    on_damage: Any = None

    @contextmanager
    def _cursor(self, *, pipeline: bool = False):
        try:
            with super()._cursor(pipeline=pipeline) as cur:
                yield cur
        except _UNUSABLE as exc:
            if self.on_damage is not None:
                self.on_damage(exc)
            raise


class PostgresStorage(HistoryStorage):
    engine = "postgresql"
    order_key = "seq"
    recovery = RECOVERY

    def __init__(self, url: str, *, max_size: Optional[int] = None):
        self._password = _password_of(url)
        self.location = self.db_path = redact_url(url) or "postgresql://"
        self.damage = None
        self.closed = False
        self._pool: Optional[ConnectionPool] = None
        kwargs = {"autocommit": True, "row_factory": dict_row, "prepare_threshold": 0,
                  "connect_timeout": CONNECT_TIMEOUT}
        try:
            with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT, autocommit=True):
                pass  # the clear reason when the server is down or refuses the login
            size = max_size or int(os.environ.get("RAG_HISTORY_POOL_SIZE", "8") or 8)
            self._pool = ConnectionPool(url, min_size=1, max_size=max(size, 2), kwargs=kwargs, open=False,
                                        name="rag-history", timeout=CONNECT_TIMEOUT,
                                        configure=None, check=ConnectionPool.check_connection)
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT * 2)
            # the pool's connections make dict rows (row_factory in `kwargs`), which its generic type cannot see
            self._saver = _WatchedPostgresSaver(self._pool)  # type: ignore[arg-type]
            self._mirror = MirroredSaver(self._saver)
            self._setup()
        except HistoryUnavailableError:
            self.close()
            raise
        except (psycopg.Error, PoolTimeout) as exc:
            self.close()
            raise HistoryUnavailableError(self.location, self.describe_error(exc)) from None
        self._saver.on_damage = self._mirror.on_lost = self.report_damage

    def _setup(self) -> None:
        """Our tables and the saver's, migrated by one server at a time (an advisory lock held on a
        connection of its own while the saver's `setup()` uses another)."""
        assert self._pool is not None
        with self._pool.connection() as conn:
            _take_lock(conn, self.location)
            try:
                with conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:
                    schema.migrate(_executor(cur), self.engine, now_iso())
                self._saver.setup()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))

    @property
    def checkpointer(self) -> MirroredSaver:
        """Live runs in memory, copied to the database while it answers (`rag.runs.mirrored_saver`)."""
        return self._mirror

    @contextmanager
    def transaction(self) -> Iterator[Execute]:
        self._check_open()
        assert self._pool is not None
        try:
            with self._pool.connection() as conn, conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:
                yield _executor(cur)
        except _UNUSABLE as exc:
            self.report_damage(exc)
            raise

    def is_duplicate(self, exc: BaseException) -> bool:
        return isinstance(exc, psycopg.errors.UniqueViolation)

    def describe_error(self, exc: BaseException) -> str:
        """libpq's message, one line, without any URL credentials or the password itself."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        text = redact_urls_in_text(text)
        if self._password:
            text = text.replace(self._password, MASK)
        return text[:300]

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self._pool is not None:
                self._pool.close()


def _take_lock(conn: Any, location: str, timeout_s: float = 120.0) -> None:
    """Take the migration lock by trying, not by waiting inside PostgreSQL: a session blocked in
    `pg_advisory_lock` holds a snapshot, and the saver's `CREATE INDEX CONCURRENTLY` in the session that
    has the lock waits for every such snapshot to end, so two servers starting together would deadlock."""
    deadline = time.monotonic() + timeout_s
    while not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (_MIGRATION_LOCK,)).fetchone()["ok"]:
        if time.monotonic() > deadline:
            raise HistoryUnavailableError(location, "another app server kept the schema migration lock "
                                          f"for {timeout_s:.0f} s")
        time.sleep(0.1)


def _password_of(url: str) -> str:
    """The password of `url` (user info or `?password=`), to mask should a message ever echo it."""
    try:
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
    except ValueError:
        return ""
    return unquote(parts.password or "") or query.get("password", "")


def _executor(cur: Any) -> Execute:
    def execute(sql: str, params: tuple = ()) -> list:
        cur.execute(sql.replace("%", "%%").replace("?", "%s"), tuple(params))
        return cur.fetchall() if cur.description is not None else []

    return execute
