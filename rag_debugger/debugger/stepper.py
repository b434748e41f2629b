"""Step any compiled LangGraph graph one superstep at a time, using LangGraph itself.

Why not re-implement the control flow: the debugger must show what the real graph does, so it
drives the real compiled graph with a per-call `interrupt_before="*"` (the same compiled graph
serves normal runs). Each `step()` is one `stream(None, ...)`: LangGraph runs
exactly the tasks of the next superstep (all `Send` branches together) and pauses again. Per-task
writes are LangGraph's own bookkeeping, not a guess at which keys a node touched: what
`get_state(before_config).tasks[i].result` reads back, or, on the common path, the same task
results and new checkpoint as LangGraph streams them (see `GraphStepper._streamed_lanes`).

Nothing here knows about RAG: the runtime context (`context=`) is passed through untouched.
"""
from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from typing import Any, Callable, Iterable, Optional

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.channels import UntrackedValue
from langgraph.types import Command, PregelTask, StateSnapshot

from rag_debugger.debugger.breakpoints import CompiledBreakpoints
from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.i18n import _, ngettext
from rag_debugger.debugger.records import CheckpointInfo, LaneRecord, PendingInterrupt, StepRecord
from rag_debugger.debugger.state_diff import reducer_fields, state_values

log = logging.getLogger(__name__)

_UNSET: Any = object()
MAX_ERROR_CHARS = 2000
PUSH = "__pregel_push"
"""The trigger LangGraph's task stream gives a task a `Send` made (private there, so named here; a test of
`LaneRecord.sent` fails if it changes)."""

StepHook = Callable[[StepRecord], Any]


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


ERROR_HANDLER_PREFIX = "__error_handler__"
DEFAULT_ERROR_HANDLER = "__default_error_handler__"


def handled_node(name: str) -> Optional[str]:
    """The node an `error_handler` task handles (LangGraph names it `__error_handler__<node>`), else None.
    The builder-wide default handler names no node: "*"."""
    if name.startswith(ERROR_HANDLER_PREFIX):
        return name[len(ERROR_HANDLER_PREFIX):]
    return "*" if name == DEFAULT_ERROR_HANDLER else None


def _lane(task: Any, waiting: Optional[set[str]] = None) -> LaneRecord:
    """A task read back from LangGraph. `waiting`: the interrupt ids still unanswered after the step (an
    answered one stays in LangGraph's task but no longer waits); None keeps them all waiting."""
    error = getattr(task, "error", None)
    asked = list(getattr(task, "interrupts", ()) or ())
    still = [i for i in asked if waiting is None or str(getattr(i, "id", "")) in waiting]
    return LaneRecord(
        task_id=str(task.id),
        node=str(task.name),
        writes=_writes_of(getattr(task, "result", None)),
        error=None if error is None else _task_error_text(error),
        interrupts=tuple(repr(getattr(i, "value", i)) for i in still),
        answered=tuple(repr(getattr(i, "value", i)) for i in asked if i not in still),
        handles=handled_node(str(task.name)),
    )


def _as_streamed(lanes: tuple[LaneRecord, ...], results: list[dict]) -> tuple[LaneRecord, ...]:
    """Lanes whose writes are what LangGraph streamed (the channels written, `{"__end__": value}` for an
    `@entrypoint`'s return) rather than the task's return value read back, where a clean result streamed."""
    streamed = {str(r.get("id")): r["result"] for r in results
                if isinstance(r.get("result"), dict) and r.get("error") is None and not r.get("interrupts")}
    return tuple(lane.model_copy(update={"writes": dict(streamed[lane.task_id])}) if lane.task_id in streamed
                 else lane for lane in lanes)


