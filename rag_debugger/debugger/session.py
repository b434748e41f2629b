"""The one generic step-debugging session: a chain of segments over any compiled LangGraph graph.

A session is a chain of segments (the main run, then the runs that go on from it: a fork from a past
step, a stored thread continued), each a stepper (`GraphStepper` live, `ReplayStepper` recorded) on a
thread of its own. It is what the inspector reads (`rag_debugger.debugger.protocol.InspectedSession`): the position,
the steps across segments, the drawing at any past step, the pending interrupts. Streamlit-free and
RAG-free: pages render it, tests drive it, and whatever must be kept (a run history, OpenTelemetry) is a
`SessionHooks` the caller passes, so this layer never imports the application.

The Continue loop (`continue_`) is the session's: it steps until a breakpoint (`rag_debugger.debugger.breakpoints`),
an `interrupt()`, an error or the end, so every page stops at the same places.
"""
from __future__ import annotations

import copy
import json
import logging
import time
import uuid
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Optional, cast

from rag_debugger.debugger.allowlist import GraphPolicy, allowed, operator_named, refusal, well_formed
from rag_debugger.debugger.breakpoints import CompiledBreakpoints, ContinueResult, continue_until
from rag_debugger.debugger.errors import DebuggerUserError, StepperError
from rag_debugger.debugger.graph_view import GraphDrawing, fanout_edges_from_steps, fanouts_along, node_docs
from rag_debugger.debugger.i18n import N_, _
from rag_debugger.debugger.input_form import FormField, graph_fields, input_schema, schema_fields
from rag_debugger.debugger.lint import Finding, lint_graph
from rag_debugger.debugger.live import JobKind, LaneView, LiveRunner
from rag_debugger.debugger.loading import load_context, load_graph, malformed, with_checkpointer
from rag_debugger.debugger.position import marks_after, marks_along
from rag_debugger.debugger.records import PendingInterrupt, StepRecord
from rag_debugger.debugger.replay import RecordedCheckpoint, ReplayStepper, record_thread
from rag_debugger.debugger.segment_chain import GraphSegment, Segment, SegmentChain, StoredThread
from rag_debugger.debugger.stepper import GraphStepper
from rag_debugger.debugger.subgraph_view import SubgraphDrawing, drawing, subgraph_names

log = logging.getLogger("rag_debugger.debugger.session")

EXPORT_FORMAT = "langgraph-step-debugger/run@1"
MAX_CONTINUE_STEPS = 200


def _note_step_end(record: StepRecord) -> None:
    """Where the step sits in an OpenTelemetry trace (a hook may send it)."""
    record.annotations["wall_end_ns"] = time.time_ns()


class SessionHooks:
    """What a caller keeps of a session's runs (a run history, a tracer). Every method is a no-op here;
    a failing hook is logged and never stops debugging."""

    def started(self, session: "GraphSession", seg: Segment) -> None:
        """A live segment began (a run, a fork): paused before its first node."""

    def ended(self, session: "GraphSession", seg: Segment) -> None:
        """A live segment finished or its last step failed (`seg.stepper.error`)."""

    def dropped(self, session: "GraphSession", seg: Segment) -> None:
        """A live segment that had not ended was replaced (a new run, a replay)."""

    def paused(self, session: "GraphSession", seg: Segment) -> None:
        """A live segment waits for an answer to an `interrupt()` (it may wait longer than its process)."""


