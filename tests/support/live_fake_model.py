"""Model roles that stream like a real client, for the live-step tests: each call reports to the
live-call observer (rag/models/calls.py), sends its reply as JSON text in small pieces, and stops with
`CallCancelled` when the cancel event is set, as the streaming OpenAI-compatible client does.

`hold`: while it is clear, every call waits after its first pieces (checking the cancel event), so a
test sees tokens arrive before the step ends and can press Stop mid-call without guessing at timings.
"""
from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

from langchain_core.runnables import RunnableLambda

from rag.models.base import ModelRoles
from rag.models.calls import CallCancelled, cancel_requested, current_task_id, live_observer
from rag.schemas import ComplexityResult, EvidenceGrade, RewritePlan

PLAN = ComplexityResult(complexity="complex", complexity_reason="two characters compared",
                        sub_questions=["丹瑾是什么属性？", "寒砚用什么武器？"])
GRADE = EvidenceGrade(relevance="strong", answerability="sufficient", ambiguity="none", confidence=0.9,
                      route="answer", reason="the evidence states it")
REWRITE = RewritePlan(method="step_back", step_back_question="general?")
_ids = itertools.count(1)


@dataclass(frozen=True)
class LiveFakeRoles(ModelRoles):
    """`live_calls`: the debugger runs these roles' steps in its worker thread (as for a real endpoint)."""

    live_calls: bool = True


class StreamingFake:
    def __init__(self, *, piece_chars: int = 6, delay: float = 0.0, held_after: int = 2) -> None:
        self.hold = threading.Event()
        self.hold.set()
        self.piece_chars = piece_chars
        self.delay = delay
        self.held_after = held_after
        self.started = threading.Event()
        """Set when a call has sent its first pieces (and waits while `hold` is clear)."""
        self.calls: list[str] = []
        self.cancelled: list[str] = []

    def _call(self, role: str, reply: Any) -> Any:
        call_id = f"fake-{next(_ids)}"
        observer = live_observer()
        self.calls.append(role)
        if observer is not None:
            observer.call_started(call_id, role, f"fake-{role}", current_task_id())
        text = json.dumps(reply.model_dump(), ensure_ascii=False)
        pieces = [text[i:i + self.piece_chars] for i in range(0, len(text), self.piece_chars)]
        try:
            for i, piece in enumerate(pieces):
                if i == self.held_after:
                    self.started.set()
                    while not self.hold.wait(0.01):
                        if cancel_requested():
                            raise CallCancelled(role)
                if cancel_requested():
                    raise CallCancelled(role)
                if observer is not None:
                    observer.call_token(call_id, piece)
                if self.delay:
                    time.sleep(self.delay)
        except CallCancelled:
            self.cancelled.append(role)
            if observer is not None:
                observer.call_ended(call_id, False, "cancelled")
            raise
        if observer is not None:
            observer.call_ended(call_id, True, None)
        return reply

    def roles(self, *, plan: Optional[ComplexityResult] = None) -> LiveFakeRoles:
        planned = plan or PLAN
        return LiveFakeRoles(planner=RunnableLambda(lambda _i: self._call("planner", planned)),
                             grader=RunnableLambda(lambda _i: self._call("grader", GRADE)),
                             rewriter=RunnableLambda(lambda _i: self._call("rewriter", REWRITE)),
                             provider="fake-live")
