"""The breakpoints the user picked (nodes to pause before; `rag_debugger.debugger.breakpoints` holds the rule).

Kept under a plain session key, not the widget's: the picker sits in a folded expander that is not
drawn while closed, and Streamlit forgets a widget's value when it is not drawn. `scope`: a page of its
own keys (the Your graph page's nodes are not the RAG workflow's; both pages live in one browser session)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

from rag.i18n import _
from rag_debugger.ui.panels.lazy import lazy_popover

BREAKPOINTS_KEY = "_breakpoints"
PICKER_KEY = "breakpoint_pick"


def breakpoints(scope: str = "") -> set[str]:
    return set(st.session_state.get(scope + BREAKPOINTS_KEY) or ())


def _save(scope: str = "") -> None:
    st.session_state[scope + BREAKPOINTS_KEY] = list(st.session_state.get(scope + PICKER_KEY) or [])


def breakpoints_label(chosen: set[str]) -> str:
    """The popover's name: no other control's name in it (a search for the button named "Continue" found
    this one too when it said what Continue does)."""
    if not chosen:
        return _("Breakpoints: none")
    return _("Breakpoints: {nodes}").format(nodes=", ".join(sorted(chosen)))


def breakpoints_help(chosen: set[str]) -> str:
    if not chosen:
        return _("No breakpoints: Continue runs to the end. Open to pick nodes to pause before.")
    return _("Continue pauses before: {nodes}").format(nodes=", ".join(sorted(chosen)))


def render_breakpoints(nodes: list[str], *, scope: str = "", help: Optional[str] = None) -> None:
    """A popover beside the question box: on a projector, a line of its own pushed the graph below
    the fold. `help`: the picker's tooltip (default: the RAG workflow's)."""
    chosen = breakpoints(scope) & set(nodes)
    label = breakpoints_label(chosen)
    with lazy_popover(label, key=scope + "breakpoints_folded", help=breakpoints_help(chosen)) as is_open:
        if is_open:
            st.multiselect(_("Pause before these nodes"), nodes, default=[n for n in nodes if n in chosen],
                           key=scope + PICKER_KEY, on_change=_save, args=(scope,),
                           help=help or _("Continue stops before the next step that would run one of them; Step "
                                          "ignores them; Run runs to the end. On rag_sub_agent it pauses before the "
                                          "fan-out."),
                           placeholder=_("Choose nodes"))
