"""RAG debugger: see, step through and tune a retrieval workflow, offline, in a browser.

    streamlit run app.py
"""
from __future__ import annotations

import logging

import streamlit as st

st.set_page_config(page_title="RAG debugger", page_icon="🔎", layout="wide")

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

PAGES = [
    st.Page("pages/debugger.py", title="Step debugger", icon="🪜", default=True),
    st.Page("pages/trace.py", title="Trace explorer", icon="🧾"),
    st.Page("pages/playground.py", title="Prompt playground", icon="🧪"),
    st.Page("pages/history.py", title="Run history", icon="🗂️"),
    st.Page("pages/settings.py", title="Settings", icon="⚙️"),
]

st.navigation(PAGES).run()
