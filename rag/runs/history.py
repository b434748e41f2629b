"""Run history: one SQLite file with LangGraph's checkpoints and a `runs` table beside them.

Why one file: a run's row and its checkpoints must live and die together (delete removes both,
copying the file moves both), and the app must find yesterday's runs after a restart.

Threads: Streamlit runs scripts on several threads, so the connection is opened with
`check_same_thread=False` (a plain connection raises `ProgrammingError` there), and every statement, ours and LangGraph's, goes
through `SqliteSaver.cursor()`, which holds the saver's lock and commits. One lock for one
connection means our writes can never commit half of a checkpoint write or the other way round.

Durability: the saver turns on WAL, and we set `synchronous=NORMAL`. Every debugger step commits
twice (the task writes, then the checkpoint); with SQLite's default FULL each commit waits for
an fsync, a fifth of a simple step. In WAL mode NORMAL still keeps every commit through an app
crash or kill and never corrupts the file; only an OS crash or power cut may drop the last
commits before the next WAL checkpoint.
"""
from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping, Optional

from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import BaseModel, Field

from rag.schemas import ProgressStep
from rag.errors import HistoryDamagedError, UnknownRunError  # noqa: F401 - re-exported from their old home

RunKind = Literal["main", "resume"]
RunStatus = Literal["running", "done", "error", "abandoned"]
"""`abandoned`: the run never finished (the app restarted, the page was reloaded or closed, or a new
run replaced it); `finished_at` says when it was marked so."""
RunOrigin = Literal["live", "imported"]

