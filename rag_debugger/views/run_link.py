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

The rules are pure functions, here (`parse_link`, `link_for`, `placement`); following a link,
remembering the one the page wrote and the language a link carries are the page's side
(rag_debugger/ui/link_opening.py).
"""
from __future__ import annotations

import re
from typing import Any, Mapping, NamedTuple, Optional

from rag.i18n import _, ngettext

RUN_PARAM = "run"
STEP_PARAM = "step"
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
MAX_STEP_CHARS = 6


class Link(NamedTuple):
    run_id: Optional[str]
    """None when the URL names no run, or a run id that cannot be one."""
    step: Optional[int]
    """None: the run's latest step."""
    problems: tuple[str, ...] = ()
    """What was wrong with the link, in words for people."""


def short_text(text: str, limit: int = 40) -> str:
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
            text=short_text(raw_run)))
        run_id = None
    step: Optional[int] = None
    if raw_step and run_id is not None:
        if raw_step.isdigit() and len(raw_step) <= MAX_STEP_CHARS:
            step = int(raw_step)
        else:
            problems.append(_("“{text}” in the link is not a step number; showing the run's latest step.").format(
                text=short_text(raw_step)))
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
