"""What a debugging session is made of: a chain of segments (the main run, one resume per HITL
answer, what-if forks), each a stepper with the context it runs in, and the outcome of a finished
segment, worked out once when it finished (`rag.workbench.outcome`) so that drawing a page only
reads it."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional

from rag.context import RagContext
from rag_debugger.debugger import Stepper


@dataclass(frozen=True)
class Outcome:
    """A finished position's client-facing result and, after an `answer` route, what the answering
    agent said (rag/answering.py). `key` says which position it belongs to: (thread, steps)."""

    key: tuple
    result: Optional[dict]
    answer: Any = None


@dataclass
class Segment:
    """One stepped run: the main graph, or the resume graph after a HITL answer."""

    kind: str  # "main" | "resume"
    stepper: Stepper  # GraphStepper (live), ReplayStepper (replay), or any other implementation
    ctx: Optional[RagContext]  # None in replay: nothing runs
    label: str
    answer: Optional[str] = None
    started_at: float = field(default_factory=time.time)
    run_id: Optional[str] = None
    """This segment's run in the history (None when not recorded)."""
    prompt_version: Optional[str] = None
    answerer_prompt: Optional[str] = None
    """The answerer template of the run's prompt version (None: the built-in one)."""
    replay: bool = False
    info: Any = None
    """The history's RunInfo of a replayed run."""
    fork_of: Any = None
    """A what-if fork: (the segment it forked from, the step index there, the edited field, its new value)."""
    traced: bool = False
    """Sent to OpenTelemetry already (rag/telemetry)."""
    outcome: Optional[Outcome] = None
    """The outcome of the position it reached last, once finished (`rag.workbench.outcome.result_and_answer`)."""

    @property
    def graph(self) -> Any:
        return self.stepper.graph

    @property
    def position_key(self) -> tuple:
        return (self.stepper.thread_id, len(self.stepper.steps))
