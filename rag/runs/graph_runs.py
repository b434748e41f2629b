"""Runs of a graph of your own (the Your graph page) in the run history, beside the RAG workflow's runs.

`GraphRunRecorder` is a `rag_debugger.debugger.session.SessionHooks`: the generic session calls it, it writes the
history. A run is a row of kind `graph` with the graph's `module:attr` (`graph_spec`); a what-if fork is a
row whose parent is the run it forked from, with the edit. Its checkpoints live in the graph's own
checkpointer (often in memory, gone with the process), so when a run ends its recording (every checkpoint
with each task's writes: what `ReplayStepper` walks) is kept with the row as an export document: Run
history exports it as it is, imports such a file, and the Your graph page replays it after a restart.

Recording never breaks debugging: the session logs a failing hook and goes on. Redaction: the app's
configured keys are replaced in the document, as in every export (`rag.runs.export.redact`).
"""
from __future__ import annotations

import json
import weakref
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Optional

from rag.runs.export import redact
from rag.runs.fork_rows import fork_row, record_origin_head
from rag.runs.run_document import FORMAT, FORMAT_VERSION, checksum
from rag_debugger.debugger.replay import RecordedCheckpoint
from rag_debugger.debugger.segment_chain import Segment
from rag_debugger.debugger.session import GraphSession, SessionHooks
from rag_debugger.debugger.state_diff import jsonable

QUESTION_CHARS = 300
"""How much of the input the history's question column shows."""

_live: "weakref.WeakValueDictionary[str, GraphSession]" = weakref.WeakValueDictionary()
"""Sessions of this process by the runs they record and have not ended: a link to such a run (a reload)
replays what it has so far."""


def input_summary(inp: Optional[Mapping[str, Any]]) -> str:
    """The run's input as one line for the history's question column."""
    text = json.dumps(jsonable(dict(inp or {})), ensure_ascii=False)
    return text if len(text) <= QUESTION_CHARS else text[:QUESTION_CHARS - 1] + "…"


def _secrets() -> list[str]:
    try:
        from rag.settings import load_settings

        return [s for s in load_settings().secret_strings() if len(s) >= 4]
    except Exception:  # noqa: BLE001 - settings that do not load hold no secret to hide
        return []


def graph_document(info: Any, checkpoints: list[RecordedCheckpoint], head: Optional[str],
                   inp: Optional[Mapping[str, Any]]) -> dict:
    """A Your-graph run as an export document (the history's format, `graph` "graph"), keys redacted."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "run": info.model_dump(mode="json"),
        "graph": "graph",
        "label": info.graph_spec,
        "head_checkpoint_id": head,
        "checkpoints": [json.loads(c.model_dump_json(fallback=str)) for c in checkpoints],
        "progress": [],
        "trace": None,
        "result": None,
        "prompt_version": None,
        "prompts": None,
        "settings": {},
        "input": jsonable(dict(inp)) if inp is not None else None,
    }
    doc = redact(jsonable(doc), _secrets())
    doc["sha256"] = checksum(doc)
    return doc


class GraphRunRecorder(SessionHooks):
    """Records a session's live runs in `history` (a `RunHistory`), as `run_by` (a name, or a function that
    says who is running now: a page reads the signed-in user when a run starts)."""

    def __init__(self, history: Any, *, run_by: "str | Callable[[], str]" = "",
                 owner: "str | Callable[[], str]" = ""):
        self.history = history
        self.run_by = run_by
        self.owner = owner
        """Who owns the runs (rag/access.py): the signed-in identity, or a function that says it."""

    def _who(self) -> str:
        return self.run_by() if callable(self.run_by) else self.run_by

    def started(self, session: GraphSession, seg: Segment) -> None:
        parent, fork = None, None
        forked = fork_row(seg)
        if forked is not None:
            parent, fork = forked[0].run_id, forked[1]
            record_origin_head(self.history, forked[0])
        info = self.history.record_start(redact(input_summary(session.last_input), _secrets()), kind="graph",
                                         thread_id=seg.stepper.thread_id, parent_run_id=parent,
                                         run_by=self._who(), fork=fork, graph_spec=session.spec,
                                         owner=self.owner() if callable(self.owner) else self.owner)
        seg.run_id = info.run_id
        seg.info = info
        _live[info.run_id] = session

    def ended(self, session: GraphSession, seg: Segment) -> None:
        if seg.run_id is None:
            return
        error = seg.stepper.error
        info = self.history.record_finish(seg.run_id, status="error" if error else "done", error=error,
                                          duration_ms=(datetime.now(timezone.utc).timestamp() - seg.started_at) * 1000.0)
        checkpoints, head = session.recording(seg)
        if head:
            self.history.record_head(seg.run_id, head)
            info = info.model_copy(update={"head_checkpoint_id": head})
        self.history.record_document(seg.run_id, graph_document(info, checkpoints, head, session.last_input))
        seg.info = info
        _live.pop(seg.run_id, None)

    def _keep(self, session: GraphSession, seg: Segment, info: Any) -> None:
        """Store the segment's recording so far with its row."""
        checkpoints, head = session.recording(seg)
        self.history.record_document(seg.run_id, graph_document(info, checkpoints, head, session.last_input))

    def paused(self, session: GraphSession, seg: Segment) -> None:
        """Waiting for an answer may outlast the process: keep what it has, so a restart can replay it."""
        if seg.run_id is not None:
            self._keep(session, seg, self.history.get_run(seg.run_id))

    def dropped(self, session: GraphSession, seg: Segment) -> None:
        """Replaced before it ended: abandoned, its steps so far kept (the history says they replay)."""
        if seg.run_id is not None:
            _live.pop(seg.run_id, None)
            self.history.mark_abandoned([seg.run_id])
            self._keep(session, seg, self.history.get_run(seg.run_id))


def recorded(history: Any, run_id: str) -> tuple[Any, dict]:
    """(the run's row, its recording document) for replay on the Your graph page: the stored document of
    an ended or imported run; a run still going on in this process: what it has recorded so far. Raises
    UnknownRunError, or ValueError when the run is not a Your-graph run or has nothing to replay."""
    from rag.i18n import _

    info = history.get_run(run_id)
    if info.kind != "graph" or not info.graph_spec:
        raise ValueError(_("run {run} is a run of the RAG workflow: open it on the Step debugger").format(run=run_id))
    doc = history.get_document(run_id)
    if doc is None:
        session = _live.get(run_id)
        seg = next((s for s in session.segments if s.run_id == run_id), None) if session is not None else None
        if session is None or seg is None:
            raise ValueError(_("run {run} never ended and its process is gone, so nothing of it was kept").format(
                run=run_id))
        checkpoints, head = session.recording(seg)
        doc = graph_document(info, checkpoints, head, session.last_input)
    return info, doc


__all__ = ["GraphRunRecorder", "graph_document", "input_summary", "recorded"]
