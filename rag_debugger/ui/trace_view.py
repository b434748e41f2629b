"""The trace explorer page: the current run's rag_trace (see `rag_debugger.ui.panels.trace_explorer`)."""
from __future__ import annotations

import streamlit as st

from rag.i18n import _
from rag_debugger.ui.panels.trace_explorer import render_trace
from rag_debugger.ui.streamlit_state import get_session
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text
from rag_debugger.workbench.run_names import shown_name


def render_page() -> None:
    st.title(MATERIAL["trace"] + " " + _("Trace explorer"))
    session = get_session()
    seg = session.current
    if seg is None:
        st.info(_("No run yet. Start one on the Step debugger page."))
        return
    values = seg.stepper.current_values()
    progress = _("finished") if seg.stepper.done else _("in progress")
    st.caption(_("Question: {question} · {run} · {progress}").format(
        question=as_text(session.question), run=as_text(shown_name(seg.label)), progress=as_text(progress)))
    render_trace(values.get("rag_trace"))
