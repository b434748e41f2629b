"""A Step that runs off the page, in a worker thread, with Stop: what the generic session needs of it.

Why a seam: with a model on the person's own machine a step takes seconds to minutes, so the page runs it in a
worker, draws its calls as they stream and offers Stop. The session's `start_live` (rag_debugger.debugger.session)
is written once for both pages: it hands a runner the session's own `step` / `continue_` and the lanes of the next
superstep. The runner (the worker thread, the live model calls, Stop) is the application's
(`rag_debugger.workbench.live_step.LiveStepRunner`): this layer knows no model client.
"""
from __future__ import annotations

from typing import Any, Callable, Literal, Protocol

from pydantic import BaseModel

JobKind = Literal["step", "continue", "run"]
"""Step one superstep, Continue to a breakpoint, or Run to the end."""


class LaneView(BaseModel):
    """One task of the superstep a job runs (a fan-out's lanes are several), as the live view names it."""

    task_id: str
    node: str
    label: str = ""


class LiveJobHandle(Protocol):
    """A job the runner started: Continue tells it when it moved on to the next step."""

    def next_step(self, lanes: list[LaneView]) -> None: ...


class LiveRunner(Protocol):
    """At most one job at a time; anything else that would move the run meanwhile is refused."""

    def refuse_if_busy(self) -> None: ...

    def start(self, kind: JobKind, work: Callable[[], Any], lanes: list[LaneView]) -> Any: ...


__all__ = ["JobKind", "LaneView", "LiveJobHandle", "LiveRunner"]
