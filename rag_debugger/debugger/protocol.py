"""The seam between a debugger UI and whatever moves through a run: `Stepper`.

Like LangGraph's `BaseCheckpointSaver`, the UI depends on this protocol, not on a class. Two
implementations ship: `GraphStepper` (a live compiled graph, one superstep per `step()`) and
`ReplayStepper` (a recording, nothing executes). Anything else that satisfies it, a stepper over
your own graph runtime or a scripted one in a test, plugs into the same UI.

The members are what a step debugger needs and nothing more: move (start, step, run to the end,
restart), read (the steps so far, the state now, the state at any step, what runs next) and report
(done, error). `runtime_checkable` so a test can assert an object fits.
"""
from __future__ import annotations

from typing import Any, Optional, Protocol, runtime_checkable

from rag_debugger.debugger.records import CheckpointInfo, StepRecord


@runtime_checkable
class Stepper(Protocol):
    graph: Any
    """The compiled graph being stepped, for drawing (None: a recording opened without one)."""
    thread_id: str
    error: Optional[str]
    """A one-line message when the last step failed, else None."""

    @property
    def steps(self) -> list[StepRecord]:
        """The steps taken so far, oldest first (read-only: a replay's are a view of its recording)."""

    @property
    def started(self) -> bool: ...

    @property
    def done(self) -> bool:
        """True when nothing is left to run."""

    @property
    def next_nodes(self) -> tuple[str, ...]:
        """The nodes the next step runs (empty when done)."""

    @property
    def nodes_run(self) -> tuple[str, ...]: ...

    @property
    def checkpoints(self) -> list[CheckpointInfo]: ...

    def start(self, input: Any) -> None: ...

    def step(self) -> StepRecord: ...

    def run_to_end(self, max_steps: int = 200) -> list[StepRecord]: ...

    def restart(self, input: Any = None) -> None: ...

    def current_values(self) -> dict[str, Any]: ...

    def state_at(self, ref: int | str) -> dict[str, Any]:
        """The state at step `ref` (an index) or a checkpoint id; reads, never runs."""

    def to_dot(self, **kwargs: Any) -> str: ...



@runtime_checkable
class InspectedSession(Protocol):
    """What the inspector reads of a debugging session, whatever graph it steps (`rag_debugger.debugger.session.GraphSession`,
    the RAG debugger's session): a chain of segments, each with a `stepper` (a `Stepper`), a `label`, a
    `replay` flag and a `fork_of` (None, or (origin segment, step index there, field, new value))."""

    segments: list
    replay_mode: bool
    question: str
    """What the controls act on ("" when the page has no question box)."""

    @property
    def current(self) -> Any:
        """The newest segment (None before any run)."""

    @property
    def done(self) -> bool:
        """Nothing for Step / Continue to do: finished, or waiting for an answer."""

    @property
    def cut_short(self) -> bool:
        """A replayed recording that stops before the graph's end."""

    def all_steps(self) -> list[tuple[Any, StepRecord]]:
        """(segment, step) over every segment, as the timeline numbers them."""

    def drawing(self, travel: Optional[int] = None) -> Any:
        """The graph with its marks now, or after step `travel` (time travel)."""

    def dot(self, travel: Optional[int] = None) -> str: ...

    def pending_interrupts(self) -> tuple: ...

    def result(self) -> Optional[dict]:
        """The workflow's result, when it has one beside its final state (None: the final state is it)."""

    def answer(self) -> Any:
        """An answer made after the graph (None when there is none)."""

    def fork_comparison(self) -> Optional[tuple[dict, dict]]:
        """(original final state, fork's state) when the current segment is a what-if fork."""


__all__ = ["InspectedSession", "Stepper"]
