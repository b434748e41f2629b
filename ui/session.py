"""One browser session's debugging state, on top of the generic `debugger` core.

A session holds a chain of segments: the main run, then one resume run per HITL answer. Each
segment is a `GraphStepper` on its own checkpointer thread, so two browser sessions on one server
never see each other's runs. Streamlit-free on purpose: the pages render it, tests drive it.
"""
from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from debugger import GraphStepper, StepRecord, graph_to_dot
from rag.api import InvalidQuestionError, build_result, initial_state, make_context, resume_input, validate_text
from rag.context import RagContext
from rag.graph.build import FANOUT_EDGES, build_rag_graph, build_resume_graph, node_docs
from rag.rules.hitl import SnapshotError
from rag.schemas import ProgressStep
from rag.settings import RagSettings

GraphFactory = Callable[[str], Any]


class UserInputError(ValueError):
    """Something the user typed or uploaded is not usable; the message says what to change."""


_graph_lock = threading.Lock()
_graphs: dict[str, Any] = {}


def shared_graph(kind: str, checkpointer: Any = None) -> Any:
    """Compiled graphs with a checkpointer, shared by every session of this process (threads keep
    sessions apart). `kind` is "main" or "resume"."""
    key = f"{kind}:{id(checkpointer)}"
    with _graph_lock:
        if key not in _graphs:
            saver = checkpointer or _default_saver()
            _graphs[key] = build_rag_graph(saver) if kind == "main" else build_resume_graph(saver)
        return _graphs[key]


_saver = None


def _default_saver():
    global _saver
    if _saver is None:
        from langgraph.checkpoint.memory import InMemorySaver

        _saver = InMemorySaver()
    return _saver


def route_decision(values: dict) -> Optional[str]:
    """What a step decided, for the timeline: the route once graded, else the complexity."""
    route = values.get("route")
    if route:
        return f"route={route} ({values.get('retrieval_status')})"
    if values.get("complexity"):
        return f"complexity={values['complexity']}"
    return None


@dataclass
class Segment:
    """One stepped run: the main graph, or the resume graph after a HITL answer."""

    kind: str  # "main" | "resume"
    stepper: GraphStepper
    ctx: RagContext
    label: str
    answer: Optional[str] = None
    started_at: float = field(default_factory=time.time)

    @property
    def graph(self) -> Any:
        return self.stepper.graph


