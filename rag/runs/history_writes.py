"""Run recording: the writes a run makes while it happens (start, finish) and the import of a finished
one, on any history storage.

Why apart from the queries (`rag.runs.queries`): recording is what the debugger and the CLI do on
every run, on the hot path, and it stamps each row with who ran it and on which app server; the
queries are what the history page does. Both share only the storage and the row codec.
"""
from __future__ import annotations

import dataclasses
import time
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Optional

from rag.errors import RunImportError, UnknownRunError
from rag.i18n import _
from rag.runs.run_info import COLUMNS, ForkEdit, RunInfo, RunKind, RunStatus, dumps, from_row, new_run_id, now_iso, row_values
from rag.runs.storage import HistoryStorage
from rag.schemas import ProgressStep


class HistoryWriter:
    """Writes runs into one storage, stamped with this app server's id."""

    def __init__(self, storage: HistoryStorage, *, server_id: str = ""):
        self.storage = storage
        self.server_id = server_id

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
        run_by: str = "",
        fork: Any = None,
        eval_id: Optional[str] = None,
        graph_spec: Optional[str] = None,
        owner: str = "",
    ) -> RunInfo:
        """Insert a `running` row. `owner`: the signed-in identity running it (rag/access.py), "" for nobody.
        `settings` (RagSettings or a dict) is stored as its public dict. `fork`
        (a `ForkEdit` or its dict) marks a what-if fork of `parent_run_id`; `eval_id` a case's run of that
        evaluation. `graph_spec`: the `module:attr` of a Your-graph run (kind `graph`)."""
        if kind not in ("main", "resume", "graph"):
            raise ValueError(f"unknown run kind {kind!r}; expected main, resume or graph")
        run_id = run_id or new_run_id(kind)
        public = settings.public_dict() if hasattr(settings, "public_dict") else settings
        if public is not None and not isinstance(public, Mapping):
            raise TypeError("settings must be RagSettings or a dict of public settings")
        info = RunInfo(
            run_id=run_id, thread_id=thread_id or run_id, kind=kind, parent_run_id=parent_run_id,
            question=question, provider=provider, prompt_version=prompt_version, created_at=now_iso(),
            status="running", settings=dict(public) if public is not None else None,
            run_by=(run_by or "").strip()[:200], server_id=self.server_id,
            fork=ForkEdit.model_validate(fork) if isinstance(fork, Mapping) else fork, eval_id=eval_id or None,
            graph_spec=graph_spec, owner=" ".join(str(owner or "").split())[:200],
        )
        self._insert(info)
        return info

    def _insert(self, info: RunInfo, document: Optional[Mapping[str, Any]] = None,
                values: Optional[tuple] = None) -> None:
        try:
            self.storage.execute(
                f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})",
                values if values is not None else row_values(info, document),
            )
        except Exception as exc:
            if self.storage.is_duplicate(exc):
                raise ValueError(f"a run with id {info.run_id!r} already exists") from None
            raise

    def _get(self, run_id: str) -> RunInfo:
        rows = self.storage.execute(f"SELECT {', '.join(COLUMNS)} FROM runs WHERE run_id=?", (run_id,))
        if not rows:
            raise UnknownRunError(_("no run {run_id} in {location}").format(run_id=repr(run_id),
                                                                           location=self.storage.location))
        return from_row(rows[0])

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
        head_checkpoint_id: Optional[str] = None,
    ) -> RunInfo:
        """Close a run. Route and status default to the result's; the duration to the wall time
        since `record_start` (a stepped run in the UI may span many clicks)."""
        info = self._get(run_id)
        if result is not None:
            route = route if route is not None else result.get("route")
            retrieval_status = retrieval_status if retrieval_status is not None else result.get("retrieval_status")
        if duration_ms is None:
            started = datetime.fromisoformat(info.created_at)
            duration_ms = (datetime.now(timezone.utc) - started).total_seconds() * 1000.0
        steps = [p if isinstance(p, ProgressStep) else ProgressStep.model_validate(p) for p in (progress or [])]
        self.storage.execute(
            "UPDATE runs SET status=?, route=?, retrieval_status=?, duration_ms=?, finished_at=?, error=?, "
            "progress_json=?, result_json=? WHERE run_id=?",
            (
                status, route, retrieval_status, round(float(duration_ms), 3), now_iso(), error,
                dumps([s.model_dump() for s in steps]) if progress is not None else dumps(
                    [p.model_dump() for p in info.progress]),
                dumps(dict(result)) if result is not None else (None if info.result is None else dumps(info.result)),
                run_id,
            ),
        )
        if head_checkpoint_id:
            self.record_head(run_id, head_checkpoint_id)
        return self._get(run_id)

    def record_head(self, run_id: str, checkpoint_id: str) -> None:
        """Remember the run's last checkpoint (its branch of a thread a what-if fork shares)."""
        self.storage.execute("UPDATE runs SET head_checkpoint_id=? WHERE run_id=?", (checkpoint_id, run_id))

    def record_document(self, run_id: str, document: Mapping[str, Any]) -> None:
        """Keep a run's export document with its row: a Your-graph run's checkpoints live in its graph's own
        checkpointer, gone with the process, so its recording is stored here when it ends."""
        self.storage.execute("UPDATE runs SET document_json=? WHERE run_id=?", (dumps(dict(document)), run_id))

    def store_imported(self, info: RunInfo, document: Mapping[str, Any], *, owner: str = "",
                       quota_bytes: Optional[int] = None) -> RunInfo:
        """Insert a finished run that came from an export document (see `rag.runs.importing.import_run`). An
        imported copy is no evaluation's case run (that evaluation lists its own runs), so `eval_id` is cleared.
        Its owner is who imported it here (`owner`), never what the file says.
        `quota_bytes`: the room all imported documents may take in the database (a RunImportError past it)."""
        info = info.model_copy(update={"origin": "imported", "server_id": self.server_id, "eval_id": None,
                                       "owner": " ".join(str(owner or "").split())[:200]})
        values = row_values(info, document)
        if quota_bytes is not None:
            size = len(values[COLUMNS.index("document_json")] or "")
            used = self.storage.execute("SELECT COALESCE(SUM(LENGTH(document_json)), 0) FROM runs "
                                        "WHERE origin = 'imported'", ())[0][0]
            if int(used) + size > quota_bytes:
                raise RunImportError(_("the run history has no room for this import: imported runs take {used} MB "
                                       "and this one {size} MB, over the {quota} MB set by RAG_IMPORT_QUOTA_MB. "
                                       "Delete imported runs you no longer need, or ask the operator to raise "
                                       "it.").format(used=_mb(int(used)), size=_mb(size), quota=_mb(quota_bytes)))
        self._insert(info, document, values)
        return self._get(info.run_id)


# ----------------------------------------------------------------------------------------------
# running a whole run with recording (the app's "Run" and the demo recorder)
# ----------------------------------------------------------------------------------------------

def run_recorded(
    history: Any,
    question: Optional[str] = None,
    *,
    ctx: Any,
    kind: RunKind = "main",
    snapshot: Any = None,
    answer: Optional[str] = None,
    parent_run_id: Optional[str] = None,
    run_id: Optional[str] = None,
    run_by: str = "",
    eval_id: Optional[str] = None,
    owner: str = "",
) -> RunInfo:
    """Run the main graph on `question` (or the resume graph on `snapshot` + `answer`) on a new
    thread of the history (a `RunHistory`), and record the row, the progress steps and the result.

    Input is validated before a row is written, so a bad question leaves no half-recorded run.
    A failure inside the graph is recorded (status `error`) and re-raised. `eval_id` marks the run as
    a case's run of that evaluation (rag.eval.case_runs).
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
        prompt_version=_prompt_version_of(ctx), settings=ctx.settings, run_by=run_by,
        eval_id=eval_id, owner=owner,
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


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}"
