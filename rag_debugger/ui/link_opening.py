"""The RAG debugger page's side of its URL (`?run=<run id>&step=<n>`, the rules in
rag_debugger/views/run_link.py): following a link the page did not write (a reload, a bookmark, a link
from another page), remembering the one it wrote, and the language a link carries.
"""
from __future__ import annotations

from typing import Any, Optional
from urllib.parse import urlencode

import streamlit as st

from rag.i18n import _, ngettext
from rag_debugger.ui.language import LANG_PARAM, url_language
from rag_debugger.views.run_link import RUN_PARAM, STEP_PARAM, Link, link_for, parse_link, placement, short_text

WRITTEN_KEY = "_run_link_written"
"""The query parameters the page last wrote (per browser session)."""
RECEIVED_KEY = "_run_link_received"
"""The query parameters the page last received (per browser session)."""


def query_string(params: dict[str, str]) -> str:
    """Query parameters as the URL's query string ("" for none), in the language the page is read in."""
    if params:
        lang = url_language()  # a shared link opens in the language it was copied in
        if lang:
            params = {**params, LANG_PARAM: lang}
    return "?" + urlencode(params) if params else ""


def _params() -> dict[str, str]:
    return {key: st.query_params.get(key, "") for key in st.query_params.keys() if key in (RUN_PARAM, STEP_PARAM)}


def open_from_url(session: Any) -> Any:
    """Follow a `?run=&step=` the page did not write itself (a reload, a bookmark, a link).
    Returns the session to draw: after a reload, the session the reloaded tab left behind, taken
    over so the run goes on live. Problems become a message on the page, never a traceback."""
    from rag_debugger.ui.panels.time_travel import reset_time_travel
    from rag_debugger.ui.streamlit_state import flash, friendly
    from rag_debugger.views.markdown_text import as_text

    params = _params()
    known = (st.session_state.get(RECEIVED_KEY), st.session_state.get(WRITTEN_KEY))
    st.session_state[RECEIVED_KEY] = params
    if RUN_PARAM not in params or params in known:
        return session
    link = parse_link(params)
    messages = list(link.problems)
    try:
        if link.run_id is not None:
            session = _take_over(session, link.run_id)
            messages.extend(_open(session, link))
    except Exception as exc:  # noqa: BLE001 - a link must never break the page
        messages.append(_("The link could not be opened: {error}").format(error=friendly(exc)))
        reset_time_travel()
    if messages:
        flash("warning", as_text(" ".join(messages)))
    return session


def _take_over(session: Any, run_id: str) -> Any:
    """A reload: the tab that drove `run_id` in this process is gone, so this tab takes its
    session over (only when this tab has nothing of its own yet)."""
    from rag_debugger.ui.streamlit_state import SESSION_KEY
    from rag_debugger.workbench import run_owners

    if session.segments:
        return session
    found = run_owners.adoptable(run_id, session.browser_id)
    if found is None:
        return session
    run_owners.hand_over(found, session.client_id)
    st.session_state[SESSION_KEY] = found
    return found


def _open(session: Any, link: Link) -> list[str]:
    """Show `link` in `session`; returns messages for people."""
    from rag.errors import UnknownRunError, UserInputError
    from rag_debugger.ui.panels.time_travel import reset_time_travel, travel_to
    from rag_debugger.ui.streamlit_state import shared_history

    live = {seg.run_id for seg in session.segments if seg.run_id}
    if link.run_id in live:  # this tab holds the run (or took it over): travel, nothing is reopened
        total = len(session.all_steps())
        step = link.step if link.step is not None else total
        note = []
        if step > total:
            note = [ngettext("This run has {n} step so far; showing the latest.",
                             "This run has {n} steps so far; showing the latest.", total).format(n=total)]
            step = total
        if step == total:
            reset_time_travel()
        else:
            travel_to(max(step, 1) - 1)  # time travel shows the state after a step, so 0 shows step 1
        return note
    history = session.history or shared_history()
    if history is None:
        return [_("The run history is not available, so the run in the link cannot be opened.")]
    from rag_debugger.workbench.run_owners import sweep

    sweep(history)  # a reload left its run behind: it shows as abandoned, not running
    from rag_debugger.ui.streamlit_state import permit

    mine = permit()
    try:
        info = history.visible_run(link.run_id, mine)  # another's private run: "not available", like a missing one
    except UnknownRunError:
        if mine.private_runs:
            return [_("The run in the link is not available. Pick a run on the Run history page.")]
        return [_("The link names run “{run}”, which is not in this app's run history (it may have been deleted, or "
                  "recorded by another installation). Pick a run on the Run history page.").format(
                      run=short_text(link.run_id or ""))]
    if info.kind == "graph":  # a run of a graph of your own: its page loads that graph (through its allow-list)
        return [_("Run {run} is a run of {graph}: open it on the Your graph page.").format(
            run=short_text(link.run_id or ""), graph=short_text(info.graph_spec or "?"))]
    try:
        session.open_replay(history, link.run_id)
        totals = [seg.stepper.total_steps for seg in session.segments]
        at, travel, step_note = placement(totals, link.step)
        session.seek(at)
    except UserInputError as exc:
        reset_time_travel()
        return [_("The run in the link cannot be shown: {error}").format(error=exc)]
    if travel is None:
        reset_time_travel()
    else:
        travel_to(travel)
    return [_("The link's step: {note}").format(note=step_note)] if step_note else []


def expect_links() -> None:
    """Called by a page that shows links into the debugger (the Evaluate page's case runs): the link this
    session followed last is forgotten, so following it again opens its run again, even after the debugger
    moved on to another run (which leaves the received link unchanged)."""
    st.session_state.pop(RECEIVED_KEY, None)


def remember_link(session: Any, travel: Optional[int]) -> None:
    """What the inspector writes into the URL for this view (`ui/panels/inspector.py`): a rerun that
    sends it back is not a link to follow."""
    st.session_state[WRITTEN_KEY] = link_for(session, travel)
