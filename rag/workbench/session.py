"""One browser session's debugging state, on top of the generic `debugger` core.

A session holds a chain of segments (rag/workbench/segments.py): the main run, then one resume run
per HITL answer, and what-if forks. Each live segment is a `GraphStepper` on its own checkpointer
thread, so two browser sessions on one server never see each other's runs. Streamlit-free on purpose:
the pages render it, tests drive it.

`DebugSession` is a facade: it moves the segments (start, step, Continue, answer, fork, seek) and
hands the rest to collaborators, each a module of its own:
- `step_events.StepEvents`: progress events and model calls filed onto the step that made them;
- `recorder.RunRecorder`: every segment is a run of the history, and what happens when it fails;
- `replay_chain.ReplayOpener`: a recorded run (with the runs it continues) as replay segments;
- `forks.fork_segment`: what if, from any past step;
- `outcome.result_and_answer`: a finished position's result and answer, worked out once, when the step ran;
- `graphs`: the shared compiled graphs and their drawings.

Replay: `ReplayStepper`s (same surface as `GraphStepper`) stand in for live steppers. Nothing is
executed in that mode, so Run and HITL answers are refused with a message; Step, Continue, Restart
and time travel walk the recording.
"""
from __future__ import annotations

import logging
import uuid
from typing import Any, Callable, Iterable, Optional, cast

from rag.api import initial_state, make_context, resume_input, validate_text
from rag.context import RagContext
from rag.errors import InvalidQuestionError, SnapshotError, UnknownRunError, UserInputError
from rag.i18n import N_, _
from rag.models.calls import CallCancelled
from rag.settings import RagSettings
from rag.workbench import graphs, run_names
from rag.workbench.forks import fork_segment
from rag.workbench.live_step import JobKind, LaneView, LiveJob, LiveStepRunner
from rag.workbench.outcome import result_and_answer
from rag.workbench.recorder import RunRecorder
from rag.workbench.replay_chain import ReplayOpener
from rag.workbench.segments import Outcome, Segment
from rag.workbench.step_events import StepEvents
from rag_debugger.debugger import GraphStepper, StepRecord
from rag_debugger.debugger.breakpoints import ContinueResult, continue_until
from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.graph_view import GraphDrawing
from rag_debugger.debugger.replay import ReplayStepper
from rag_debugger.debugger.segment_chain import SegmentChain

log = logging.getLogger("rag_debugger.session")

REPLAY_BANNER = N_("Replay — recorded run, no model and no knowledge base")
"""English (the catalogue's id): show it with `_(REPLAY_BANNER)`."""

CONTINUE_LIMIT = 200
"""Continue runs at most this many steps per click (a graph that loops forever stops here)."""


