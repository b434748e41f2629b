"""One browser session stepping a graph of the user's own (`module:attr`), on the generic debugger.

The same shape as `rag.workbench.session.DebugSession` where the inspector reads it (`current`, `segments`,
`all_steps`, `result`, `dot`, `done`, `replay_mode`), so the RAG debugger's inspector, timeline,
diffs, lanes and time travel draw it unchanged; nothing RAG-specific is here. Streamlit-free: the
page renders it, tests drive it.

A session is one segment: a `GraphStepper` on its own checkpointer thread (a restart moves to a
fresh thread). An `interrupt()` is answered in place with `resume(value)`, as a step of the same
run. A recording (`export_run`) can be opened read-only with `open_replay`.
"""
from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Optional

from debugger import GraphStepper, StepRecord, fanout_edges_from_steps, node_docs
from debugger.allowlist import GraphPolicy, allowed, operator_named, well_formed
from debugger.errors import DebuggerUserError
from debugger.input_form import FormField, input_schema, schema_fields
from debugger.lint import Finding, lint_graph
from debugger.loading import load_graph, malformed, resolve
from debugger.position import marks_after
from debugger.records import PendingInterrupt
from debugger.replay import RecordedCheckpoint, ReplayStepper, record_thread
from debugger.stepper import StepperError
from debugger.subgraph_view import SubgraphDrawing, drawing, subgraph_names
from rag.i18n import N_, _

EXPORT_FORMAT = "langgraph-step-debugger/run@1"


def refusal(spec: str) -> str:
    """Why a typed name is not loaded, and how an operator allows it."""
    return _("{spec} is not on this server's list of graphs, so it was not loaded (nothing was imported). A page "
             "may load the graph the app was started with (and the other graphs of its module), the bundled "
             "examples (examples.chain:graph, examples.fanout:graph, …), and the graphs the operator lists in "
             "RAG_DEBUG_GRAPHS, e.g. RAG_DEBUG_GRAPHS='my_pkg.*:graph'.").format(spec=repr(spec))


def with_checkpointer(graph: Any) -> Any:
    """The graph, with an in-memory checkpointer when it was compiled without one: stepping and
    `interrupt()` need one. A copy: the user's object is left as it was."""
    if getattr(graph, "checkpointer", None) not in (None, False):
        return graph
    from langgraph.checkpoint.memory import InMemorySaver

    return graph.copy(update={"checkpointer": InMemorySaver()})


def load_context(spec: str, *, trusted: bool = True) -> Any:
    """The runtime context named by `module:attr`: a class or function is called with no
    arguments, anything else is used as it is. Not `trusted` (typed in a browser): only a class or
    function defined in that module is called, never one it imported."""
    import inspect

    obj = resolve(spec)
    defined_here = getattr(obj, "__module__", None) == spec.partition(":")[0]
    if (inspect.isclass(obj) or inspect.isfunction(obj)) and (trusted or defined_here):
        try:
            return obj()
        except Exception as exc:  # noqa: BLE001 - the user's code: say what happened
            raise DebuggerUserError(_("{spec}() raised {error}").format(spec=spec, error=f"{type(exc).__name__}: {exc}")) from exc
    return obj


