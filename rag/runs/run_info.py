"""What one run of the history is (`RunInfo`) and how it is written to and read from a `runs` row.

Why a module of its own: the recorder writes rows, the queries read them, and both engines (SQLite,
PostgreSQL) store the same columns; one codec here keeps the three from drifting apart.
"""
from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, Field

from rag.schemas import ProgressStep

RunKind = Literal["main", "resume", "graph"]
"""`graph`: a run of a graph of your own on the Your graph page (`graph_spec` names it)."""
RunStatus = Literal["running", "done", "error", "abandoned"]
"""`abandoned`: the run never finished (the app restarted, the page was reloaded or closed, or a new
run replaced it); `finished_at` says when it was marked so."""
RunOrigin = Literal["live", "imported"]

#: The columns of the `runs` table, in the order rows are written and read.
COLUMNS = (
    "run_id", "thread_id", "kind", "parent_run_id", "question", "route", "retrieval_status", "provider",
    "prompt_version", "duration_ms", "created_at", "finished_at", "status", "error", "origin", "progress_json",
    "result_json", "settings_json", "document_json", "run_by", "server_id", "fork_json", "head_checkpoint_id",
    "eval_id",
    "graph_spec",
    "owner",
)


class ForkEdit(BaseModel):
    """What made a what-if fork: the state after step `step` (1-based, in its parent run) of its parent
    run, with `field` changed from `old` to `new`; the fork ran forward from there."""

    step: int
    field: str
    old: Any = None
    new: Any = None


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
    run_by: str = ""
    """Who ran it: the signed-in user's e-mail, else the name set on the Settings page, else empty."""
    server_id: str = ""
    """Which app server recorded it: on a shared database a server marks only its own leftovers abandoned."""
    fork: Optional[ForkEdit] = None
    """Set on a what-if fork: its parent is `parent_run_id`, forked after `fork.step` with one edit."""
    head_checkpoint_id: Optional[str] = None
    """The run's last checkpoint, when recorded: a fork shares its parent's thread (LangGraph's own
    branching), so "the newest checkpoint of the thread" would not say which branch is this run."""
    eval_id: Optional[str] = None
    """Set on a run an evaluation recorded for one of its cases (`rag.eval.results_store.EvalRecord.eval_id`)."""
    graph_spec: Optional[str] = None
    """A Your-graph run (`kind` graph): the graph's `module:attr`. It is loaded again to replay the run only
    through the page's allow-list (rag_debugger/debugger/allowlist.py), never because the history names it."""
    owner: str = ""
    """Who owns it on this server (rag/access.py): the signed-in identity that ran or imported it, "" when nobody
    was signed in (then it is the admins'). Never taken from an imported file: `run_by` there is only claimed."""

    @property
    def is_replay(self) -> bool:
        return self.origin == "imported"

    @property
    def is_fork(self) -> bool:
        return self.fork is not None


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def new_run_id(kind: str = "main") -> str:
    return f"{kind}-{uuid.uuid4().hex[:16]}"


def row_values(info: RunInfo, document: Optional[Mapping[str, Any]] = None) -> tuple:
    """`info` as the values of a `runs` row, in `COLUMNS` order."""
    return (
        info.run_id, info.thread_id, info.kind, info.parent_run_id, info.question, info.route,
        info.retrieval_status, info.provider, info.prompt_version, info.duration_ms, info.created_at,
        info.finished_at, info.status, info.error, info.origin,
        dumps([p.model_dump() for p in info.progress]),
        None if info.result is None else dumps(info.result),
        None if info.settings is None else dumps(info.settings),
        None if document is None else dumps(document),
        info.run_by or "", info.server_id or "",
        None if info.fork is None else dumps(info.fork.model_dump(mode="json")), info.head_checkpoint_id,
        info.eval_id,
        info.graph_spec,
        info.owner or "",
    )


def from_row(row: tuple) -> RunInfo:
    """A `runs` row (in `COLUMNS` order) as a RunInfo (the stored export document is left out)."""
    data = dict(zip(COLUMNS, row, strict=True))
    data["progress"] = json.loads(data.pop("progress_json") or "[]")
    result = data.pop("result_json")
    data["result"] = json.loads(result) if result else None
    settings = data.pop("settings_json")
    data["settings"] = json.loads(settings) if settings else None
    data.pop("document_json", None)
    data["run_by"] = data.get("run_by") or ""
    data["server_id"] = data.get("server_id") or ""
    data["owner"] = data.get("owner") or ""
    fork = data.pop("fork_json", None)
    data["fork"] = json.loads(fork) if fork else None
    return RunInfo.model_validate(data)