class DebugSession:
    """The step debugger of one browser session."""

    def __init__(self, settings: Optional[RagSettings] = None, *, retriever: Any = None, roles: Any = None,
                 checkpointer: Any = None):
        self.session_id = uuid.uuid4().hex[:12]
        self.settings = settings or RagSettings()
        self.retriever = retriever
        self.roles = roles
        self.checkpointer = checkpointer
        self.question: str = ""
        self.segments: list[Segment] = []
        self._pending: list[ProgressStep] = []
        self._pending_lock = threading.Lock()

    # ----- collaborators ------------------------------------------------------------------
    def _sink(self, step: ProgressStep) -> None:
        with self._pending_lock:
            self._pending.append(step)

    def _on_step(self, record: StepRecord) -> None:
        with self._pending_lock:
            steps, self._pending = self._pending, []
        record.annotations["progress"] = [s.model_dump() for s in steps]

    def _context(self) -> RagContext:
        ctx = make_context(settings=self.settings, retriever=self.retriever, roles=self.roles, progress=self._sink)
        ctx.reset_clock()
        return ctx

    def _new_segment(self, kind: str, inp: dict, label: str, answer: Optional[str] = None) -> Segment:
        ctx = self._context()
        stepper = GraphStepper(
            shared_graph(kind, self.checkpointer), thread_id=f"{self.session_id}-{len(self.segments)}-{kind}",
            context=ctx, nested_fields={"rag_trace"}, on_step=self._on_step,
        )
        with self._pending_lock:
            self._pending = []
        stepper.start(inp)
        if stepper.error:
            raise UserInputError(f"the run could not start: {stepper.error}")
        segment = Segment(kind=kind, stepper=stepper, ctx=ctx, label=label, answer=answer)
        self.segments.append(segment)
        return segment

    # ----- commands -----------------------------------------------------------------------
    def start(self, question: str) -> Segment:
        """Start a new main run paused before its first node (nothing runs yet)."""
        try:
            text = validate_text(question, what="question", limit=self.settings.max_question_chars)
        except InvalidQuestionError as exc:
            raise UserInputError(str(exc)) from None
        self.question = text
        self.segments = []
        return self._new_segment("main", initial_state(text), "main run")

    def restart(self) -> Segment:
        if not self.question:
            raise UserInputError("type or pick a question first")
        return self.start(self.question)

    @property
    def current(self) -> Optional[Segment]:
        return self.segments[-1] if self.segments else None

    def step(self) -> StepRecord:
        seg = self._require()
        if seg.stepper.done:
            raise UserInputError("this run has finished: answer the follow-up question or restart")
        return seg.stepper.step()

    def run_to_end(self) -> list[StepRecord]:
        seg = self._require()
        return seg.stepper.run_to_end()

    def _require(self) -> Segment:
        if not self.segments:
            raise UserInputError("start a run first: type or pick a question and press Run or Step")
        return self.segments[-1]

    # ----- results ------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        seg = self.current
        return bool(seg and seg.stepper.done)

    def result(self) -> Optional[dict]:
        """The client-facing result of the current segment once it has finished."""
        seg = self.current
        if not seg or not seg.stepper.done:
            return None
        return build_result(seg.stepper.current_values(), seg.ctx)

    def hitl_snapshot(self) -> Optional[dict]:
        result = self.result()
        return result.get("hitl_resume_state") if result else None

    def answer_hitl(self, answer: str) -> Segment:
        """Feed the user's answer and the run's snapshot into the resume path (stepped like a run)."""
        snapshot = self.hitl_snapshot()
        if snapshot is None:
            raise UserInputError("there is no open follow-up question to answer")
        try:
            inp = resume_input(snapshot, answer, limit=self.settings.max_question_chars)
        except (SnapshotError, InvalidQuestionError) as exc:
            raise UserInputError(str(exc)) from None
        rounds = sum(1 for s in self.segments if s.kind == "resume") + 1
        return self._new_segment("resume", inp, f"HITL resume #{rounds}", answer=answer.strip())

    def all_steps(self) -> list[tuple[Segment, StepRecord]]:
        return [(seg, rec) for seg in self.segments for rec in seg.stepper.steps]

    # ----- drawing ------------------------------------------------------------------------
    def dot(self, kind: Optional[str] = None) -> str:
        """DOT of the current segment's graph with the next nodes and the nodes already run."""
        seg = self.current
        kind = kind or (seg.kind if seg else "main")
        graph = seg.graph if seg and seg.kind == kind else shared_graph(kind, self.checkpointer)
        current: tuple[str, ...] = ()
        done: set[str] = set()
        fanout = []
        if seg and seg.kind == kind:
            current = seg.stepper.next_nodes
            for rec in seg.stepper.steps:
                done.update(rec.nodes)
            if done and seg.stepper.done:
                done.add("__end__")
            done.add("__start__")
            lanes = max((len(r.lanes) for r in seg.stepper.steps if "rag_sub_agent" in r.nodes), default=0)
            lanes = lanes or sum(1 for n in current if n == "rag_sub_agent")
            fanout = [(src, dst, lanes or None) for src, dst in FANOUT_EDGES]
        else:
            fanout = list(FANOUT_EDGES)
        title = "RAG workflow" if kind == "main" else "HITL resume path"
        return graph_to_dot(graph, current=current, done=done, fanout_edges=fanout, docs=node_docs(), title=title)
