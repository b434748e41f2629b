"""The inspector: everything a Step changes (position, graph, timeline, the step's lanes and diff,
the result, the evidence) as one custom component that the browser updates in place.

Why one component: with one Streamlit element per table and caption (~40 of them, three data
grids among them) a Step spent most of its time in the browser re-rendering them, about 2x the
time Streamlit needs for a one-button page. One `st.components.v2` element that swaps in the HTML
of the sections that changed costs close to what the buttons alone cost (bench/ui_step.py). The
HTML is built without Streamlit (`rag_debugger.views.inspector_html`), so AppTest tests read
the same HTML the browser shows; this module mounts it and takes the browser's events. Clicking a
timeline row sends a one-shot `travel` trigger (time travel); the full-state switch is a component
state value read back on each rerun.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

import streamlit as st

from rag_debugger.debugger.protocol import InspectedSession
from rag_debugger.ui.link_opening import query_string
from rag_debugger.ui.panels.controls import queue_action
from rag_debugger.ui.panels.time_travel import travel_to
from rag_debugger.views.inspector_html import (
    RAG_PARTS,
    SECTIONS,
    TEMPLATE,
    InspectorParts,
    inspector_sections,
    style_html,
)
from rag_debugger.views.run_link import link_for
from rag_debugger.views.section_delivery import payload

COMPONENT_NAME = "rag_debugger_inspector"
KEY = "inspector"
STATIC = Path(__file__).resolve().parent / "static"


@lru_cache(maxsize=1)
def _component() -> Any:
    import streamlit.components.v2 as components

    # No css here: a component's inline CSS and JS travel with every rerun of it (~14 KB of CSS per
    # Step); the style sheet goes into the page once, outside the fragment (`inspector_style`).
    return components.component(
        COMPONENT_NAME,
        html=TEMPLATE,
        js=_compact_js((STATIC / "inspector.js").read_text(encoding="utf-8")),
        isolate_styles=False,  # inherit the app's font and colours; every rule is scoped to .rdi-root
    )


def _compact_js(source: str) -> str:
    """The script without its comment lines and indentation (it is sent with every Step)."""
    lines = (line.strip() for line in source.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


def inspector_style() -> None:
    """The inspector's style sheet, drawn by the page outside its fragment so a Step does not send
    it again. Every page that mounts the inspector calls it first. Rules are scoped to .rdi-root."""
    st.html(style_html())


def _value(name: str) -> Any:
    value = st.session_state.get(KEY)
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def _on_travel() -> None:
    """A timeline row (or "back to latest") was clicked."""
    index = _value("travel")
    if isinstance(index, (int, float)) and not isinstance(index, bool):
        travel_to(int(index))


def _on_action() -> None:
    """Run / Step / Continue / Restart was clicked (rag_debugger/ui/panels/controls.py)."""
    queue_action(_value("action"))


def _on_full_state() -> None:
    """The "full state" switch; its value is read back when the page draws."""


def full_state_wanted() -> bool:
    return bool(_value("full_state"))


OPENED_KEY = "_inspector_opened"
"""The folded parts the browser has open, under a plain session key (AppTest sets it to open one)."""


def _on_opened() -> None:
    """A folded part built only while open (`inspector_html.lazy_details`) was opened or closed."""
    value = _value("opened")
    st.session_state[OPENED_KEY] = [str(v) for v in value] if isinstance(value, list) else []


def opened_parts() -> frozenset[str]:
    """The ids of the folded parts the browser has open (inspector.js reports them)."""
    return frozenset(st.session_state.get(OPENED_KEY) or ())


def render_inspector(session: InspectedSession, travel: Optional[int], *, box: str = "",
                     parts: InspectorParts = RAG_PARTS, live: str = "") -> dict:
    """Mount the inspector for the session's current position (or past step `travel`); `box` is
    what the question box shows (the controls act on it); `live`: the live section's HTML. Returns the
    state values shown, for the panels that stay outside (full state)."""
    sections, values = inspector_sections(session, travel, full_state=full_state_wanted(), box=box, parts=parts,
                                          opened=opened_parts(), timeline_cache=st.session_state)
    sections["link"] = query_string((parts.link or link_for)(session, travel))  # not a section: the URL
    sections["live"] = live  # after a Stop: one quiet line (rag_debugger/ui/step_controller.py)
    st.session_state[SHOWN_KEY] = sections
    _mount(sections)
    return values


SHOWN_KEY = "_inspector_sections"
"""The sections last built from the session: what the inspector goes on showing while a step runs."""


def render_running_inspector(live: str, controls: str) -> None:
    """While a step runs off the page (rag_debugger/workbench/live_step.py), the session is not read (its
    worker thread is moving it): the inspector shows the position the step started from, with the
    running controls and the live calls in place of their sections."""
    sections = dict(st.session_state.get(SHOWN_KEY) or {})
    sections.update(controls=controls, live=live)
    _mount(sections)


def _mount(sections: dict) -> None:
    resend = st.session_state.pop(RESEND_KEY, False)
    known = st.session_state.get(DELIVERED_KEY) if _fragment_rerun() and not resend else None
    data, st.session_state[DELIVERED_KEY] = payload(sections, SECTIONS, known)
    _component()(data=data, key=KEY, default={"full_state": False, "opened": []},
                 on_travel_change=_on_travel, on_action_change=_on_action, on_full_state_change=_on_full_state,
                 on_opened_change=_on_opened, on_resend_change=_on_resend, width="stretch")


DELIVERED_KEY = "_inspector_delivered"
"""What the mounted inspector shows (rag_debugger/views/section_delivery.py): a Step sends only what changed."""
RESEND_KEY = "_inspector_resend"


def _on_resend() -> None:
    """The browser lacks a section it was told to keep (mounted afresh): send everything."""
    st.session_state[RESEND_KEY] = True


def _fragment_rerun() -> bool:
    """A Step reruns only the page's fragment, so the mounted inspector kept what it showed; a full
    run of the page may have mounted it afresh, and sends everything."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


