"""The RAG workflow's step debugger: an adapter on the one generic session (`rag_debugger.debugger.session`).

`DebugSession` IS a `GraphSession`: Step, Run, Continue, Restart, what-if forks and seeking a replay are the
generic session's, and so is what a move tells the session's hooks. It adds only what is RAG-specific:
- the run's context (settings, model roles, retriever, prompts: `_context_and_answerer`), two graphs (the main
  run, and the resume run a HITL answer starts: `answer_hitl`), each run on a thread of its own;
- settling a finished position's result and answer once, when the step ran (`outcome.result_and_answer`, the `_work_out`
  seam), and the progress events and model calls filed onto each step (`step_events.StepEvents`, the
  `_stepping` seam);
- replay from the run history (`open_replay(history, run_id)`, `replay_chain.ReplayOpener`) and the recorded
  answers of a replayed run;
- the live step of a real model in a worker thread, with Stop (`live_step.LiveStepRunner`).

Recording and telemetry are the session's hooks, as on Your graph: `recorder.RunRecorder` (the history, and
what happens when it fails) and `rag.telemetry.graph_session.TelemetryHook` (OpenTelemetry).

Replay: `ReplayStepper`s (same surface as `GraphStepper`) stand in for live steppers. Nothing is
executed in that mode, so Run and HITL answers are refused with a message; Step, Continue, Restart
and time travel walk the recording.
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any, ClassVar, Iterator, Optional

from rag.api import initial_state, make_context, resume_input, validate_text
from rag.context import RagContext
from rag.errors import InvalidQuestionError, SnapshotError, UnknownRunError, UserInputError
from rag.i18n import N_, _
from rag.models.calls import CallCancelled
from rag.settings import RagSettings
from rag.telemetry.graph_session import TelemetryHook
from rag_debugger.debugger import GraphStepper, StepRecord
from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.graph_view import GraphDrawing
from rag_debugger.debugger.segment_chain import GraphSegment, Segment
from rag_debugger.debugger.session import GraphSession
from rag_debugger.workbench import graphs, run_names
from rag_debugger.workbench.forks import fork_segment
from rag_debugger.workbench.live_step import LiveStepRunner
from rag_debugger.workbench.outcome import Outcome, result_and_answer
from rag_debugger.workbench.recorder import RunRecorder
from rag_debugger.workbench.replay_chain import ReplayOpener
from rag_debugger.workbench.step_events import StepEvents

log = logging.getLogger("rag_debugger.session")

REPLAY_BANNER = N_("Replay — recorded run, no model and no knowledge base")
"""English (the catalogue's id): show it with `_(REPLAY_BANNER)`."""

CONTINUE_LIMIT = 200
"""Continue runs at most this many steps per click (a graph that loops forever stops here)."""

SPEC = N_("RAG workflow")
"""What the session steps, named as Your graph names a graph (`GraphSession.spec`)."""


class DebugSession(GraphSession):
    """The step debugger of one browser session over the RAG workflow."""

    NO_RUN: ClassVar[str] = N_("start a run first: type or pick a question and press Run or Step")

    def __init__(self, settings: Optional[RagSettings] = None, *, retriever: Any = None, roles: Any = None,
                 checkpointer: Any = None, history: Any = None):
        self.settings = settings or RagSettings()
        self.retriever = retriever
        self.roles = roles
        self.events = StepEvents()
        self.recorder = RunRecorder(self, history, checkpointer, graphs.memory_saver)
        super().__init__(spec=SPEC, graph=None,
                         hooks=[self.recorder, TelemetryHook(secrets=lambda: self.settings.secret_strings())])
        self.client_id: Optional[str] = None
        """The Streamlit session id of the browser tab driving this session, when known."""
        self.browser_id: Optional[str] = None
        """Which browser drives it (`rag_debugger.workbench.run_owners.browser_token`), when known: only the same
        browser may take the session over after a reload."""
        self.run_by: str = ""
        """Who the runs this session records are by (the signed-in user or the Settings name)."""
        self.live: LiveStepRunner = LiveStepRunner()
        """The Step / Continue / Run that calls a live model, in its worker thread (rag_debugger/workbench/live_step.py)."""
        self.owner: str = ""
        """Who owns the runs this session records (rag/access.py): the signed-in identity, "" for nobody."""

    @property
    def graph(self) -> Any:
        """The graph the session stands in: the current segment's (main or resume), else the main graph."""
        seg = self.current
        return seg.graph if seg is not None and seg.graph is not None else self._graph("main")

    @graph.setter
    def graph(self, _value: Any) -> None:
        """The graphs are the workflow's own (`_graph`); nothing sets one."""

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

    # ----- the generic session's seams ----------------------------------------------------------
    def _refusal(self, message: str) -> Exception:
        return UserInputError(message)

    def _finished_message(self, seg: Segment) -> str:
        if seg.replay:
            return _("the recording has ended: press Restart to replay it again")
        return _("this run has finished: answer the follow-up question or restart")

    @contextmanager
    def _stepping(self) -> Iterator[None]:
        """The steps' clock and model calls (`StepEvents.timed`); a Stop leaves nothing of the step behind."""
        try:
            with self.events.timed():
                yield
        except CallCancelled:
            self.events.clear()  # what the abandoned step emitted belongs to no step
            raise

    def _work_out(self, seg: Segment) -> None:
        result_and_answer(seg, self.settings)

    def _moved(self, seg: Segment, step_error: Optional[str] = None) -> None:
        """The generic move (the outcome, then the hooks: the history's record of the run, the OpenTelemetry
        trace), and what a failing history means for the run."""
        if not step_error:  # the database went down during the step: the run goes on in memory
            self.recorder.drop_damaged()
        super()._moved(seg, step_error)
        if step_error and self.recorder.drop_damaged():
            raise UserInputError(_("the run history file is damaged, so this run's checkpoints could not be saved. "
                                   "Press Run again: the debugger now works in memory (the Run history page says how "
                                   "to recover the file)"))

    def _drop_live(self) -> None:
        """The loaded runs are replaced: a failed run, still open in the history (a retry could have finished
        it), is let go too."""
        for seg in self.segments:
            if not seg.replay and (seg.ended_as is None or seg.run_id in self.recorder.open_runs):
                self._tell("dropped", seg)

    def _new_thread(self, kind: str) -> str:
        # One thread per run, never reused: a restart on the old thread would carry the previous
        # run's state in (reducer fields like `sub_results` grow), and its checkpoints would show
        # up in this run's time travel, export and replay.
        self._runs += 1
        return f"{self.session_id}-{self._runs}-{kind}"

    def _fork_segment(self, origin: Segment, record: StepRecord, field_name: str, value: Any, *,
                      number: int) -> Segment:
        """A what-if of the workflow (rag_debugger/workbench/forks.py): on the graph of the origin's kind, a recorded
        run's fork with this session's models and retriever."""
        fork = fork_segment(origin, record, field_name, value, number=number, graph_for=self._graph,
                            new_context=lambda: self._context_and_answerer()[0],
                            new_thread=lambda: self._new_thread("fork"), on_step=self.events.on_step)
        self.events.clear()
        return fork

    def _start_again(self) -> Segment:
        if not self.question:
            raise UserInputError(_("type or pick a question first"))
        return self.start(self.question)

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
        segment: Segment = GraphSegment(kind=kind, stepper=stepper, ctx=ctx, label=label, answer=answer,
                                        prompt_version=version, answerer_prompt=answerer)
        self.segments.append(segment)
        self.last_input = inp
        self._tell("started", segment)  # the history records it (a resume linked to the run it answers)
        return segment

    # ----- commands -----------------------------------------------------------------------
    def start(self, question: str) -> Segment:
        """Start a new main run paused before its first node (nothing runs yet). The loaded run
        is let go first, also when the question is refused: the page must then show only why, not
        the previous question's result under it as if it answered this one (it stays in the history)."""
        self._check_idle()
        self._forget_threads()
        self._drop_live()
        self.question = ""
        self.segments = []
        self.replay_mode = False
        try:
            text = validate_text(question, what="question", limit=self.settings.max_question_chars)
        except InvalidQuestionError as exc:
            raise UserInputError(str(exc)) from None
        self.question = text
        return self._new_segment("main", initial_state(text), run_names.MAIN_RUN)

    # ----- live steps (a model on the person's machine: off the page, with Stop) ---------------
    def streams_calls(self) -> bool:
        """Whether Step runs in the worker thread: a configured model endpoint (or roles that say they
        stream, a test's fake). The offline rules answer in milliseconds: their steps stay on the page,
        instant, with nothing to poll and no flicker."""
        if not super().streams_calls():
            return False
        if self.roles is not None:
            return bool(getattr(self.roles, "live_calls", False))
        return self.settings.models_configured()

    def _lane_labels(self, seg: Segment, tasks: tuple[tuple[str, str], ...]) -> list[str]:
        """A fan-out's lanes named by their sub-question."""
        subs = list(seg.stepper.current_values().get("sub_questions") or [])
        fanned = [t for t in tasks if t[1] == "rag_sub_agent"]
        names = iter(subs if len(subs) == len(fanned) else [])
        return [str(next(names, "")) if node == "rag_sub_agent" else "" for _tid, node in tasks]

    # ----- results (read: worked out when the step ran) ------------------------------------
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

    def hitl_snapshot(self) -> Optional[dict]:
        result = self.result()
        return result.get("hitl_resume_state") if result else None

    def answer_hitl(self, answer: str) -> Segment:
        """Feed the user's answer and the run's snapshot into the resume path (stepped like a run)."""
        self._check_idle()
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

    # ----- replay -------------------------------------------------------------------------
    def open_replay(self, history: Any, run_id: str, *, at_step: int = 0) -> Segment:  # type: ignore[override]
        """Open a recorded run of the history (live or imported) read-only, paused after `at_step` steps (Your
        graph's `open_replay` opens an exported file; a RAG run comes from the history). A resume
        run comes with its parent runs (replayed to their end) so the timeline reads like the
        original session. Raises UserInputError when the run cannot be replayed."""
        try:
            chain, segments = ReplayOpener(history, self._graph).chain(run_id)
        except (UnknownRunError, StepperError, ValueError) as exc:
            raise UserInputError(_("this run cannot be replayed: {error}").format(error=exc)) from None
        for seg in segments[:-1]:
            seg.stepper.run_to_end()
            result_and_answer(seg, self.settings)
        self._drop_live()
        if self.recorder.history is None:
            self.recorder.history = history
        self.segments = segments
        self.question = chain[0].question
        self.replay_mode = True
        self.seek(at_step)
        return segments[-1]

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
        self._drop_live()
        self.segments = []
        self.question = ""
        self.replay_mode = False

    def drawing(self, travel: Optional[int] = None) -> GraphDrawing:
        """The graph the viewed step ran in (main or resume), with what had run by then and what
        ran next: the current position, or after step `travel` (time travel)."""
        seg, steps = self.viewed(travel)
        return graphs.drawing(seg, steps, self.checkpointer)

