"""A real browser: load the demo pack on the history page, export a run, open it in the step
debugger in replay mode and step through the recording, with nothing executed."""
from __future__ import annotations

import json

from rag_debugger.ui.navigation import PAGES
from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_shown


def test_demo_pack_replays_in_the_debugger(tmp_path):
    """Every wait follows the app's script-run state (`wait_shown`), not a fixed timeout: on a busy 2-core
    machine the replay once took longer than 30 s to appear."""
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url + "/history")  # a bookmarked page: the same app, menu and layout as at /
        wait_shown(page, '[data-testid="stSidebar"] [data-testid="stPageLink"]')
        menu = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]')
        assert menu.count() == len(PAGES) and page.locator('[data-testid="stSidebarNav"]').count() == 0
        page.locator(".st-key-history_demo_pack button").first.click()
        wait_shown(page, ".st-key-history_open button")

        with page.expect_download() as download:
            page.locator(".st-key-history_export button").first.click()
        exported = json.loads(download.value.path().read_text(encoding="utf-8"))
        assert exported["checkpoints"]

        page.locator(".st-key-history_open button").first.click()
        wait_shown(page, '[data-testid="stApp"]', "Replay — recorded run, no model and no knowledge base")
        page.get_by_role("button", name="Step", exact=True).click()
        wait_shown(page, '[data-testid="stApp"]', "1 step ·")
        assert page.get_by_role("button", name="Run", exact=True).is_disabled()
        page.get_by_role("button", name="Continue to end", exact=True).click()
        wait_shown(page, '[data-testid="stApp"]', "finished")
        assert not page.get_by_text("Traceback").count()
