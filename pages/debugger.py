"""The step debugger. The heading is drawn before the debugger's modules are imported: they bring
LangGraph and the engine (~1.5 s cold), and a page that shows its heading at once reads as fast."""
import streamlit as st

from ui.streamlit_state import run_page

TITLE = ":material/step_over: Step debugger"  # ui.panels.icons.MATERIAL["debugger"], spelled out: that module imports LangGraph


def _render() -> None:
    st.title(TITLE)
    from ui.debugger_view import render_page

    render_page()


run_page(_render)