def needs_async(graph: Any) -> bool:
    """The graph has a node (or a subgraph's node, or a prebuilt ToolNode's tool) that is only `async def`:
    LangGraph runs it through `astream` alone, and its sync `stream` fails with "No synchronous function"."""
    seen: set[int] = set()

    def walk(g: Any) -> bool:
        if id(g) in seen:
            return False
        seen.add(id(g))
        for node in (getattr(g, "nodes", None) or {}).values():
            bound = getattr(node, "bound", None)
            if getattr(bound, "func", True) is None and getattr(bound, "afunc", None) is not None:
                return True
            tools = getattr(bound, "tools_by_name", None) or {}
            if any(getattr(t, "func", True) is None and getattr(t, "coroutine", None) is not None
                   for t in tools.values()):
                return True
        try:
            subgraphs = [sub for _name, sub in g.get_subgraphs()]
        except Exception:  # noqa: BLE001 - a graph that cannot list its subgraphs: judge its own nodes only
            subgraphs = []
        return any(walk(sub) for sub in subgraphs)

    return walk(graph)


def drain(stream: Any) -> list[tuple[Any, float]]:
    """Every item of an async stream with the moment it arrived, run to its end on an event loop of its
    own (on a thread of its own when the caller's thread already runs one, as in a notebook)."""
    import asyncio

    async def collect() -> list[tuple[Any, float]]:
        return [(item, time.perf_counter()) async for item in stream]

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(collect())
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, collect()).result()


def _unlisted_lanes(results: list[dict], known: set[str]) -> tuple[LaneRecord, ...]:
    """Tasks LangGraph streamed in the step that `get_state` does not list: the `@task` calls of an
    `@entrypoint` (or of a node), which run inside the step without being scheduled before it, and an
    `error_handler` task, which runs in the step of the error it handles. A checkpoint read back lists only
    the scheduled tasks, so without these the step would hide what ran (a field changes with nothing that
    wrote it)."""
    out = []
    seen = set(known)
    for r in results:
        task_id, name, error = str(r.get("id")), str(r.get("name")), r.get("error")
        if task_id in seen:
            continue
        seen.add(task_id)
        out.append(LaneRecord(task_id=task_id, node=name, writes=_writes_of(r.get("result")),
                              error=None if error is None else _task_error_text(error),
                              interrupts=tuple(repr(i.get("value") if isinstance(i, dict) else getattr(i, "value", i))
                                               for i in (r.get("interrupts") or ())),
                              handles=handled_node(name)))
    return tuple(out)


class _Attempts(BaseCallbackHandler):
    """Counts each task's attempts in a step: a `RetryPolicy` re-runs a failed node inside the superstep and
    LangGraph streams only the last attempt. Each attempt starts the node's own run (named for the node, in
    the namespace `<node>:<task id>`), so the callbacks see every one of them."""

    def __init__(self) -> None:
        self.errors: dict[str, list[Optional[str]]] = {}
        self._task_of: dict[Any, str] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, parent_run_id: Any = None,
                       tags: Any = None, metadata: Optional[dict] = None, **kwargs: Any) -> None:
        meta = metadata or {}
        node, ns = meta.get("langgraph_node"), str(meta.get("langgraph_checkpoint_ns") or "")
        if node and kwargs.get("name") == node and ns.startswith(f"{node}:") and "|" not in ns:
            task = ns.rsplit(":", 1)[-1]
            self._task_of[run_id] = task
            self.errors.setdefault(task, []).append(None)

    def on_chain_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        task = self._task_of.get(run_id)
        if task is not None and self.errors.get(task):
            self.errors[task][-1] = describe_error(error)


def _has_retries(graph: Any) -> bool:
    if getattr(graph, "retry_policy", None):
        return True
    return any(getattr(node, "retry_policy", None) for node in (getattr(graph, "nodes", None) or {}).values())


def _pending_writes(snap: Any) -> bool:
    """The snapshot's step has writes LangGraph keeps beside the checkpoint (answered or failed lanes of an
    interrupted or failed step): `get_state` on the thread applies them, `get_state` by checkpoint id does not."""
    return any(getattr(t, "result", None) is not None or getattr(t, "error", None) or getattr(t, "interrupts", None)
               for t in getattr(snap, "tasks", ()) or ())


