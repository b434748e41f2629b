"""Replay a recorded thread step by step, with no graph execution at all.

Why a separate stepper: a run exported on one machine must be shown on another "exactly as
recorded", without models, a knowledge base or even the same code version. So replay never calls
LangGraph: it walks an ordered list of recorded checkpoints and hands out the same `StepRecord`s a
live `GraphStepper` gives (nodes, lanes with each task's writes, values before/after), so every
panel that shows a live session shows a replay unchanged. Generic: nothing here knows about RAG.

Also: `record_thread(graph, config)` turns a live checkpointer thread into that list, which is how
runs are exported (and how a finished live run can be opened as a replay).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping, Optional, Sequence

from pydantic import BaseModel, Field

from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.i18n import _, ngettext
from rag_debugger.debugger.records import CheckpointInfo, LaneRecord, StepRecord
from rag_debugger.debugger.state_diff import state_values

START_NODE = "__start__"


class RecordedTask(BaseModel):
    """One task that ran from a checkpoint: its node, its own writes, its error."""

    id: str
    name: str
    writes: Optional[dict[str, Any]] = None
    error: Optional[str] = None


class RecordedCheckpoint(BaseModel):
    """One checkpoint of a thread as plain data (JSON-able when the state is)."""

    checkpoint_id: str
    parent_checkpoint_id: Optional[str] = None
    step: Optional[int] = None
    source: Optional[str] = None
    created_at: Optional[str] = None
    next: tuple[str, ...] = ()
    values: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    tasks: list[RecordedTask] = Field(default_factory=list)


def _cid(config: Optional[Mapping[str, Any]]) -> Optional[str]:
    return ((config or {}).get("configurable") or {}).get("checkpoint_id")


def _task_error(error: Any) -> Optional[str]:
    if error is None:
        return None
    if isinstance(error, BaseException):
        return f"{type(error).__name__}: {error}"
    return str(error)


def record_thread(graph: Any, config: Mapping[str, Any]) -> list[RecordedCheckpoint]:
    """All checkpoints of a thread, oldest first, with each checkpoint's tasks and their writes
    (LangGraph keeps a task's writes with the checkpoint it ran from)."""
    out = []
    for snap in graph.get_state_history(dict(config)):
        meta = dict(snap.metadata or {})
        out.append(
            RecordedCheckpoint(
                checkpoint_id=_cid(snap.config) or "",
                parent_checkpoint_id=_cid(snap.parent_config),
                step=meta.get("step"),
                source=meta.get("source"),
                created_at=snap.created_at,
                next=tuple(snap.next),
                values=state_values(snap.values),
                metadata=meta,
                tasks=[
                    RecordedTask(
                        id=str(t.id), name=str(t.name),
                        writes=t.result if isinstance(t.result, dict) or t.result is None else {"__return__": t.result},
                        error=_task_error(getattr(t, "error", None)),
                    )
                    for t in snap.tasks
                ],
            )
        )
    out.reverse()
    return out


def linear_path(checkpoints: Sequence[RecordedCheckpoint], head: Optional[str] = None) -> list[RecordedCheckpoint]:
    """The chain of checkpoints that leads to `head` (default: the newest one), oldest first.

    A thread can branch (time travel, an A/B fork); a replay follows one branch, the one that
    ended at `head`, by parent links. Without any parent links the list order is kept.
    """
    if not checkpoints:
        return []
    by_id = {c.checkpoint_id: c for c in checkpoints}
    if head is not None and head not in by_id:
        raise StepperError(_("unknown checkpoint {id} in the recording").format(id=repr(head)))
    if not any(c.parent_checkpoint_id for c in checkpoints):
        items = list(checkpoints)
        return items[: items.index(by_id[head]) + 1] if head else items
    node = by_id[head] if head else checkpoints[-1]
    chain = [node]
    seen = {node.checkpoint_id}
    while node.parent_checkpoint_id and node.parent_checkpoint_id in by_id:
        node = by_id[node.parent_checkpoint_id]
        if node.checkpoint_id in seen:
            raise StepperError(_("the recording's checkpoints form a cycle"))
        seen.add(node.checkpoint_id)
        chain.append(node)
    chain.reverse()
    return chain


def _ms_between(a: Optional[str], b: Optional[str]) -> float:
    if a is None or b is None:
        return 0.0
    try:
        return round((datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds() * 1000.0, 3)
    except (TypeError, ValueError):
        return 0.0


def _lanes(cp: RecordedCheckpoint) -> tuple[LaneRecord, ...]:
    return tuple(LaneRecord(task_id=t.id, node=t.name, writes=t.writes, error=t.error) for t in cp.tasks)


def _names(cp: RecordedCheckpoint) -> tuple[str, ...]:
    return tuple(t.name for t in cp.tasks) or tuple(cp.next)


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def steps_from_checkpoints(
    checkpoints: Sequence[RecordedCheckpoint],
    *,
    append_fields: Iterable[str] = (),
    nested_fields: Iterable[str] = (),
) -> list[StepRecord]:
    """One StepRecord per superstep of a linear path, shaped like a live `GraphStepper`'s:
    the input step (`__start__`) is not a step (a live stepper pauses after it too); a last
    checkpoint whose tasks failed gives a final step that carries the error; the copy LangGraph
    writes when a run restarts from a past checkpoint (source `fork`) is not a step either, nor is the
    edit a what-if fork writes (source `update`: `update_state`), which the next step shows as its input."""
    appends, nested = frozenset(append_fields), frozenset(nested_fields)
    steps: list[StepRecord] = []
    cps = list(checkpoints)
    for i, cp in enumerate(cps):
        if not cp.next or set(cp.next) == {START_NODE}:
            continue
        after = cps[i + 1] if i + 1 < len(cps) else None
        if after is not None and after.source in ("fork", "update"):
            continue  # LangGraph's copy of a past checkpoint, or an edit written over it: no step ran
        lanes = _lanes(cp)
        errors = [f"{lane.node}: {lane.error}" for lane in lanes if lane.error]
        if after is None and not errors:
            break  # the recording stopped before this step ran (a paused session)
        steps.append(
            StepRecord(
                index=len(steps),
                nodes=_unique(_names(cp)),
                lanes=lanes,
                duration_ms=_ms_between(cp.created_at, after.created_at) if after else 0.0,
                before_checkpoint_id=cp.checkpoint_id,
                after_checkpoint_id=after.checkpoint_id if after else cp.checkpoint_id,
                values_before=dict(cp.values),
                values_after=dict(after.values if after else cp.values),
                error="; ".join(errors) if errors and after is None else None,
                next_nodes=_names(after) if after else _names(cp),
                append_fields=appends,
                nested_fields=nested,
            )
        )
    return steps


class StepTiming(BaseModel):
    """What a live stepper measured about one step, kept with a recording because checkpoints do not
    hold it: the step's own duration (checkpoint timestamps also count the time a person paused between
    Steps), when each lane started and ended, and the caller's timed spans (`annotations["spans"]`, e.g.
    model calls). Keyed by the checkpoint the step ran from, which a replay of the same thread shares."""

    checkpoint_id: Optional[str] = None
    nodes: tuple[str, ...] = ()
    duration_ms: float = 0.0
    lanes: dict[str, tuple[Optional[float], Optional[float]]] = Field(default_factory=dict)
    """task id -> (started_ms, ended_ms) from the step's start."""
    spans: list[dict[str, Any]] = Field(default_factory=list)


def step_timings(records: Iterable[StepRecord]) -> list[StepTiming]:
    """The timings of live steps, to keep with their recording (see `apply_timings`)."""
    return [
        StepTiming(checkpoint_id=rec.before_checkpoint_id, nodes=rec.nodes, duration_ms=rec.duration_ms,
                   lanes={lane.task_id: (lane.started_ms, lane.ended_ms) for lane in rec.lanes
                          if lane.started_ms is not None or lane.ended_ms is not None},
                   spans=list(rec.annotations.get("spans") or []))
        for rec in records
    ]


SPANS_RECORDED = "spans_recorded"
"""Annotation of a replayed step: True when its recording kept the step's timed spans (none may have
happened), False when the recording predates keeping them (a UI says so instead of "none")."""


def apply_timings(steps: Sequence[StepRecord], timings: Optional[Iterable[StepTiming | Mapping[str, Any]]]) -> int:
    """Put recorded timings on replayed steps: the measured duration, lane start/end and spans replace
    the estimate from checkpoint timestamps. `timings` None means the recording kept none: every step
    is marked so (`SPANS_RECORDED` False). A timing is matched by the checkpoint its step ran from, else
    by position when it names none; one whose nodes differ is not applied. Returns how many steps got one."""
    if timings is None:
        for step in steps:
            step.annotations[SPANS_RECORDED] = False
        return 0
    items = [t if isinstance(t, StepTiming) else StepTiming.model_validate(t) for t in timings]
    by_checkpoint = {t.checkpoint_id: t for t in items if t.checkpoint_id}
    applied = 0
    for i, step in enumerate(steps):
        timing = by_checkpoint.get(step.before_checkpoint_id or "")
        if timing is None and i < len(items) and not items[i].checkpoint_id:
            timing = items[i]
        step.annotations[SPANS_RECORDED] = True
        if timing is None or (timing.nodes and tuple(timing.nodes) != tuple(step.nodes)):
            continue
        step.duration_ms = timing.duration_ms
        step.lanes = tuple(lane.model_copy(update=dict(zip(("started_ms", "ended_ms"), timing.lanes[lane.task_id], strict=True)))
                           if lane.task_id in timing.lanes else lane for lane in step.lanes)
        step.annotations["spans"] = [dict(span) for span in timing.spans]
        applied += 1
    return applied


class ReplayStepper:
    """A stepper over a recording: the `GraphStepper` surface that makes sense without a graph.

    `replay` is always True so a UI can mark the mode. `step()` moves one recorded superstep
    forward; `state_at(i)` reads any recorded step (or checkpoint id) without moving; `restart()`
    goes back to the start. Per-step `annotations` (e.g. progress events) can be attached by index.
    """

    replay = True

    def __init__(
        self,
        checkpoints: Sequence[RecordedCheckpoint | Mapping[str, Any]],
        *,
        head: Optional[str] = None,
        append_fields: Iterable[str] = (),
        nested_fields: Iterable[str] = (),
        annotations: Optional[Sequence[Mapping[str, Any]]] = None,
        thread_id: str = "replay",
        graph: Any = None,
    ) -> None:
        items = [c if isinstance(c, RecordedCheckpoint) else RecordedCheckpoint.model_validate(c) for c in checkpoints]
        if not items:
            raise StepperError(_("the recording holds no checkpoints"))
        self.recorded = items
        self.path = linear_path(items, head)
        self.all_steps = steps_from_checkpoints(self.path, append_fields=append_fields, nested_fields=nested_fields)
        for i, note in enumerate(annotations or ()):
            if i < len(self.all_steps) and note:
                self.all_steps[i].annotations.update(dict(note))
        self.append_fields = frozenset(append_fields)
        self.nested_fields = frozenset(nested_fields)
        self.thread_id = thread_id
        self.graph = graph
        self._pos = 0
        self.error: Optional[str] = None
        self.start_checkpoint_id = self.all_steps[0].before_checkpoint_id if self.all_steps else self.path[-1].checkpoint_id

    # ----- the GraphStepper surface ----------------------------------------------------------
    @property
    def started(self) -> bool:
        return True

    @property
    def steps(self) -> list[StepRecord]:
        """The steps replayed so far (like a live session's `steps`)."""
        return self.all_steps[: self._pos]

    @property
    def total_steps(self) -> int:
        return len(self.all_steps)

    @property
    def position(self) -> int:
        return self._pos

    @property
    def cut_short(self) -> bool:
        """The recording stops before the graph's end with no failed step: the run was paused
        (or abandoned) there. Its end is then not a finish: there is no outcome to show."""
        last = self.all_steps[-1] if self.all_steps else None
        return bool(self.path[-1].next) and not (last is not None and last.error)

    @property
    def done(self) -> bool:
        return self._pos >= len(self.all_steps)

    @property
    def next_nodes(self) -> tuple[str, ...]:
        if self.done:
            return ()
        step = self.all_steps[self._pos]
        return tuple(lane.node for lane in step.lanes) or step.nodes

    @property
    def nodes_run(self) -> tuple[str, ...]:
        return _unique(lane.node for s in self.steps for lane in s.lanes if lane.error is None)

    def current_values(self) -> dict[str, Any]:
        if self._pos == 0:
            return dict(self.all_steps[0].values_before) if self.all_steps else dict(self.path[-1].values)
        return dict(self.all_steps[self._pos - 1].values_after)

    def step(self) -> StepRecord:
        if self.done:
            raise StepperError(_("the recording has ended; restart to replay it again"))
        record = self.all_steps[self._pos]
        self._pos += 1
        self.error = record.error
        return record

    def run_to_end(self, max_steps: int = 200) -> list[StepRecord]:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        out: list[StepRecord] = []
        while not self.done and len(out) < max_steps:
            out.append(self.step())
        return out

    def restart(self, input: Any = None) -> None:
        self._pos = 0
        self.error = None

    def start(self, input: Any = None) -> None:
        self.restart()

    def _checkpoint(self, ref: int | str) -> RecordedCheckpoint:
        if isinstance(ref, bool):
            raise StepperError("a step index or a checkpoint id is expected")
        if isinstance(ref, int):
            try:
                cid = self.all_steps[ref].after_checkpoint_id
            except IndexError:
                n = len(self.all_steps)
                raise StepperError(ngettext("no step {ref}: the recording has {n} step",
                                            "no step {ref}: the recording has {n} steps", n).format(ref=ref, n=n)) from None
        elif isinstance(ref, str) and ref:
            cid = ref
        else:
            raise StepperError("a step index or a checkpoint id is expected")
        for cp in self.recorded:
            if cp.checkpoint_id == cid:
                return cp
        raise StepperError(_("unknown checkpoint {id} in the recording").format(id=repr(cid)))

    def state_at(self, ref: int | str) -> dict[str, Any]:
        """State after recorded step `ref` (any step, replayed or not) or at a checkpoint id."""
        return dict(self._checkpoint(ref).values)

    @property
    def checkpoints(self) -> list[CheckpointInfo]:
        return [
            CheckpointInfo(checkpoint_id=c.checkpoint_id, step=c.step, source=c.source, next_nodes=c.next,
                           created_at=c.created_at)
            for c in self.path
        ]

    def to_dot(self, **kwargs: Any) -> str:
        """The graph at the replay position; needs the graph's structure (no model, no data)."""
        if self.graph is None:
            raise StepperError(_("this replay was opened without a graph to draw"))
        from rag_debugger.debugger.graph_view import END_ID, fanout_edges_from_steps, graph_to_dot

        current = (END_ID,) if self.done else self.next_nodes
        kwargs.setdefault("fanout_edges", fanout_edges_from_steps(self.graph, self.steps))
        return graph_to_dot(self.graph, current=current, done=self.nodes_run, **kwargs)


__all__ = [
    "RecordedTask", "RecordedCheckpoint", "record_thread", "linear_path", "steps_from_checkpoints", "ReplayStepper",
    "SPANS_RECORDED", "StepTiming", "apply_timings", "step_timings",
]