@dataclass
class GraphSession(SegmentChain):
    """The step debugger of one browser session over the graph `spec`.

    The one session both pages stand on: the RAG workflow's (`rag_debugger.workbench.session.DebugSession`) is an
    adapter that subclasses it and overrides only what differs, through the seams below (`_refusal`,
    `_finished_message`, `_check_idle`, `_stepping`, `_work_out`, `_moved`); whatever is kept of a run
    (a history, OpenTelemetry) is a `SessionHooks`."""

    spec: str
    graph: Any
    context: Any = None
    context_spec: Optional[str] = None
    segments: list[Segment] = field(default_factory=list)
    replay_mode: bool = False
    last_input: Any = None
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    parent: Optional["GraphSession"] = None
    """Set on a session stepping inside a subgraph (`step_into`); the page goes back to it."""
    hooks: list[SessionHooks] = field(default_factory=list)
    question: str = ""
    """No question box on a graph of your own: the controls name no question (the RAG session has one)."""
    live: Optional[LiveRunner] = None
    """Runs Step / Continue / Run in a worker thread with Stop (`start_live`): the application's runner
    (`rag_debugger.workbench.live_step.LiveStepRunner`); None: every step runs where it is asked for."""
    _runs: int = 0
    _drawing: Any = None
    _lint: Optional[list[Finding]] = None
    _input_fields: Optional[list[FormField]] = None

    NO_RUN: ClassVar[str] = N_("start a run first: fill in the input and press Step or Run")
    """What Step and the rest say before any run (the RAG session names its question box)."""

    @classmethod
    def open(cls, spec: str, *, context_spec: Optional[str] = None, policy: Optional[GraphPolicy] = None,
             hooks: Iterable[SessionHooks] = ()) -> "GraphSession":
        """Load `spec` (GraphLoadError / DebuggerUserError with a readable message when it cannot).
        The folder the app was started in is importable (last on `sys.path`), so `my_pkg.agent:graph`
        in the user's project is found without installing it. `policy`: a name typed in a browser is
        checked against the allow-list BEFORE anything is imported (rag_debugger/debugger/allowlist.py)."""
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
        return cls(spec=spec, graph=graph, context=context, context_spec=context_spec, hooks=list(hooks))

    # ----- hooks -------------------------------------------------------------------------------
    def _tell(self, event: str, seg: Segment) -> None:
        for hook in self.hooks:
            try:
                getattr(hook, event)(self, seg)
            except Exception:  # noqa: BLE001 - a record is a record; debugging goes on without it
                log.warning("a session hook failed on %s", event, exc_info=True)

    def _settle(self, seg: Segment) -> None:
        """Tell the hooks a live segment ended (finished or failed), or waits for an answer, once per position."""
        stepper = seg.stepper
        if seg.replay:
            return
        if not (stepper.done or stepper.error):
            if seg is self.current and self.pending_interrupts() and seg.paused_at != len(stepper.steps):
                seg.paused_at = len(stepper.steps)
                self._tell("paused", seg)
            return
        now = (len(stepper.steps), stepper.error)
        if seg.ended_as == now:
            return
        seg.ended_as = now
        self._tell("ended", seg)

    def _drop_live(self) -> None:
        for seg in self.segments:
            if not seg.replay and seg.ended_as is None:
                self._tell("dropped", seg)

    # ----- the seams an adapter overrides ------------------------------------------------------
    def _refusal(self, message: str) -> Exception:
        """The error a refused command raises (the RAG session raises its own `UserInputError`)."""
        return DebuggerUserError(message)

    def _finished_message(self, seg: Segment) -> str:
        """Why Step refuses on a run that has finished."""
        return _("the run has finished: press Restart to run it again")

    def _check_idle(self) -> None:
        """Refuse a command while the live worker moves the run (its own thread may)."""
        if self.live is not None:
            self.live.refuse_if_busy()

    def _stepping(self) -> AbstractContextManager[Any]:
        """Around the steps of one command (the RAG session times them and collects their model calls)."""
        return nullcontext()

    def _work_out(self, seg: Segment) -> None:
        """What an adapter settles once a segment moved, before the hooks hear of it (the RAG session's
        result and answer: `rag_debugger.workbench.outcome.result_and_answer`)."""

    def _moved(self, seg: Segment, step_error: Optional[str] = None) -> None:
        """After every move of `seg` (a step, a run, a seek): the adapter's `_work_out`, then the hooks.
        `step_error`: the error of the step that just ran, if it failed."""
        self._work_out(seg)
        self._settle(seg)

    # ----- what the page shows next to the graph ---------------------------------------------
    def lint(self) -> list[Finding]:
        if self._lint is None:
            try:
                self._lint = lint_graph(self.graph)
            except Exception:  # noqa: BLE001 - lint is advice; a graph it cannot read still steps
                self._lint = []
        return self._lint

    def input_fields(self) -> list[FormField]:
        """The input form of the graph (`graph_fields`), made once: LangGraph writes the JSON schema anew
        on every call (~6 ms), and the page reads the form several times a render."""
        if self._input_fields is None:
            self._input_fields = graph_fields(self.graph)
        return list(self._input_fields)

    def node_docs(self) -> dict[str, str]:
        return node_docs(self._drawn())

    def subgraphs(self) -> tuple[str, ...]:
        return subgraph_names(self.graph)

    def node_names(self) -> list[str]:
        """The graph's own nodes (what a breakpoint may name)."""
        return [n for n in self._drawn().nodes if n not in ("__start__", "__end__")]

    # ----- commands ---------------------------------------------------------------------------
    def start(self, inp: Any) -> Segment:
        """A new run, paused before its first node (nothing runs yet), on a fresh thread."""
        self._runs += 1
        stepper = GraphStepper(self.graph, thread_id=f"yours-{self.session_id}-{self._runs}", context=self.context,
                               on_step=_note_step_end)
        stepper.start(inp)
        if stepper.error:
            raise DebuggerUserError(_("the run could not start: {error}").format(error=stepper.error))
        self._drop_live()
        self.last_input = copy.copy(inp)
        self.replay_mode = False
        first: Segment = GraphSegment(stepper=stepper, ctx=self.context)
        self.segments = [first]
        self._tell("started", first)
        return first

    def restart(self) -> Segment:
        """Run the same input again from the start (a replay: back to its first step)."""
        self._check_idle()
        if self.replay_mode:
            seg = self._require()
            seg.stepper.restart()
            self._moved(seg)
            return seg
        return self._start_again()

    def _start_again(self) -> Segment:
        """Restart of a live run: a new run on the last input (the RAG session: on its question)."""
        if self.last_input is None:
            raise self._refusal(_(self.NO_RUN))
        return self.start(self.last_input)

    def step(self) -> StepRecord:
        """One superstep of the current segment: the one Step of both pages (Continue and the live worker
        step through it too, so every step is recorded and settled the same way)."""
        seg = self._require()
        self._check_idle()
        if seg.stepper.done:
            raise self._refusal(self._finished_message(seg))
        if self.pending_interrupts():
            raise self._refusal(_("the graph is waiting for your answer to its interrupt() first"))
        with self._stepping():
            record = seg.stepper.step()
        self._moved(seg, record.error)
        return record

    def run_to_end(self, *, from_input: bool = False) -> list[StepRecord]:
        """Run on until the end, an `interrupt()`, a failed step or a breakpoint compiled into the graph
        (`compiled_pause` says which). `from_input`: the run was just started, as `graph.invoke(input)`, which
        pauses before a first node compiled with `interrupt_before`."""
        seg = self._require()
        self._check_idle()
        with self._stepping():
            records = (seg.stepper.run_to_end(from_input=True) if from_input and isinstance(seg.stepper, GraphStepper)
                       else seg.stepper.run_to_end())
        self._moved(seg, records[-1].error if records else None)
        return records

    @property
    def compiled_pause(self) -> Optional[str]:
        """Where the last Run or Continue stopped at a breakpoint compiled into the graph: `before:<node>` or
        `after:<node>`, else None."""
        seg = self.current
        return getattr(seg.stepper, "compiled_pause", None) if seg is not None else None

    def compiled_breakpoints(self) -> CompiledBreakpoints:
        return CompiledBreakpoints.of(self.graph)

    def continue_(self, breakpoints: Iterable[str] = (), on_step: Optional[Callable[[StepRecord], None]] = None,
                  limit: int = MAX_CONTINUE_STEPS) -> ContinueResult:
        """Continue: step (`step`, so each step is recorded and settled) until the next step would run a node
        in `breakpoints` (`hit` names it), a breakpoint compiled into the graph pauses it (`compiled`), an
        `interrupt()` waits for an answer, a step fails (`error`), the run ends, or `limit` steps ran. It
        always takes at least one step, so Continue from a breakpoint moves past it. `on_step` sees each
        record as it is taken (a page streams progress with it)."""
        seg = self._require()
        compiled = getattr(seg.stepper, "compiled", None) or CompiledBreakpoints()
        ended = continue_until(seg.stepper, self.step, breakpoints, on_step=on_step, limit=limit,
                               waiting=lambda: bool(self.pending_interrupts()), compiled=compiled)
        if hasattr(seg.stepper, "compiled_pause"):
            seg.stepper.compiled_pause = ended.compiled
        return ended

    def resume(self, value: Any, interrupt_id: Optional[str] = None, *,
               update: Optional[dict[str, Any]] = None) -> StepRecord:
        """Answer the pending `interrupt()` (one superstep): `Command(resume=value)`, or with `update`
        `Command(resume=value, update=update)`. `interrupt_id` names one of several pending ones."""
        seg, stepper = self._live_stepper()
        try:
            with self._stepping():
                record = stepper.resume(value, interrupt_id=interrupt_id, update=update)
        except StepperError as exc:
            raise self._refusal(str(exc)) from None
        self._moved(seg, record.error)
        return record

    def resume_all(self, answers: dict[str, Any], *, update: Optional[dict[str, Any]] = None) -> StepRecord:
        """Answer several pending interrupts together, by id: `Command(resume={id: value, ...})`."""
        seg, stepper = self._live_stepper()
        try:
            with self._stepping():
                record = stepper.resume_all(answers, update=update)
        except StepperError as exc:
            raise self._refusal(str(exc)) from None
        self._moved(seg, record.error)
        return record

    def _live_stepper(self) -> tuple[Segment, GraphStepper]:
        """The current segment and its live stepper, for an answer (a recording takes none)."""
        seg = self._require()
        self._check_idle()
        if self.replay_mode or not isinstance(seg.stepper, GraphStepper):
            raise self._refusal(_("this is a recorded run: nothing runs, so it cannot take an answer"))
        return seg, seg.stepper

    # ----- live steps (off the page, with Stop) --------------------------------------------------
    def streams_calls(self) -> bool:
        """Whether Step runs in the worker thread (`start_live`): a live runner, and a run that executes."""
        return self.live is not None and not self.replay_mode

    def start_live(self, kind: JobKind, breakpoints: Iterable[str] = ()) -> Any:
        """Step (`step`), Continue to a breakpoint (`continue`) or to the end (`run`) in the live runner's
        worker thread, through this session's own `step` / `continue_`, so a live step is recorded and settled
        like any other. Refused while a job runs; the run must have been started (the page starts it first).
        Returns the runner's job."""
        seg = self._require()
        if self.live is None:
            raise RuntimeError("this session has no live runner")  # the page asks streams_calls() first
        self._check_idle()
        if seg.stepper.done:
            raise self._refusal(self._finished_message(seg))
        stops = tuple(breakpoints) if kind == "continue" else ()
        job: Any = None

        def next_step(_record: StepRecord) -> None:  # Continue: the live view follows the next step
            if job is not None and not seg.stepper.done and not seg.stepper.error:
                job.next_step(self.lanes_of(seg))

        def work() -> Any:
            return self.step() if kind == "step" else self.continue_(stops, on_step=next_step)
        job = self.live.start(kind, work, self.lanes_of(seg))
        return job

    def lanes_of(self, seg: Segment) -> list[LaneView]:
        """The tasks of the next superstep (a fan-out's lanes), as the live view names them."""
        stepper = seg.stepper
        tasks = stepper.next_tasks if isinstance(stepper, GraphStepper) else tuple(("", n) for n in stepper.next_nodes)
        labels = self._lane_labels(seg, tasks)
        return [LaneView(task_id=tid, node=node, label=label) for (tid, node), label in zip(tasks, labels, strict=True)]

    def _lane_labels(self, seg: Segment, tasks: tuple[tuple[str, str], ...]) -> list[str]:
        """What names each lane besides its node (none here; the RAG session names its sub-questions)."""
        return ["" for _task in tasks]

    def _require(self) -> Segment:
        if not self.segments:
            raise self._refusal(_(self.NO_RUN))
        return self.segments[-1]

    # ----- what if -------------------------------------------------------------------------------
    def fork(self, step: int, field_name: str, value: Any) -> Segment:
        """What if: set `field_name` to `value` in the state after session step `step` (0-based over the
        timeline) and run forward as a new segment, to the end or the next `interrupt()`. The original
        steps stay in the timeline and readable (LangGraph branches inside the thread: `update_state`
        writes a new checkpoint whose parent is the old one). A recorded run forks onto a new live thread
        seeded with the recorded state, its checkpoints not being in this graph's saver. The hooks hear
        of it as a run that started (`seg.fork_of` says from where) and, once it stops, ended."""
        self._check_idle()
        pairs = self.all_steps()
        if not 0 <= step < len(pairs):
            raise self._refusal(_("pick a step from 1 to {last}").format(last=len(pairs)))
        origin, record = pairs[step]
        number = sum(1 for s in self.segments if s.fork_of is not None) + 1
        try:
            seg = self._fork_segment(origin, record, field_name, value, number=number)
        except StepperError as exc:
            raise self._refusal(str(exc)) from None
        self.segments.append(seg)
        self._tell("started", seg)
        with self._stepping():
            seg.stepper.run_to_end()
        self._moved(seg)
        return seg

    def _new_thread(self, kind: str) -> str:
        """A fresh thread id for a run of this session, never reused (a restart on an old thread would carry
        the previous run's state in)."""
        self._runs += 1
        return f"{kind}-{self.session_id}-{self._runs}"

    def _fork_segment(self, origin: Segment, record: StepRecord, field_name: str, value: Any, *,
                      number: int) -> Segment:
        """The what-if segment (its stepper paused where the edit leaves it); raises StepperError."""
        from rag_debugger.debugger.fork import fork_after, message_edit, message_fields

        edit = (message_edit(record.values_after.get(field_name), value)
                if field_name in message_fields(self.graph) else None)
        stepper = fork_after(origin, record, field_name, value, graph=self.graph,
                             new_thread=lambda: self._new_thread("fork"), context=self.context,
                             on_step=_note_step_end)
        self.replay_mode = False
        return GraphSegment(stepper=stepper, label=N_("what-if #{n}").format(n=number), ctx=self.context,
                            fork_of=(origin, origin.stepper.steps.index(record), field_name, value),
                            message_edit=edit)

    # ----- reading ----------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Nothing for Step / Continue to do: the run finished, or it waits for an answer (the
        inspector greys those buttons out from this)."""
        seg = self.current
        return bool(seg and (seg.stepper.done or self.pending_interrupts()))

    @property
    def finished(self) -> bool:
        """The run reached the graph's end: not a recording (a stored thread, say) that stops before it."""
        seg = self.current
        return bool(seg and seg.stepper.done and not self.cut_short)

    def pending_interrupts(self) -> tuple[PendingInterrupt, ...]:
        seg = self.current
        return tuple(getattr(seg.stepper, "pending_interrupts", ()) or ()) if seg else ()

    def result(self) -> Optional[dict[str, Any]]:
        """No workflow result: the final state is the result, shown by the page itself."""
        return None

    def answer(self) -> object:
        """No answer step after the graph (the RAG session has one)."""
        return None

    def _drawn(self) -> Any:
        if self._drawing is None:
            self._drawing = drawing(self.graph)
        return self._drawing

    def drawing_keys(self) -> list[tuple]:
        """For every step of the session (as the timeline numbers them), what `drawing(step)` is made of,
        in one pass: two steps with the same key draw the same picture, so a run's HTML file draws each
        distinct picture once, not once per position."""
        keys = []
        for seg in self.segments:
            steps = seg.stepper.steps
            for n, (marks, seen) in enumerate(zip(marks_along(steps), fanouts_along(steps), strict=True), start=1):
                if n == len(steps) and seg is self.current:  # the head: what the stepper says runs next
                    marks = marks_after(steps, n, next_now=seg.stepper.next_nodes, finished_now=seg.stepper.done)
                keys.append((marks.current, marks.done, seen))
        return keys

    def drawing(self, travel: Optional[int] = None) -> GraphDrawing:
        """The graph (subgraphs as clusters) with the next nodes, the nodes run and the Sends seen:
        at the current position, or after step `travel` (time travel; the inspector passes it)."""
        seg, count = self.viewed(travel)
        current: tuple[str, ...] = ()
        done: tuple[str, ...] = ()
        fanout: tuple = ()
        if seg is not None:
            steps = seg.stepper.steps
            latest = count == len(steps) and seg is self.current
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

    def step_into(self, name: str) -> "GraphSession":
        """A session on subgraph `name`, started on the input the parent would hand it now (the
        parent state's keys that the subgraph's input schema declares), paused before its first node.

        Why a separate run: LangGraph pauses before the parent's nodes only (`interrupt_before`
        does not reach into a subgraph), so the parent runs a subgraph as one task. Stepping into it
        runs the subgraph on its own thread with the same input; the parent's run does not move, and
        its own step will run the subgraph again (so side effects of its nodes happen twice). Not
        recorded: the child's hooks are none."""
        found = dict(self.graph.get_subgraphs())
        if name not in found:
            raise DebuggerUserError(_("{name} is not a subgraph of {spec}").format(name=repr(name), spec=self.spec))
        seg = self._require()
        values = seg.stepper.current_values()
        keys = {f.name for f in schema_fields(input_schema(found[name]))}
        inp = {k: v for k, v in values.items() if not keys or k in keys}
        child = GraphSession(spec=f"{self.spec} › {name}", graph=with_checkpointer(found[name]),
                             context=self.context, context_spec=self.context_spec, parent=self)
        child.start(inp)
        return child

    # ----- threads of the user's own checkpointer ----------------------------------------------
    def open_thread(self, store: Any, thread_id: str) -> Segment:
        """Show a stored thread's newest checkpoints (a window: a long thread is not read whole) as a
        replay positioned at its end, so the timeline, diffs and time travel show it at once."""
        from rag_debugger.debugger.threads import CheckpointerError, on_store, pending_interrupts, read_window

        stored = on_store(self.graph, store)
        try:
            window = read_window(stored, thread_id)
            pending = pending_interrupts(stored, thread_id)
            stepper = ReplayStepper(window.checkpoints, graph=self.graph, thread_id=thread_id)
        except StepperError as exc:
            raise CheckpointerError(str(exc)) from None
        stepper.run_to_end(max_steps=len(stepper.all_steps) + 1)
        seg: Segment = GraphSegment(stepper=stepper, label=N_("stored thread"), replay=True,
                                    thread=StoredThread(store=store, thread_id=thread_id, more=window.more, pending=pending))
        self._drop_live()
        self.segments = [seg]
        self.replay_mode = True
        self.last_input = None
        return seg

    def older_checkpoints(self) -> Segment:
        """Read the window before the oldest checkpoint shown, and show the thread from there (still at its end)."""
        from rag_debugger.debugger.threads import on_store, read_window

        seg = self._require()
        if seg.thread is None or not isinstance(seg.stepper, ReplayStepper) or not seg.thread.more:
            raise DebuggerUserError(_("no older checkpoints to read"))
        shown = list(seg.stepper.recorded)
        window = read_window(on_store(self.graph, seg.thread.store), seg.thread.thread_id,
                             before=shown[0].checkpoint_id)
        stepper = ReplayStepper([*window.checkpoints, *shown], graph=self.graph, thread_id=seg.thread.thread_id)
        stepper.run_to_end(max_steps=len(stepper.all_steps) + 1)
        seg.stepper = stepper
        seg.thread.more = window.more
        return seg

    def go_on_thread(self, after_step: Optional[int] = None) -> Segment:
        """Run on from the opened thread's newest checkpoint (or from the one after stored step `after_step`,
        time travel): in place when the store is writable, else in a fork copied into the debugger's own
        checkpointer. Step, Continue and answers work then; the stored steps before it stay in the timeline."""
        from langgraph.checkpoint.memory import InMemorySaver

        from rag_debugger.debugger.threads import stepper_on_thread

        seg = self._require()
        if seg.thread is None or not isinstance(seg.stepper, ReplayStepper):
            raise DebuggerUserError(_("open a stored thread first"))
        at = None
        steps = seg.stepper.all_steps
        if after_step is not None and 0 <= after_step < len(steps) - 1:
            at = steps[after_step].after_checkpoint_id
            seg.stepper.restart()  # the stored steps shown before the new ones end there
            seg.stepper.run_to_end(max_steps=after_step + 1)
        self._runs += 1
        stepper, forked = stepper_on_thread(seg.thread.store, seg.thread.thread_id, self.graph, own=InMemorySaver(),
                                fork_id=f"fork-{self.session_id}-{self._runs}-{seg.thread.thread_id}",
                                context=self.context, at=at)
        live: Segment = GraphSegment(stepper=stepper, label=N_("fork") if forked else N_("thread"),
                            thread=StoredThread(store=seg.thread.store, thread_id=seg.thread.thread_id, forked=forked))
        self.segments = [seg, live]
        self.replay_mode = False
        return live

    # ----- export and replay ------------------------------------------------------------------
    def recording(self, seg: Optional[Segment] = None) -> tuple[list[RecordedCheckpoint], Optional[str]]:
        """A segment's checkpoints (every checkpoint of its thread, each task's writes) and its head (the
        last checkpoint of its branch: a live fork shares its parent's thread)."""
        seg = seg or self._require()
        if isinstance(seg.stepper, ReplayStepper):
            stepper = seg.stepper
            path = getattr(stepper, "path", None) or stepper.recorded
            return list(stepper.recorded), path[-1].checkpoint_id if path else None
        live = cast(GraphStepper, seg.stepper)  # not a recording: a live run of a graph
        checkpoints = record_thread(seg.graph, live.config)
        steps = seg.stepper.steps
        _add_spawned_tasks(checkpoints, steps)
        head = steps[-1].after_checkpoint_id if steps else getattr(seg.stepper, "start_checkpoint_id", None)
        if head is not None and not any(c.checkpoint_id == head for c in checkpoints):
            head = None
        return checkpoints, head

    def export_run(self) -> dict:
        """The current run as JSON-able data: every checkpoint with each task's writes (what
        `ReplayStepper` walks), its head, the graph's path and the input."""
        checkpoints, head = self.recording()
        return {"format": EXPORT_FORMAT, "graph": self.spec, "input": self.last_input, "head": head,
                "checkpoints": [json.loads(c.model_dump_json(fallback=str)) for c in checkpoints]}

    def open_recorded(self, checkpoints: list, *, head: Optional[str] = None, label: str = N_("recorded run"),
                      inp: Optional[dict] = None, run_id: Optional[str] = None, info: Any = None) -> Segment:
        """Open recorded checkpoints read-only, at the start: Step / Continue / Restart and time travel walk
        them. `run_id` / `info`: the history's run they came from (a link names it)."""
        try:
            items = [c if isinstance(c, RecordedCheckpoint) else RecordedCheckpoint.model_validate(c)
                     for c in checkpoints or []]
            stepper = ReplayStepper(items, head=head, graph=self.graph, thread_id=f"replay-{self.session_id}")
        except (ValueError, StepperError) as exc:
            raise DebuggerUserError(_("this recording cannot be replayed: {error}").format(error=exc)) from None
        self._drop_live()
        opened: Segment = GraphSegment(stepper=stepper, label=label, replay=True, run_id=run_id, info=info)
        self.segments = [opened]
        self.replay_mode = True
        self.last_input = inp
        return self.segments[0]

    def open_replay(self, data: Any) -> Segment:
        """Open a run exported from this page (`export_run`) read-only."""
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise DebuggerUserError(_("this file is not a run exported from this page"))
        head = data.get("head") if isinstance(data.get("head"), str) else None
        return self.open_recorded(data.get("checkpoints") or [], head=head, inp=data.get("input"))

    def seek(self, steps: int) -> None:
        """Replay: put the current recording at `steps` steps from its start (0 = before the first node)."""
        seg = self._require()
        if not seg.replay or not isinstance(seg.stepper, ReplayStepper):
            raise self._refusal(_("seeking is for recorded runs; a live run moves with Step"))
        total = seg.stepper.total_steps
        if not 0 <= steps <= total:
            raise self._refusal(_("this recording has {total} steps; pick 0 to {total}").format(total=total))
        seg.stepper.restart()
        for _step in range(steps):
            seg.stepper.step()
        self._moved(seg)


def _add_spawned_tasks(checkpoints: list[RecordedCheckpoint], steps: Iterable[StepRecord]) -> None:
    """Put the tasks a step spawned as it ran (an `@entrypoint`'s `@task` calls, an error handler) into the
    recording of the checkpoint it ran from: a checkpoint lists only the tasks scheduled before the step,
    so a replay would not show them."""
    from rag_debugger.debugger.replay import RecordedTask

    by_id = {c.checkpoint_id: c for c in checkpoints}
    for record in steps:
        cp = by_id.get(record.before_checkpoint_id or "")
        if cp is None:
            continue
        known = {t.id for t in cp.tasks}
        cp.tasks.extend(RecordedTask(id=lane.task_id, name=lane.node, writes=lane.writes, error=lane.error)
                        for lane in record.lanes if lane.task_id not in known and lane.error is None)


__all__ = ["EXPORT_FORMAT", "GraphSession", "SessionHooks"]
