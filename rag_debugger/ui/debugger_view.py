"""The step debugger page: question and demos, Run / Step / Continue / Restart, the graph with the
current position, the step's diff and lanes, the timeline with time travel, evidence, HITL, result.

The same page shows a recorded run in replay mode (opened from the history page): a banner says
so, Run and HITL answers are disabled (nothing can execute), Step / Continue / Restart and time
travel walk the recording.

What the buttons do and which are on is the one controller's (rag_debugger/ui/step_controller.py); this
page hands it the question box as the way a run starts, and plugs the RAG panels into the inspector."""
from __future__ import annotations

from typing import Any, Optional, cast

import streamlit as st

from rag.i18n import N_, _, ngettext
from rag.i18n.formatting import date_time
from rag_debugger.debugger.replay import ReplayStepper
from rag_debugger.ui.link_opening import open_from_url, remember_link
from rag_debugger.ui.panels.add_to_set import render_for_session as render_add_to_set
from rag_debugger.ui.panels.feedback_panel import render_feedback_panel
from rag_debugger.ui.panels.full_state import render_full_state
from rag_debugger.ui.panels.hitl_form import render_hitl
from rag_debugger.ui.panels.inspector import full_state_wanted, inspector_style, render_inspector
from rag_debugger.ui.panels.time_travel import reset_time_travel, travel_step
from rag_debugger.ui.panels.what_if import render_what_if
from rag_debugger.ui.question_row import (
    QUESTION_KEY,
    ROW_DRAWN_WITH_RUN_KEY,
    graph_nodes,
    question_row_slot,
    render_question_row,
    row_is_stale,
)
from rag_debugger.ui.step_controller import StepController, live_note, live_workbench, running
from rag_debugger.ui.streamlit_state import flash, get_session, guarded, guarded_page, redraw_if_badge_stale, show_flash
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, in_code
from rag_debugger.workbench.session import REPLAY_BANNER, DebugSession

N_("Replay — recorded run, no model and no knowledge base")
"""`rag_debugger.workbench.session.REPLAY_BANNER`, marked for the catalogue here so the page can show it translated;
if the engine's wording changes, the Chinese page tests see an English banner."""


# ----- what this page hands the one controller (rag_debugger/ui/step_controller.py) -------------

def _question() -> str:
    return st.session_state.get(QUESTION_KEY, "")


def _start(session: DebugSession) -> None:
    """A run starts from the question box (Run on an empty box runs the loaded question again)."""
    session.start(_question() if _question().strip() else session.question)


CONTROLLER = StepController(get_session=get_session, start_run=_start, box=_question)
"""Run / Step / Continue / Restart / Stop and "Leave replay"; the rule for which are on."""


def on_follow_recorded(run_id: str) -> None:
    session = get_session()
    if guarded(session.follow_recorded_answer, run_id) is not None:
        flash("info", _("Replaying the recorded answer: step through the resume path or press Continue."))
    reset_time_travel()


# ----- rendering -----------------------------------------------------------------------------


def _replay_facts(info: Any, origin: str, total: int) -> str:
    """The replayed run's one-line facts (its id, where from, when, setup, steps); every outside value escaped."""
    from rag_debugger.ui.history_view import run_setup_parts

    parts = [_("Run `{run_id}` from {origin} · recorded {at}").format(
        run_id=in_code(info.run_id), origin=as_text(origin), at=date_time(info.created_at)),
        *run_setup_parts(info), ngettext("{n} step", "{n} steps", total).format(n=total)]
    return " · ".join(parts) + ("" if info.status == "done"
                                else _(" · status {status}").format(status=as_text(info.status)))

def render_replay_banner(session: DebugSession) -> None:
    seg = session.current
    info = seg.info if seg is not None else None
    with st.container(border=True, key="replay_banner"):
        st.warning(_("**{banner}.** Stepping walks the recorded checkpoints; nothing is executed. Run and HITL answers "
                     "are disabled.").format(banner=_(REPLAY_BANNER)), icon=MATERIAL["replay"])
        if seg is not None and info is not None:
            origin = _("imported file") if info.origin == "imported" else _("this app's history")
            st.caption(_replay_facts(info, origin, cast(ReplayStepper, seg.stepper).total_steps))
        st.button(_("Leave replay"), icon=MATERIAL["eject"], key="exit_replay", on_click=CONTROLLER.on_exit_replay,
                  help=_("Back to live debugging; the recorded run stays in the history"))


def render_question(session: DebugSession, nodes: list[str]) -> None:
    """The question row (`rag_debugger.ui.question_row`), in the row's one slot. The replay banner is drawn below the
    graph (`_workbench`): above it, it pushed the graph off the first screen; the position line beside
    the graph says "replay" instead."""
    with question_row_slot():
        render_question_row(replay=session.replay_mode, loaded=session.question, has_run=bool(session.segments),
                            nodes=nodes)


def render_question_to_user(session: DebugSession) -> None:
    """A finished run that asks the user (clarify / scope_select): the answer buttons, or in replay
    the recorded answers. Other results are drawn by the inspector."""
    result = session.result()
    if not result or not result.get("hitl_resume_state"):
        return
    if session.replay_mode:
        render_replay_hitl(session, result)
    else:
        render_hitl(result)