def load_saved_input(path: str) -> dict:
    """A saved input (`--input file.json`): a JSON object."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise DebuggerUserError(_("could not read the input file {path}: {error}").format(
            path=repr(path), error=exc.strerror or exc)) from exc
    except json.JSONDecodeError as exc:
        raise DebuggerUserError(_("the input file {path} is not valid JSON: {error} at line {line}").format(
            path=repr(path), error=exc.msg, line=exc.lineno)) from exc
    if not isinstance(data, dict):
        raise DebuggerUserError(_("the input file {path} must hold a JSON object, not {type}").format(
            path=repr(path), type=type(data).__name__))
    return data


def _note_step_end(record: StepRecord) -> None:
    """Where the step sits in an OpenTelemetry trace (rag/telemetry/records.py)."""
    record.annotations["wall_end_ns"] = time.time_ns()


@dataclass
class StoredThread:
    """Which stored thread a segment shows, and how it went on (`forked`: in the debugger's copy)."""

    store: Any
    thread_id: str
    more: bool = False
    pending: tuple = ()
    forked: bool = False


@dataclass
class GraphSegment:
    stepper: Any
    label: str = N_("run")
    kind: str = "graph"
    replay: bool = False
    ctx: Any = None
    started_at: float = 0.0
    run_id: Optional[str] = None
    """Runs of your own graph are not kept in the run history (export one to keep it)."""
    thread: Optional[StoredThread] = None
    """Set on a segment that shows (or goes on with) a thread of the user's own checkpointer."""
    traced: bool = False
    """Sent to OpenTelemetry already (rag/telemetry)."""

    @property
    def graph(self) -> Any:
        return self.stepper.graph


@dataclass
class AnyGraphSession:
    """The step debugger of one browser session over the graph `spec`."""

    spec: str
    graph: Any
    context: Any = None
    context_spec: Optional[str] = None
    segments: list[GraphSegment] = field(default_factory=list)
    replay_mode: bool = False
    last_input: Optional[dict] = None
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    parent: Optional["AnyGraphSession"] = None
    """Set on a session stepping inside a subgraph (`step_into`); the page goes back to it."""
    _runs: int = 0
    _drawing: Any = None
    _lint: Optional[list[Finding]] = None

    @classmethod
    def open(cls, spec: str, *, context_spec: Optional[str] = None,
             policy: Optional[GraphPolicy] = None) -> "AnyGraphSession":
        """Load `spec` (GraphLoadError / DebuggerUserError with a readable message when it cannot).
        The folder the app was started in is importable (last on `sys.path`), so `my_pkg.agent:graph`
        in the user's project is found without installing it. `policy`: a name typed in a browser is
        checked against the allow-list BEFORE anything is imported (debugger/allowlist.py)."""
        import os
        import sys

        if policy is not None:
            for name in (spec, context_spec):
                if name and not well_formed(name):
                    raise malformed(name)
                if name and not allowed(name, policy):
                    raise DebuggerUserError(refusal(name))
        if os.getcwd() not in sys.path:
            sys.path.append(os.getcwd())
        call_factory = policy is None or operator_named(spec, policy)
        graph = with_checkpointer(load_graph(spec, checkpointer=True, call_factory=call_factory))
        context = load_context(context_spec, trusted=policy is None or context_spec == policy.launch
                               or operator_named(context_spec, policy)) if context_spec else None
        return cls(spec=spec, graph=graph, context=context, context_spec=context_spec)

    # ----- what the page shows next to the graph ---------------------------------------------
    def lint(self) -> list[Finding]:
        if self._lint is None:
            try:
                self._lint = lint_graph(self.graph)
            except Exception:  # noqa: BLE001 - lint is advice; a graph it cannot read still steps
                self._lint = []
        return self._lint

    def input_fields(self) -> list[FormField]:
        return schema_fields(input_schema(self.graph))

    def node_docs(self) -> dict[str, str]:
        return node_docs(self._drawn())

    def subgraphs(self) -> tuple[str, ...]:
        return subgraph_names(self.graph)

    # ----- commands ---------------------------------------------------------------------------
    def start(self, inp: dict) -> GraphSegment:
        """A new run, paused before its first node (nothing runs yet), on a fresh thread."""
        self._runs += 1
        stepper = GraphStepper(self.graph, thread_id=f"yours-{self.session_id}-{self._runs}", context=self.context,
                               on_step=_note_step_end)
        stepper.start(inp)
        if stepper.error:
            raise DebuggerUserError(_("the run could not start: {error}").format(error=stepper.error))
        self.last_input = dict(inp)
        self.replay_mode = False
        self.segments = [GraphSegment(stepper=stepper)]
        return self.segments[0]

    def restart(self) -> GraphSegment:
        if self.replay_mode:
            seg = self._require()
            seg.stepper.restart()
            return seg
        if self.last_input is None:
            raise DebuggerUserError(_("start a run first: fill in the input and press Step or Run"))
        return self.start(self.last_input)

    def step(self) -> StepRecord:
        seg = self._require()
        if seg.stepper.done:
            raise DebuggerUserError(_("the run has finished: press Restart to run it again"))
        if self.pending_interrupts():
            raise DebuggerUserError(_("the graph is waiting for your answer to its interrupt() first"))
        record = seg.stepper.step()
        self._export_trace(seg)
        return record

    def run_to_end(self) -> list[StepRecord]:
        seg = self._require()
        records = seg.stepper.run_to_end()
        self._export_trace(seg)
        return records

    def _export_trace(self, seg: GraphSegment) -> None:
        """A finished or failed run to OpenTelemetry when export is on: the run and node spans only (the
        RAG-specific spans need the workflow's own records), built after the run."""
        stepper = seg.stepper
        if seg.replay or seg.traced or not (stepper.done or stepper.error):
            return
        from rag.telemetry.runs import active, send_run

        tracer = active()
        if tracer is None:
            return
        seg.traced = True
        from rag.telemetry.records import RunRecord, steps_from_stepper

        steps = steps_from_stepper(stepper.steps)
        start = steps[0].start_ns if steps else time.time_ns()
        values = stepper.steps[-1].values_after if stepper.steps else {}
        try:  # the app's configured keys, should your graph's state carry one
            from rag.settings import load_settings

            secrets = load_settings().secret_strings()
        except Exception:  # noqa: BLE001 - settings that do not load hold no secret to hide
            secrets = []
        send_run(RunRecord(kind="graph", start_ns=start, end_ns=steps[-1].end_ns if steps else start,
                           values=dict(values or {}), steps=steps, graph_name=self.spec, error=stepper.error),
                 secrets, tracer)

    def resume(self, value: Any, interrupt_id: Optional[str] = None) -> StepRecord:
        """Answer the pending `interrupt()` (one superstep)."""
        seg = self._require()
        if self.replay_mode:
            raise DebuggerUserError(_("this is a recorded run: nothing runs, so it cannot take an answer"))
        try:
            record = seg.stepper.resume(value, interrupt_id=interrupt_id)
        except StepperError as exc:
            raise DebuggerUserError(str(exc)) from None
        self._export_trace(seg)
        return record

    def _require(self) -> GraphSegment:
        if not self.segments:
            raise DebuggerUserError(_("start a run first: fill in the input and press Step or Run"))
        return self.segments[-1]

    # ----- reading ----------------------------------------------------------------------------
    @property
    def current(self) -> Optional[GraphSegment]:
        return self.segments[-1] if self.segments else None

    @property
    def done(self) -> bool:
        """Nothing for Step / Continue to do: the run finished, or it waits for an answer (the
        inspector greys those buttons out from this)."""
        seg = self.current
        return bool(seg and (seg.stepper.done or self.pending_interrupts()))

    @property
    def finished(self) -> bool:
        seg = self.current
        return bool(seg and seg.stepper.done)

    def pending_interrupts(self) -> tuple[PendingInterrupt, ...]:
        seg = self.current
        return tuple(getattr(seg.stepper, "pending_interrupts", ()) or ()) if seg else ()

    def result(self) -> None:
        """No RAG result: the final state is the result, shown by the page itself."""
        return None

    def all_steps(self) -> list[tuple[GraphSegment, StepRecord]]:
        return [(seg, rec) for seg in self.segments for rec in seg.stepper.steps]

    def _drawn(self) -> Any:
        if self._drawing is None:
            self._drawing = drawing(self.graph)
        return self._drawing

    @property
    def cut_short(self) -> bool:
        """A replayed run whose recording stops before the graph's end."""
        seg = self.current
        return bool(seg and seg.replay and getattr(seg.stepper, "cut_short", False))

    def dot(self, travel: Optional[int] = None) -> str:
        """DOT of `drawing(travel)`, the marks as colours (for people and tests to read)."""
        return self.drawing(travel).dot()

    def drawing(self, travel: Optional[int] = None) -> SubgraphDrawing:
        """The graph (subgraphs as clusters) with the next nodes, the nodes run and the Sends seen:
        at the current position, or after step `travel` (time travel; the inspector passes it)."""
        seg = self.current
        current: tuple[str, ...] = ()
        done: tuple[str, ...] = ()
        fanout: tuple = ()
        if seg is not None:
            steps = seg.stepper.steps
            count = len(steps) if travel is None or not 0 <= travel < len(steps) else travel + 1
            latest = count == len(steps)
            marks = marks_after(steps, count, next_now=seg.stepper.next_nodes if latest else None,
                                finished_now=seg.stepper.done if latest else None)
            current, done = tuple(marks.current), tuple(sorted(marks.done))
            fanout = tuple(tuple(f) for f in fanout_edges_from_steps(self._drawn(), steps[:count]))
        return SubgraphDrawing(self._drawn(), current=current, done=done, fanout_edges=fanout, title=self.spec,
                               docs=self.node_docs(), root=self.graph)

    # ----- subgraphs ---------------------------------------------------------------------------
    def subgraphs_next(self) -> tuple[str, ...]:
        """Subgraph nodes the next step runs (the ones that can be stepped into now)."""
        seg = self.current
        if seg is None or seg.replay or seg.stepper.done:
            return ()
        names = set(self.subgraphs())
        return tuple(dict.fromkeys(n for n in seg.stepper.next_nodes if n in names))

    def step_into(self, name: str) -> "AnyGraphSession":
        """A session on subgraph `name`, started on the input the parent would hand it now (the
        parent state's keys that the subgraph's input schema declares), paused before its first node.

        Why a separate run: LangGraph pauses before the parent's nodes only (`interrupt_before`
        does not reach into a subgraph), so the parent runs a subgraph as one task. Stepping into it
        runs the subgraph on its own thread with the same input; the parent's run does not move, and
        its own step will run the subgraph again (so side effects of its nodes happen twice)."""
        found = dict(self.graph.get_subgraphs())
        if name not in found:
            raise DebuggerUserError(_("{name} is not a subgraph of {spec}").format(name=repr(name), spec=self.spec))
        seg = self._require()
        values = seg.stepper.current_values()
        keys = {f.name for f in schema_fields(input_schema(found[name]))}
        inp = {k: v for k, v in values.items() if not keys or k in keys}
        child = AnyGraphSession(spec=f"{self.spec} › {name}", graph=with_checkpointer(found[name]),
                                context=self.context, context_spec=self.context_spec, parent=self)
        child.start(inp)
        return child

    # ----- threads of the user's own checkpointer ----------------------------------------------
    def open_thread(self, store: Any, thread_id: str) -> GraphSegment:
        """Show a stored thread's newest checkpoints (a window: a long thread is not read whole) as a
        replay positioned at its end, so the timeline, diffs and time travel show it at once."""
        from debugger.threads import CheckpointerError, on_store, pending_interrupts, read_window

        stored = on_store(self.graph, store)
        try:
            window = read_window(stored, thread_id)
            pending = pending_interrupts(stored, thread_id)
            stepper = ReplayStepper(window.checkpoints, graph=self.graph, thread_id=thread_id)
        except StepperError as exc:
            raise CheckpointerError(str(exc)) from None
        stepper.run_to_end(max_steps=len(stepper.all_steps) + 1)
        seg = GraphSegment(stepper=stepper, label=N_("stored thread"), replay=True,
                           thread=StoredThread(store=store, thread_id=thread_id, more=window.more, pending=pending))
        self.segments = [seg]
        self.replay_mode = True
        self.last_input = None
        return seg

    def older_checkpoints(self) -> GraphSegment:
        """Read the window before the oldest checkpoint shown, and show the thread from there (still at its end)."""
        from debugger.threads import on_store, read_window

        seg = self._require()
        if seg.thread is None or not seg.replay or not seg.thread.more:
            raise DebuggerUserError(_("no older checkpoints to read"))
        shown = list(seg.stepper.recorded)
        window = read_window(on_store(self.graph, seg.thread.store), seg.thread.thread_id,
                             before=shown[0].checkpoint_id)
        stepper = ReplayStepper([*window.checkpoints, *shown], graph=self.graph, thread_id=seg.thread.thread_id)
        stepper.run_to_end(max_steps=len(stepper.all_steps) + 1)
        seg.stepper = stepper
        seg.thread.more = window.more
        return seg

    def go_on_thread(self, after_step: Optional[int] = None) -> GraphSegment:
        """Run on from the opened thread's newest checkpoint (or from the one after stored step `after_step`,
        time travel): in place when the store is writable, else in a fork copied into the debugger's own
        checkpointer. Step, Continue and answers work then; the stored steps before it stay in the timeline."""
        from langgraph.checkpoint.memory import InMemorySaver

        from debugger.threads import go_on

        seg = self._require()
        if seg.thread is None or not seg.replay:
            raise DebuggerUserError(_("open a stored thread first"))
        at = None
        steps = seg.stepper.all_steps
        if after_step is not None and 0 <= after_step < len(steps) - 1:
            at = steps[after_step].after_checkpoint_id
            seg.stepper.restart()  # the stored steps shown before the new ones end there
            seg.stepper.run_to_end(max_steps=after_step + 1)
        self._runs += 1
        stepper, forked = go_on(seg.thread.store, seg.thread.thread_id, self.graph, own=InMemorySaver(),
                                fork_id=f"fork-{self.session_id}-{self._runs}-{seg.thread.thread_id}",
                                context=self.context, at=at)
        live = GraphSegment(stepper=stepper, label=N_("fork") if forked else N_("thread"),
                            thread=StoredThread(store=seg.thread.store, thread_id=seg.thread.thread_id, forked=forked))
        self.segments = [seg, live]
        self.replay_mode = False
        return live

    # ----- export and replay ------------------------------------------------------------------
    def export_run(self) -> dict:
        """The current run as JSON-able data: every checkpoint with each task's writes (what
        `ReplayStepper` walks), the graph's path and the input."""
        seg = self._require()
        if seg.replay:
            checkpoints = seg.stepper.recorded
        else:
            checkpoints = record_thread(self.graph, seg.stepper.config)
        return {"format": EXPORT_FORMAT, "graph": self.spec, "input": self.last_input,
                "checkpoints": [json.loads(c.model_dump_json(fallback=str)) for c in checkpoints]}

    def open_replay(self, data: Any) -> GraphSegment:
        """Open an exported run read-only: Step / Continue / Restart and time travel walk it."""
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise DebuggerUserError(_("this file is not a run exported from this page"))
        try:
            checkpoints = [RecordedCheckpoint.model_validate(c) for c in data.get("checkpoints") or []]
            stepper = ReplayStepper(checkpoints, graph=self.graph, thread_id=f"replay-{self.session_id}")
        except (ValueError, StepperError) as exc:
            raise DebuggerUserError(_("this recording cannot be replayed: {error}").format(error=exc)) from None
        self.segments = [GraphSegment(stepper=stepper, label=N_("recorded run"), replay=True)]
        self.replay_mode = True
        self.last_input = data.get("input")
        return self.segments[0]
