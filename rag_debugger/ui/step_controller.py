"""The one controller of both debugger pages: what Run, Step, Continue, Restart, Stop, an answer and "Leave
replay" do, which of them can be clicked, and what the page says about it.

Why one: the Step debugger (the RAG workflow) and the Your graph page (any LangGraph graph) had a
controller each, and they decided differently which buttons were on. Now a page hands its controller only
what differs: how a run starts from what the page holds (the question box, or the input form) and where
its breakpoints are kept; the panels it plugs into the inspector are its own (`InspectorParts`).

The Step path, end to end: a click on the inspector's Step button sends its `action` trigger;
`panels/controls.queue_action` queues "step"; the fragment reruns and the page's workbench calls
`StepController.take_click` before it draws anything, which runs `on_step` only if the one rule
(`control_rule.enabled_buttons` over `control_rule.control_state`) has Step on. `on_step` starts a run from
the page's input when none is loaded (or the box holds a new question), then takes one superstep: on the
page (`session.step()`), or, when the session calls a live model, off the page in the session's worker
(`start_live`), while `live_workbench` polls it and shows only Stop. The workbench then draws the new
position through `render_inspector`. Run and Continue take the same way in, then run in the page body
(`run_pending`) so each step's progress streams into a status box.

Errors a user can fix (`DebuggerUserError`, `UserInputError`) become one warning through `guarded`, never a
traceback; both pages draw it with `show_flash` where their messages go.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

import streamlit as st

from rag.graph.progress_labels import translate_progress
from rag.i18n import _, ngettext
from rag.i18n.formatting import duration_ms
from rag_debugger.debugger.records import StepRecord
from rag_debugger.ui.panels.breakpoint_picker import breakpoints
from rag_debugger.ui.panels.controls import take_action
from rag_debugger.ui.panels.inspector import render_running_inspector
from rag_debugger.ui.panels.time_travel import reset_time_travel
from rag_debugger.ui.streamlit_state import FLASH_KEY, flash, guarded, guarded_page, live_badge
from rag_debugger.views.control_rule import ControlState, control_state, enabled_buttons, is_new_question
from rag_debugger.views.debugger_controls import controls_html
from rag_debugger.views.live_call_html import ended_note_html, live_html
from rag_debugger.views.markdown_text import as_text, in_code
from rag_debugger.workbench.run_names import shown_name

PENDING_KEY = "pending_run_to_end"
"""Run ("run") or Continue ("continue") queued by a click, run in the page body with live progress."""
POLL_S = 0.4
"""How often the page asks a live step for its calls: a token stream reads as live at this pace, and a
rerun of the polling fragment costs a few milliseconds."""
NOTE_KEY = "_live_step_note"
"""The line said after a Stop, until the next action."""


def _no_box() -> str:
    return ""


def _segment_name(session: Any, seg: Any) -> str:
    return shown_name(seg.label)


@dataclass(frozen=True)
class StepController:
    """A page's controller. The callbacks are its buttons' (`handlers()`); `take_click` and `run_pending`
    are called by the page's workbench; everything else is the same for every page."""

    get_session: Callable[[], Any]
    """The page's session (None: nothing loaded yet, every button does nothing)."""
    start_run: Callable[[Any], Any]
    """Start a new run on the session from what the page holds (the question box, the input form); raises
    a user error when that cannot start."""
    box: Callable[[], str] = _no_box
    """What the question box holds ("" on a page without one): a new question there is what the buttons
    act on."""
    breakpoint_scope: str = ""
    """Where the page keeps its breakpoints (rag_debugger/ui/panels/breakpoint_picker.py)."""
    run_name: Callable[[Any, Any], str] = _segment_name
    """The run's name in the progress box."""

    # ----- the rule -----------------------------------------------------------------------------
    def state(self, session: Any) -> ControlState:
        return control_state(session, box=self.box(), running=running(session))

    def handlers(self) -> dict[str, Callable[[], None]]:
        return {"run": self.on_run, "step": self.on_step, "continue": self.on_continue, "restart": self.on_restart,
                "stop": self.on_stop}

    # ----- callbacks (run before the workbench draws, so the page shows the new state) -------------
    def _new_input(self, session: Any) -> bool:
        return is_new_question(self.box(), session.question, replay=session.replay_mode)

    def _ensure_started(self, session: Any) -> bool:
        """A new run when none is loaded or the box holds a new question (a replay walks its recording)."""
        if not session.replay_mode and (not session.segments or self._new_input(session)):
            self.start_run(session)
        return True

    def on_run(self) -> None:
        """Start from the page's input and run to the end (or the graph's own breakpoint)."""
        session = self.get_session()
        if session is None:
            return
        if guarded(lambda: self.start_run(session) or True):
            self._go_on(session, "run")
        reset_time_travel()

    def on_step(self) -> None:
        session = self.get_session()
        if session is None:
            return

        def step() -> None:
            self._ensure_started(session)
            if streams_calls(session):  # a live model: off the page, with its calls shown and Stop
                start_live(session, "step")
            else:
                session.step()
        guarded(step)
        reset_time_travel()

    def on_continue(self) -> None:
        """Continue to the next breakpoint, an answer to give, or the end. A refused new question must not
        continue the old run."""
        session = self.get_session()
        if session is None:
            return
        if guarded(self._ensure_started, session):
            self._go_on(session, "continue")
        reset_time_travel()

    def _go_on(self, session: Any, kind: str) -> None:
        if streams_calls(session):
            start_live(session, kind, self.stops() if kind == "continue" else ())
        else:
            st.session_state[PENDING_KEY] = kind  # the page body runs it, streaming progress

    def on_restart(self) -> None:
        """The same input again on a fresh thread (a replay goes back to its start); a new question in the
        box is started instead."""
        session = self.get_session()
        if session is None:
            return
        guarded(lambda: self.start_run(session) if self._new_input(session) else session.restart())
        reset_time_travel()

    def on_stop(self) -> None:
        session = self.get_session()
        if running(session):
            session.live.stop()

    def on_exit_replay(self) -> None:
        session = self.get_session()
        if session is None:
            return
        guarded(session.exit_replay)
        reset_time_travel()
        flash("info", _("Left replay mode. The recorded run is still in the run history."))

    def stops(self) -> set[str]:
        return breakpoints(self.breakpoint_scope)

    # ----- in the workbench ----------------------------------------------------------------------
    def take_click(self, session: Any) -> None:
        """First thing in the workbench: a live step that ended is taken, then the queued click runs, if the
        rule has its button on (a stale click on a button now off does nothing, as a disabled button)."""
        take_ended(session)
        if running(session):  # started from another tab of this browser session since the page was drawn
            st.rerun(scope="app")
        take_action(self.handlers(), enabled_buttons(self.state(session)))
        if running(session):  # this click started one: the page polls it from now on
            st.rerun(scope="app")

    def run_pending(self, session: Any) -> None:
        """Run to the end (Run) or to the next breakpoint (Continue) with live progress: the page writes one
        line per step into a status box as it happens, and says where it stopped."""
        pending = st.session_state.pop(PENDING_KEY, False)
        seg = session.current
        if not pending or seg is None or control_state(session).blocked:
            return
        name = self.run_name(session, seg)
        with st.status(_("Running {run}…").format(run=as_text(name)), expanded=True) as status:
            moved = guarded(lambda: (_move(session, pending, self.stops() if pending == "continue" else (),
                                           _progress_lines),))
            hit = moved[0] if moved else None
            compiled = compiled_pause(session)
            if seg.stepper.error:
                status.update(label=_("{run}: a step failed").format(run=as_text(name)), state="error")
            elif hit:
                status.update(label=_("{run}: paused at the breakpoint before {node}").format(
                    run=as_text(name), node=as_text(hit)), state="complete", expanded=False)
                flash("info", _("Breakpoint: paused before `{node}`. Continue runs to the next breakpoint or the end.")
                      .format(node=in_code(hit)))
            else:
                steps = len(seg.stepper.steps)
                status.update(label=ngettext("{run}: {n} step run", "{run}: {n} steps run", steps).format(
                    run=as_text(name), n=steps), state="complete", expanded=False)
                if compiled:
                    flash("info", compiled_pause_text(compiled))