class DebugSession(SegmentChain):
    """The step debugger of one browser session."""

    def __init__(self, settings: Optional[RagSettings] = None, *, retriever: Any = None, roles: Any = None,
                 checkpointer: Any = None, history: Any = None):
        self.session_id = uuid.uuid4().hex[:12]
        self.settings = settings or RagSettings()
        self.retriever = retriever
        self.roles = roles
        self.recorder = RunRecorder(self, history, checkpointer, graphs.memory_saver)
        self.events = StepEvents()
        self.replay_mode = False
        self.question: str = ""
        self.segments: list[Segment] = []
        self._runs_started = 0
        self.client_id: Optional[str] = None
        """The Streamlit session id of the browser tab driving this session, when known."""
        self.browser_id: Optional[str] = None
        """Which browser drives it (`rag.workbench.run_owners.browser_token`), when known: only the same
        browser may take the session over after a reload."""
        self.run_by: str = ""
        """Who the runs this session records are by (the signed-in user or the Settings name)."""
        self.live = LiveStepRunner()
        """The Step / Continue / Run that calls a live model, in its worker thread (rag/workbench/live_step.py)."""
        self.owner: str = ""
        """Who owns the runs this session records (rag/access.py): the signed-in identity, "" for nobody."""

    # ----- the recorder's state, as the pages and run_owners read it ------------------------
    @property
    def history(self) -> Any:
        return self.recorder.history

    @property
    def checkpointer(self) -> Any:
        return self.recorder.checkpointer

    @property
    def open_runs(self) -> set[str]:
        return self.recorder.open_runs

    def take_history_lost(self) -> bool:
        """True once after the history stopped answering under this session (the page's one warning)."""
        return self.recorder.take_lost()

    def attach_history(self, history: Any) -> bool:
        """A history answers again (or for the first time: it was down when this session began): later
        runs are recorded in it, and the runs an outage cut short are marked abandoned there, never left
        `running`. The run on screen goes on where it is (in memory, unrecorded). True when attached."""
        return self.recorder.attach(history)

    # ----- building segments -----------------------------------------------------------------
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

    def _context_and_answerer(self) -> tuple[RagContext, Optional[str], Optional[str]]:
        """The run's context, its prompt version, and that version's answerer prompt (the answer
        step after the graph uses the same version as the graph's roles)."""
        roles, version, answerer = self.roles, None, None
        if roles is None:
            from rag.models.factory import get_default_roles

            prompts = self._prompts()
            roles, version, answerer = get_default_roles(self.settings, prompts), prompts.version, prompts.answerer
        ctx = make_context(settings=self.settings, retriever=self.retriever, roles=roles, progress=self.events.sink)
        ctx.reset_clock()
        version = getattr(roles, "prompt_version", None) or version or self.settings.prompt_version or "default"
        return ctx, version, answerer

    def _new_thread(self, kind: str) -> str:
        # One thread per run, never reused: a restart on the old thread would carry the previous
        # run's state in (reducer fields like `sub_results` grow), and its checkpoints would show
        # up in this run's time travel, export and replay.
        self._runs_started += 1
        return f"{self.session_id}-{self._runs_started}-{kind}"

    def _graph(self, kind: str) -> Any:
        return graphs.shared_graph(kind, self.checkpointer)

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
        self.recorder.drop_damaged()
        ctx, version, answerer = self._context_and_answerer()
        stepper = GraphStepper(self._graph(kind), thread_id=self._new_thread(kind), context=ctx,
                               nested_fields={"rag_trace"}, on_step=self.events.on_step)
        stepper.abort_on = (CallCancelled,)  # Stop: the step is not recorded, the run stays where it was
        self.events.clear()
        stepper.start(inp)
        if stepper.error and self.recorder.drop_damaged():
            return self._new_segment(kind, inp, label, answer)
        if stepper.error:
            raise UserInputError(_("the run could not start: {error}").format(error=stepper.error))
        segment = Segment(kind=kind, stepper=stepper, ctx=ctx, label=label, answer=answer, prompt_version=version,
                          answerer_prompt=answerer)
        parent = self.segments[-1].run_id if kind == "resume" and self.segments else None
        self.segments.append(segment)
        self.recorder.start(segment, inp.get("question") or self.question, parent, settings=self.settings,
                            run_by=self.run_by, owner=self.owner)
        return segment

    # ----- after a segment moved ------------------------------------------------------------
    def _moved(self, seg: Segment, step_error: Optional[str] = None) -> None:
        """Everything a move settles once, so drawing only reads: the outcome, the history's record of
        the run, the OpenTelemetry trace, and what a failing history means for the run."""
        if not step_error:  # the database went down during the step: the run goes on in memory
            self.recorder.drop_damaged()
        result_and_answer(seg, self.settings)
        self.recorder.finish(seg, seg.outcome)
        self._export_trace(seg)
        if step_error and self.recorder.drop_damaged():
            raise UserInputError(_("the run history file is damaged, so this run's checkpoints could not be saved. "
                                   "Press Run again: the debugger now works in memory (the Run history page says how "
                                   "to recover the file)"))

    def _export_trace(self, seg: Segment) -> None:
        """Send a live segment that finished or failed to OpenTelemetry when export is on (rag/telemetry),
        once: built from its step records after the run, so a Step never waits for it."""
        stepper = seg.stepper
        if seg.replay or seg.ctx is None or not (stepper.done or stepper.error) or seg.traced:
            return
        from rag.telemetry.runs import active, send_stepped_run

        tracer = active()
        if tracer is None:
            return
        seg.traced = True
        values = stepper.current_values() if stepper.done else (stepper.steps[-1].values_after if stepper.steps else {})
        first = stepper.steps[0] if stepper.steps else None
        parent = next((s.run_id for s in reversed(self.segments[:-1]) if s is not seg), None) \
            if seg.kind == "resume" else None
        send_stepped_run(stepper.steps, kind=seg.kind, values=values, secrets=self.settings.secret_strings(),
                         tracer=tracer, question=self.question, error=stepper.error, run_id=seg.run_id,
                         parent_run_id=parent, prompt_version=seg.prompt_version,
                         snapshot=first.values_before.get("hitl_snapshot") if first is not None else None)

    # ----- commands -----------------------------------------------------------------------
    def start(self, question: str) -> Segment:
        """Start a new main run paused before its first node (nothing runs yet). The loaded run
        is let go first, also when the question is refused: the page must then show only why, not
        the previous question's result under it as if it answered this one (it stays in the history)."""
        self.live.refuse_if_busy()
        self._forget_threads()
        self.question = ""
        self.segments = []
        self.replay_mode = False
        try:
            text = validate_text(question, what="question", limit=self.settings.max_question_chars)
        except InvalidQuestionError as exc:
            raise UserInputError(str(exc)) from None
        self.recorder.abandon_open(self.segments)
        self.question = text
        return self._new_segment("main", initial_state(text), run_names.MAIN_RUN)

    def restart(self) -> Segment:
        self.live.refuse_if_busy()
        if self.replay_mode:
            seg = self._require()
            seg.stepper.restart()
            result_and_answer(seg, self.settings)
            return seg
        if not self.question:
            raise UserInputError(_("type or pick a question first"))
        return self.start(self.question)

    def step(self) -> StepRecord:
        seg = self._require()
        self.live.refuse_if_busy()
        if seg.stepper.done:
            if seg.replay:
                raise UserInputError(_("the recording has ended: press Restart to replay it again"))
            raise UserInputError(_("this run has finished: answer the follow-up question or restart"))
        try:
            with self.events.timed():
                record = seg.stepper.step()
        except CallCancelled:
            self.events.clear()  # what the abandoned step emitted belongs to no step
            raise
        self._moved(seg, record.error)
        return record

    def run_to_end(self) -> list[StepRecord]:
        seg = self._require()
        self.live.refuse_if_busy()
        with self.events.timed():
            records = seg.stepper.run_to_end()
        self._moved(seg, records[-1].error if records else None)
        return records

    def continue_(self, breakpoints: Iterable[str] = (), on_step: Optional[Callable[[StepRecord], None]] = None,
                  limit: int = CONTINUE_LIMIT) -> ContinueResult:
        """Continue: step until the run finishes, a step fails, or the next superstep would run a node
        with a breakpoint (`rag_debugger.debugger.breakpoints.continue_until`). `on_step` sees each record as it
        comes (the page streams progress lines from it)."""
        seg = self._require()
        return continue_until(seg.stepper, self.step, breakpoints, on_step=on_step, limit=limit)

    # ----- live steps (a model on the person's machine: off the page, with Stop) ---------------
    def streams_calls(self) -> bool:
        """Whether Step runs in the worker thread: a configured model endpoint (or roles that say they
        stream, a test's fake). The offline rules answer in milliseconds: their steps stay on the page,
        instant, with nothing to poll and no flicker."""
        if self.replay_mode:
            return False
        if self.roles is not None:
            return bool(getattr(self.roles, "live_calls", False))
        return self.settings.models_configured()

    def start_live(self, kind: JobKind, breakpoints: Iterable[str] = ()) -> LiveJob:
        """Step (`step`), Continue to a breakpoint (`continue`) or to the end (`run`) in the worker
        thread. Refused while a job runs; the run must have been started (the page starts it first)."""
        seg = self._require()
        self.live.refuse_if_busy()
        if seg.stepper.done:
            raise UserInputError(_("this run has finished: answer the follow-up question or restart"))
        stops = tuple(breakpoints) if kind == "continue" else ()
        job: Optional[LiveJob] = None

        def next_step(_record: StepRecord) -> None:  # Continue: the live view follows the next step
            if job is not None and not seg.stepper.done and not seg.stepper.error:
                job.next_step(self.lanes_of(seg))

        def work() -> Any:
            return self.step() if kind == "step" else self.continue_(stops, on_step=next_step)
        job = self.live.start(kind, work, self.lanes_of(seg))
        return job

    def lanes_of(self, seg: Segment) -> list[LaneView]:
        """The tasks of the next superstep; a fan-out's lanes named by their sub-question."""
        stepper = seg.stepper
        tasks = stepper.next_tasks if isinstance(stepper, GraphStepper) else tuple(("", n) for n in stepper.next_nodes)
        subs = list(stepper.current_values().get("sub_questions") or [])
        fanned = [t for t in tasks if t[1] == "rag_sub_agent"]
        names = iter(subs if len(subs) == len(fanned) else [])
        return [LaneView(task_id=tid, node=node, label=str(next(names, "")) if node == "rag_sub_agent" else "")
                for tid, node in tasks]

    def _require(self) -> Segment:
        if not self.segments:
            raise UserInputError(_("start a run first: type or pick a question and press Run or Step"))
        return self.segments[-1]

    # ----- results (read: worked out when the step ran) ------------------------------------
    @property
    def done(self) -> bool:
        seg = self.current
        return bool(seg and seg.stepper.done)

    def outcome(self) -> Optional[Outcome]:
        """The current segment's outcome once it has finished. Settled by the move that finished it; a
        stepper moved behind the session's back (a test driving it directly) is settled here."""
        seg = self.current
        if seg is None or not seg.stepper.done or self.cut_short:
            return None
        if seg.outcome is None or seg.outcome.key != seg.position_key:
            result_and_answer(seg, self.settings)
        return seg.outcome

    def result(self) -> Optional[dict]:
        """The client-facing result of the current segment once it has finished (a copy: callers add to it)."""
        outcome = self.outcome()
        return dict(outcome.result) if outcome is not None and outcome.result is not None else None

    def answer(self) -> Any:
        """What the answering agent said after an `answer` route (rag/answering.py), outside the graph."""
        outcome = self.outcome()
        return outcome.answer if outcome is not None else None

    def pending_interrupts(self) -> tuple:
        """None: the workflow asks its user by ending a run (clarify / scope_select, answered through
        `answer_hitl` and the resume graph), never by LangGraph's `interrupt()`."""
        return ()

    def hitl_snapshot(self) -> Optional[dict]:
        result = self.result()
        return result.get("hitl_resume_state") if result else None

    def answer_hitl(self, answer: str) -> Segment:
        """Feed the user's answer and the run's snapshot into the resume path (stepped like a run)."""
        self.live.refuse_if_busy()
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

    # ----- what if ---------------------------------------------------------------------------
    def fork(self, step: int, field: str, value: Any) -> Segment:
        """What if: set `field` to `value` in the state after session step `step` (0-based over the
        timeline) and run forward to the end as a new branch (rag/workbench/forks.py). The original
        steps stay in the timeline and readable.

        Recorded: the fork is a run of the history, linked to its parent run, with the step it forked
        after and the edit (field, old, new). A live fork shares its parent's thread (LangGraph
        branches inside a thread), so both runs keep their head checkpoint to tell the branches apart."""
        self.live.refuse_if_busy()
        pairs = self.all_steps()
        if not 0 <= step < len(pairs):
            raise UserInputError(_("pick a step from 1 to {last}").format(last=len(pairs)))
        seg, record = pairs[step]
        fork = fork_segment(seg, record, field, value, number=sum(1 for s in self.segments if s.fork_of is not None) + 1,
                            graph_for=self._graph, new_context=lambda: self._context_and_answerer()[0],
                            new_thread=lambda: self._new_thread("fork"), on_step=self.events.on_step)
        self.segments.append(fork)
        self.recorder.start_fork(seg, fork, fork.fork_of[1], field, record.values_after.get(field), value,
                                 question=self.question, settings=self.settings, run_by=self.run_by,
                                 owner=self.owner)
        self.events.clear()
        with self.events.timed():
            fork.stepper.run_to_end()
        self.recorder.drop_damaged()
        result_and_answer(fork, self.settings)
        self.recorder.finish(fork, fork.outcome)
        return fork

    # ----- replay -------------------------------------------------------------------------
    def open_replay(self, history: Any, run_id: str, *, at_step: int = 0) -> Segment:
        """Open a recorded run (live or imported) read-only, paused after `at_step` steps. A resume
        run comes with its parent runs (replayed to their end) so the timeline reads like the
        original session. Raises UserInputError when the run cannot be replayed."""
        try:
            chain, segments = ReplayOpener(history, self._graph).chain(run_id)
        except (UnknownRunError, StepperError, ValueError) as exc:
            raise UserInputError(_("this run cannot be replayed: {error}").format(error=exc)) from None
        for seg in segments[:-1]:
            seg.stepper.run_to_end()
            result_and_answer(seg, self.settings)
        self.recorder.abandon_open(self.segments)
        if self.recorder.history is None:
            self.recorder.history = history
        self.segments = segments
        self.question = chain[0].question
        self.replay_mode = True
        self.seek(at_step)
        return segments[-1]

    def seek(self, steps: int) -> None:
        """Replay mode: put the current run at `steps` steps from its start (0 = before the first node)."""
        seg = self._require()
        if not seg.replay:
            raise UserInputError(_("seeking is for recorded runs; a live run moves with Step"))
        total = cast(ReplayStepper, seg.stepper).total_steps
        if steps < 0 or steps > total:
            raise UserInputError(_("this recording has {total} steps; pick 0 to {total}").format(total=total))
        seg.stepper.restart()
        for _step in range(steps):
            seg.stepper.step()
        result_and_answer(seg, self.settings)

    def recorded_answers(self) -> list:
        """Replay mode: the history's resume runs that answered the current run's question."""
        seg = self.current
        if not (seg and seg.replay and seg.run_id and self.history is not None):
            return []
        return [r for r in self.history.list_runs() if r.parent_run_id == seg.run_id and r.fork is None]

    def follow_recorded_answer(self, run_id: Optional[str] = None) -> Segment:
        """Replay mode: continue into the recorded resume run (the answer the user gave then)."""
        seg = self._require()
        if not seg.replay:
            raise UserInputError(_("this is a live run: answer the follow-up question instead"))
        if not seg.stepper.done:
            raise UserInputError(_("replay this run to its end first"))
        children = self.recorded_answers()
        child = next((c for c in children if c.run_id == run_id), None) if run_id else (children[0] if children else None)
        if child is None:
            raise UserInputError(_("no recorded answer to this question in the history"))
        segment = ReplayOpener(self.history, self._graph).segment(
            child, sum(1 for s in self.segments if s.kind == "resume"))
        self.segments.append(segment)
        return segment

    def exit_replay(self) -> None:
        """Leave replay mode: an empty live session (the recorded run stays in the history)."""
        self.recorder.abandon_open(self.segments)
        self.segments = []
        self.question = ""
        self.replay_mode = False

    def drawing(self, travel: Optional[int] = None) -> GraphDrawing:
        """The graph the viewed step ran in (main or resume), with what had run by then and what
        ran next: the current position, or after step `travel` (time travel)."""
        seg, steps = self.viewed(travel)
        return graphs.drawing(seg, steps, self.checkpointer)

