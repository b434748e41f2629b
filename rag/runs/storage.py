"""The one storage interface under the run history, and the choice of engine.

Why an interface: the recorder (`rag.runs.history_writes`) and the queries (`rag.runs.queries`) are the same
code on every engine; only opening, a transaction, damage detection and the checkpointer differ. Two
engines implement it: SQLite, one file beside the app (the default: no server), and PostgreSQL, one
database a team's app servers share (`RAG_HISTORY_URL=postgresql://...`). The PostgreSQL engine is
imported only when such a URL is given, so the default app never loads psycopg.

SQL is written once, with `?` placeholders and `ORDER BY ..., {order_key}`; an engine translates.
"""
from __future__ import annotations

import abc
from typing import Any, Callable, Optional

from rag.i18n import N_

Execute = Callable[[str, tuple], list]
"""`execute(sql, params)` inside a transaction: runs one statement, returns its rows as tuples."""

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

#: What a user can do when the shared database cannot be used (here, not in the engine's module, so the
#: pages can say it without loading psycopg).
DATABASE_RECOVERY = N_(
    "Check that the PostgreSQL server in RAG_HISTORY_URL is running and reachable from this machine, and that its "
    "user, password and database are right; then restart the app. Until then runs are debugged in memory and not "
    "recorded.")
"""English (the catalogue's id): show it with `_(DATABASE_RECOVERY)` (`RunHistory.recovery` does)."""


def is_database_url(target: Any) -> bool:
    """True when `target` names a PostgreSQL database rather than an SQLite file."""
    return isinstance(target, str) and target.strip().lower().startswith(POSTGRES_SCHEMES)


class HistoryStorage(abc.ABC):
    """Where one history's runs and checkpoints live. Thread safe: Streamlit's script threads share it."""

    engine: str
    """"sqlite" or "postgresql" (the key of `rag.runs.schema.MIGRATIONS`)."""
    location: str
    """Where the history is, safe to show and log: a file path, or a database URL without its password."""
    order_key: str
    """The column that breaks ties of `created_at` in insertion order."""
    recovery: str
    """What a user can do when this history cannot be used."""
    damage: Optional[str] = None
    """Set when a statement finds the storage unusable after opening; the app then stops using it."""
    closed: bool = False

    @property
    @abc.abstractmethod
    def checkpointer(self) -> Any:
        """The LangGraph checkpointer whose threads are the runs' `thread_id`s."""

    @abc.abstractmethod
    def transaction(self) -> Any:
        """A context manager yielding an `Execute`; commits when the block ends, rolls back on an error."""

    @abc.abstractmethod
    def is_duplicate(self, exc: BaseException) -> bool:
        """True when `exc` is a primary-key clash (a run id that already exists)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the file or the connections; idempotent."""

    def delete_thread(self, thread_id: str) -> None:
        self.checkpointer.delete_thread(thread_id)

    def execute(self, sql: str, params: tuple = ()) -> list:
        """One statement in a transaction of its own."""
        with self.transaction() as execute:
            return execute(sql, tuple(params))

    def report_damage(self, exc: BaseException) -> None:
        if self.damage is None:
            self.damage = self.describe_error(exc)

    def describe_error(self, exc: BaseException) -> str:
        return f"{type(exc).__name__}: {exc}"

    def _check_open(self) -> None:
        if self.closed:
            raise RuntimeError("this RunHistory is closed")