def answered(move: Callable[[], Any], say: Callable[[Any], str]) -> Any:
    """An answer sent (the RAG workflow's follow-up question, or a graph's `interrupt()`): one resume step,
    and `say(what move returned)` as the page's message when it went. Returns that, or None when refused."""
    reset_time_travel()
    done = guarded(move)
    if done is not None:
        flash("success", say(done))
    return done


# ----- moving the session ------------------------------------------------------------------------

def _move(session: Any, kind: str, stops: Iterable[str], on_step: Callable[[StepRecord], None]) -> Optional[str]:
    """Run (`kind` "run") or Continue; returns the breakpoint node it stopped before, or None. Both step
    through `continue_`, which hands each record to `on_step` as it comes; a graph with breakpoints compiled
    into it runs a Run as `graph.invoke(input)` does instead (it pauses before a first node compiled with
    `interrupt_before`, which Continue, always taking a step, would pass), its lines written once it stops."""
    if kind == "run" and session.compiled_breakpoints():
        for record in session.run_to_end(from_input=True):
            on_step(record)
        return None
    return session.continue_(stops, on_step=on_step).hit


def compiled_pause(session: Any) -> Optional[str]:
    """`before:<node>` / `after:<node>` when the last Run or Continue stopped at the graph's own breakpoint."""
    return getattr(session, "compiled_pause", None)