_COLUMNS = (
    "run_id", "thread_id", "kind", "parent_run_id", "question", "route", "retrieval_status", "provider",
    "prompt_version", "duration_ms", "created_at", "finished_at", "status", "error", "origin", "progress_json",
    "result_json", "settings_json", "document_json",
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    parent_run_id TEXT,
    question TEXT NOT NULL,
    route TEXT,
    retrieval_status TEXT,
    provider TEXT,
    prompt_version TEXT,
    duration_ms REAL,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    error TEXT,
    origin TEXT NOT NULL DEFAULT 'live',
    progress_json TEXT NOT NULL DEFAULT '[]',
    result_json TEXT,
    settings_json TEXT,
    document_json TEXT
);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at);
"""


#: What the user can do about a damaged history file (the app and the history page say it).
RECOVERY = ("Move the file aside (rename it, with any -wal and -shm file next to it, for example to "
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


class RunInfo(BaseModel):
    """One row of the history list (and everything the history page shows about a run)."""

    run_id: str
    thread_id: str
    kind: RunKind = "main"
    parent_run_id: Optional[str] = None
    question: str
    route: Optional[str] = None
    retrieval_status: Optional[str] = None
    provider: Optional[str] = None
    prompt_version: Optional[str] = None
    duration_ms: Optional[float] = None
    created_at: str
    finished_at: Optional[str] = None
    status: RunStatus = "running"
    error: Optional[str] = None
    origin: RunOrigin = "live"
    """`imported` runs have no live checkpoints: they open in replay mode from their document."""
    progress: list[ProgressStep] = Field(default_factory=list)
    result: Optional[dict] = None
    settings: Optional[dict] = None
    """`RagSettings.public_dict()` at the start of the run: never a secret."""

    @property
    def is_replay(self) -> bool:
        return self.origin == "imported"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def new_run_id(kind: str = "main") -> str:
    return f"{kind}-{uuid.uuid4().hex[:16]}"


class RunHistory:
    """Runs and their checkpoints in one SQLite file. Use `checkpointer` (or `graph(kind)`) to
    compile graphs whose threads are the runs' `thread_id`s."""

    def __init__(self, db_path: str | Path):
        """Open (or create) the file. A file that is damaged or not a database raises
        HistoryDamagedError here, not at the first run: `PRAGMA quick_check` reads every page (about a
        millisecond per megabyte), so a file that opens but breaks on the first write is caught too."""
        self.db_path = str(db_path)
        self.damage: Optional[str] = None
        """Set when a statement meets a damaged file after opening; the app then stops using this history."""
        if self.db_path != ":memory:":
            Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.db_path, check_same_thread=False)
        self._saver = _WatchedSaver(self._conn)
        self._closed = False
        try:
            with self._saver.cursor() as cur:  # also runs the saver's own setup (WAL, its tables)
                problems = [row[0] for row in cur.execute("PRAGMA quick_check").fetchall()]
                if problems != ["ok"]:
                    found = " ".join(" ".join(str(p) for p in problems).split())
                    raise HistoryDamagedError(self.db_path, f"integrity check: {found[:200]}")
                cur.executescript(_SCHEMA)
                cur.execute("PRAGMA synchronous=NORMAL")  # see the module docstring
        except (sqlite3.DatabaseError, HistoryDamagedError) as exc:
            self.close()
            if isinstance(exc, HistoryDamagedError):
                raise
            raise HistoryDamagedError(self.db_path, f"{type(exc).__name__}: {exc}") from exc
        self._saver.on_damage = self._on_damage

    def _on_damage(self, exc: BaseException) -> None:
        if self.damage is None:
            self.damage = f"{type(exc).__name__}: {exc}"

    # ----- plumbing ---------------------------------------------------------------------------
    @property
    def checkpointer(self) -> SqliteSaver:
        return self._saver

    def graph(self, kind: RunKind = "main"):
        """The main or resume graph compiled with this history's checkpointer (once, in the registry)."""
        from rag.graph.build import compiled_graph

        return compiled_graph(kind, self._saver)

    def close(self) -> None:
        if not self._closed:
            with self._saver.lock:
                self._conn.close()
            self._closed = True

    def __enter__(self) -> "RunHistory":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _execute(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        if self._closed:
            raise RuntimeError("this RunHistory is closed")
        with self._saver.cursor() as cur:
            cur.execute(sql, tuple(params))
            return cur.fetchall()

    # ----- writing ----------------------------------------------------------------------------
    def record_start(
        self,
        question: str,
        *,
        kind: RunKind = "main",
        run_id: Optional[str] = None,
        thread_id: Optional[str] = None,
        parent_run_id: Optional[str] = None,
        provider: Optional[str] = None,
        prompt_version: Optional[str] = None,
        settings: Any = None,
    ) -> RunInfo:
        """Insert a `running` row. `settings` (RagSettings or a dict) is stored as its public dict."""
        if kind not in ("main", "resume"):
            raise ValueError(f"unknown run kind {kind!r}; expected main or resume")
        run_id = run_id or new_run_id(kind)
        public = settings.public_dict() if hasattr(settings, "public_dict") else settings
        if public is not None and not isinstance(public, Mapping):
            raise TypeError("settings must be RagSettings or a dict of public settings")
        info = RunInfo(
            run_id=run_id, thread_id=thread_id or run_id, kind=kind, parent_run_id=parent_run_id,
            question=question, provider=provider, prompt_version=prompt_version, created_at=_now(),
            status="running", settings=dict(public) if public is not None else None,
        )
        self._insert(info)
        return info

    def _insert(self, info: RunInfo, document: Optional[Mapping[str, Any]] = None) -> None:
        row = self._row_values(info, document)
        try:
            self._execute(
                f"INSERT INTO runs ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})", row
            )
        except sqlite3.IntegrityError:
            raise ValueError(f"a run with id {info.run_id!r} already exists") from None

    @staticmethod
    def _row_values(info: RunInfo, document: Optional[Mapping[str, Any]]) -> tuple:
        return (
            info.run_id, info.thread_id, info.kind, info.parent_run_id, info.question, info.route,
            info.retrieval_status, info.provider, info.prompt_version, info.duration_ms, info.created_at,
            info.finished_at, info.status, info.error, info.origin,
            _dumps([p.model_dump() for p in info.progress]),
            None if info.result is None else _dumps(info.result),
            None if info.settings is None else _dumps(info.settings),
            None if document is None else _dumps(document),
        )

    def record_finish(
        self,
        run_id: str,
        *,
        status: RunStatus = "done",
        route: Optional[str] = None,
        retrieval_status: Optional[str] = None,
        duration_ms: Optional[float] = None,
        progress: Optional[Iterable[ProgressStep | Mapping[str, Any]]] = None,
        result: Optional[Mapping[str, Any]] = None,
        error: Optional[str] = None,
    ) -> RunInfo:
        """Close a run. Route and status default to the result's; the duration to the wall time
        since `record_start` (a stepped run in the UI may span many clicks)."""
        info = self.get_run(run_id)
        if result is not None:
            route = route if route is not None else result.get("route")
            retrieval_status = retrieval_status if retrieval_status is not None else result.get("retrieval_status")
        if duration_ms is None:
            started = datetime.fromisoformat(info.created_at)
            duration_ms = (datetime.now(timezone.utc) - started).total_seconds() * 1000.0
        steps = [p if isinstance(p, ProgressStep) else ProgressStep.model_validate(p) for p in (progress or [])]
        self._execute(
            "UPDATE runs SET status=?, route=?, retrieval_status=?, duration_ms=?, finished_at=?, error=?, "
            "progress_json=?, result_json=? WHERE run_id=?",
            (
                status, route, retrieval_status, round(float(duration_ms), 3), _now(), error,
                _dumps([s.model_dump() for s in steps]) if progress is not None else _dumps(
                    [p.model_dump() for p in info.progress]),
                _dumps(dict(result)) if result is not None else (None if info.result is None else _dumps(info.result)),
                run_id,
            ),
        )
        return self.get_run(run_id)

    def mark_abandoned(self, run_ids: Optional[Iterable[str]] = None, *, at: Optional[str] = None) -> list[str]:
        """Mark runs that are still `running` as `abandoned`, with `finished_at` = when (now by
        default); `run_ids=None` means every running run. Finished or failed runs are left alone,
        so a late or repeated call cannot rewrite an outcome. Returns the ids marked."""
        if self._closed:
            raise RuntimeError("this RunHistory is closed")
        when = at or _now()
        with self._saver.cursor() as cur:  # one transaction: select and update under the saver's lock
            if run_ids is None:
                cur.execute("SELECT run_id FROM runs WHERE status='running'")
            else:
                ids = list(dict.fromkeys(run_ids))
                if not ids:
                    return []
                cur.execute(f"SELECT run_id FROM runs WHERE status='running' AND run_id IN "
                            f"({', '.join('?' for _ in ids)})", ids)
            found = [row[0] for row in cur.fetchall()]
            if found:
                cur.execute(f"UPDATE runs SET status='abandoned', finished_at=? WHERE status='running' AND run_id IN "
                            f"({', '.join('?' for _ in found)})", [when, *found])
        return found

    def store_imported(self, info: RunInfo, document: Mapping[str, Any]) -> RunInfo:
        """Insert a finished run that came from an export document (see `rag.runs.export.import_run`)."""
        info = info.model_copy(update={"origin": "imported"})
        self._insert(info, document)
        return self.get_run(info.run_id)

    # ----- reading ----------------------------------------------------------------------------
    @staticmethod
    def _to_info(row: tuple) -> RunInfo:
        data = dict(zip(_COLUMNS, row))
        data["progress"] = json.loads(data.pop("progress_json") or "[]")
        result = data.pop("result_json")
        data["result"] = json.loads(result) if result else None
        settings = data.pop("settings_json")
        data["settings"] = json.loads(settings) if settings else None
        data.pop("document_json", None)
        return RunInfo.model_validate(data)

    def list_runs(self, *, limit: Optional[int] = None, hide_abandoned: bool = False) -> list[RunInfo]:
        """Runs, newest first; without the abandoned ones when `hide_abandoned`."""
        where = " WHERE status<>'abandoned'" if hide_abandoned else ""
        sql = f"SELECT {', '.join(_COLUMNS)} FROM runs{where} ORDER BY created_at DESC, rowid DESC"
        params: tuple = ()
        if limit is not None:
            sql += " LIMIT ?"
            params = (int(limit),)
        return [self._to_info(r) for r in self._execute(sql, params)]

    def get_run(self, run_id: str) -> RunInfo:
        rows = self._execute(f"SELECT {', '.join(_COLUMNS)} FROM runs WHERE run_id=?", (run_id,))
        if not rows:
            raise UnknownRunError(f"no run {run_id!r} in {self.db_path}")
        return self._to_info(rows[0])

    def has_run(self, run_id: str) -> bool:
        return bool(self._execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)))

    def get_document(self, run_id: str) -> Optional[dict]:
        """The export document an imported run was stored from (None for live runs)."""
        rows = self._execute("SELECT document_json FROM runs WHERE run_id=?", (run_id,))
        if not rows:
            raise UnknownRunError(f"no run {run_id!r} in {self.db_path}")
        return json.loads(rows[0][0]) if rows[0][0] else None

    def delete_run(self, run_id: str) -> None:
        """Delete the run's row and all checkpoints of its thread."""
        info = self.get_run(run_id)
        shared = self._execute("SELECT COUNT(*) FROM runs WHERE thread_id=? AND run_id<>?", (info.thread_id, run_id))
        if not shared[0][0]:  # never delete a thread another run still points to
            self._saver.delete_thread(info.thread_id)
        self._execute("DELETE FROM runs WHERE run_id=?", (run_id,))


