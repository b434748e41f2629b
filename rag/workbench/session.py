"""One browser session's debugging state, on top of the generic `debugger` core.

A session holds a chain of segments: the main run, then one resume run per HITL answer. Each
segment is a `GraphStepper` on its own checkpointer thread, so two browser sessions on one server
never see each other's runs. Streamlit-free on purpose: the pages render it, tests drive it.

Recording: with a `RunHistory`, every segment is a run of the history (`record_start` when it
starts, `record_finish` when it ends or fails; a resume links to its parent run), on the history's
own checkpointer, so the history page can list, export and replay it after a restart. Recording
never breaks debugging: a failing history write is logged and the run goes on. A run that never
finishes is marked abandoned when a new run or a replay replaces it, or when its tab is gone
(rag/workbench/run_owners.py).

Replay: `open_replay` puts `ReplayStepper`s (same surface as `GraphStepper`) in place of live
steppers. Nothing is executed in that mode, so Run and HITL answers are refused with a message;
Step, Continue, Restart and time travel walk the recording.
"""
from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from debugger import GraphStepper, Stepper, StepRecord
from debugger.diff import json_default
from debugger.graph_view import GraphDrawing
from debugger.position import marks_after
from debugger.replay import step_timings
from debugger.stepper import StepperError
from rag.api import InvalidQuestionError, build_result, initial_state, make_context, resume_input, validate_text
from rag.context import RagContext
from rag.errors import UserInputError
from rag.graph.build import FANOUT_EDGES, compiled_graph, node_docs
from rag.i18n import N_, _
from rag.models.calls import model_call_sink
from rag.rules.hitl import SnapshotError
from rag.schemas import ProgressStep
from rag.settings import RagSettings
from rag.workbench import run_names, run_owners

log = logging.getLogger("rag_debugger.session")

REPLAY_BANNER = N_("Replay — recorded run, no model and no knowledge base")
"""English (the catalogue's id): show it with `_(REPLAY_BANNER)`."""


def shared_graph(kind: str, checkpointer: Any = None) -> Any:
    """Compiled graphs with a checkpointer, shared by every session of this process (threads keep
    sessions apart), from the one registry (`rag.graph.build.compiled_graph`). `kind` is "main" or
    "resume"; without a checkpointer, a process-wide in-memory one."""
    return compiled_graph(kind, checkpointer or _default_saver())


_saver = None
_saver_lock = threading.Lock()


def _default_saver():
    global _saver
    with _saver_lock:
        if _saver is None:
            from langgraph.checkpoint.memory import InMemorySaver

            _saver = InMemorySaver()
        return _saver


_drawings: dict[int, Any] = {}


def _drawn(graph: Any) -> Any:
    """`graph.get_graph()`, once per compiled graph: the topology never changes after compile and
    drawing it cost ~3 ms on every rerun of the page."""
    key = id(graph)
    if key not in _drawings:
        _drawings[key] = graph.get_graph()
    return _drawings[key]


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
    stepper: Stepper  # GraphStepper (live), ReplayStepper (replay), or any other implementation
    ctx: Optional[RagContext]  # None in replay: nothing runs
    label: str
    answer: Optional[str] = None
    started_at: float = field(default_factory=time.time)
    run_id: Optional[str] = None
    """This segment's run in the history (None when not recorded)."""
    prompt_version: Optional[str] = None
    answerer_prompt: Optional[str] = None
    """The answerer template of the run's prompt version (None: the built-in one)."""
    replay: bool = False
    info: Any = None
    """The history's RunInfo of a replayed run."""
    fork_of: Any = None
    """A what-if fork: (the segment it forked from, the step index there, the edited field, its new value)."""
    traced: bool = False
    """Sent to OpenTelemetry already (rag/telemetry)."""

    @property
    def graph(self) -> Any:
        return self.stepper.graph


def _telemetry_on() -> bool:
    from rag.telemetry.runs import active

    return active() is not None


def model_call_span(call: dict, step_t0: float) -> dict:
    """A model call as a waterfall span: when in its step it started, how long, tokens if reported."""
    tokens = ""
    if call.get("tokens_in") is not None or call.get("tokens_out") is not None:
        tokens = _("{tokens_in} → {tokens_out} tokens").format(tokens_in=call.get("tokens_in", "?"),
                                                               tokens_out=call.get("tokens_out", "?"))
    detail = tokens if call.get("ok", True) else _("failed: {kind}").format(kind=call.get("error_kind"))
    return {"label": f"{call.get('role')} · {call.get('model')}", "start_ms": round((call["started"] - step_t0) * 1000.0, 3),
            "ms": call.get("elapsed_ms", 0.0), "detail": detail, "ok": call.get("ok", True)}