def render_replay_hitl(session: DebugSession, result: dict) -> None:
    """The recorded run asked the user: show the question read-only, and the answers recorded then."""
    trace = result.get("rag_trace") or {}
    with st.container(border=True):
        st.markdown(f"### {MATERIAL['ask']} " + _("The workflow asked ({route}) — recorded").format(
            route=as_text(result.get("route"))))
        st.markdown(as_text(trace.get("hitl_prompt") or _("Please add more detail.")))
        options = trace.get("hitl_options") or []
        if options:
            cols = st.columns(min(len(options), 4))
            for i, option in enumerate(options):
                cols[i % len(cols)].button(as_text(option), key=f"replay_opt_{i}", disabled=True, width="stretch",
                                           help=_("Replay: answers cannot be sent to a recorded run"))
        answers = session.recorded_answers()
        if answers:
            for child in answers:
                answer = ((child.result or {}).get("rag_trace") or {}).get("hitl_answer") or child.question
                st.button(_("Replay the recorded answer “{answer}”").format(answer=as_text(answer[:60])),
                          icon=MATERIAL["play"],
                          key=f"follow_{child.run_id}",
                          on_click=on_follow_recorded, args=(child.run_id,), type="primary")
        else:
            st.caption(_("No recorded answer to this question is in the history. Leave replay to answer it live."))
        with st.expander(_("Resume snapshot (hitl_resume_state)")):
            st.json(result.get("hitl_resume_state"))


def render_report_download(session: DebugSession, travel: Optional[int]) -> None:
    """The run as one HTML file, opening at the step shown. Built only when clicked (a deferred
    download: on a thread, so a Step never pays for it)."""
    if not session.segments:
        return
    from rag.i18n import current_language
    from rag_debugger.exports.run_file import rag_report

    lang = current_language()
    name = (session.current.run_id if session.current and session.current.run_id else "run")
    st.download_button(_("Download as HTML"), data=lambda: rag_report(session, start=travel, lang=lang),
                       file_name=f"{name}.html", mime="text/html", key="debugger_report", icon=MATERIAL["download"],
                       on_click="ignore",
                       help=_("One file that opens in any browser with no app and no network: the graph, the timeline "
                              "with time travel, every step's diff, the evidence and the answer, in both languages"))


def render_outcome_error(session: DebugSession) -> None:
    """The run finished but its result or answer could not be worked out (`Outcome.error`): one line
    beside a workbench that still offers Restart, never a traceback."""
    outcome = session.outcome()
    if outcome is not None and outcome.error:
        st.error(_("The run finished, but its result could not be worked out: {error}. Press Restart to run it "
                   "again.").format(error=as_text(outcome.error)))


def render_history_lost(session: DebugSession) -> None:
    """Once, when the run history stopped answering under this run (its database went down)."""
    if session.take_history_lost():
        st.warning(_("**The run history stopped answering**, so this run goes on in memory: Step, Continue and time "
                     "travel work as before, but the run is no longer recorded (the history marks it abandoned when "
                     "it answers again). New runs are recorded again as soon as it does."))


def render_page(*, question_row_drawn: bool = False) -> None:
    """The page body below its heading (pages/debugger.py draws the heading, and on a first visit the
    question row, before this module's imports, so the first paint does not wait for LangGraph)."""
    session = get_session()
    followed = open_from_url(session)  # a reload, a bookmark or a link: ?run=<id>&step=<n>
    if followed is not session:  # a reload took its run over: the box shows that run's question
        session = followed
        st.session_state[QUESTION_KEY] = session.question
    if not question_row_drawn:
        render_question(session, graph_nodes())  # LangGraph is loaded by now: the list costs nothing
    inspector_style()  # outside the fragment: a Step does not send the style sheet again
    if running(session):  # a step calls a live model off the page: poll it, only Stop works
        live_workbench(CONTROLLER)
    else:
        workbench()


@st.fragment
def workbench() -> None:
    """Everything a Step changes. A fragment, so a Step click reruns only this part of the page
    (the question box, the demos, the navigation and the sidebar are not re-sent). A fragment
    rerun does not pass through the page's guard, so it has its own."""
    guarded_page(_workbench)


def _workbench() -> None:
    session = get_session()
    CONTROLLER.take_click(session)  # the queued click, if its button is on (and a live step that ended)
    redraw_if_badge_stale(session.settings)  # the sidebar's model badge follows the last call
    render_history_lost(session)
    # The first screen holds the controls, the whole graph and the step (docs/first_screen.md): what a
    # run says (live progress, "demo loaded", a breakpoint, the HITL question, the replay banner) goes
    # below the inspector; the inspector's position line beside the graph says it in a few words.
    inspector_slot = st.container()
    CONTROLLER.run_pending(session)
    if row_is_stale(bool(session.segments)):  # the first run of a visit: fold the demos' box away
        st.session_state[ROW_DRAWN_WITH_RUN_KEY] = True
        st.rerun(scope="app")
    show_flash()
    render_outcome_error(session)
    if session.replay_mode:
        render_replay_banner(session)
    render_question_to_user(session)
    travel = travel_step(len(session.all_steps()))
    with inspector_slot:
        values = render_inspector(session, travel, box=_question(), live=live_note())
    remember_link(session, travel)  # the inspector writes it into the URL
    render_report_download(session, travel)
    render_feedback_panel(session, travel)
    render_what_if(travel)
    render_add_to_set(session, travel)
    if session.current and full_state_wanted():
        render_full_state(values)
