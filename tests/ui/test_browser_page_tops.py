"""Every page's title starts at the same height as the step debugger's. On short screens the other pages
kept Streamlit's own top padding (6rem) while the debugger's inspector style sheet set 0.5rem, so going
from the debugger to History, Settings or Evaluate moved the title ~90 px down over empty space. The frame
every page draws now holds the rule (rag_debugger/ui/static/page.css). Screenshots of the debugger and the
history go to tests/ui/screenshots/, to be looked at."""
from __future__ import annotations

import pytest

from rag_debugger.ui.navigation import PAGES
from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle, wait_shown
from tests.ui.test_browser_first_screen import SHOTS

HEADING = '[data-testid="stMain"] h1'


def _url_name(path: str) -> str:
    return path.removeprefix("pages/").removesuffix(".py")


@pytest.mark.parametrize("width,height", [(1280, 720), (1024, 768), (1500, 1100)])
def test_every_page_starts_its_title_where_the_debugger_does(tmp_path, width, height):
    SHOTS.mkdir(exist_ok=True)
    env = {"RAG_HISTORY_DB": str(tmp_path / "history.db"), "RAG_PROMPT_DIR": str(tmp_path / "prompt_versions")}
    tops: dict[str, float] = {}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.set_viewport_size({"width": width, "height": height})
        for info in PAGES:
            name = _url_name(info.path)
            page.goto(f"{url}/{name}", wait_until="domcontentloaded")
            wait_shown(page, HEADING)
            wait_idle(page)
            heading = page.locator(HEADING).first
            box = heading.bounding_box()
            assert box is not None, name
            tops[name] = box["y"]
            if name in ("debugger", "history"):
                page.mouse.move(1, 1)
                page.screenshot(path=str(SHOTS / f"page_top_{name}_{width}x{height}.png"))
    debugger = tops["debugger"]
    assert {name: top for name, top in tops.items() if abs(top - debugger) > 3} == {}, tops
    if height <= 820:  # a short screen: the title is near the top, not below an empty band
        assert debugger < 40, tops
