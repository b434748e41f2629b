"""The app's pages and its sidebar navigation, in one place.

Why our own links instead of Streamlit's navigation menu: a URL that names a file in `pages/`
(a bookmarked /playground) makes Streamlit run that file alone in its legacy `pages/` mode, without
app.py, so the menu, the title and the wide layout differed from the app opened at /. Every page
therefore sets up the same layout and draws the same links itself (`page_frame`), and app.py's
`st.navigation` only routes (position "hidden"; `client.showSidebarNavigation` is off).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from rag.i18n import N_, _
from rag_debugger.debugger.html_page import style_element
from rag_debugger.views.icons import MATERIAL

SIDEBAR_WIDTH_PX = 220
FAVICON = Path(__file__).resolve().parent / "static" / "favicon.svg"
PAGE_CSS = Path(__file__).resolve().parent / "static" / "page.css"
"""Every page's frame (its top margin and heading on short screens), so every title starts at one height."""
"""The tab's icon, served by the app itself: a `:material/…:` page icon becomes a favicon link to a
font host on the internet, and the page must make no request to any host but its own."""


class PageInfo(NamedTuple):
    path: str
    title: str
    icon: str


PAGES: tuple[PageInfo, ...] = (
    PageInfo("pages/debugger.py", N_("Step debugger"), MATERIAL["debugger"]),
    PageInfo("pages/your_graph.py", N_("Your graph"), MATERIAL["your_graph"]),
    PageInfo("pages/trace.py", N_("Trace explorer"), MATERIAL["trace"]),
    PageInfo("pages/playground.py", N_("Prompt playground"), MATERIAL["playground"]),
    PageInfo("pages/evaluate.py", N_("Evaluate"), MATERIAL["evaluate"]),
    PageInfo("pages/history.py", N_("Run history"), MATERIAL["history"]),
    PageInfo("pages/compare.py", N_("Compare runs"), MATERIAL["compare"]),
    PageInfo("pages/knowledge_bases.py", N_("Knowledge bases"), MATERIAL["knowledge_bases"]),
    PageInfo("pages/settings.py", N_("Settings"), MATERIAL["settings"]),
)


YOUR_GRAPH_PAGE = "pages/your_graph.py"


def st_pages(default: str | None = None) -> list:
    """`st.Page` objects for app.py's router. The default page (the one `/` opens) is `default`, else
    the first page; app.py makes it "Your graph" when the app was started with a graph to step.

    The default page is served at `/` only, so its own name (`/debugger`, the name every other page's
    URL suggests) would say "Page not found": its script is routed a second time under that name
    (hidden, like every page here). A URL name must be unique, hence `<name>-home` for `/`."""
    default = default if any(p.path == default for p in PAGES) else PAGES[0].path
    pages = []
    for p in PAGES:
        if p.path == default:
            alias = Path(p.path).stem
            pages.append(st.Page(p.path, title=_(p.title), default=True, url_path=f"{alias}-home"))
            pages.append(st.Page(p.path, title=_(p.title), url_path=alias))
        else:
            pages.append(st.Page(p.path, title=_(p.title)))
    return pages


def page_frame(*, footer_later: bool = False):
    """The layout and the sidebar menu, the same however the page was reached. Returns the sidebar's
    foot (a container below the links); with `footer_later` the caller fills it with `sidebar_footer`
    after its first paint (rag_debugger.ui.streamlit_state.run_page), else it is filled here."""
    # A narrow sidebar (Streamlit's default is 300 px): at projector widths (1024, 1280) the page
    # needs the room for the graph beside the step's diff. The user can still drag it wider.
    from rag_debugger.ui.language import resolve_language

    resolve_language()
    st.set_page_config(page_title=_("RAG debugger"), layout="wide", initial_sidebar_state=SIDEBAR_WIDTH_PX)
    st.html(style_element(_page_style()))  # style only: Streamlit puts it aside, it takes no room
    with st.sidebar:
        for p in PAGES:
            st.page_link(p.path, label=_(p.title), icon=p.icon, width="stretch")
        footer = st.container()
    if not footer_later:
        sidebar_footer(footer)
    return footer


@lru_cache(maxsize=1)
def _page_style() -> str:
    return PAGE_CSS.read_text(encoding="utf-8")


def sidebar_footer(footer) -> None:
    """The tab's icon and, in the sidebar's foot, the language picker. Both may wait for the page's first
    paint: Streamlit reads an image icon with numpy and PIL (~0.1 s to import) and looks the picker's
    "中文" up in its emoji catalogue (~0.06 s). Until then the tab shows Streamlit's own icon, served by
    the app: no page has a `:material/…:` icon of its own (`st_pages`), which would become a favicon link
    to a font host on the internet."""
    from rag_debugger.ui.language import language_picker

    st.set_page_config(page_icon=str(FAVICON))
    with footer:
        language_picker()
        st.divider()
