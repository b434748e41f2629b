"""Offline means offline: every page, opened in Chromium, asks nothing of any host but the app's own (the
review found every page fetching its favicon from a font host on the internet). Requests elsewhere are
aborted and counted; the count must be zero."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle
from ui.navigation import PAGES


def test_no_page_asks_any_host_but_the_apps_own():
    with streamlit_server(ROOT / "app.py", args=["--graph", "examples.chain:graph"]) as url, chromium_page() as page:
        own = urlsplit(url).netloc
        outside: list[str] = []

        def route(r):
            if urlsplit(r.request.url).netloc in (own, "") or r.request.url.startswith(("data:", "blob:")):
                r.continue_()
            else:
                outside.append(r.request.url)
                r.abort()

        page.context.route("**/*", route)
        paths = ["/", *(f"/{Path(p.path).stem}" for p in PAGES)]
        for path in paths:
            page.goto(url + path)
            wait_idle(page)
            page.wait_for_timeout(300)  # late requests: icons, fonts, metrics
            icons = page.locator('link[rel~="icon"]').evaluate_all("els => els.map(e => e.href)")
            assert all(urlsplit(h).netloc in (own, "") or h.startswith("data:") for h in icons), (path, icons)
        assert outside == [], outside
