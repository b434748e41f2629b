"""Step any compiled LangGraph graph one superstep at a time, using LangGraph itself.

Why not re-implement the control flow: the debugger must show what the real graph does, so it
drives the real compiled graph with a per-call `interrupt_before="*"` (the same compiled graph
serves normal runs; see shared/NOTES.md). Each `step()` is one `invoke(None, ...)`: LangGraph runs
exactly the tasks of the next superstep (all `Send` branches together) and pauses again. Per-task
writes come from `get_state(before_config).tasks[i].result`, i.e. LangGraph's own bookkeeping,
not from guessing which keys a node touched.

Nothing here knows about RAG: the runtime context (`context=`) is passed through untouched.
"""
from __future__ import annotations

import logging
import re
import time
import uuid
from typing import Any, Callable, Iterable, Optional

from debugger.diff import reducer_fields
from debugger.records import CheckpointInfo, LaneRecord, StepRecord

log = logging.getLogger(__name__)

_UNSET: Any = object()
MAX_ERROR_CHARS = 2000

StepHook = Callable[[StepRecord], Any]


class StepperError(RuntimeError):
    """A misuse of the stepper (step before start, step after the end, unknown step/checkpoint)."""


def describe_error(exc: BaseException) -> str:
    """One readable line for the UI: exception type and message, never a traceback."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if text.endswith(":"):
        text = text[:-1]
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def new_thread_id(prefix: str = "dbg") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def _checkpoint_id(config: Optional[dict]) -> Optional[str]:
    if not config:
        return None
    return (config.get("configurable") or {}).get("checkpoint_id")


_REPR_ERROR = re.compile(r"^(?P<name>[A-Za-z_][\w.]*)\((?P<q>['\"])(?P<msg>.*)(?P=q),?\)$", re.S)


def _task_error_text(error: Any) -> str:
    """LangGraph keeps a task's error as `repr(exc)`; show it like `describe_error` does."""
    if isinstance(error, BaseException):
        return describe_error(error)
    text = str(error)
    m = _REPR_ERROR.match(text)
    if m:
        text = f"{m.group('name')}: {m.group('msg')}"
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def _writes_of(result: Any) -> Optional[dict[str, Any]]:
    if result is None:
        return None
    if isinstance(result, dict):
        return dict(result)
    return {"__return__": result}


def _lane(task: Any) -> LaneRecord:
    error = getattr(task, "error", None)
    return LaneRecord(
        task_id=str(task.id),
        node=str(task.name),
        writes=_writes_of(getattr(task, "result", None)),
        error=None if error is None else _task_error_text(error),
        interrupts=tuple(repr(getattr(i, "value", i)) for i in (getattr(task, "interrupts", ()) or ())),
    )


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


