"""Run history at 1024 px: every filter and action label is whole (none cut to "Hide a…" or "Open in
the s…"), the switch has a line of its own and the actions sit in rows wide enough for their labels."""
from __future__ import annotations

from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle, wait_shown

CUT = """sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
           .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""


def test_history_labels_are_whole_at_1024_px():
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1024, "height": 768})
        page.goto(url + "/history", wait_until="domcontentloaded")
        wait_idle(page)
        wait_shown(page, ".st-key-history_demo_pack button")
        page.locator(".st-key-history_demo_pack button").first.click()
        wait_shown(page, ".st-key-history_open button")
        settle(page)
        labels = ('[data-testid="stWidgetLabel"] p, [data-testid="stWidgetLabel"] div, '
                  '.st-key-history_open button p, .st-key-history_export button p, .st-key-history_delete button p')
        assert page.evaluate(CUT, labels) == []
        open_button = page.locator(".st-key-history_open button").first.bounding_box()
        export = page.locator(".st-key-history_export button").first.bounding_box()
        assert export["y"] > open_button["y"] + open_button["height"] - 1  # the actions take two rows
        assert not page.get_by_text("Traceback").count()
