"""Step through your own LangGraph graph. The heading is drawn before LangGraph is imported."""
import streamlit as st

from ui.streamlit_state import run_page

TITLE = "🧩 Your graph"


def _render() -> None:
    st.title(TITLE)
    from ui.graph_page import render_page

    render_page()


run_page(_render)