# ----------------------------------------------------------------------------------------------
# running a whole run with recording (the app's "Run" and the demo recorder)
# ----------------------------------------------------------------------------------------------

def run_recorded(
    history: RunHistory,
    question: Optional[str] = None,
    *,
    ctx: Any,
    kind: RunKind = "main",
    snapshot: Any = None,
    answer: Optional[str] = None,
    parent_run_id: Optional[str] = None,
    run_id: Optional[str] = None,
) -> RunInfo:
    """Run the main graph on `question` (or the resume graph on `snapshot` + `answer`) on a new
    thread of the history, and record the row, the progress steps and the result.

    Input is validated before a row is written, so a bad question leaves no half-recorded run.
    A failure inside the graph is recorded (status `error`) and re-raised.
    """
    from rag.api import build_result, initial_state, resume_input, validate_text

    limit = ctx.settings.max_question_chars
    if kind == "main":
        text = validate_text(question, what="question", limit=limit)
        inp = initial_state(text)
    elif kind == "resume":
        inp = resume_input(snapshot, answer or "", limit=limit)
        text = inp["question"]
    else:
        raise ValueError(f"unknown run kind {kind!r}; expected main or resume")
    steps: list[ProgressStep] = []
    outer = ctx.progress

    def tee(step: ProgressStep) -> None:
        steps.append(step)
        if outer is not None:
            outer(step)

    run_ctx = dataclasses.replace(ctx, progress=tee)
    run_ctx.reset_clock()
    info = history.record_start(
        text, kind=kind, run_id=run_id, parent_run_id=parent_run_id, provider=ctx.roles.provider,
        prompt_version=_prompt_version_of(ctx), settings=ctx.settings,
    )
    t0 = time.perf_counter()
    try:
        final = history.graph(kind).invoke(inp, {"configurable": {"thread_id": info.thread_id}}, context=run_ctx)
    except Exception as exc:
        history.record_finish(
            info.run_id, status="error", error=f"{type(exc).__name__}: {exc}"[:2000], progress=steps,
            duration_ms=(time.perf_counter() - t0) * 1000.0,
        )
        raise
    result = build_result(final, run_ctx)
    return history.record_finish(
        info.run_id, status="done", result=result, progress=steps, duration_ms=(time.perf_counter() - t0) * 1000.0
    )


def _prompt_version_of(ctx: Any) -> str:
    """Which prompts drove the run: the roles' own label when they carry one, else the setting."""
    return getattr(ctx.roles, "prompt_version", None) or ctx.settings.prompt_version or "default"


__all__ = ["RunHistory", "RunInfo", "UnknownRunError", "HistoryDamagedError", "RECOVERY", "is_damage", "new_run_id",
           "run_recorded"]
