"""The "Threads in your checkpointer" panel of the Your graph page (`--checkpointer URL`).

The logic is `rag_debugger.debugger.threads` and `GraphSession.open_thread` / `go_on_thread`; this module only
draws: the list (a page at a time, filtered by id, subgraph threads under their parent), the open
thread's notice (read-only or writable, a window of a long thread, a pending interrupt) and the button
that goes on from it. The store is opened once per browser session and kept in its state.
"""
from __future__ import annotations

from typing import Any, Optional

import streamlit as st

from rag.i18n import _
from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.replay import ReplayStepper
from rag_debugger.debugger.session import GraphSession
from rag_debugger.debugger.threads import (
    PAGE_SIZE,
    WINDOW,
    CheckpointerError,
    ThreadStore,
    on_store,
    open_store,
    parse_checkpointer_url,
)
from rag_debugger.launch import launch_options
from rag_debugger.ui.grids import data_grid
from rag_debugger.ui.panels.time_travel import reset_time_travel
from rag_debugger.ui.streamlit_state import flash, friendly, guarded
from rag_debugger.views.markdown_text import as_text, in_code

STORE_KEY = "threads_store"
FILTER_KEY = "threads_filter"
OFFSET_KEY = "threads_offset"
PICK_KEY = "threads_pick"


def _store() -> tuple[Optional[ThreadStore], Optional[str]]:
    """The user's checkpointer for this browser session, or the message saying why it cannot be opened."""
    opts = launch_options()
    if not opts.checkpointer:
        return None, None
    held = st.session_state.get(STORE_KEY)
    if held is None:
        try:
            held = open_store(parse_checkpointer_url(opts.checkpointer, writable=opts.checkpointer_writable))
        except DebuggerUserError as exc:
            held = friendly(exc)
        st.session_state[STORE_KEY] = held
    return (None, held) if isinstance(held, str) else (held, None)


def on_open_thread(session: GraphSession, store: ThreadStore) -> None:
    thread_id = st.session_state.get(PICK_KEY)
    if thread_id and guarded(session.open_thread, store, thread_id) is not None:
        reset_time_travel()


def on_older(session: GraphSession) -> None:
    if guarded(session.older_checkpoints) is not None:
        reset_time_travel()


def on_go_on(session: GraphSession, after_step: Optional[int] = None) -> None:
    live = guarded(session.go_on_thread, after_step)
    if live is not None:
        reset_time_travel()
        if live.thread is not None and live.thread.forked:
            flash("info", _("Copied thread {id} into the debugger's own checkpointer as a fork: Step, Continue and "
                            "answers run there; your database is not written.").format(id=as_text(live.thread.thread_id)))
        else:
            flash("info", _("Going on with thread {id} in place, in your checkpointer (started writable).").format(
                id=as_text(live.thread.thread_id if live.thread else "")))


def INTERRUPT_MARK() -> str:
    """The interrupt column's mark: words, which every font draws (a ⏸ glyph drew as a missing-glyph box)."""
    return _("waits for an answer")


def _page_move(delta: int) -> None:
    st.session_state[OFFSET_KEY] = max(0, int(st.session_state.get(OFFSET_KEY, 0)) + delta)


def _rows(page: Any) -> list[dict]:
    rows = []
    for t in page.threads:
        rows.append({_("thread"): t.thread_id, _("checkpoints"): t.checkpoints, _("last update"): t.last_update or "",
                     _("next"): ", ".join(t.next), _("interrupt"): INTERRUPT_MARK() if t.interrupt else "",
                     _("note"): t.problem or ""})
        for sub in t.subgraphs:
            rows.append({_("thread"): f"  └ {sub.namespace}", _("checkpoints"): sub.checkpoints, _("last update"): "",
                         _("next"): "", _("interrupt"): "", _("note"): _("subgraph")})
    return rows


def render_threads(session: GraphSession) -> None:
    store, error = _store()
    if store is None and error is None:
        return
    with st.container(border=True, key="yg_threads"):
        st.markdown("**" + _("Threads in your checkpointer") + "**")
        if error:
            st.error(error, icon=":material/block:")
            return
        assert store is not None
        mode = (_("writable: answers and Continue go on in place") if store.source.writable else
                _("read-only: nothing is written there; going on copies the thread into the debugger as a fork"))
        st.caption(f"`{in_code(store.source.shown)}` · {as_text(mode)}")
        if store.note:
            st.info(as_text(store.note), icon=":material/content_copy:")
        st.text_input(_("Filter by thread id"), key=FILTER_KEY, on_change=lambda: st.session_state.update({OFFSET_KEY: 0}))
        offset = int(st.session_state.get(OFFSET_KEY, 0))
        try:
            page = store.list_threads(st.session_state.get(FILTER_KEY) or "", offset=offset, limit=PAGE_SIZE,
                                      graph=on_store(session.graph, store))
        except CheckpointerError as exc:
            st.error(friendly(exc), icon=":material/block:")
            return
        if not page.threads:
            st.info(_("No threads match."))
            return
        data_grid(_rows(page), hide_index=True, key="yg_threads_table")
        c1, c2, c3, c4 = st.columns([3, 1.4, 1, 1], vertical_alignment="bottom")
        c1.selectbox(_("Thread"), [t.thread_id for t in page.threads], key=PICK_KEY)
        c2.button(_("Open thread"), key="yg_open_thread", type="primary", on_click=on_open_thread,
                  args=(session, store))
        c3.button(_("Newer"), key="yg_threads_prev", disabled=offset == 0, on_click=_page_move, args=(-PAGE_SIZE,))
        c4.button(_("Older"), key="yg_threads_next", disabled=offset + PAGE_SIZE >= page.total,
                  on_click=_page_move, args=(PAGE_SIZE,))
        st.caption(_("Threads {first}–{last} of {total}, newest first").format(
            first=offset + 1, last=as_text(offset + len(page.threads)), total=as_text(page.total)))
        render_opened(session)


