"""RAG debugger: see, step through and tune a retrieval workflow, offline, in a browser.

    streamlit run app.py
    streamlit run app.py -- --graph my_pkg.agent:graph [--input input.json] [--context my_pkg.agent:Context]

The second form opens the step debugger on your own LangGraph graph ("Your graph" page).
"""
from __future__ import annotations

import logging

import streamlit as st

from rag_debugger.launch import launch_options
from rag_debugger.ui.navigation import YOUR_GRAPH_PAGE, st_pages  # noqa: E402

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
# HTTP client request lines carry endpoint URLs (which may embed credentials); keep them out of the log.
for noisy in ("httpx", "httpcore", "openai"):
    logging.getLogger(noisy).setLevel(logging.WARNING)

# Routing only: each page draws the menu itself (see rag_debugger/ui/navigation.py for why).
# A graph named at launch (`-- --graph module:attr` or RAG_DEBUG_GRAPH) makes "Your graph" the page `/` opens.
# The pages have no icon of their own (rag_debugger/ui/navigation.py st_pages): a `:material/…:` page icon would make the
# browser fetch a favicon from a font host on the internet. The tab's icon is set after the first paint.
st.navigation(st_pages(YOUR_GRAPH_PAGE if launch_options().graph else None), position="hidden").run()