class DebugSession:
    """The step debugger of one browser session."""

    def __init__(self, settings: Optional[RagSettings] = None, *, retriever: Any = None, roles: Any = None,
                 checkpointer: Any = None, history: Any = None):
        self.session_id = uuid.uuid4().hex[:12]
        self.settings = settings or RagSettings()
        self.retriever = retriever
        self.roles = roles
        self.history = history
        self.checkpointer = checkpointer if checkpointer is not None else (
            history.checkpointer if history is not None else None)
        self.replay_mode = False
        self._answer_cache: Optional[tuple] = None
        self.question: str = ""
        self.segments: list[Segment] = []
        self._pending: list[ProgressStep] = []
        self._pending_lock = threading.Lock()
        self._pending_calls: list[dict] = []
        self._step_t0: Optional[float] = None
        self._runs_started = 0
        self._result_cache: Optional[tuple] = None
        self.open_runs: set[str] = set()
        """Recorded live runs that have not finished: abandoned when replaced, or when this
        session is left behind (a reload, a closed tab; see rag/workbench/run_owners.py)."""
        self.client_id: Optional[str] = None
        """The Streamlit session id of the browser tab driving this session, when known."""
        self.browser_id: Optional[str] = None
        """Which browser drives it (`rag.workbench.run_owners.browser_token`), when known: only the same
        browser may take the session over after a reload."""
        self.run_by: str = ""
        """Who the runs this session records are by (the signed-in user or the Settings name)."""
        self.history_lost = False
        """Set when the history stopped answering under this session (its database went down); the page
        says so once (`take_history_lost`)."""
        self._cut_runs: set[str] = set()
        """Runs the outage cut short: marked abandoned (incomplete) when a history answers again."""

    # ----- collaborators ------------------------------------------------------------------
    def _sink(self, step: ProgressStep) -> None:
        with self._pending_lock:
            self._pending.append(step)

    def _on_call(self, call: dict) -> None:
        """A model call finished (rag/models/calls.py), in whichever lane's thread made it."""
        with self._pending_lock:
            self._pending_calls.append(call)

    def _on_step(self, record: StepRecord) -> None:
        with self._pending_lock:
            steps, self._pending = self._pending, []
            calls, self._pending_calls = self._pending_calls, []
        record.annotations["progress"] = [s.model_dump() for s in steps]
        t0 = self._step_t0 if self._step_t0 is not None else time.perf_counter() - record.duration_ms / 1000.0
        record.annotations["spans"] = [model_call_span(c, t0) for c in calls]  # the waterfall's model calls
        record.annotations["wall_end_ns"] = time.time_ns()  # where the step sits in an OpenTelemetry trace
        if calls and _telemetry_on():
            record.annotations["model_calls"] = calls  # the trace's LLM spans (_export_trace)
        self._step_t0 = time.perf_counter()  # run_to_end: the next step starts now

    @contextmanager
    def _timed_steps(self):
        self._step_t0 = time.perf_counter()
        with model_call_sink(self._on_call):
            yield

    def _prompts(self) -> Any:
        """The prompts live runs use: the configured version, else the playground's active one
        (built-in prompts when none is active)."""
        from rag.prompts import load_prompts

        name = self.settings.prompt_version or "active"
        try:
            return load_prompts(name)
        except ValueError as exc:  # PromptVersionError / PromptTemplateError
            raise UserInputError(_("the prompt version {name} cannot be used: {error}").format(
                name=repr(name), error=exc)) from None

    def _context(self) -> tuple[RagContext, Optional[str]]:
        ctx, version, _ = self._context_and_answerer()
        return ctx, version

    def _context_and_answerer(self) -> tuple[RagContext, Optional[str], Optional[str]]:
        """The run's context, its prompt version, and that version's answerer prompt (the answer
        step after the graph uses the same version as the graph's roles)."""
        roles, version, answerer = self.roles, None, None
        if roles is None:
            from rag.models.factory import get_default_roles

            prompts = self._prompts()
            roles, version, answerer = get_default_roles(self.settings, prompts), prompts.version, prompts.answerer
        ctx = make_context(settings=self.settings, retriever=self.retriever, roles=roles, progress=self._sink)
        ctx.reset_clock()
        version = getattr(roles, "prompt_version", None) or version or self.settings.prompt_version or "default"
        return ctx, version, answerer

    def _drop_damaged_history(self) -> bool:
        """Stop recording into a history whose file turned out damaged: later runs use memory, so
        recording never breaks debugging. True when it did."""
        if self.history is None or not getattr(self.history, "damage", None):
            return False
        log.error("run history damaged (%s); this session continues in memory", self.history.damage)
        if self.checkpointer is self.history.checkpointer:
            self.checkpointer = _default_saver()
        self.history = None
        self.history_lost = True
        self._cut_runs |= self.open_runs
        self.open_runs = set()
        return True

    def take_history_lost(self) -> bool:
        """True once after the history stopped answering under this session (the page's one warning)."""
        lost, self.history_lost = self.history_lost, False
        return lost

    def attach_history(self, history: Any) -> bool:
        """A history answers again (or for the first time: it was down when this session began): later
        runs are recorded in it, and the runs an outage cut short are marked abandoned there, never left
        `running`. The run on screen goes on where it is (in memory, unrecorded). True when attached."""
        if history is None or self.history is not None or getattr(history, "damage", None):
            return False
        self.history = history
        self.checkpointer = history.checkpointer
        if self._cut_runs:
            abandon_runs(history, self._cut_runs)
        return True

    def _forget_threads(self) -> None:
        """The loaded runs are replaced: a checkpointer that keeps live threads in memory
        (`rag.runs.mirrored_saver`) lets their copies go (the history keeps its own)."""
        for seg in self.segments:
            forget = getattr(getattr(seg.stepper.graph, "checkpointer", None), "forget", None)
            if forget is not None and not seg.replay:
                try:
                    forget(seg.stepper.thread_id)
                except Exception:  # noqa: BLE001 - only memory to free
                    log.debug("could not forget a thread", exc_info=True)

    def _new_segment(self, kind: str, inp: dict, label: str, answer: Optional[str] = None) -> Segment:
        self._drop_damaged_history()
        ctx, version, answerer = self._context_and_answerer()
        # One thread per run, never reused: a restart on the old thread would carry the previous
        # run's state in (reducer fields like `sub_results` grow), and its checkpoints would show
        # up in this run's time travel, export and replay.
        self._runs_started += 1
        stepper = GraphStepper(
            shared_graph(kind, self.checkpointer), thread_id=f"{self.session_id}-{self._runs_started}-{kind}",
            context=ctx, nested_fields={"rag_trace"}, on_step=self._on_step,
        )
        with self._pending_lock:
            self._pending = []
        stepper.start(inp)
        if stepper.error and self._drop_damaged_history():
            return self._new_segment(kind, inp, label, answer)
        if stepper.error:
            raise UserInputError(_("the run could not start: {error}").format(error=stepper.error))
        segment = Segment(kind=kind, stepper=stepper, ctx=ctx, label=label, answer=answer, prompt_version=version,
                          answerer_prompt=answerer)
        parent = self.segments[-1].run_id if kind == "resume" and self.segments else None
        self.segments.append(segment)
        self._record_start(segment, inp.get("question") or self.question, parent)
        return segment

    # ----- recording into the run history -------------------------------------------------
    def _record_start(self, seg: Segment, question: str, parent_run_id: Optional[str],
                      fork: Optional[dict] = None) -> None:
        if self.history is None or seg.ctx is None:
            return
        try:
            info = self.history.record_start(
                question, kind=seg.kind, thread_id=seg.stepper.thread_id, parent_run_id=parent_run_id,
                provider=seg.ctx.roles.provider, prompt_version=seg.prompt_version, settings=self.settings,
                run_by=self.run_by, fork=fork,
            )
            seg.run_id = info.run_id
        except Exception:  # noqa: BLE001 - the history is a record; debugging goes on without it
            log.warning("could not record the start of a run", exc_info=True)
            return
        self.open_runs.add(info.run_id)
        run_owners.claim(info.run_id, self, self.client_id)
        run_owners.sweep(self.history)  # a run starts: runs other tabs left behind are abandoned

    def _abandon_open_runs(self) -> None:
        """A new run or a replay replaces this session's runs: the unfinished ones are abandoned."""
        run_owners.release(seg.run_id for seg in self.segments if seg.run_id)
        if self.open_runs:
            abandon_runs(self.history, self.open_runs)

    def _record_progress(self, seg: Segment) -> None:
        """Close the segment's run in the history when it finished or failed (again after a retry)."""
        if self.history is None or seg.run_id is None or seg.replay:
            return
        stepper = seg.stepper
        if not (stepper.done or stepper.error):
            return
        progress = [p for rec in stepper.steps for p in rec.annotations.get("progress") or []]
        duration = sum(rec.duration_ms for rec in stepper.steps)
        head = stepper.steps[-1].after_checkpoint_id if stepper.steps else None
        if stepper.done:
            self.open_runs.discard(seg.run_id)
        try:
            if stepper.done:
                result = self.result()
                answer = self.answer()
                if result is not None and answer is not None:  # recorded with the run, shown in replay
                    result["answer"] = answer.model_dump(mode="json")
                if result is not None:  # the waterfall's durations, lanes and model calls, for replay
                    from rag.runs.export import STEP_TIMINGS
                    result[STEP_TIMINGS] = [t.model_dump(mode="json") for t in step_timings(stepper.steps)]
                self.history.record_finish(seg.run_id, status="done", result=result, progress=progress,
                                           duration_ms=duration, head_checkpoint_id=head)
            else:
                self.history.record_finish(seg.run_id, status="error", error=stepper.error, progress=progress,
                                           duration_ms=duration, head_checkpoint_id=head)
        except Exception:  # noqa: BLE001
            log.warning("could not record the end of a run", exc_info=True)

    def _export_trace(self, seg: Segment) -> None:
        """Send a live segment that finished or failed to OpenTelemetry when export is on (rag/telemetry),
        once: built from its step records after the run, so a Step never waits for it."""
        stepper = seg.stepper
        if seg.replay or seg.ctx is None or not (stepper.done or stepper.error) or seg.traced:
            return
        from rag.telemetry.runs import active

        tracer = active()
        if tracer is None:
            return
        seg.traced = True
        from rag.telemetry.records import CallRecord, RunRecord, steps_from_stepper
        from rag.telemetry.runs import send_run

        steps = steps_from_stepper(stepper.steps)
        calls = [CallRecord.from_sink(c) for rec in stepper.steps for c in rec.annotations.get("model_calls") or []]
        values = stepper.current_values() if stepper.done else (stepper.steps[-1].values_after if stepper.steps else {})
        first = stepper.steps[0] if stepper.steps else None
        start = steps[0].start_ns if steps else time.time_ns()
        parent = next((s.run_id for s in reversed(self.segments[:-1]) if s is not seg), None) \
            if seg.kind == "resume" else None
        snapshot = first.values_before.get("hitl_snapshot") if first is not None else None
        send_run(RunRecord(kind=seg.kind, start_ns=start, end_ns=steps[-1].end_ns if steps else start,
                           question=self.question, values=dict(values or {}), steps=steps, calls=calls,
                           run_id=seg.run_id, parent_run_id=parent, prompt_version=seg.prompt_version,
                           error=stepper.error, snapshot=snapshot),
                 self.settings.secret_strings(), tracer)

    # ----- commands -----------------------------------------------------------------------
    def start(self, question: str) -> Segment:
        """Start a new main run paused before its first node (nothing runs yet). The loaded run
        is let go first, also when the question is refused: the page must then show only why, not
        the previous question's result under it as if it answered this one (it stays in the history)."""
        self._forget_threads()
        self.question = ""
        self.segments = []
        self.replay_mode = False
        try:
            text = validate_text(question, what="question", limit=self.settings.max_question_chars)
        except InvalidQuestionError as exc:
            raise UserInputError(str(exc)) from None
        self._abandon_open_runs()
        self.question = text
        return self._new_segment("main", initial_state(text), run_names.MAIN_RUN)

    def restart(self) -> Segment:
        if self.replay_mode:
            seg = self._require()
            seg.stepper.restart()
            return seg
        if not self.question:
            raise UserInputError(_("type or pick a question first"))
        return self.start(self.question)

    @property
    def current(self) -> Optional[Segment]:
        return self.segments[-1] if self.segments else None

    def step(self) -> StepRecord:
        seg = self._require()
        if seg.stepper.done:
            if seg.replay:
                raise UserInputError(_("the recording has ended: press Restart to replay it again"))
            raise UserInputError(_("this run has finished: answer the follow-up question or restart"))
        with self._timed_steps():
            record = seg.stepper.step()
        if not record.error:  # the database went down during the step: the run goes on in memory
            self._drop_damaged_history()
        self._record_progress(seg)
        self._export_trace(seg)
        self._check_history(record.error)
        return record

    def run_to_end(self) -> list[StepRecord]:
        seg = self._require()
        with self._timed_steps():
            records = seg.stepper.run_to_end()
        if not (records and records[-1].error):
            self._drop_damaged_history()
        self._record_progress(seg)
        self._export_trace(seg)
        self._check_history(records[-1].error if records else None)
        return records

    def _check_history(self, step_error: Optional[str]) -> None:
        if step_error and self._drop_damaged_history():
            raise UserInputError(_("the run history file is damaged, so this run's checkpoints could not be saved. "
                                   "Press Run again: the debugger now works in memory (the Run history page says how "
                                   "to recover the file)"))

    def _require(self) -> Segment:
        if not self.segments:
            raise UserInputError(_("start a run first: type or pick a question and press Run or Step"))
        return self.segments[-1]

    # ----- results ------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        seg = self.current
        return bool(seg and seg.stepper.done)

    def result(self) -> Optional[dict]:
        """The client-facing result of the current segment once it has finished. Built once per
        finished position: the page asks for it several times per rerun (HITL panel, inspector)."""
        seg = self.current
        if not seg or not seg.stepper.done or self.cut_short:
            return None
        key = (id(seg), seg.stepper.thread_id, len(seg.stepper.steps))
        if self._result_cache is not None and self._result_cache[0] == key:
            return dict(self._result_cache[1])
        result = build_result(seg.stepper.current_values(), seg.ctx)
        if seg.replay and seg.info is not None:
            result["provider"] = seg.info.provider
            result["retriever"] = "recorded (replay)"
        self._result_cache = (key, result)
        return dict(result)

    def answer(self) -> Any:
        """What the answering agent says after an `answer` route (rag/answering.py), outside the
        graph: a replay shows the recorded one; a live run asks the connected model, or quotes the
        evidence offline. Built once per finished position (a model call costs seconds)."""
        from rag.answering import Answer, answer_for, model_completer

        seg = self.current
        result = self.result()
        if seg is None or not result or result.get("route") != "answer":
            return None
        key = (id(seg), seg.stepper.thread_id, len(seg.stepper.steps))
        if self._answer_cache is not None and self._answer_cache[0] == key:
            return self._answer_cache[1]
        recorded = ((seg.info.result or {}).get("answer") if seg.replay and seg.info is not None else None)
        if recorded:
            answer = Answer.model_validate(recorded)
        else:
            live_model = seg.ctx is not None and str(seg.ctx.roles.provider).startswith("openai")
            complete, model = model_completer(self.settings) if live_model else (None, None)
            answer = answer_for(seg.stepper.current_values(), complete, model, template=seg.answerer_prompt)
        self._answer_cache = (key, answer)
        return answer

    @property
    def cut_short(self) -> bool:
        """A replayed run whose recording stops before the graph's end (it never finished)."""
        seg = self.current
        return bool(seg and seg.replay and getattr(seg.stepper, "cut_short", False))

    def hitl_snapshot(self) -> Optional[dict]:
        result = self.result()
        return result.get("hitl_resume_state") if result else None

    def answer_hitl(self, answer: str) -> Segment:
        """Feed the user's answer and the run's snapshot into the resume path (stepped like a run)."""
        if self.replay_mode:
            raise UserInputError(_("this is a recorded replay: nothing runs, so it cannot take a new answer. Replay the "
                                   "recorded answer, or leave replay mode and run the question live"))
        snapshot = self.hitl_snapshot()
        if snapshot is None:
            raise UserInputError(_("there is no open follow-up question to answer"))
        try:
            inp = resume_input(snapshot, answer, limit=self.settings.max_question_chars)
        except (SnapshotError, InvalidQuestionError) as exc:
            raise UserInputError(str(exc)) from None
        rounds = sum(1 for s in self.segments if s.kind == "resume") + 1
        return self._new_segment("resume", inp, run_names.HITL_RESUME.format(n=rounds), answer=answer.strip())

    def fork(self, step: int, field: str, value: Any) -> Segment:
        """What if: set `field` to `value` in the state after session step `step` (0-based over
        the timeline) and run forward to the end as a new branch (debugger/fork.py). The original
        steps stay in the timeline and readable; the fork is not recorded in the run history. A
        recorded replay forks onto a new live thread seeded with the recorded state (its
        checkpoints are not in this saver), with this session's models and retriever.

        Recorded: the fork is a run of the history, linked to its parent run, with the step it forked
        after and the edit (field, old, new). A live fork shares its parent's thread (LangGraph
        branches inside a thread), so both runs keep their head checkpoint to tell the branches apart."""
        from debugger.fork import fork_from_values, fork_stepper

        pairs = self.all_steps()
        if not 0 <= step < len(pairs):
            raise UserInputError(_("pick a step from 1 to {last}").format(last=len(pairs)))
        seg, record = pairs[step]
        as_node = record.nodes[-1]
        try:
            if seg.replay or not isinstance(seg.stepper, GraphStepper):
                # a new thread starts every appending list empty, so the full state written once is exact
                ctx, _version = self._context()
                self._runs_started += 1
                stepper = fork_from_values(shared_graph(seg.kind, self.checkpointer), {**record.values_after, field: value},
                                           as_node=as_node, thread_id=f"{self.session_id}-{self._runs_started}-fork",
                                           context=ctx, nested_fields={"rag_trace"}, on_step=self._on_step)
            else:
                if record.after_checkpoint_id is None:
                    raise UserInputError(_("this step has no checkpoint to fork from"))
                ctx = seg.ctx
                stepper = fork_stepper(seg.stepper, record.after_checkpoint_id, {field: value}, as_node=as_node,
                                       on_step=self._on_step)
        except StepperError as exc:
            raise UserInputError(str(exc)) from None
        n = sum(1 for s in self.segments if s.fork_of is not None) + 1
        index = seg.stepper.steps.index(record)
        fork = Segment(kind=seg.kind, stepper=stepper, ctx=ctx, label=run_names.WHAT_IF.format(n=n), fork_of=(
            seg, index, field, value), prompt_version=seg.prompt_version, answerer_prompt=seg.answerer_prompt)
        self.segments.append(fork)
        self._record_fork_start(seg, fork, index, field, record.values_after.get(field), value)
        with self._pending_lock:
            self._pending, self._pending_calls = [], []
        with self._timed_steps():
            stepper.run_to_end()
        self._drop_damaged_history()
        self._record_progress(fork)
        return fork

    def _record_fork_start(self, parent: Segment, fork: Segment, index: int, field: str, old: Any, new: Any) -> None:
        """Record a fork as a run of its own: parent run, the parent's step (1-based) and the edit. The
        live parent's head is written first: the fork's checkpoints join its thread as a new branch."""
        if self.history is None or parent.run_id is None:
            return
        if not parent.replay and parent.stepper.steps:
            try:
                self.history.record_head(parent.run_id, parent.stepper.steps[-1].after_checkpoint_id)
            except Exception:  # noqa: BLE001 - the history is a record; debugging goes on without it
                log.warning("could not record the head of a forked run", exc_info=True)
        def plain(value: Any) -> Any:  # JSON-able, as the export will write it
            return json.loads(json.dumps(value, ensure_ascii=False, default=json_default))

        self._record_start(fork, self.question, parent.run_id,
                           fork={"step": index + 1, "field": field, "old": plain(old), "new": plain(new)})

    def fork_comparison(self) -> Optional[tuple[dict, dict]]:
        """(the original branch's final state, the fork's state now) when the current segment is a fork."""
        seg = self.current
        if seg is None or seg.fork_of is None:
            return None
        origin = seg.fork_of[0]
        original = origin.stepper.steps[-1].values_after if origin.stepper.steps else {}
        return original, seg.stepper.current_values()

    def all_steps(self) -> list[tuple[Segment, StepRecord]]:
        return [(seg, rec) for seg in self.segments for rec in seg.stepper.steps]

    # ----- replay -------------------------------------------------------------------------
    def open_replay(self, history: Any, run_id: str, *, at_step: int = 0) -> Segment:
        """Open a recorded run (live or imported) read-only, paused after `at_step` steps. A resume
        run comes with its parent runs (replayed to their end) so the timeline reads like the
        original session. Raises UserInputError when the run cannot be replayed."""
        from rag.runs.export import open_replay
        from rag.runs.history import UnknownRunError

        try:
            chain = run_chain(history, run_id)
            built: list[Segment] = []
            for info in chain:
                rounds = sum(1 for seg in built if seg.kind == "resume")
                built.append(self._replay_segment(history, info, open_replay, rounds))
            segments = []
            for i, segment in enumerate(built):
                child = built[i + 1] if i + 1 < len(built) else None
                if child is not None and child.info.fork is not None:
                    if not starts_at_an_edit(child.stepper):
                        continue  # a live fork's branch starts with its parent's steps: not twice
                    cut_replay(segment.stepper, child.info.fork.step)  # a fork of a replay: the parent up to it
                if segment.info.fork is not None and i > 0:
                    self._link_fork(history, segment, chain[i - 1], open_replay)
                segments.append(segment)
        except (UnknownRunError, StepperError, ValueError) as exc:
            raise UserInputError(_("this run cannot be replayed: {error}").format(error=exc)) from None
        for seg in segments[:-1]:
            seg.stepper.run_to_end()
        self._abandon_open_runs()
        self.history = self.history or history
        self.segments = segments
        self.question = chain[0].question
        self.replay_mode = True
        self.seek(at_step)
        return segments[-1]

    def _replay_segment(self, history: Any, info: Any, opener: Callable, rounds: int) -> Segment:
        """`rounds`: how many resume segments come before this one."""
        stepper = opener(history, info.run_id, with_graph=False)
        stepper.graph = shared_graph(info.kind, self.checkpointer)  # structure only, for drawing
        answer = ((info.result or {}).get("rag_trace") or {}).get("hitl_answer")
        label = run_names.MAIN_RUN_RECORDED if info.kind == "main" else run_names.HITL_RESUME_RECORDED.format(n=rounds + 1)
        if info.fork is not None:
            label = run_names.WHAT_IF_RECORDED
        return Segment(kind=info.kind, stepper=stepper, ctx=None, label=label, answer=answer,
                       run_id=info.run_id, prompt_version=info.prompt_version, replay=True, info=info)

    def _link_fork(self, history: Any, segment: Segment, parent: Any, opener: Callable) -> None:
        """A replayed fork compares with its parent's whole recording, as a live fork does (the
        parent's replay, run to its end, is kept out of the timeline)."""
        try:
            origin = self._replay_segment(history, parent, opener, 0)
            origin.stepper.run_to_end()
        except Exception:  # noqa: BLE001 - the fork still replays without the comparison
            log.warning("could not open the parent of a recorded fork", exc_info=True)
            return
        index = max(0, min(segment.info.fork.step, origin.stepper.total_steps) - 1)
        segment.fork_of = (origin, index, segment.info.fork.field, segment.info.fork.new)

    def seek(self, steps: int) -> None:
        """Replay mode: put the current run at `steps` steps from its start (0 = before the first node)."""
        seg = self._require()
        if not seg.replay:
            raise UserInputError(_("seeking is for recorded runs; a live run moves with Step"))
        if steps < 0 or steps > seg.stepper.total_steps:
            raise UserInputError(_("this recording has {total} steps; pick 0 to {total}").format(total=seg.stepper.total_steps))
        seg.stepper.restart()
        for _step in range(steps):
            seg.stepper.step()

    def recorded_answers(self) -> list:
        """Replay mode: the history's resume runs that answered the current run's question."""
        seg = self.current
        if not (seg and seg.replay and seg.run_id and self.history is not None):
            return []
        return [r for r in self.history.list_runs() if r.parent_run_id == seg.run_id and r.fork is None]

    def follow_recorded_answer(self, run_id: Optional[str] = None) -> Segment:
        """Replay mode: continue into the recorded resume run (the answer the user gave then)."""
        from rag.runs.export import open_replay

        seg = self._require()
        if not seg.replay:
            raise UserInputError(_("this is a live run: answer the follow-up question instead"))
        if not seg.stepper.done:
            raise UserInputError(_("replay this run to its end first"))
        children = self.recorded_answers()
        child = next((c for c in children if c.run_id == run_id), None) if run_id else (children[0] if children else None)
        if child is None:
            raise UserInputError(_("no recorded answer to this question in the history"))
        segment = self._replay_segment(self.history, child, open_replay,
                                       sum(1 for s in self.segments if s.kind == "resume"))
        self.segments.append(segment)
        return segment

    def exit_replay(self) -> None:
        """Leave replay mode: an empty live session (the recorded run stays in the history)."""
        self._abandon_open_runs()
        self.segments = []
        self.question = ""
        self.replay_mode = False

    # ----- drawing ------------------------------------------------------------------------
    def viewed(self, travel: Optional[int] = None) -> tuple[Optional[Segment], int]:
        """The run a view shows and how many of its steps had run: the current position, or
        after step `travel` (0-based over the session's steps, as the timeline numbers them)."""
        seg = self.current
        if seg is None or travel is None or travel < 0:
            return seg, len(seg.stepper.steps) if seg else 0
        for candidate in self.segments:
            count = len(candidate.stepper.steps)
            if travel < count:
                return candidate, travel + 1
            travel -= count
        return seg, len(seg.stepper.steps)

    def dot(self, travel: Optional[int] = None) -> str:
        """DOT of `drawing(travel)`, the marks as colours (for people and tests to read)."""
        return self.drawing(travel).dot()

    def drawing(self, travel: Optional[int] = None) -> GraphDrawing:
        """The graph the viewed step ran in (main or resume), with what had run by then and what
        ran next: the current position, or after step `travel` (time travel). Its topology is laid
        out once per graph; only the marks move."""
        seg, steps = self.viewed(travel)
        kind = seg.kind if seg else "main"
        graph = seg.graph if seg and seg.graph is not None else shared_graph(kind, self.checkpointer)
        title = _("RAG workflow") if kind == "main" else _("HITL resume path")
        if seg is None:
            return GraphDrawing(_drawn(graph), fanout_edges=tuple(FANOUT_EDGES), title=title, docs=node_docs())
        stepper = seg.stepper
        # the head's view, except at a replay's end, where a recording cut short still knows
        # (from its last record) which node was about to run
        latest = steps == len(stepper.steps) and not (seg.replay and stepper.done)
        marks = marks_after(stepper.steps, steps, next_now=stepper.next_nodes if latest else None,
                            finished_now=stepper.done if latest else None)
        fanout = tuple((src, dst, marks.lanes or None) for src, dst in FANOUT_EDGES)
        return GraphDrawing(_drawn(graph), current=tuple(marks.current), done=tuple(sorted(marks.done)),
                            fanout_edges=fanout, title=title, docs=node_docs())


