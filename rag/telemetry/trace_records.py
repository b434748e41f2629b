"""What a trace is built from: a run, its supersteps, their lanes (tasks) and the model calls.

Why a shape of its own: the debugger's stepper (`rag_debugger.debugger.records.StepRecord`) and a plain
`run_rag_graph` (LangGraph's task stream) record the same run differently; both are turned into this,
and one function (`rag.telemetry.spans.emit_run`) turns it into spans. Times are wall-clock
nanoseconds since the epoch, what OpenTelemetry wants.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional


@dataclass
class TracedCall:
    """One model call as `rag.models.calls.record_model_call` reported it."""

    role: str
    model: str
    start_ns: int
    end_ns: int
    task_id: Optional[str] = None
    method: Optional[str] = None
    prompt: Optional[str] = None
    output: Optional[str] = None
    tokens_in: Optional[int] = None
    tokens_out: Optional[int] = None
    error_kind: Optional[str] = None

    @classmethod
    def from_sink(cls, call: dict) -> "TracedCall":
        end = int(call.get("wall_end_ns") or time.time_ns())
        return cls(role=str(call.get("role")), model=str(call.get("model")),
                   start_ns=end - int(float(call.get("elapsed_ms") or 0.0) * 1e6), end_ns=end,
                   task_id=call.get("task_id"), method=call.get("method"), prompt=call.get("prompt"),
                   output=call.get("output"), tokens_in=call.get("tokens_in"), tokens_out=call.get("tokens_out"),
                   error_kind=call.get("error_kind"))


@dataclass
class TracedLane:
    task_id: str
    node: str
    start_ns: int
    end_ns: int
    writes: Any = None
    error: Optional[str] = None


@dataclass
class TracedStep:
    index: int
    start_ns: int
    end_ns: int
    lanes: list[TracedLane] = field(default_factory=list)
    error: Optional[str] = None


@dataclass
class TracedRun:
    kind: str
    """"main", "resume" (a HITL resume) or "graph" (Your graph: the generic part only)."""
    start_ns: int
    end_ns: int
    question: Optional[str] = None
    values: dict = field(default_factory=dict)
    """The run's final state."""
    steps: list[TracedStep] = field(default_factory=list)
    calls: list[TracedCall] = field(default_factory=list)
    run_id: Optional[str] = None
    parent_run_id: Optional[str] = None
    prompt_version: Optional[str] = None
    error: Optional[str] = None
    graph_name: Optional[str] = None
    snapshot: Optional[dict] = None
    """The HITL snapshot this resume answered (links it to the run that asked)."""


class TaskStream:
    """Turns `graph.stream(..., stream_mode=["debug", "values"])` into steps as it goes: LangGraph's debug
    events name the superstep of every task start and result (the `values` events do not follow every
    superstep: none comes between a step and the `Send` fan-out after it)."""

    def __init__(self) -> None:
        self.steps: list[TracedStep] = []
        self.values: dict = {}
        self._open: dict[str, TracedLane] = {}
        self._by_index: dict[int, TracedStep] = {}

    def feed(self, mode: str, event: Any) -> None:
        if mode == "values":
            self.values = event if isinstance(event, dict) else {}
            return
        if mode != "debug" or not isinstance(event, dict) or event.get("type") not in ("task", "task_result"):
            return
        now = time.time_ns()
        payload = event.get("payload") or {}
        index = int(event.get("step") or 0)
        step = self._by_index.get(index)
        if step is None:
            step = self._by_index[index] = TracedStep(index=len(self.steps) + 1, start_ns=now, end_ns=now)
            self.steps.append(step)
        if event["type"] == "task":
            lane = TracedLane(task_id=str(payload.get("id")), node=str(payload.get("name")), start_ns=now, end_ns=now)
            self._open[lane.task_id] = lane
            step.lanes.append(lane)
            return
        ended = self._open.pop(str(payload.get("id")), None)
        if ended is not None:
            ended.end_ns = now
            ended.writes = _writes(payload.get("result"))
            ended.error = str(payload["error"]) if payload.get("error") else None
        step.end_ns = max(step.end_ns, now)

    def finish(self, error: Optional[str] = None) -> None:
        now = time.time_ns()
        for lane in self._open.values():
            lane.end_ns, lane.error = now, lane.error or error
        if self._open and self.steps:
            self.steps[-1].end_ns, self.steps[-1].error = now, error


def _writes(result: Any) -> Any:
    """A task result as a dict: debug events give a list of (channel, value) writes."""
    if isinstance(result, dict):
        return result
    if isinstance(result, (list, tuple)):
        out: dict = {}
        for item in result:
            if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str):
                out[item[0]] = item[1]
        return out
    return None


def steps_from_stepper(records: Iterable[Any]) -> list[TracedStep]:
    """The debugger's step records (`rag_debugger.debugger.records.StepRecord`), with the wall-clock end the session
    noted in `annotations["wall_end_ns"]` (lanes are placed by their reported start and end in the step)."""
    out = []
    for rec in records:
        end = int(rec.annotations.get("wall_end_ns") or time.time_ns())
        start = end - int(rec.duration_ms * 1e6)
        lanes = []
        for lane in rec.lanes:
            l_start = start + int(lane.started_ms * 1e6) if lane.started_ms is not None else start
            l_end = start + int(lane.ended_ms * 1e6) if lane.ended_ms is not None else end
            lanes.append(TracedLane(task_id=lane.task_id, node=lane.node, start_ns=l_start, end_ns=max(l_start, l_end),
                                    writes=lane.writes, error=lane.error))
        if not lanes:
            lanes = [TracedLane(task_id="", node=n, start_ns=start, end_ns=end) for n in rec.nodes]
        out.append(TracedStep(index=rec.index, start_ns=start, end_ns=end, lanes=lanes, error=rec.error))
    return out