def compiled_pause_text(pause: str) -> str:
    where, node = pause.split(":", 1)
    if where == "before":
        text = _("The graph's own breakpoint (compiled with interrupt_before): paused before `{node}`, where "
                 "LangGraph pauses. Continue goes on.")
    else:
        text = _("The graph's own breakpoint (compiled with interrupt_after): paused after `{node}`, where "
                 "LangGraph pauses. Continue goes on.")
    return text.format(node=in_code(node))


def streams_calls(session: Any) -> bool:
    """Whether a Step runs off the page (`GraphSession.streams_calls`: a session with a live runner, which the
    RAG page gives its session when it calls a live model; others step on the page)."""
    return bool(session.streams_calls())


def running(session: Any) -> bool:
    """A step runs off the page in the session's worker (the app's runner, `rag_debugger.workbench.live_step`, says so;
    a session without one never runs off the page)."""
    live = getattr(session, "live", None)
    return bool(live is not None and getattr(live, "running", False))


def _progress_lines(record: StepRecord) -> None:
    """A step's progress events as lines of the status box (its nodes and duration when it emitted none)."""
    for p in record.annotations.get("progress") or []:
        group = f" [{as_text(p.get('group_label'))}]" if p.get("group_label") else ""
        st.write(f"**{as_text(translate_progress(p.get('label', '')))}**{group} — "
                 f"{as_text(translate_progress(p.get('detail', '')))} · {duration_ms(p.get('elapsed_ms', 0))}")
    if not record.annotations.get("progress"):
        st.write(f"`{in_code(', '.join(record.nodes))}` · {duration_ms(record.duration_ms)}")


# ----- live steps (a model on the person's machine: off the page, with Stop) ---------------------
# The step runs in the session's worker thread (rag_debugger/workbench/live_step.py); the page draws, in the
# workbench's place, a fragment that reruns every POLL_S seconds and shows the calls as they stream
# (rag_debugger/views/live_call_html.py), with every control off but Stop. Nothing here reads the session's
# position while the worker moves it: the inspector goes on showing the position the step started from.
# When the job ends, the whole page runs once more and draws the new position (or, after a Stop, the old
# one with a quiet line saying so). Both fragments sit at the same place of the page, so the browser keeps
# the inspector it has and only its changed sections travel (rag_debugger/views/section_delivery.py).

def start_live(session: Any, kind: str, stops: Iterable[str] = ()) -> None:
    """Start the job (Step, Continue or Run was clicked and the run is started)."""
    st.session_state.pop(NOTE_KEY, None)
    guarded(session.start_live, kind, stops)


def live_note() -> str:
    """The inspector's `live` section when no job runs: the end of the last one, if it was stopped."""
    return ended_note_html(st.session_state.get(NOTE_KEY))


def take_ended(session: Any) -> None:
    """The job ended since the page last looked: a Stop leaves a quiet line, a failure a warning."""
    live = getattr(session, "live", None)
    job = live.take_ended() if live is not None else None
    if job is None:
        return
    if job.state == "stopped":
        st.session_state[NOTE_KEY] = job.message
    elif job.state == "failed":
        flash("warning", as_text(job.message))


@st.fragment(run_every=POLL_S)
def live_workbench(controller: StepController) -> None:
    """The workbench while a job runs: polled, only Stop works."""
    guarded_page(lambda: _live_workbench(controller))


def _live_workbench(controller: StepController) -> None:
    session = controller.get_session()
    take_action({"stop": controller.on_stop}, {"stop": True})  # any other click is dropped, as on a disabled button
    job = session.live.job
    if job is None or job.state != "running":
        st.rerun(scope="app")  # it ended: the whole page draws the new position (and the sidebar badge)
    render_running_inspector(live_html(job.view()) + _refused_note(), running_controls(session, controller.box()))
    settings = getattr(session, "settings", None)
    if settings is not None:  # the sidebar's model badge follows each call of the job, in place
        live_badge(settings)


def _refused_note() -> str:
    """A click refused while the step runs (a demo, a new question) says why at once, not after the step:
    the flash message is drawn by the workbench once the step has ended, and kept until then."""
    item = st.session_state.get(FLASH_KEY)
    return ended_note_html(str(item[1])) if isinstance(item, tuple) and len(item) == 2 else ""


def running_controls(session: Any, box: str = "") -> str:
    """The controls while a job runs, drawn from what is fixed during it (never the stepper's head)."""
    return controls_html(control_state(session, box=box, running=True), box=box, loaded=session.question)


__all__ = ["StepController", "answered", "compiled_pause_text", "live_note", "live_workbench", "running",
           "running_controls", "streams_calls"]
