"""The SQLite engine of the run history: one file with LangGraph's checkpoints and the `runs` table.

Why one file: a run's row and its checkpoints must live and die together (delete removes both,
copying the file moves both), and the app must find yesterday's runs after a restart.

Threads: Streamlit runs scripts on several threads, so the connection is opened with
`check_same_thread=False`, and every statement, ours and LangGraph's, goes through
`SqliteSaver.cursor()`, which holds the saver's lock and commits. One lock for one connection means
our writes can never commit half of a checkpoint write or the other way round.

Durability: the saver turns on WAL, and we set `synchronous=NORMAL`. Every debugger step commits
twice (the task writes, then the checkpoint); with SQLite's default FULL each commit waits for
an fsync, a fifth of a simple step. In WAL mode NORMAL still keeps every commit through an app
crash or kill and never corrupts the file; only an OS crash or power cut may drop the last
commits before the next WAL checkpoint.
"""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from langgraph.checkpoint.sqlite import SqliteSaver

from rag.errors import HistoryDamagedError
from rag.i18n import N_
from rag.runs import schema
from rag.runs.run_info import now_iso
from rag.runs.storage import Execute, HistoryStorage

#: What the user can do about a damaged history file (the app and the history page say it, translated).
RECOVERY = N_("Move the file aside (rename it, with any -wal and -shm file next to it, for example to "
            "history.db.broken) and restart the app: it starts a new, empty history. The old file can still be "
            "inspected or salvaged with the sqlite3 command line (.recover).")

#: SQLite result codes that mean the file itself cannot be used (as opposed to a busy or locked one).
_DAMAGE_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_FULL",
                 "SQLITE_READONLY", "SQLITE_PERM")


def is_damage(exc: BaseException) -> bool:
    """True for an SQLite error that says the history file is damaged or unusable (not a duplicate key,
    a locked database or a closed connection)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", "") or ""
    return type(exc) is sqlite3.DatabaseError or name.startswith(_DAMAGE_CODES)


class _WatchedSaver(SqliteSaver):
    """SqliteSaver that reports damage: every statement, LangGraph's and ours, goes through `cursor()`,
    so a corrupt page met while writing a checkpoint is noticed as well as one met while listing runs."""

    on_damage: Any = None

    @contextmanager
    def cursor(self, transaction: bool = True):
        try:
            with super().cursor(transaction) as cur:
                yield cur
        except sqlite3.DatabaseError as exc:
            if self.on_damage is not None and is_damage(exc):
                self.on_damage(exc)
            raise


class SqliteStorage(HistoryStorage):
    engine = "sqlite"
    order_key = "rowid"
    recovery = RECOVERY

    def __init__(self, db_path: "str | Path"):
        """Open (or create) the file. A file that is damaged or not a database raises
        HistoryDamagedError here, not at the first run: `PRAGMA quick_check` reads every page (about a
        millisecond per megabyte), so a file that opens but breaks on the first write is caught too."""
        self.db_path = self.location = str(db_path)
        self.damage = None
        self.closed = False
        if self.db_path != ":memory:":
            Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.db_path, check_same_thread=False)
        self._saver = _WatchedSaver(self._conn)
        try:
            with self._saver.cursor() as cur:  # also runs the saver's own setup (WAL, its tables)
                problems = [row[0] for row in cur.execute("PRAGMA quick_check").fetchall()]
                if problems != ["ok"]:
                    found = " ".join(" ".join(str(p) for p in problems).split())
                    raise HistoryDamagedError(self.db_path, f"integrity check: {found[:200]}")
                cur.execute("PRAGMA synchronous=NORMAL")  # see the module docstring (outside a transaction)
                schema.migrate(_executor(cur), self.engine, now_iso())
        except (sqlite3.DatabaseError, HistoryDamagedError) as exc:
            self.close()
            if isinstance(exc, HistoryDamagedError):
                raise
            raise HistoryDamagedError(self.db_path, f"{type(exc).__name__}: {exc}") from exc
        self._saver.on_damage = self.report_damage

    @property
    def checkpointer(self) -> SqliteSaver:
        return self._saver

    @contextmanager
    def transaction(self) -> Iterator[Execute]:
        self._check_open()
        with self._saver.cursor() as cur:
            yield _executor(cur)

    def is_duplicate(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)

    def close(self) -> None:
        if not self.closed:
            with self._saver.lock:
                self._conn.close()
            self.closed = True


def _executor(cur: sqlite3.Cursor) -> Execute:
    def execute(sql: str, params: tuple = ()) -> list:
        cur.execute(sql, tuple(params))
        return cur.fetchall()

    return execute
