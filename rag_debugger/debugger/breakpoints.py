"""Breakpoints: nodes to pause before. Continue runs step by step and stops once the next
superstep would run a node that has one (a `Send` fan-out is one superstep, so a breakpoint on the
fanned-out node pauses before all its lanes). Pure rules; the UI keeps the chosen set."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence


def breakpoint_hit(next_nodes: Iterable[str], breakpoints: Iterable[str]) -> Optional[str]:
    """The first node about to run that has a breakpoint, else None."""
    wanted = set(breakpoints)
    for node in next_nodes:
        if node in wanted:
            return node
    return None


@dataclass(frozen=True)
class CompiledBreakpoints:
    """The breakpoints compiled into the graph (`compile(interrupt_before=..., interrupt_after=...)`), kept on the
    compiled graph as `interrupt_before_nodes` / `interrupt_after_nodes` ("*" = every node). LangGraph pauses
    a run there by itself; the debugger steps with its own per-call pause before every superstep, so it
    must stop where LangGraph would: before a superstep that runs a `before` node, after one that ran an
    `after` node."""

    before: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()
    all_before: bool = False
    all_after: bool = False

    @classmethod
    def of(cls, graph: Any) -> "CompiledBreakpoints":
        def read(attr: str) -> tuple[frozenset[str], bool]:
            value = getattr(graph, attr, None) or ()
            if value == "*" or (isinstance(value, Sequence) and "*" in value):
                return frozenset(), True
            return frozenset(str(v) for v in value), False

        before, all_before = read("interrupt_before_nodes")
        after, all_after = read("interrupt_after_nodes")
        return cls(before=before, after=after, all_before=all_before, all_after=all_after)

    def __bool__(self) -> bool:
        return bool(self.before or self.after or self.all_before or self.all_after)

    def pauses_before(self, node: str) -> bool:
        return self.all_before or node in self.before

    def pauses_after(self, node: str) -> bool:
        return self.all_after or node in self.after

    def stop(self, ran: Iterable[str], next_nodes: Iterable[str]) -> Optional[str]:
        """Where LangGraph pauses once a superstep that ran `ran` ended with `next_nodes` to run next:
        `after:<node>`, `before:<node>`, or None (an ended run does not pause)."""
        upcoming = [n for n in next_nodes if not n.startswith("__")]
        if not upcoming:
            return None
        for node in ran:
            if self.pauses_after(node):
                return f"after:{node}"
        for node in upcoming:
            if self.pauses_before(node):
                return f"before:{node}"
        return None

    def labels(self) -> dict[str, str]:
        """Node -> "before" / "after" / "before, after", for drawing them on the graph (a "*" names no node)."""
        out: dict[str, list[str]] = {}
        for node in sorted(self.before):
            out.setdefault(node, []).append("before")
        for node in sorted(self.after):
            out.setdefault(node, []).append("after")
        return {k: ", ".join(v) for k, v in out.items()}


@dataclass(frozen=True)
class ContinueResult:
    """How a Continue ended: at a breakpoint (`hit`: the node it paused before), at the end, on a
    failed step (`error`), or at the step limit (`limited`: a graph that loops without end)."""

    steps: int
    hit: Optional[str] = None
    error: Optional[str] = None
    limited: bool = False
    compiled: Optional[str] = None
    """A breakpoint compiled into the graph stopped it: `before:<node>` or `after:<node>`."""


def continue_until(stepper: Any, step: Callable[[], Any], breakpoints: Iterable[str] = (), *,
                   on_step: Optional[Callable[[Any], None]] = None, limit: int = 200,
                   waiting: Optional[Callable[[], bool]] = None,
                   compiled: CompiledBreakpoints = CompiledBreakpoints()) -> ContinueResult:
    """Continue, for any session: call `step()` (the session's, so its recording and outcome follow
    each step) until `stepper` is done or failed, or the next superstep would run a node with a
    breakpoint, or `limit` steps ran, or `waiting()` says the run waits for an answer (an `interrupt()`).
    A breakpoint on the node the run is paused before does not stop
    the first step: Continue from a breakpoint goes on. `compiled`: the graph's own breakpoints, which
    stop it where LangGraph would pause (`CompiledBreakpoints.stop`)."""
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
        if stepper.done or (waiting is not None and waiting()):
            continue  # an interrupt() asks first: the node it waits in is "next", not a breakpoint hit
        pause = compiled.stop(getattr(record, "nodes", ()) or (), stepper.next_nodes) if compiled else None
        if pause:
            return ContinueResult(steps=taken, compiled=pause)
        hit = breakpoint_hit(stepper.next_nodes, stops)
        if hit:
            return ContinueResult(steps=taken, hit=hit)
    return ContinueResult(steps=taken, error=stepper.error)
