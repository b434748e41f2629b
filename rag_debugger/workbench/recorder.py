"""Recording the RAG session's runs into the run history, and what happens when the history fails.

`RunRecorder` is one of the session's `SessionHooks` (`rag_debugger.debugger.session`), as Your graph's
`rag.runs.graph_runs.GraphRunRecorder` is: the generic session tells it a run `started`, `ended` (finished or
failed) or was `dropped` (replaced before it ended), and it writes the history. Every segment is a run of the
history (a resume links to its parent run, a fork to the run it forked from with the edit), on the history's
own checkpointer, so the history page can list, export and replay it after a restart. Recording never
breaks debugging: a failing write is logged and the run goes on; a history that turns out damaged or
stops answering is dropped (the session goes on in memory, the page says so once) and re-attached
when one answers again, with the runs the outage cut short marked abandoned there."""
from __future__ import annotations

import logging
import weakref
from typing import Any, Callable, Optional

from rag.runs.fork_rows import fork_row, record_origin_head
from rag_debugger.debugger.replay import step_timings
from rag_debugger.debugger.segment_chain import Segment
from rag_debugger.debugger.session import GraphSession, SessionHooks
from rag_debugger.workbench import run_owners
from rag_debugger.workbench.outcome import Outcome

log = logging.getLogger("rag_debugger.session")


def abandon_runs(history: Any, run_ids: set) -> None:
    """Mark unfinished runs abandoned in the history and forget them; never raises."""
    ids = list(run_ids)
    run_ids.clear()
    run_owners.release(ids)
    if history is None or not ids:
        return
    try:
        history.mark_abandoned(ids)
    except Exception:  # noqa: BLE001 - the history is a record; a failed mark must not break anything
        log.warning("could not mark %d unfinished run(s) abandoned", len(ids), exc_info=True)


