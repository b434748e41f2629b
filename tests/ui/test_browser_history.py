"""A real browser: load the demo pack on the history page, export a run, open it in the step
debugger in replay mode and step through the recording, with nothing executed."""
from __future__ import annotations

import json

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle
from ui.navigation import PAGES


def test_demo_pack_replays_in_the_debugger(tmp_path):
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url + "/history")  # a bookmarked page: the same app, menu and layout as at /
        wait_idle(page)
        menu = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]')
        menu.first.wait_for(timeout=30_000)
        assert menu.count() == len(PAGES) and page.locator('[data-testid="stSidebarNav"]').count() == 0
        page.locator(".st-key-history_demo_pack button").first.click()
        page.get_by_text("Open at step").first.wait_for(timeout=30_000)
        wait_idle(page)

        with page.expect_download() as download:
            page.locator(".st-key-history_export button").first.click()
        exported = json.loads(download.value.path().read_text(encoding="utf-8"))
        assert exported["checkpoints"]

        page.locator(".st-key-history_open button").first.click()
        page.get_by_text("Replay — recorded run, no model and no knowledge base").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.get_by_role("button", name="⏭ Step").click()
        page.get_by_text("1 steps ·").first.wait_for(timeout=30_000)
        wait_idle(page)
        assert page.get_by_role("button", name="▶ Run").is_disabled()
        page.get_by_role("button", name="⏩ Continue to end").click()
        page.get_by_text("finished").first.wait_for(timeout=30_000)
        assert not page.get_by_text("Traceback").count()
