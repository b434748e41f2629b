"""The app's pages and its sidebar navigation, in one place.

Why our own links instead of Streamlit's navigation menu: a URL that names a file in `pages/`
(a bookmarked /playground) makes Streamlit run that file alone in its legacy `pages/` mode, without
app.py, so the menu, the title and the wide layout differed from the app opened at /. Every page
therefore sets up the same layout and draws the same links itself (`page_frame`), and app.py's
`st.navigation` only routes (position "hidden"; `client.showSidebarNavigation` is off).
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import streamlit as st


class PageInfo(NamedTuple):
    path: str
    title: str
    icon: str


PAGES: tuple[PageInfo, ...] = (
    PageInfo("pages/debugger.py", "Step debugger", "🪜"),
    PageInfo("pages/trace.py", "Trace explorer", "🧾"),
    PageInfo("pages/playground.py", "Prompt playground", "🧪"),
    PageInfo("pages/evaluate.py", "Evaluate", "🧮"),
    PageInfo("pages/history.py", "Run history", "🗂️"),
    PageInfo("pages/settings.py", "Settings", "⚙️"),
)


def st_pages() -> list:
    """`st.Page` objects for app.py's router (the first page is the default).

    The default page is served at `/` only, so `/debugger`, the name every other page's URL
    suggests, would say "Page not found": the debugger's script is routed a second time under
    its own name (hidden, like every page here)."""
    first = PAGES[0]
    alias = Path(first.path).stem
    # A page's URL name must be unique even for the default page (served at `/`), hence its own name.
    pages = [st.Page(first.path, title=first.title, icon=first.icon, default=True, url_path=f"{alias}-home")]
    pages += [st.Page(p.path, title=p.title, icon=p.icon) for p in PAGES[1:]]
    pages.append(st.Page(first.path, title=first.title, icon=first.icon, url_path=alias))
    return pages


def page_frame() -> None:
    """The layout and the sidebar menu, the same however the page was reached."""
    st.set_page_config(page_title="RAG debugger", page_icon="🔎", layout="wide")
    with st.sidebar:
        for p in PAGES:
            st.page_link(p.path, label=p.title, icon=p.icon, width="stretch")
        st.divider()
