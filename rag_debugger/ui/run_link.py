"""The debugger's URL names the run and the step being viewed: `?run=<run id>&step=<n>`.

Why: a reload starts a new browser session, so without it a reload (or a bookmark, or a link sent
to a colleague) lost the run and showed "No run yet". The URL is the only thing that survives.

- `step` counts steps across the session's runs, as the timeline numbers them (a HITL resume's
  steps follow its main run's); 0 is before the first node. The run is the newest run of the
  session (a resume run brings its main run along, see `rag_debugger.workbench.session.run_chain`).
- Opening a link: when this browser session holds the run, it is live and the view travels to the
  step. After a reload, the tab takes over the session the reloaded page left behind in this
  server process, so the run goes on live (rag_debugger/workbench/run_owners.py). Otherwise (another process, a tab
  still connected, e.g. a colleague's) the run is replayed from the run history, at that step.
- The inspector's script writes the URL (`history.replaceState`) when the page draws: writing
  `st.query_params` instead made the whole Streamlit app re-render in the browser on every Step
  (bench/ui_step.py: ~20 ms a Step) and pushed a browser-history entry per Step.
- The page follows a URL only when it is neither the one this tab last received nor the one it
  last wrote: Streamlit keeps sending a tab's first query string on later reruns, and a rerun
  must never send the view back to an old step or reopen a replaced run.

The rules are pure functions (`parse_link`, `link_for`, `link_query`, `placement`);
`open_from_url` and `remember_link` are the Streamlit side.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, NamedTuple, Optional

from rag.i18n import _, ngettext

RUN_PARAM = "run"
STEP_PARAM = "step"
WRITTEN_KEY = "_run_link_written"
"""The query parameters the page last wrote (per browser session)."""
RECEIVED_KEY = "_run_link_received"
"""The query parameters the page last received (per browser session)."""
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
MAX_STEP_CHARS = 6


class Link(NamedTuple):
    run_id: Optional[str]
    """None when the URL names no run, or a run id that cannot be one."""
    step: Optional[int]
    """None: the run's latest step."""
    problems: tuple[str, ...] = ()
    """What was wrong with the link, in words for people."""


def _show(text: str, limit: int = 40) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_link(params: Mapping[str, Any]) -> Link:
    """Read `run` and `step` from query parameters; never raises."""
    raw_run = str(params.get(RUN_PARAM) or "").strip()
    raw_step = str(params.get(STEP_PARAM) or "").strip()
    problems: list[str] = []
    run_id: Optional[str] = raw_run or None
    if run_id is not None and not RUN_ID.fullmatch(run_id):
        problems.append(_("“{text}” in the link is not a run id; pick a run on the Run history page.").format(
            text=_show(raw_run)))
        run_id = None
    step: Optional[int] = None
    if raw_step and run_id is not None:
        if raw_step.isdigit() and len(raw_step) <= MAX_STEP_CHARS:
            step = int(raw_step)
        else:
            problems.append(_("“{text}” in the link is not a step number; showing the run's latest step.").format(
                text=_show(raw_step)))
    return Link(run_id, step, tuple(problems))


def viewed_step(session: Any, travel: Optional[int]) -> int:
    """The step a view shows, numbered like the timeline: after `travel + 1` steps, or the latest."""
    total = len(session.all_steps())
    return travel + 1 if travel is not None and 0 <= travel < total else total


def link_for(session: Any, travel: Optional[int]) -> dict[str, str]:
    """The query parameters naming what the page shows; {} when it shows no recorded run."""
    seg = session.current
    if seg is None or not seg.run_id:
        return {}
    return {RUN_PARAM: seg.run_id, STEP_PARAM: str(_as_recorded(session, seg, viewed_step(session, travel)))}


def _as_recorded(session: Any, seg: Any, step: int) -> int:
    """A what-if fork's step as its replay numbers it: a replayed fork's branch runs through its parent's
    steps up to the fork (the rest of the parent, still in the live timeline, is not on that branch)."""
    fork_of = getattr(seg, "fork_of", None)
    if fork_of is None or seg not in session.segments:
        return step
    origin, index = fork_of[0], fork_of[1]
    into_fork = step - (len(session.all_steps()) - len(seg.stepper.steps))
    if into_fork < 0 or origin not in session.segments:
        return step
    before = sum(len(s.stepper.steps) for s in session.segments[:session.segments.index(origin)])
    return before + index + 1 + into_fork


def link_query(session: Any, travel: Optional[int]) -> str:
    """`link_for` as the URL's query string ("" for none), for the inspector's script to write."""
    return query_string(link_for(session, travel))


def query_string(params: dict[str, str]) -> str:
    """Query parameters as the URL's query string ("" for none), in the language the page is read in."""
    from urllib.parse import urlencode

    if params:
        from rag_debugger.ui.language import LANG_PARAM, url_language

        lang = url_language()  # a shared link opens in the language it was copied in
        if lang:
            params = {**params, LANG_PARAM: lang}
    return "?" + urlencode(params) if params else ""


def run_href(run_id: str) -> str:
    """A link from another page to `run_id` in the step debugger (`debugger?run=<id>`): relative, so it works
    under any base path; opened, `open_from_url` replays the run from the history."""
    from urllib.parse import urlencode

    return "debugger?" + urlencode({RUN_PARAM: run_id})


def placement(totals: list[int], step: Optional[int]) -> tuple[int, Optional[int], Optional[str]]:
    """Where to put a replayed chain of runs (`totals`: each run's recorded steps, oldest first)
    to show `step`: (steps into the last run, time-travel index or None, a note when the step
    had to change). A step inside the last run is a position there, so Step goes on from it; a
    step inside an earlier run is time travel, with the last run at its end."""
    if not totals:
        return 0, None, None
    total = sum(totals)
    earlier = total - totals[-1]
    note = None
    if step is None:
        step = total
    elif step > total:
        note = ngettext("this run has {n} step; showing the last one.", "this run has {n} steps; showing the last one.",
                        total).format(n=total)
        step = total
    if step >= earlier:
        return step - earlier, None, note
    if step == 0:  # before the first node of an earlier run: time travel starts after step 1
        return totals[-1], 0, _("step 0 is before the first node of an earlier run; showing step 1.")
    return totals[-1], step - 1, note


# ----- the Streamlit side -----------------------------------------------------------------------

def _params() -> dict[str, str]:
    import streamlit as st

    return {key: st.query_params.get(key, "") for key in st.query_params.keys() if key in (RUN_PARAM, STEP_PARAM)}


def open_from_url(session: Any) -> Any:
    """Follow a `?run=&step=` the page did not write itself (a reload, a bookmark, a link).
    Returns the session to draw: after a reload, the session the reloaded tab left behind, taken
    over so the run goes on live. Problems become a message on the page, never a traceback."""
    import streamlit as st

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
    import streamlit as st

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
                  "recorded by another installation). Pick a run on the Run history page.").format(run=_show(link.run_id or ""))]
    if info.kind == "graph":  # a run of a graph of your own: its page loads that graph (through its allow-list)
        return [_("Run {run} is a run of {graph}: open it on the Your graph page.").format(
            run=_show(link.run_id or ""), graph=_show(info.graph_spec or "?"))]
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
    import streamlit as st

    st.session_state.pop(RECEIVED_KEY, None)


def remember_link(session: Any, travel: Optional[int]) -> None:
    """What the inspector writes into the URL for this view (see `link_query`): a rerun that
    sends it back is not a link to follow."""
    import streamlit as st

    st.session_state[WRITTEN_KEY] = link_for(session, travel)
