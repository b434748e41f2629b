"""The records a stepping session leaves: one per superstep, one per task (lane), one per checkpoint.

They are plain pydantic models so a UI can show, cache or dump them without holding on to the
graph. State values are kept as LangGraph returned them (they may hold pydantic objects), hence
`arbitrary_types_allowed`.
"""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from rag_debugger.debugger.state_diff import DiffRow, diff_states


class LaneRecord(BaseModel):
    """One task of a superstep. A `Send` fan-out gives several lanes of the same node."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task_id: str
    node: str
    writes: Optional[dict[str, Any]] = None
    """The task's own update (`snapshot.tasks[i].result`), not the merged state."""
    error: Optional[str] = None
    interrupts: tuple[str, ...] = ()
    """Values of this task's `interrupt()` calls still waiting for an answer after the step."""
    answered: tuple[str, ...] = ()
    """Values of this task's `interrupt()` calls that an answer settled (they no longer wait)."""
    attempts: int = 1
    """How many times the task ran in this step: more than one when a `RetryPolicy` retried it."""
    failed_attempts: tuple[str, ...] = ()
    """The error of each attempt a `RetryPolicy` retried, oldest first."""
    cached: bool = False
    """The writes came from the node's `CachePolicy` cache: the node did not run."""
    sent: Any = None
    """What the `Send` that made this task handed it (its argument); None for a task an edge triggered, and in
    a replay. Compare pairs the lanes of two fan-outs by it."""
    handles: Optional[str] = None
    """Set on an `error_handler` task (`__error_handler__<node>`): the node whose error it handled."""
    started_ms: Optional[float] = None
    ended_ms: Optional[float] = None
    """When LangGraph reported the task's start and end, in ms from the step's start (None when it
    was read back instead of streamed): the waterfall draws parallel lanes from these."""


class StepRecord(BaseModel):
    """One superstep: which tasks ran, what each wrote, the state before and after."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: int
    """0-based position in the session; `GraphStepper.state_at(index)` views the state after it."""
    nodes: tuple[str, ...]
    lanes: tuple[LaneRecord, ...] = ()
    duration_ms: float = 0.0
    before_checkpoint_id: Optional[str] = None
    after_checkpoint_id: Optional[str] = None
    values_before: dict[str, Any] = Field(default_factory=dict)
    values_after: dict[str, Any] = Field(default_factory=dict)
    error: Optional[str] = None
    next_nodes: tuple[str, ...] = ()
    annotations: dict[str, Any] = Field(default_factory=dict)
    """Filled by the caller's `on_step` hook (e.g. progress events emitted during the step)."""
    append_fields: frozenset[str] = frozenset()
    nested_fields: frozenset[str] = frozenset()
    _diff: Optional[list[DiffRow]] = PrivateAttr(default=None)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def interrupted(self) -> bool:
        return any(lane.interrupts for lane in self.lanes)

    @property
    def diff(self) -> list[DiffRow]:
        """All diff rows of this step (unchanged included); see `rag_debugger.debugger.state_diff.diff_states`.
        Computed once: a record never changes, and the page redraws it on every rerun. Read from the
        private dict itself: pydantic's own lookup of a private attribute cost ~3 µs, more than a
        short step's whole line in a run's HTML file."""
        private = self.__pydantic_private__
        assert private is not None  # the model declares a private attribute
        rows = private.get("_diff")
        if rows is None:
            rows = private["_diff"] = diff_states(
                self.values_before,
                self.values_after,
                append_fields=self.append_fields,
                nested_fields=self.nested_fields,
            )
        return rows


class PendingInterrupt(BaseModel):
    """An `interrupt(value)` the run is paused on: which task asked, and what it asked."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    node: str
    task_id: str
    interrupt_id: str
    """LangGraph's id, for answering one of several pending interrupts."""
    value: Any = None
    """The value passed to `interrupt()`, as the node gave it (not a repr)."""


class CheckpointInfo(BaseModel):
    """One saved checkpoint of the thread, oldest first in `GraphStepper.checkpoints`."""

    checkpoint_id: str
    step: Optional[int] = None
    source: Optional[str] = None
    next_nodes: tuple[str, ...] = ()
    created_at: Optional[str] = None
