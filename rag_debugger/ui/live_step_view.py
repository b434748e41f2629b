"""The debugger page while a Step / Continue / Run calls a live model (rag/workbench/live_step.py).

The step runs in the session's worker thread; the page draws, in the workbench's place, a fragment
that reruns every `POLL_S` seconds and shows the calls as they stream (rag_debugger/views/live_call_html.py), with
every control off but Stop. Nothing here reads the session's position while the worker moves it: the
inspector goes on showing the position the step started from. When the job ends, the whole page runs
once more and draws the new position (or, after a Stop, the old one with a quiet line saying so).
The offline rules keep their instant steps on the page: `DebugSession.streams_calls()` is False.

Both fragments sit at the same place of the page, so the browser keeps the inspector it has and only
its changed sections travel (rag_debugger/views/section_delivery.py).
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

import streamlit as st

from rag.workbench.live_step import JobKind
from rag_debugger.ui.panels.controls import take_action
from rag_debugger.ui.panels.inspector import render_running_inspector
from rag_debugger.ui.question_row import QUESTION_KEY
from rag_debugger.ui.streamlit_state import FLASH_KEY, flash, get_session, guarded, guarded_page
from rag_debugger.views.debugger_controls import controls_html
from rag_debugger.views.live_call_html import ended_note_html, live_html

POLL_S = 0.4
"""How often the page asks the running job for its calls: a token stream reads as live at this pace,
and a rerun of the fragment costs a few milliseconds."""
NOTE_KEY = "_live_step_note"
"""The line said after a Stop, until the next action."""


def start_live(session: Any, kind: JobKind, breakpoints: Iterable[str] = ()) -> None:
    """Start the job (a handler: Step, Continue or Run was clicked and the run is started)."""
    st.session_state.pop(NOTE_KEY, None)
    guarded(session.start_live, kind, breakpoints)


def on_stop() -> None:
    get_session().live.stop()


def live_note() -> str:
    """The inspector's `live` section when no job runs: the end of the last one, if it was stopped."""
    return ended_note_html(st.session_state.get(NOTE_KEY))


def take_ended(session: Any) -> None:
    """The job ended since the page last looked: a Stop leaves a quiet line, a failure a warning."""
    job = session.live.take_ended()
    if job is None:
        return
    if job.state == "stopped":
        st.session_state[NOTE_KEY] = job.message
    elif job.state == "failed":
        flash("warning", job.message)


def running(session: Any) -> bool:
    return bool(getattr(session, "live", None) is not None and session.live.running)


@st.fragment(run_every=POLL_S)
def live_workbench() -> None:
    """The workbench while a job runs: polled, only Stop works."""
    guarded_page(_live_workbench)


def _live_workbench() -> None:
    session = get_session()
    take_action({"stop": on_stop}, {"stop": True})  # any other click is dropped, as on a disabled button
    job = session.live.job
    if job is None or job.state != "running":
        st.rerun(scope="app")  # it ended: the whole page draws the new position (and the sidebar badge)
    render_running_inspector(live_html(job.view()) + _refused_note(), running_controls(session))


def _refused_note() -> str:
    """A click refused while the step runs (a demo, a new question) says why at once, not after the step:
    the flash message is drawn by the workbench once the step has ended, and kept until then."""
    item = st.session_state.get(FLASH_KEY)
    return ended_note_html(str(item[1])) if isinstance(item, tuple) and len(item) == 2 else ""


def running_controls(session: Any, box: Optional[str] = None) -> str:
    """The controls while a job runs, drawn from what is fixed during it (never the stepper's head)."""
    return controls_html(done=False, has_run=True, replay=False, loaded=session.question, running=True,
                         box=st.session_state.get(QUESTION_KEY, "") if box is None else box)

