"""Step through your own LangGraph graph. The heading is drawn before LangGraph is imported.

Not `run_page`: its sidebar banner (the RAG model provider) and its background warm-up (the RAG
retriever, embedder and graphs) have nothing to do with a graph of your own."""
import streamlit as st

from rag.i18n import N_, _
from rag_debugger.ui.navigation import page_frame
from rag_debugger.ui.streamlit_state import guarded_page

TITLE = N_("Your graph")


def _render() -> None:
    st.title(":material/account_tree: " + _(TITLE))
    from rag_debugger.ui.graph_page import render_page

    render_page()


page_frame()
guarded_page(_render)
