"""The step debugger. The heading is drawn before the debugger's modules are imported: they bring
LangGraph and the engine (~1.5 s cold), and a page that shows its heading at once reads as fast."""
import streamlit as st

from rag.i18n import N_, _
from ui.streamlit_state import run_page

ICON = ":material/step_over:"  # ui.panels.icons.MATERIAL["debugger"], spelled out: that module imports LangGraph
TITLE = N_("Step debugger")  # shown through `_()` when the page draws (the language is per browser session)


def _render() -> None:
    st.title(f"{ICON} {_(TITLE)}")
    from ui.debugger_view import render_page

    render_page()


run_page(_render)
