"""The app's pages and its sidebar navigation, in one place.

Why our own links instead of Streamlit's navigation menu: a URL that names a file in `pages/`
(a bookmarked /playground) makes Streamlit run that file alone in its legacy `pages/` mode, without
app.py, so the menu, the title and the wide layout differed from the app opened at /. Every page
therefore sets up the same layout and draws the same links itself (`page_frame`), and app.py's
`st.navigation` only routes (position "hidden"; `client.showSidebarNavigation` is off).
"""
from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from ui.panels.icons import MATERIAL


SIDEBAR_WIDTH_PX = 220


class PageInfo(NamedTuple):
    path: str
    title: str
    icon: str


PAGES: tuple[PageInfo, ...] = (
    PageInfo("pages/debugger.py", "Step debugger", MATERIAL["debugger"]),
    PageInfo("pages/trace.py", "Trace explorer", MATERIAL["trace"]),
    PageInfo("pages/playground.py", "Prompt playground", MATERIAL["playground"]),
    PageInfo("pages/history.py", "Run history", MATERIAL["history"]),
    PageInfo("pages/settings.py", "Settings", MATERIAL["settings"]),
)


def st_pages() -> list:
    """`st.Page` objects for app.py's router (the first page is the default)."""
    return [st.Page(p.path, title=p.title, icon=p.icon, default=(i == 0)) for i, p in enumerate(PAGES)]


def page_frame() -> None:
    """The layout and the sidebar menu, the same however the page was reached."""
    # A narrow sidebar (Streamlit's default is 300 px): at projector widths (1024, 1280) the page
    # needs the room for the graph beside the step's diff. The user can still drag it wider.
    st.set_page_config(page_title="RAG debugger", page_icon=MATERIAL["app"], layout="wide",
                       initial_sidebar_state=SIDEBAR_WIDTH_PX)
    with st.sidebar:
        for p in PAGES:
            st.page_link(p.path, label=p.title, icon=p.icon, width="stretch")
        st.divider()
