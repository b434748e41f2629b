"""The trace explorer page: the current run's rag_trace (see `ui.panels.trace_explorer`)."""
from __future__ import annotations

import streamlit as st

from ui.panels.icons import MATERIAL
from ui.panels.trace_explorer import render_trace
from ui.streamlit_state import get_session
from ui.text import as_text


def render_page() -> None:
    st.title(f"{MATERIAL['trace']} Trace explorer")
    session = get_session()
    seg = session.current
    if seg is None:
        st.info("No run yet. Start one on the Step debugger page.")
        return
    values = seg.stepper.current_values()
    st.caption(f"Question: {as_text(session.question)} · {as_text(seg.label)} · "
               f"{'finished' if seg.stepper.done else 'in progress'}")
    render_trace(values.get("rag_trace"))
