"""The step debugger. The heading, and on a first visit the question box and the demo buttons, are
drawn before the debugger's modules are imported: they bring LangGraph and the engine (~2–3 s cold),
and a demo button that is there at once can be clicked at once (its click loads the engine)."""
import streamlit as st

from rag.i18n import N_, _
from rag_debugger.ui.streamlit_state import run_page

ICON = ":material/step_over:"  # views.icons.MATERIAL["debugger"], spelled out: that module imports LangGraph
TITLE = N_("Step debugger")  # shown through `_()` when the page draws (the language is per browser session)


def _render() -> None:
    st.title(f"{ICON} {_(TITLE)}")
    from rag_debugger.ui.question_row import first_paint

    drawn = first_paint()
    from rag_debugger.ui.debugger_view import render_page

    render_page(question_row_drawn=drawn)


run_page(_render)
