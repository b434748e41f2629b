"""The debugger's question row: the question box, the demo buttons and the breakpoints.

Light on purpose (no LangGraph, no engine, no pandas at import): pages/debugger.py draws this row
before it imports the rest of the debugger (~2–3 s cold), so the demos, the way in for a new user,
are on screen and clickable as soon as the heading is. Only a click pays for the engine: `on_demo`
builds the debug session, and Streamlit runs that callback before the page body, so a click that
arrives while the first run is still importing is taken by the next run, not lost.
"""
from __future__ import annotations

import streamlit as st

from rag.i18n import _
from rag_debugger.ui.panels.breakpoint_picker import render_breakpoints
from rag_debugger.ui.panels.lazy import lazy_popover
from rag_debugger.ui.panels.time_travel import reset_time_travel
from rag_debugger.ui.streamlit_state import SESSION_KEY, flash, get_session, guarded
from rag_debugger.views.markdown_text import as_text

QUESTION_KEY = "question"
KEPT_QUESTION_KEY = "question_kept"
"""A copy of the box that outlives the page: Streamlit forgets a widget's value when a page
without it runs, so the box came back empty after a visit to another page."""


def demo_questions() -> list:
    try:
        from rag.demo import load_demo_questions

        return load_demo_questions()
    except Exception:  # noqa: BLE001 - demos are a convenience; the debugger works without them
        return []


def graph_nodes() -> list[str]:
    """The workflow's nodes, sorted (the breakpoint picker's options)."""
    from rag.graph.build import node_docs

    return sorted(node_docs())


def on_demo(question: str) -> None:
    st.session_state[QUESTION_KEY] = question
    session = get_session()  # the engine loads here, on the first click
    if guarded(session.start, question) is not None:
        flash("info", _("Demo loaded and paused before the first node: press Step to go node by node, or Continue."))
    reset_time_travel()


def can_draw_before_session() -> bool:
    """Whether the row can be drawn before the debug session exists: a browser session's first visit
    with nothing to open. A link to a recorded run (`?run=`) opens that run first, and the row shows it."""
    return st.session_state.get(SESSION_KEY) is None and not st.query_params.get("run")


ROW_KEY = "question_row"
ROW_DRAWN_WITH_RUN_KEY = "_question_row_has_run"
"""Whether the row was last drawn for a session with a run: with none, the demos take a box of their own."""


def row_is_stale(has_run: bool) -> bool:
    """The row still shows the demos' box although a run is loaded now (a Run or Step pressed in the
    debugger's fragment, which does not redraw the row): the page must redraw it once, or the box keeps
    the graph below the first screen."""
    return has_run and st.session_state.get(ROW_DRAWN_WITH_RUN_KEY) is False


def question_row_slot():
    """The one element the row (with a replay banner, the demos box) is drawn in. The debugger's
    fragment comes after it, and Streamlit names a fragment by its position on the page: when a demo
    click folded the demos box away, the fragment moved up one place and got a new name, and a
    Continue pressed before the page had redrawn asked for the old name, which Streamlit drops
    without a word. In one slot, the fragment keeps its place whatever the row shows."""
    return st.container(key=ROW_KEY)


def render_question_row(*, replay: bool, loaded: str, has_run: bool, nodes: list[str]) -> None:
    """One row: the question box, and beside it the demos and the breakpoints as two buttons that
    open a panel. Lines of their own pushed the graph below the fold at 1024x768."""
    if replay:
        st.session_state[QUESTION_KEY] = loaded  # the box shows the recorded question
    elif QUESTION_KEY not in st.session_state:  # back from another page
        st.session_state[QUESTION_KEY] = st.session_state.get(KEPT_QUESTION_KEY, loaded)
    st.session_state[ROW_DRAWN_WITH_RUN_KEY] = has_run
    box, side = st.columns([5, 2], vertical_alignment="bottom")
    with box:
        st.text_area(_("Question"), key=QUESTION_KEY, height=80, disabled=replay,
                     placeholder=_("Ask the knowledge base, e.g. 丹瑾是什么属性？ — or pick a demo below"))
    st.session_state[KEPT_QUESTION_KEY] = st.session_state.get(QUESTION_KEY, "")
    demos = demo_questions()
    with side, st.container(gap="xsmall"):
        if demos and has_run:
            # Once a run is loaded the list folds away and is built only when opened: 14 buttons on
            # the page made every Step about 10 ms slower in the browser, even folded.
            # a short label: "Demo questions — one per route" was cut to "Demo questions — one pe…" at 1024 px
            with lazy_popover(_("Demo questions"), key="demos_folded",
                              help=_("One demo question per route; each loads paused before its first node")) as is_open:
                if is_open:
                    render_demo_buttons(demos, columns=2)
        render_breakpoints(nodes)
    if demos and not has_run:  # nothing loaded yet: the demos are the way in, one click each
        with st.container(border=True, key="demos"):
            st.caption(_("Demo questions — one per route"))
            render_demo_buttons(demos)


def render_demo_buttons(demos: list, columns: int = 3) -> None:
    cols = st.columns(columns)
    for i, demo in enumerate(demos):
        cols[i % columns].button(demo.display_label, key=f"demo_{demo.id}", on_click=on_demo, args=(demo.question,),
                                 help=as_text(demo.question), width="stretch")


def first_paint() -> bool:
    """Draw the question row now, before the debugger's heavy modules load, when that is possible
    (`can_draw_before_session`). Returns whether it was drawn (then the page must not draw it again)."""
    if not can_draw_before_session():
        return False
    with question_row_slot():
        # No node list yet: it needs the graph's module (LangGraph). The picker is folded on a first visit;
        # opened in the gap, it shows its nodes from the next run on, when the session exists.
        render_question_row(replay=False, loaded="", has_run=False, nodes=[])
    return True
