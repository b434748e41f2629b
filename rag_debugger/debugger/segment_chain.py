"""The one session core both debugger pages stand on: a chain of segments (the main run, then
resumes, what-if forks, a stored thread going on), each holding a `Stepper`, read the way the
inspector reads it (`rag_debugger.debugger.protocol.InspectedSession`).

Why a base of its own: the generic session (`rag_debugger.debugger.session.GraphSession`, Your graph) and the RAG
workflow's (`rag.workbench.session.DebugSession`, which adds recording, replay from the history, HITL
answers and the answering step as collaborators) had each written where the position is, the session's
steps in timeline order, which segment a time-travel index falls in, the fork comparison and the
"cut short" rule; now they read them from here."""
from __future__ import annotations

from typing import Any, Optional

from rag_debugger.debugger.records import StepRecord


class SegmentChain:
    """Mixed into a session that keeps `segments` (oldest first; each with `stepper`, `replay`, `fork_of`)."""

    segments: list[Any]

    @property
    def current(self) -> Any:
        """The segment the session stands in (the last one), or None before any run."""
        return self.segments[-1] if self.segments else None

    def all_steps(self) -> list[tuple[Any, StepRecord]]:
        """Every step of every segment, in timeline order. Kept while no segment moved: the page and a
        run's file ask at every position, and rebuilding it each time made a long run quadratic."""
        key = tuple((id(seg), len(seg.stepper.steps)) for seg in self.segments)
        kept = getattr(self, "_all_steps_memo", None)
        if kept is None or kept[0] != key:
            kept = (key, [(seg, rec) for seg in self.segments for rec in seg.stepper.steps])
            self._all_steps_memo = kept
        return kept[1]

    def viewed(self, travel: Optional[int] = None) -> tuple[Any, int]:
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