def _command(resume: Any, update: Optional[dict[str, Any]]) -> Command[Any]:
    return Command(resume=resume) if update is None else Command(resume=resume, update=update)


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
        self.abort_on: tuple[type[BaseException], ...] = ()
        """Exceptions that abandon a step instead of failing it (a person pressed Stop): they propagate
        out of `step()`, nothing is recorded, and the position stays where it was. LangGraph writes no
        checkpoint for a superstep that raised, so the thread is still paused before the same tasks."""
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
        self.compiled_pause: Optional[str] = None
        """Where the last `run_to_end` stopped at a compiled breakpoint (`before:<node>` / `after:<node>`)."""
        self._head: Any = None
        self._head_thread: Optional[str] = None
        self._moves = 0
        """Odd while a superstep runs. A page may read the head from another thread while a step runs in a
        worker (rag_debugger/workbench/live_step.py): what it reads then is never kept as the head."""
        self._head_lock = threading.Lock()
        self.compiled = CompiledBreakpoints.of(graph)
        """Breakpoints compiled into the graph: Continue and Run stop where LangGraph pauses."""
        self._retries = _has_retries(graph)
        self._cached_nodes = frozenset(
            name for name, node in (getattr(graph, "nodes", None) or {}).items()
            if getattr(graph, "cache", None) is not None
            and (getattr(node, "cache_policy", None) or getattr(graph, "cache_policy", None)))
        self._attempts: Optional[_Attempts] = None
        self._task_times: dict[str, list[Optional[float]]] = {}
        self._task_sent: dict[str, Any] = {}
        self._serde = getattr(graph.checkpointer, "serde", None)
        self._node_order = {name: i for i, name in enumerate(getattr(graph, "nodes", None) or ())}
        self._async = needs_async(graph)
        # What LangGraph streams equals what `get_state` reads back only when the state is a
        # list of channels (a single root channel is unwrapped by one and not the other) and
        # every channel is saved (an UntrackedValue is streamed but never stored).
        self._streamable = (
            self._serde is not None
            and isinstance(getattr(graph, "stream_channels_asis", None), list)
            and not any(isinstance(c, UntrackedValue) for c in (getattr(graph, "channels", None) or {}).values())
        )

    # ----- plumbing -------------------------------------------------------------------------
    @property
    def config(self) -> dict:
        return {"configurable": {"thread_id": self.thread_id}}

    def _run(self, inp: Any) -> tuple[list[dict], list[dict]]:
        """Run to the next pause; return the checkpoints and task results LangGraph streamed.

        Why stream instead of `invoke`: LangGraph builds these payloads anyway, and reading
        them back afterwards cost two `get_state` calls per step (a checkpointer read, a decode
        and LangGraph's task preparation each), about a sixth of a simple step.
        """
        kwargs: dict[str, Any] = {"interrupt_before": "*", "stream_mode": ["checkpoints", "tasks"]}
        if self.context is not None:
            kwargs["context"] = self.context
        self._moved(running=True)  # the thread moves on: the cached head snapshot is stale
        checkpoints: list[dict] = []
        results: list[dict] = []
        self._results_so_far = results  # what streamed before a failure, for the step's lanes
        t0 = time.perf_counter()
        self._task_times = {}
        self._task_sent = {}
        config: dict[str, Any] = self.config
        self._attempts = None
        if self._retries:  # only then: callbacks cost every runnable of every node a little
            self._attempts = _Attempts()
            config = {**config, "callbacks": [self._attempts]}
        try:
            if self._async:
                events: Iterable[tuple[Any, float]] = drain(self.graph.astream(inp, config, **kwargs))
            else:
                events = ((item, time.perf_counter()) for item in self.graph.stream(inp, config, **kwargs))
            for (mode, payload), seen in events:
                if mode == "checkpoints":
                    checkpoints.append(payload)
                    continue
                at = round((seen - t0) * 1000.0, 3)  # when the stream reported it
                times = self._task_times.setdefault(str(payload.get("id")), [None, None])
                if "result" in payload:  # a task's end (its start event carries "input")
                    results.append(payload)
                    times[1] = at
                else:
                    times[0] = at
                    if PUSH in (payload.get("triggers") or ()):  # a `Send`: its argument is the lane's input
                        self._task_sent[str(payload.get("id"))] = payload.get("input")
        finally:
            self._moved(running=False)  # a head read by another thread meanwhile is dropped
        return checkpoints, results

    def _moved(self, *, running: bool) -> None:
        with self._head_lock:
            if (self._moves % 2 == 1) != running:
                self._moves += 1
            self._head = None

    def _stored(self, value: Any) -> Any:
        """`value` as the checkpointer gives it back (e.g. tuples come back as lists), so the
        records of a streamed step equal what `get_state`, time travel and a replay read. It
        also detaches them from the objects the finished run still holds."""
        assert self._serde is not None  # only streamed steps are stored back, and they need a serde (_streamable)
        return self._serde.loads_typed(self._serde.dumps_typed(value))

    def _streamed_head(self, checkpoints: list[dict], previous_id: Optional[str]) -> Optional[StateSnapshot]:
        """The new head as `get_state` would read it, from the last streamed checkpoint.

        None (the head is then read back lazily) unless it is certainly equal: a new checkpoint
        no task has run from yet, with its tasks in `get_state`'s order. The loop lists the
        nodes an edge triggers by name, `get_state` by definition order; both put `Send`
        tasks first, so a list already in definition order reads the same both ways.
        `created_at` stays None: the payload has no timestamp, and the head's is never read.
        """
        if not (self._streamable and checkpoints):
            return None
        cp = checkpoints[-1]
        tasks = cp["tasks"]
        if _checkpoint_id(cp["config"]) == previous_id or any(
            "result" in t or "error" in t or t.get("interrupts") for t in tasks
        ):
            return None
        order = [self._node_order.get(t["name"], -1) for t in tasks]
        if order != sorted(order):
            return None
        return StateSnapshot(
            values=self._stored(cp["values"]),
            next=tuple(cp["next"]),
            config=cp["config"],
            metadata=cp["metadata"],
            created_at=None,
            parent_config=cp["parent_config"],
            tasks=tuple(PregelTask(t["id"], t["name"], ()) for t in tasks),
            interrupts=(),
        )

    def _streamed_lanes(self, before: Any, results: list[dict]) -> Optional[tuple[LaneRecord, ...]]:
        """The step's lanes from the streamed task results, in `before.tasks` order.

        None (the lanes are then read back from the checkpointer) unless every task of the
        step ran now and finished cleanly: a retried step streams only the lanes it re-ran,
        and an error or `interrupt()` lane reads differently back (`result` is None).
        `get_state` filters a task's writes by the same stream channels, so the dicts match.
        """
        if not self._streamable:
            return None
        by_id = {r["id"]: r for r in results}
        if len(by_id) != len(results) or set(by_id) != {t.id for t in before.tasks}:
            return None
        if any(r["error"] is not None or r["interrupts"] or "__return__" in r["result"] for r in results):
            return None
        writes = self._stored([by_id[t.id]["result"] for t in before.tasks])
        return tuple(
            LaneRecord(task_id=str(t.id), node=str(t.name), writes=_writes_of(w))
            for t, w in zip(before.tasks, writes, strict=False)
        )

    def _set_head(self, head: Optional[StateSnapshot]) -> None:
        if head is not None:
            self._head, self._head_thread = head, self.thread_id

    def _snapshot(self, config: Optional[dict] = None) -> Any:
        """A state snapshot. The thread's head is read once per position and cached: a UI asks
        `done`, `next_nodes` and `current_values` many times per render, and each `get_state`
        reads and decodes the checkpoint and prepares its tasks again. After a step the head
        usually comes from the stream (`_streamed_head`) and is never read back."""
        if config is not None:
            return self.graph.get_state(config)
        head, thread = self._head, self._head_thread
        if head is None or thread != self.thread_id:
            moves, thread = self._moves, self.thread_id
            head = self.graph.get_state(self.config)
            with self._head_lock:
                if moves == self._moves and moves % 2 == 0:  # no step ran or runs meanwhile
                    self._head, self._head_thread = head, thread
        return head

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
            checkpoints, _events = self._run(input)
        except Exception as exc:  # invalid input, or the graph rejects it
            self.error = describe_error(exc)
            log.info("stepper start failed on thread %s: %s", self.thread_id, self.error)
            return
        self._set_head(self._streamed_head(checkpoints, None))
        self.start_checkpoint_id = _checkpoint_id(self._snapshot().config)

    def attach(self, thread_id: str) -> None:
        """Go on with an existing thread from its newest checkpoint (a user's stored thread, or a fork of one):
        no input is fed and nothing runs. `restart()` then has no input to start over with."""
        self.thread_id = self._base_thread_id = thread_id
        self.steps, self.error, self._input, self._head = [], None, _UNSET, None
        self._started = True
        self.start_checkpoint_id = _checkpoint_id(self._snapshot().config)

    def restart(self, input: Any = None) -> None:
        """Start again on a new thread, with `input` or else the last input."""
        if input is None:
            if self._input is _UNSET:
                raise StepperError(_("nothing to restart: call start(input) first"))
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
    def next_tasks(self) -> tuple[tuple[str, str], ...]:
        """(task id, node) of each task of the next superstep: a live view files a lane's model calls
        under its task."""
        if not self._started:
            return ()
        return tuple((str(t.id), str(t.name)) for t in self._snapshot().tasks)

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
        from rag_debugger.debugger.graph_view import END_ID, fanout_edges_from_steps, graph_to_dot

        current = (END_ID,) if self.done else self.next_nodes
        kwargs.setdefault("fanout_edges", fanout_edges_from_steps(self.graph, self.steps))
        return graph_to_dot(self.graph, current=current, done=self.nodes_run, **kwargs)

    def current_values(self) -> dict[str, Any]:
        """The thread's state now, as LangGraph's `get_state` on the thread gives it: with the writes of
        the lanes that finished in a step that paused or failed (an answered interrupt's lane, the lane of a
        fan-out that did not fail), which a resume keeps."""
        if not self._started:
            return {}
        return state_values(self._snapshot().values)

    def _values(self, snap: Any) -> dict[str, Any]:
        """A snapshot's values as its checkpoint holds them, what a step's diff shows. `get_state` on the
        thread applies the pending writes of an interrupted or failed step; by checkpoint id (time travel)
        it does not: a step's values are read the checkpoint's way, so its diff and time travel to it agree
        (the finished lanes' own writes are shown in their lanes)."""
        if _pending_writes(snap) and _checkpoint_id(snap.config):
            return state_values(self.graph.get_state(snap.config).values)
        return state_values(snap.values)

    # ----- stepping -----------------------------------------------------------------------
    def _ready(self) -> Any:
        """The head snapshot, when a step may run from it."""
        if not self._started:
            raise StepperError(_("not started: call start(input) first"))
        if self.start_checkpoint_id is None:
            raise StepperError(_("the run did not start ({error}); restart with another input").format(error=self.error))
        before = self._snapshot()
        if not before.next:
            raise StepperError(_("the graph has finished; restart to run again"))
        return before

    def step(self) -> StepRecord:
        """Run exactly one superstep and return its record (errors are recorded, not raised).

        On a node waiting in `interrupt()` this runs the node again and it asks again (LangGraph
        re-runs an interrupted node from the top); `resume(value)` answers it instead."""
        return self._advance(None, self._ready())

    @property
    def pending_interrupts(self) -> tuple[PendingInterrupt, ...]:
        """The `interrupt(value)` calls the run is paused on, waiting for `resume()`.

        Read from LangGraph's own bookkeeping (`snapshot.tasks[i].interrupts`), so a value
        raised inside a `Send` lane or a subgraph names the task that raised it."""
        if not self._started or self.start_checkpoint_id is None:
            return ()
        return tuple(
            PendingInterrupt(node=str(t.name), task_id=str(t.id), interrupt_id=str(getattr(i, "id", "") or ""),
                             value=getattr(i, "value", i))
            for t in self._snapshot().tasks for i in (getattr(t, "interrupts", ()) or ())
        )

    def resume(self, value: Any, *, interrupt_id: Optional[str] = None,
               update: Optional[dict[str, Any]] = None) -> StepRecord:
        """Answer the pending `interrupt()` with `Command(resume=value)` and run that one
        superstep (the interrupted node runs again from the top and gets `value` back).

        With several interrupts pending (parallel lanes), `interrupt_id` says which one is
        answered; the others stay pending. `update`: also write these values, as
        `Command(resume=..., update=...)` does."""
        pending = self.pending_interrupts
        if interrupt_id is not None:
            return self.resume_all({interrupt_id: value}, update=update)
        if len(pending) > 1:
            raise StepperError(_("{n} interrupts are waiting; say which one with interrupt_id").format(n=len(pending)))
        before = self._ready()
        if not pending:
            raise StepperError(_("no interrupt() is waiting for an answer"))
        record = self._advance(_command(value, update), before)
        record.annotations["resume"] = value
        return record

    def resume_all(self, answers: dict[str, Any], *, update: Optional[dict[str, Any]] = None) -> StepRecord:
        """Answer several pending interrupts at once, by id (`Command(resume={id: value, ...})`); the ones
        not named stay pending. One superstep, like LangGraph's own resume."""
        before = self._ready()
        pending = {p.interrupt_id for p in self.pending_interrupts}
        if not pending:
            raise StepperError(_("no interrupt() is waiting for an answer"))
        if not answers:
            raise StepperError(_("no answer given"))
        unknown = [i for i in answers if i not in pending]
        if unknown:
            raise StepperError(_("no pending interrupt has the id {id}").format(id=repr(unknown[0])))
        record = self._advance(_command(dict(answers), update), before)
        record.annotations["resume"] = dict(answers)
        return record

    def _lanes_read_back(self, before: Any, after: Any) -> tuple[LaneRecord, ...]:
        """The step's tasks read back from LangGraph (results, errors, interrupts); an interrupt answered
        in the step no longer waits. The tasks it streamed but does not list are added by `_unlisted_lanes`."""
        waiting = {str(getattr(i, "id", "")) for t in after.tasks for i in (getattr(t, "interrupts", ()) or ())}
        return tuple(_lane(t, waiting) for t in self._snapshot(before.config).tasks)

    def _marked(self, lane: LaneRecord) -> LaneRecord:
        """Retries and cache hits, which LangGraph does not keep: from the step's stream and callbacks."""
        update: dict[str, Any] = {}
        times = self._task_times.get(lane.task_id)
        if times is not None:
            update.update(started_ms=times[0], ended_ms=times[1])
            # a node with a cache policy that started, was never reported as ended, and yet has writes: they
            # came from the cache (a lane kept from a failed try of the step is not re-run either: no policy)
            update["cached"] = (lane.node in self._cached_nodes and times[1] is None and lane.writes is not None
                                and lane.error is None)
        if lane.task_id in self._task_sent:
            sent = self._task_sent[lane.task_id]
            update["sent"] = self._stored(sent) if self._serde is not None else sent
        tries = self._attempts.errors.get(lane.task_id) if self._attempts else None
        if tries and len(tries) > 1:
            update.update(attempts=len(tries), failed_attempts=tuple(e or "" for e in tries[:-1]))
        return lane.model_copy(update=update) if update else lane

    def _advance(self, inp: Any, before: Any) -> StepRecord:
        """One superstep from `before` (the head), fed `inp` (None, or a resume `Command`)."""
        error: Optional[str] = None
        checkpoints: list[dict] = []
        results: list[dict] = []
        t0 = time.perf_counter()
        try:
            checkpoints, results = self._run(inp)
        except Exception as exc:
            if self.abort_on and isinstance(exc, self.abort_on):
                self._head = None  # read the unchanged head back: nothing of this step is kept
                raise
            error = describe_error(exc)
            results = list(getattr(self, "_results_so_far", []))
        duration_ms = (time.perf_counter() - t0) * 1000.0
        self._set_head(self._streamed_head(checkpoints, _checkpoint_id(before.config)))
        try:
            after = self._snapshot()
            lanes = None if error else self._streamed_lanes(before, results)
            if lanes is None:  # same tasks, read back with their results / errors / interrupts
                lanes = self._lanes_read_back(before, after)
        except Exception as exc:  # noqa: BLE001 - LangGraph cannot read the state back either
            # (the failed step's writes conflict, e.g. two lanes writing one plain key): the run stays where
            # it was, the step carries the error, and a further Step tries it again as LangGraph would
            error = error or describe_error(exc)
            after, self._head, self._head_thread = before, before, self.thread_id
            lanes = _unlisted_lanes(results, set()) or tuple(
                LaneRecord(task_id=str(t.id), node=str(t.name), error=error) for t in before.tasks)
        if getattr(self.graph, "builder", None) is None:  # an @entrypoint: its return is filed under __end__
            lanes = _as_streamed(lanes, results)
        if isinstance(inp, Command) and inp.update is not None:
            self._reread_updated(before)
        lanes = lanes + _unlisted_lanes(results, {lane.task_id for lane in lanes})
        lanes = tuple(self._marked(lane) for lane in lanes)
        record = StepRecord(
            index=len(self.steps),
            nodes=_unique(lane.node for lane in lanes) or _unique(before.next),
            lanes=lanes,
            duration_ms=round(duration_ms, 3),
            before_checkpoint_id=_checkpoint_id(before.config),
            after_checkpoint_id=_checkpoint_id(after.config),
            values_before=self._values(before),
            values_after=self._values(after),
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

    def _reread_updated(self, before: Any) -> None:
        """A resume's `Command(update=...)` is kept by LangGraph as writes of the paused checkpoint itself
        (it streams that checkpoint again with them), and every later read by id (time travel, history,
        export) shows them there. The steps that end at that checkpoint are read again, so their diff and
        time travel to them still agree."""
        before_id = _checkpoint_id(before.config)
        if before_id is None:
            return
        values = state_values(self.graph.get_state(before.config).values)
        for record in self.steps:
            if record.after_checkpoint_id == before_id:
                record.values_after = values
            if record.before_checkpoint_id == before_id:
                record.values_before = values

    def run_to_end(self, max_steps: int = 200, *, from_input: bool = False) -> list[StepRecord]:
        """Step until the end, an error, an `interrupt()`, a breakpoint compiled into the graph (where
        LangGraph pauses: `self.compiled_pause`) or `max_steps`; return the new records.

        `from_input`: the run was just started from its input, as `graph.invoke(input)` would be, which
        pauses before a first node compiled with `interrupt_before`; otherwise it goes on from a pause,
        as `invoke(None)` does, and passes the breakpoint it is paused at."""
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.compiled_pause = None
        if from_input and self.compiled and not self.steps and self.start_checkpoint_id is not None:
            first = next((n for n in self.next_nodes if self.compiled.pauses_before(n)), None)
            if first is not None:
                self.compiled_pause = f"before:{first}"
                return []
        records: list[StepRecord] = []
        for _attempt in range(max_steps):
            if self.done or (self._started and self.start_checkpoint_id is None) or self.pending_interrupts:
                break  # an interrupt waits for resume(); stepping would only ask again
            record = self.step()
            records.append(record)
            if record.error or record.interrupted:
                break
            self.compiled_pause = self.compiled.stop(record.nodes, self.next_nodes) if self.compiled and not self.done else None
            if self.compiled_pause:
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
                raise StepperError(ngettext("no step {ref}: {n} step run", "no step {ref}: {n} steps run",
                                            len(self.steps)).format(ref=ref, n=len(self.steps))) from None
        if isinstance(ref, str) and ref:
            return ref
        raise StepperError("a step index or a checkpoint id is expected")

    def snapshot_at(self, ref: int | str) -> Any:
        """The LangGraph `StateSnapshot` after step `ref` (index) or at a checkpoint id."""
        checkpoint_id = self._resolve(ref)
        config = {"configurable": {"thread_id": self.thread_id, "checkpoint_id": checkpoint_id}}
        snap = self._snapshot(config)
        if snap.created_at is None:  # LangGraph answers an unknown id with an empty snapshot
            raise StepperError(_("unknown checkpoint {id} on thread {thread}").format(id=repr(checkpoint_id),
                                                                                     thread=self.thread_id))
        return snap

    def state_at(self, ref: int | str) -> dict[str, Any]:
        """State values after step `ref` (or at a checkpoint id). Reads the checkpointer only:
        nothing is re-executed and the session's position does not move."""
        return state_values(self.snapshot_at(ref).values)

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