def abandon_runs(history: Any, run_ids: set) -> None:
    """Mark unfinished runs abandoned in the history and forget them; never raises."""
    ids = list(run_ids)
    run_ids.clear()
    run_owners.release(ids)
    if history is None or not ids:
        return
    try:
        history.mark_abandoned(ids)
    except Exception:  # noqa: BLE001 - the history is a record; a failed mark must not break anything
        log.warning("could not mark %d unfinished run(s) abandoned", len(ids), exc_info=True)


def starts_at_an_edit(stepper: Any) -> bool:
    """A replayed fork whose recording starts at the edit (a fork of a replay, on a thread of its own),
    not at its parent's input (a live fork, on its parent's thread)."""
    path = getattr(stepper, "path", None) or []
    return bool(path) and path[0].source == "update"


def cut_replay(stepper: Any, steps: int) -> None:
    """Keep only the first `steps` steps of a replay (a fork's parent, shown up to where it forked)."""
    if 0 <= steps < stepper.total_steps:
        stepper.all_steps = stepper.all_steps[:steps]
        stepper.restart()


def run_chain(history: Any, run_id: str) -> list:
    """The run and its parent runs, oldest first (a resume run's main run comes first; a what-if fork
    comes after the run it forked from)."""
    chain = [history.get_run(run_id)]
    seen = {run_id}
    while chain[0].parent_run_id and chain[0].parent_run_id not in seen and history.has_run(chain[0].parent_run_id):
        seen.add(chain[0].parent_run_id)
        chain.insert(0, history.get_run(chain[0].parent_run_id))
    return chain