class RunRecorder(SessionHooks):
    """The history a session records into (None: in memory only) and the runs it left open. The session
    (`rag_debugger.workbench.session.DebugSession`) reads `question`, `settings`, `run_by` and `owner` from itself."""

    def __init__(self, owner: Any, history: Any, checkpointer: Any, memory_saver: Callable[[], Any]):
        self._owner = weakref.ref(owner)  # run_owners holds sessions weakly: no cycle through here
        self.history = history
        self.checkpointer = checkpointer if checkpointer is not None else (
            history.checkpointer if history is not None else None)
        self._memory_saver = memory_saver
        self.open_runs: set[str] = set()
        """Recorded live runs that have not finished: abandoned when replaced, or when the session is
        left behind (a reload, a closed tab; see rag_debugger/workbench/run_owners.py)."""
        self.history_lost = False
        self._cut_runs: set[str] = set()
        """Runs the outage cut short: marked abandoned (incomplete) when a history answers again."""

    # ----- a failing history ---------------------------------------------------------------
    def drop_damaged(self) -> bool:
        """Stop recording into a history whose file turned out damaged: later runs use memory, so
        recording never breaks debugging. True when it did."""
        if self.history is None or not getattr(self.history, "damage", None):
            return False
        log.error("run history damaged (%s); this session continues in memory", self.history.damage)
        if self.checkpointer is self.history.checkpointer:
            self.checkpointer = self._memory_saver()
        self.history = None
        self.history_lost = True
        self._cut_runs |= self.open_runs
        self.open_runs = set()
        return True

    def take_lost(self) -> bool:
        lost, self.history_lost = self.history_lost, False
        return lost

    def attach(self, history: Any) -> bool:
        if history is None or self.history is not None or getattr(history, "damage", None):
            return False
        self.history = history
        self.checkpointer = history.checkpointer
        if self._cut_runs:
            abandon_runs(history, self._cut_runs)
        return True

    # ----- the session's hooks ------------------------------------------------------------------
    def started(self, session: GraphSession, seg: Segment) -> None:
        """A run, a HITL resume (its parent: the run before it) or a what-if fork began."""
        settings, run_by, owner = (getattr(session, "settings", None), getattr(session, "run_by", ""),
                                   getattr(session, "owner", ""))
        forked = fork_row(seg)
        if forked is not None:
            self.start_fork(forked[0], seg, forked[1], question=session.question, settings=settings, run_by=run_by,
                            owner=owner)
            return
        at = session.segments.index(seg) if seg in session.segments else len(session.segments)
        parent = session.segments[at - 1].run_id if seg.kind == "resume" and at > 0 else None
        given = session.last_input if isinstance(session.last_input, dict) else {}
        self.start(seg, given.get("question") or session.question, parent, settings=settings, run_by=run_by,
                   owner=owner)

    def ended(self, session: GraphSession, seg: Segment) -> None:
        self.finish(seg, seg.outcome)

    def dropped(self, session: GraphSession, seg: Segment) -> None:
        """A new run or a replay replaced the run before it finished: abandoned in the history."""
        if seg.run_id is None:
            return
        run_owners.release([seg.run_id])
        if seg.run_id in self.open_runs:
            self.open_runs.discard(seg.run_id)
            abandon_runs(self.history, {seg.run_id})

    # ----- runs ------------------------------------------------------------------------------
    def start(self, seg: Segment, question: str, parent_run_id: Optional[str], *, settings: Any, run_by: str,
              fork: Optional[dict] = None, owner: str = "") -> None:
        if self.history is None or seg.ctx is None:
            return
        try:
            info = self.history.record_start(
                question, kind=seg.kind, thread_id=seg.stepper.thread_id, parent_run_id=parent_run_id,
                provider=seg.ctx.roles.provider, prompt_version=seg.prompt_version, settings=settings,
                run_by=run_by, fork=fork, owner=owner,
            )
            seg.run_id = info.run_id
        except Exception:  # noqa: BLE001 - the history is a record; debugging goes on without it
            log.warning("could not record the start of a run", exc_info=True)
            return
        self.open_runs.add(info.run_id)
        holder = self._owner()
        if holder is not None:
            run_owners.claim(info.run_id, holder, getattr(holder, "client_id", None))
        run_owners.sweep(self.history)  # a run starts: runs other tabs left behind are abandoned

    def finish(self, seg: Segment, outcome: Optional[Outcome]) -> None:
        """Close the segment's run in the history when it finished or failed (again after a retry)."""
        if self.history is None or seg.run_id is None or seg.replay:
            return
        stepper = seg.stepper
        if not (stepper.done or stepper.error):
            return
        progress = [p for rec in stepper.steps for p in rec.annotations.get("progress") or []]
        duration = sum(rec.duration_ms for rec in stepper.steps)
        head = stepper.steps[-1].after_checkpoint_id if stepper.steps else None
        if stepper.done:
            self.open_runs.discard(seg.run_id)
        try:
            if stepper.done:
                result = dict(outcome.result) if outcome is not None and outcome.result is not None else None
                if result is not None and outcome is not None and outcome.answer is not None:
                    result["answer"] = outcome.answer.model_dump(mode="json")  # recorded with the run, for replay
                if result is not None:  # the waterfall's durations, lanes and model calls, for replay
                    from rag.runs.run_document import STEP_TIMINGS
                    result[STEP_TIMINGS] = [t.model_dump(mode="json") for t in step_timings(stepper.steps)]
                self.history.record_finish(seg.run_id, status="done", result=result, progress=progress,
                                           duration_ms=duration, head_checkpoint_id=head)
            else:
                self.history.record_finish(seg.run_id, status="error", error=stepper.error, progress=progress,
                                           duration_ms=duration, head_checkpoint_id=head)
        except Exception:  # noqa: BLE001
            log.warning("could not record the end of a run", exc_info=True)

    def start_fork(self, parent: Segment, fork: Segment, edit: dict[str, Any], *, question: str, settings: Any,
                   run_by: str, owner: str = "") -> None:
        """Record a fork as a run of its own: parent run, the parent's step and the edit (`fork_rows.fork_row`).
        The live parent's head is written first: the fork's checkpoints join its thread as a new branch."""
        if self.history is None or parent.run_id is None:
            return
        try:
            record_origin_head(self.history, parent)
        except Exception:  # noqa: BLE001 - the history is a record; debugging goes on without it
            log.warning("could not record the head of a forked run", exc_info=True)
        self.start(fork, question, parent.run_id, settings=settings, run_by=run_by, owner=owner, fork=edit)
