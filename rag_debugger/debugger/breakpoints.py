"""Breakpoints: nodes to pause before. Continue runs step by step and stops once the next
superstep would run a node that has one (a `Send` fan-out is one superstep, so a breakpoint on the
fanned-out node pauses before all its lanes). Pure rules; the UI keeps the chosen set."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional


def breakpoint_hit(next_nodes: Iterable[str], breakpoints: Iterable[str]) -> Optional[str]:
    """The first node about to run that has a breakpoint, else None."""
    wanted = set(breakpoints)
    for node in next_nodes:
        if node in wanted:
            return node
    return None


@dataclass(frozen=True)
class ContinueResult:
    """How a Continue ended: at a breakpoint (`hit`: the node it paused before), at the end, on a
    failed step (`error`), or at the step limit (`limited`: a graph that loops without end)."""

    steps: int
    hit: Optional[str] = None
    error: Optional[str] = None
    limited: bool = False


def continue_until(stepper: Any, step: Callable[[], Any], breakpoints: Iterable[str] = (), *,
                   on_step: Optional[Callable[[Any], None]] = None, limit: int = 200,
                   waiting: Optional[Callable[[], bool]] = None) -> ContinueResult:
    """Continue, for any session: call `step()` (the session's, so its recording and outcome follow
    each step) until `stepper` is done or failed, or the next superstep would run a node with a
    breakpoint, or `limit` steps ran, or `waiting()` says the run waits for an answer (an `interrupt()`).
    A breakpoint on the node the run is paused before does not stop
    the first step: Continue from a breakpoint goes on."""
    stops = set(breakpoints)
    taken = 0
    while not (stepper.done or stepper.error or (waiting is not None and waiting())):
        if taken >= limit:
            return ContinueResult(steps=taken, limited=True)
        record = step()
        taken += 1
        if on_step is not None:
            on_step(record)
        if stepper.error:
            return ContinueResult(steps=taken, error=stepper.error)
        hit = None if stepper.done else breakpoint_hit(stepper.next_nodes, stops)
        if hit:
            return ContinueResult(steps=taken, hit=hit)
    return ContinueResult(steps=taken, error=stepper.error)
