"""The one session's segments (`GraphSegment`, generic over the `Stepper`) and reading their chain (the main
run, then resumes, what-if forks, a stored thread going on) the way the inspector reads it
(`rag_debugger.debugger.protocol.InspectedSession`): where the position is, the session's steps in timeline
order, which segment a time-travel index falls in, the fork comparison and the "cut short" rule. Mixed into
`rag_debugger.debugger.session.GraphSession`, the session of both pages (the RAG workflow's
`rag_debugger.workbench.session.DebugSession` is an adapter on it)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Generic, Optional, TypeVar

from rag_debugger.debugger.i18n import N_
from rag_debugger.debugger.protocol import Stepper
from rag_debugger.debugger.records import StepRecord


@dataclass
class StoredThread:
    """Which stored thread a segment shows, and how it went on (`forked`: in the debugger's copy)."""

    store: Any
    thread_id: str
    more: bool = False
    pending: tuple = ()
    forked: bool = False


StepperT = TypeVar("StepperT", bound=Stepper)


@dataclass
class GraphSegment(Generic[StepperT]):
    """One stepped run of a session: the main run, a what-if fork, a stored thread going on, or (the RAG
    workflow's adapter, `rag_debugger.workbench.session`) the resume run a HITL answer starts. One dataclass for
    both pages: the fields an adapter fills (`ctx`, `answer`, `prompt_version`, `outcome`) stay None here."""

    stepper: StepperT
    label: str = N_("run")
    kind: str = "graph"
    """What ran: "graph" (a graph of your own), or the adapter's graph kind ("main", "resume")."""
    replay: bool = False
    ctx: Any = None
    """The context the run's nodes get (`context=`): the user's `context_schema` object, the RAG workflow's
    `RagContext`; None in a replay (nothing runs)."""
    started_at: float = field(default_factory=time.time)
    run_id: Optional[str] = None
    """This segment's run in a run history, when a hook recorded it (or it was opened from one)."""
    thread: Optional[StoredThread] = None
    """Set on a segment that shows (or goes on with) a thread of the user's own checkpointer."""
    fork_of: Optional[tuple] = None
    """A what-if fork: (the segment it forked from, the step index there, the edited field, its new value)."""
    info: Any = None
    """Whatever a hook that opened this segment from a history knows about it (its run row)."""
    traced: bool = False
    """Sent to OpenTelemetry already."""
    ended_as: Optional[tuple] = None
    """(steps, error) when the hooks were last told this segment ended: told again only when it moved."""
    paused_at: Optional[int] = None
    """How many steps it had when the hooks were last told it waits for an answer."""
    message_edit: Any = None
    """A what-if on a messages field: which messages the edit replaced by id, how many it appended."""
    answer: Optional[str] = None
    """The person's answer that started this run (the RAG workflow's HITL resume)."""
    prompt_version: Optional[str] = None
    answerer_prompt: Optional[str] = None
    """The answer step's template of the run's prompt version (None: the built-in one)."""
    outcome: Any = None
    """What an adapter worked out once when the run reached its end (`rag_debugger.workbench.outcome.Outcome`), so
    drawing only reads it; its `key` is the `position_key` it belongs to."""

    @property
    def graph(self) -> Any:
        return self.stepper.graph

    @property
    def position_key(self) -> tuple[str, int]:
        """Where the run stands: (its thread, how many steps ran)."""
        return (self.stepper.thread_id, len(self.stepper.steps))


Segment = GraphSegment[Stepper]
"""A segment of any stepper, as a session holds them."""


class SegmentChain:
    """Mixed into a session that keeps `segments` (oldest first; each with `stepper`, `replay`, `fork_of`)."""

    segments: list[Segment]

    @property
    def current(self) -> Optional[Segment]:
        """The segment the session stands in (the last one), or None before any run."""
        return self.segments[-1] if self.segments else None

    def all_steps(self) -> list[tuple[Segment, StepRecord]]:
        """Every step of every segment, in timeline order. Kept while no segment moved: the page and a
        run's file ask at every position, and rebuilding it each time made a long run quadratic."""
        key = tuple((id(seg), len(seg.stepper.steps)) for seg in self.segments)
        kept = getattr(self, "_all_steps_memo", None)
        if kept is None or kept[0] != key:
            kept = (key, [(seg, rec) for seg in self.segments for rec in seg.stepper.steps])
            self._all_steps_memo = kept
        return kept[1]

    def viewed(self, travel: Optional[int] = None) -> tuple[Optional[Segment], int]:
        """The segment a view shows and how many of its steps had run: the current position, or after
        step `travel` (0-based over the session's steps, as the timeline numbers them)."""
        seg = self.current
        if seg is None or travel is None or travel < 0:
            return seg, len(seg.stepper.steps) if seg else 0
        for candidate in self.segments:
            count = len(candidate.stepper.steps)
            if travel < count:
                return candidate, travel + 1
            travel -= count
        return seg, len(seg.stepper.steps)

    @property
    def cut_short(self) -> bool:
        """A replayed run whose recording stops before the graph's end (it never finished)."""
        seg = self.current
        return bool(seg and seg.replay and getattr(seg.stepper, "cut_short", False))

    def fork_comparison(self) -> Optional[tuple[dict, dict]]:
        """(the original branch's final state, the fork's state now) when the current segment is a fork."""
        seg = self.current
        if seg is None or seg.fork_of is None:
            return None
        origin = seg.fork_of[0]
        original = origin.stepper.steps[-1].values_after if origin.stepper.steps else {}
        return original, seg.stepper.current_values()

    def drawing(self, travel: Optional[int] = None) -> Any:
        raise NotImplementedError

    def dot(self, travel: Optional[int] = None) -> str:
        """DOT of `drawing(travel)`, the marks as colours (for people and tests to read)."""
        return self.drawing(travel).dot()
__all__ = ["GraphSegment", "Segment", "SegmentChain", "StepperT", "StoredThread"]
