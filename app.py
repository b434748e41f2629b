"""RAG debugger: see, step through and tune a retrieval workflow, offline, in a browser.

    streamlit run app.py
"""
from __future__ import annotations

import logging

import streamlit as st

from ui.navigation import st_pages  # noqa: E402

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
# HTTP client request lines carry endpoint URLs (which may embed credentials); keep them out of the log.
for noisy in ("httpx", "httpcore", "openai"):
    logging.getLogger(noisy).setLevel(logging.WARNING)

# Routing only: each page draws the menu itself (see ui/navigation.py for why).
st.navigation(st_pages(), position="hidden").run()