def render_opened(session: GraphSession) -> None:
    """What the open thread is, and the button that goes on from it."""
    seg = session.segments[0] if session.segments else None
    thread = seg.thread if seg is not None else None
    if seg is None or thread is None:
        return
    if session.replay_mode:
        note = _("Thread {id}: its newest checkpoints are shown; Step and time travel walk them, nothing runs.").format(
            id=as_text(thread.thread_id))
        if thread.more:
            note += " " + _("Older checkpoints are read on demand, {n} at a time.").format(n=WINDOW)
        st.info(note, icon=":material/history:")
        if thread.more:
            st.button(_("Read older checkpoints"), key="yg_older", on_click=on_older, args=(session,))
        if thread.pending:
            st.warning(_("This thread waits at an interrupt() in {nodes}.").format(
                nodes=as_text(", ".join(sorted({p.node for p in thread.pending})))), icon=":material/pan_tool:")
            render_pending_questions(thread.pending)
        if thread.pending or getattr(seg.stepper, "cut_short", False):
            label = _("Answer it here") if thread.pending else _("Go on from here")
            help_text = (_("Runs in place, in your checkpointer") if thread.store.source.writable else
                         _("Copies the thread into the debugger's own checkpointer as a fork and runs there"))
            st.button(label, key="yg_go_on", on_click=on_go_on, args=(session,), help=help_text)
    else:
        live = session.current.thread if session.current else None
        if live is not None and live.forked:
            st.caption(_("Running a fork of thread {id} in the debugger's own checkpointer; your database is not "
                         "written.").format(id=as_text(live.thread_id)))
        elif live is not None:
            st.caption(_("Running thread {id} in place, in your checkpointer.").format(id=as_text(live.thread_id)))


def render_pending_questions(pending: Any) -> None:
    """The stored thread's pending questions, as soon as it opens (answering them needs "Answer it here")."""
    from rag_debugger.debugger.interrupts import ask_for

    for p in pending:
        ask = ask_for(p.value)
        with st.container(border=True, key=f"yg_thread_question_{p.interrupt_id[:16]}"):
            st.markdown(_("**`{node}` asks:**").format(node=in_code(p.node)))
            st.text(ask.question)
            if ask.options:
                st.caption(_("Options: {options}").format(options=as_text(", ".join(ask.options))))


def render_travel_go_on(session: GraphSession, travel: Optional[int]) -> None:
    """Inside the workbench (time travel reruns only that part): go on from the stored step being viewed."""
    seg = session.current
    if travel is None or seg is None or seg.thread is None or not session.replay_mode \
            or not isinstance(seg.stepper, ReplayStepper):
        return
    if travel >= len(seg.stepper.all_steps) - 1:
        return
    help_text = (_("Runs in place, in your checkpointer (a new branch of the thread)") if seg.thread.store.source.writable
                 else _("Copies the thread into the debugger's own checkpointer as a fork and runs there"))
    st.button(_("Go on from step {n}").format(n=travel + 1), key="yg_go_on_travel", on_click=on_go_on,
              args=(session, travel), help=help_text, icon=":material/call_split:")


def render_thread_banner(session: GraphSession) -> None:
    """What an opened stored thread is, told as the thread is: paused at a question, stopped before its end,
    or finished (never "a replay of an exported run")."""
    seg = session.current
    thread = seg.thread if seg is not None else None
    if seg is None or thread is None:
        return
    if thread.pending:
        nodes = as_text(", ".join(sorted({p.node for p in thread.pending})))
        st.info(_("Paused thread {id} from your checkpointer: it waits for an answer to interrupt() in {nodes} (its "
                  "question is shown above). Step and time travel walk its stored steps; nothing runs until you "
                  "answer.").format(id=as_text(thread.thread_id), nodes=as_text(nodes)), icon=":material/pan_tool:")
    elif session.cut_short:
        st.info(_("Thread {id} from your checkpointer stopped before its end (a breakpoint, an error or an "
                  "application that stopped): Step and time travel walk its stored steps; nothing runs.").format(
            id=as_text(thread.thread_id)), icon=":material/history:")
    else:
        st.info(_("Thread {id} from your checkpointer, finished: Step and time travel walk its stored steps; "
                  "nothing runs.").format(id=as_text(thread.thread_id)), icon=":material/history:")