class GraphStepper:
    """A stepping session over one compiled graph, on its own checkpointer thread.

    Each instance gets a unique thread id (unless one is given), so two sessions over one shared
    compiled graph never see each other's state. `restart()` moves to a fresh thread; the old one
    stays in the checkpointer untouched.

    A node that raises does not propagate: the step's record and `self.error` carry a one-line
    message, `done` stays False, and a further `step()` retries the failed superstep (LangGraph
    keeps the writes of the lanes that succeeded). `restart()` starts over.
    """

    def __init__(
        self,
        graph: Any,
        *,
        thread_id: Optional[str] = None,
        context: Any = None,
        nested_fields: Iterable[str] = (),
        append_fields: Optional[Iterable[str]] = None,
        on_step: Optional[StepHook] = None,
    ) -> None:
        if getattr(graph, "checkpointer", None) in (None, False):
            raise ValueError(
                "GraphStepper needs a graph compiled with a checkpointer, "
                "e.g. builder.compile(checkpointer=InMemorySaver())"
            )
        if thread_id is not None and not str(thread_id).strip():
            raise ValueError("thread_id must be a non-empty string")
        self.graph = graph
        self.context = context
        self.on_step = on_step
        self.nested_fields = frozenset(nested_fields)
        self.append_fields = frozenset(reducer_fields(graph) if append_fields is None else append_fields)
        self._base_thread_id = thread_id
        self._generation = 0
        self.thread_id: str = thread_id or new_thread_id()
        self.steps: list[StepRecord] = []
        self.error: Optional[str] = None
        self.start_checkpoint_id: Optional[str] = None
        self._input: Any = _UNSET
        self._started = False
        self._head: Any = None
        self._head_thread: Optional[str] = None

    # ----- plumbing -------------------------------------------------------------------------
    @property
    def config(self) -> dict:
        return {"configurable": {"thread_id": self.thread_id}}

    def _invoke(self, inp: Any) -> None:
        kwargs: dict[str, Any] = {"interrupt_before": "*"}
        if self.context is not None:
            kwargs["context"] = self.context
        self._head = None  # the thread moves on: the cached head snapshot is stale
        try:
            self.graph.invoke(inp, self.config, **kwargs)
        finally:
            self._head = None

    def _snapshot(self, config: Optional[dict] = None) -> Any:
        """A state snapshot. The thread's head is read once per position and cached: a UI asks
        `done`, `next_nodes` and `current_values` many times per render, and each `get_state`
        deserializes the whole checkpoint (~2-3 ms from SQLite for a RAG state)."""
        if config is not None:
            return self.graph.get_state(config)
        if self._head is None or self._head_thread != self.thread_id:
            self._head = self.graph.get_state(self.config)
            self._head_thread = self.thread_id
        return self._head

    def _next_thread(self) -> None:
        self._generation += 1
        if self._base_thread_id:
            self.thread_id = f"{self._base_thread_id}:{self._generation}"
        else:
            self.thread_id = new_thread_id()

    # ----- session ------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self._started

    def start(self, input: Any) -> None:
        """Feed the input and pause before the first node; no node runs.

        Calling it on a used stepper starts a fresh thread (like `restart(input)`).
        """
        if self._started:
            self._next_thread()
        self.steps = []
        self.error = None
        self.start_checkpoint_id = None
        self._input = input
        self._started = True
        try:
            self._invoke(input)
        except Exception as exc:  # invalid input, or the graph rejects it
            self.error = describe_error(exc)
            log.info("stepper start failed on thread %s: %s", self.thread_id, self.error)
            return
        self.start_checkpoint_id = _checkpoint_id(self._snapshot().config)

    def restart(self, input: Any = None) -> None:
        """Start again on a new thread, with `input` or else the last input."""
        if input is None:
            if self._input is _UNSET:
                raise StepperError("nothing to restart: call start(input) first")
            input = self._input
        if not self._started:
            self._started = True  # so start() moves to a fresh thread
        self.start(input)

    @property
    def next_nodes(self) -> tuple[str, ...]:
        """Tasks of the next superstep (a fan-out repeats the node once per `Send`)."""
        if not self._started:
            return ()
        snap = self._snapshot()
        names = tuple(t.name for t in snap.tasks) or tuple(snap.next)
        return names

    @property
    def done(self) -> bool:
        """True when the graph reached its end (a failed step is not done: restart or retry)."""
        if not self._started or self.start_checkpoint_id is None:
            return False
        return not self._snapshot().next

    @property
    def nodes_run(self) -> tuple[str, ...]:
        """Nodes that have completed at least one task in this session, in first-run order."""
        return _unique(lane.node for step in self.steps for lane in step.lanes if lane.error is None)

    def to_dot(self, **kwargs: Any) -> str:
        """The graph drawn at the session's position: next tasks as current (END once finished),
        completed nodes as done, and the `Send` fan-outs seen so far. Extra kwargs go to
        `graph_to_dot` (title, docs, legend, ...)."""
        from debugger.graph_view import END_ID, fanout_edges_from_steps, graph_to_dot

        current = (END_ID,) if self.done else self.next_nodes
        kwargs.setdefault("fanout_edges", fanout_edges_from_steps(self.graph, self.steps))
        return graph_to_dot(self.graph, current=current, done=self.nodes_run, **kwargs)

    def current_values(self) -> dict[str, Any]:
        if not self._started:
            return {}
        return dict(self._snapshot().values)

    # ----- stepping -----------------------------------------------------------------------
    def step(self) -> StepRecord:
        """Run exactly one superstep and return its record (errors are recorded, not raised)."""
        if not self._started:
            raise StepperError("not started: call start(input) first")
        if self.start_checkpoint_id is None:
            raise StepperError(f"the run did not start ({self.error}); restart with another input")
        before = self._snapshot()
        if not before.next:
            raise StepperError("the graph has finished; restart to run again")
        error: Optional[str] = None
        t0 = time.perf_counter()
        try:
            self._invoke(None)
        except Exception as exc:
            error = describe_error(exc)
        duration_ms = (time.perf_counter() - t0) * 1000.0
        after = self._snapshot()
        ran = self._snapshot(before.config).tasks  # same tasks, now with results / errors
        lanes = tuple(_lane(t) for t in ran)
        record = StepRecord(
            index=len(self.steps),
            nodes=_unique(lane.node for lane in lanes) or _unique(before.next),
            lanes=lanes,
            duration_ms=round(duration_ms, 3),
            before_checkpoint_id=_checkpoint_id(before.config),
            after_checkpoint_id=_checkpoint_id(after.config),
            values_before=dict(before.values),
            values_after=dict(after.values),
            error=error,
            next_nodes=tuple(t.name for t in after.tasks) or tuple(after.next),
            append_fields=self.append_fields,
            nested_fields=self.nested_fields,
        )
        self.error = error
        self.steps.append(record)
        if self.on_step is not None:
            try:
                self.on_step(record)
            except Exception as exc:  # a broken UI hook must not lose the step
                record.annotations["on_step_error"] = describe_error(exc)
                log.warning("on_step hook failed: %s", record.annotations["on_step_error"])
        return record

    def run_to_end(self, max_steps: int = 200) -> list[StepRecord]:
        """Step until the end, an error, an `interrupt()` or `max_steps`; return the new records."""
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        records: list[StepRecord] = []
        for _ in range(max_steps):
            if self.done or (self._started and self.start_checkpoint_id is None):
                break
            record = self.step()
            records.append(record)
            if record.error or record.interrupted:
                break
        return records

    # ----- time travel (read only) --------------------------------------------------------
    def _resolve(self, ref: int | str) -> str:
        if isinstance(ref, bool):
            raise StepperError("a step index or a checkpoint id is expected")
        if isinstance(ref, int):
            try:
                return self.steps[ref].after_checkpoint_id or ""
            except IndexError:
                raise StepperError(f"no step {ref}: {len(self.steps)} step(s) run") from None
        if isinstance(ref, str) and ref:
            return ref
        raise StepperError("a step index or a checkpoint id is expected")

    def snapshot_at(self, ref: int | str) -> Any:
        """The LangGraph `StateSnapshot` after step `ref` (index) or at a checkpoint id."""
        checkpoint_id = self._resolve(ref)
        config = {"configurable": {"thread_id": self.thread_id, "checkpoint_id": checkpoint_id}}
        snap = self._snapshot(config)
        if snap.created_at is None:  # LangGraph answers an unknown id with an empty snapshot
            raise StepperError(f"unknown checkpoint {checkpoint_id!r} on thread {self.thread_id}")
        return snap

    def state_at(self, ref: int | str) -> dict[str, Any]:
        """State values after step `ref` (or at a checkpoint id). Reads the checkpointer only:
        nothing is re-executed and the session's position does not move."""
        return dict(self.snapshot_at(ref).values)

    @property
    def checkpoints(self) -> list[CheckpointInfo]:
        """Every checkpoint of the current thread, oldest first."""
        if not self._started:
            return []
        infos = [
            CheckpointInfo(
                checkpoint_id=_checkpoint_id(s.config) or "",
                step=(s.metadata or {}).get("step"),
                source=(s.metadata or {}).get("source"),
                next_nodes=tuple(s.next),
                created_at=s.created_at,
            )
            for s in self.graph.get_state_history(self.config)
        ]
        infos.reverse()
        return infos
