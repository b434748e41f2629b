"""Run history: LangGraph's checkpoints and a `runs` table beside them, in one SQLite file or one
PostgreSQL database.

`RunHistory` is the one object callers hold. It opens a storage (`open_storage`: a
file path, or `postgresql://...`) and puts the two jobs over it: run recording
(`rag.runs.history_writes.HistoryWriter`: start, finish, import) and history queries
(`rag.runs.queries.HistoryQueries`: list, filter, get, delete, mark abandoned). Why a facade: the
debugger, the exporter and the CLI record and read the same history, and a run's row and its
checkpoints must live and die together (delete removes both), on either engine.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from rag.access import OPERATOR_PERMIT, Permit
from rag.errors import UnknownRunError
from rag.i18n import _
from rag.runs.history_writes import HistoryWriter
from rag.runs.queries import HistoryQueries
from rag.runs.run_info import RunInfo, RunKind
from rag.runs.sqlite_storage import SqliteStorage
from rag.runs.storage import HistoryStorage, is_database_url


def open_storage(target: "str | Path") -> HistoryStorage:
    """The engine for `target`: a `postgresql://` URL, else an SQLite file path (or ":memory:"). Here and
    not in `rag.runs.storage`, which both engines import: the interface must not import its engines."""
    if is_database_url(target):
        from rag.runs.postgres_storage import PostgresStorage  # lazy: psycopg only for a team database

        return PostgresStorage(str(target).strip())
    return SqliteStorage(target)


class RunHistory:
    """Runs and their checkpoints in one storage. Use `checkpointer` (or `graph(kind)`) to compile
    graphs whose threads are the runs' `thread_id`s."""

    def __init__(self, target: "str | Path", *, server_id: str = ""):
        """Open (or create) the history at `target`: an SQLite file path, or a `postgresql://` URL.
        Tables are created and migrated here. An unusable file or database raises HistoryDamagedError
        (HistoryUnavailableError for a database that is down or refuses the login) here, not at the
        first run. `server_id` is stamped on every run recorded through this object."""
        self.storage: HistoryStorage = open_storage(target)
        self.writer = HistoryWriter(self.storage, server_id=server_id)
        self.queries = HistoryQueries(self.storage)

    # ----- plumbing ---------------------------------------------------------------------------
    @property
    def engine(self) -> str:
        return self.storage.engine

    @property
    def location(self) -> str:
        """Where the history is, safe to show: the file, or the database URL without its password."""
        return self.storage.location

    db_path = location

    @property
    def server_id(self) -> str:
        return self.writer.server_id

    @property
    def recovery(self) -> str:
        """What the user can do about a damaged history, in the reader's language."""
        return _(self.storage.recovery)

    @property
    def damage(self) -> Optional[str]:
        """Set when a statement meets a damaged file (or a lost database) after opening; the app then
        stops using this history."""
        return self.storage.damage

    @property
    def _closed(self) -> bool:
        return self.storage.closed

    @property
    def checkpointer(self) -> Any:
        return self.storage.checkpointer

    def graph(self, kind: RunKind = "main"):
        """The main or resume graph compiled with this history's checkpointer (once, in the registry)."""
        from rag.graph.build import compiled_graph

        if kind == "graph":  # a graph of your own is loaded by its page, through the allow-list, never here
            raise ValueError("a Your-graph run has no graph in this history")
        return compiled_graph(kind, self.storage.checkpointer)

    def close(self) -> None:
        self.storage.close()

    def __enter__(self) -> "RunHistory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----- recording --------------------------------------------------------------------------
    def record_start(self, question: str, **kwargs: Any) -> RunInfo:
        return self.writer.record_start(question, **kwargs)

    def record_finish(self, run_id: str, **kwargs: Any) -> RunInfo:
        return self.writer.record_finish(run_id, **kwargs)

    def record_head(self, run_id: str, checkpoint_id: str) -> None:
        self.writer.record_head(run_id, checkpoint_id)

    def record_document(self, run_id: str, document: Mapping[str, Any]) -> None:
        self.writer.record_document(run_id, document)

    def store_imported(self, info: RunInfo, document: Mapping[str, Any], *, owner: str = "",
                       quota_bytes: Optional[int] = None) -> RunInfo:
        return self.writer.store_imported(info, document, owner=owner, quota_bytes=quota_bytes)

    # ----- queries ----------------------------------------------------------------------------
    def list_runs(self, *, limit: Optional[int] = None, hide_abandoned: bool = False,
                  run_by: Optional[str] = None, offset: int = 0, forks: Optional[str] = None,
                  feedback: Optional[str] = None, evals: Optional[str] = None,
                  light: bool = False, permit: Permit = OPERATOR_PERMIT) -> list[RunInfo]:
        """The runs `permit` may see (with private runs, its own: rag/access.py), newest first."""
        return self.queries.list_runs(limit=limit, hide_abandoned=hide_abandoned, run_by=run_by, offset=offset,
                                      forks=forks, feedback=feedback, evals=evals, light=light,
                                      owner=permit.owner if permit.private_runs else None)

    def people(self, permit: Permit = OPERATOR_PERMIT) -> list[str]:
        return self.queries.people(owner=permit.owner if permit.private_runs else None)

    def eval_runs(self, eval_id: str) -> list[RunInfo]:
        return self.queries.eval_runs(eval_id)

    def get_run(self, run_id: str) -> RunInfo:
        return self.queries.get_run(run_id)

    def has_run(self, run_id: str) -> bool:
        return self.queries.has_run(run_id)

    def get_document(self, run_id: str) -> Optional[dict]:
        return self.queries.get_document(run_id)

    def visible_run(self, run_id: str, permit: Permit) -> RunInfo:
        """`get_run` for someone opening a link: a run `permit` may not see raises the same UnknownRunError as a
        run that does not exist ("not available"), so a link never tells whether someone's private run exists."""
        try:
            info = self.queries.get_run(run_id)
        except UnknownRunError:
            if permit.private_runs:
                raise UnknownRunError(_("That run is not available.")) from None
            raise
        if not permit.allows("view_run", info.owner):
            raise UnknownRunError(_("That run is not available."))
        return info

    def delete_run(self, run_id: str, permit: Permit = OPERATOR_PERMIT) -> None:
        """Delete a run, its checkpoints and its feedback. AccessRefused unless `permit` may (its owner or an
        admin, with a login; without one, when visitors may change shared state)."""
        info = self.queries.get_run(run_id)
        if not permit.allows("view_run", info.owner):
            raise UnknownRunError(_("That run is not available."))
        permit.require("delete_run", info.owner)
        self.queries.delete_run(run_id)

    def mark_abandoned(self, run_ids: Optional[Iterable[str]] = None, *, at: Optional[str] = None,
                       server_id: Optional[str] = None) -> list[str]:
        return self.queries.mark_abandoned(run_ids, at=at, server_id=server_id)


__all__ = ["RunHistory", "open_storage"]
