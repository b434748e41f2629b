"""A real browser reads the trace explorer in Chinese: a demo run from a `?lang=zh` link, then every view of
its trace (the groups, "only present", the sub-traces, the raw-only keys), with no English UI string left
on the page. Data (the question, field names, JSON values, the offline rules' reasons) stays as it is."""
from __future__ import annotations

from pathlib import Path

from rag_debugger.ui.navigation import PAGES
from tests.support.browser import ROOT, chromium_page, press_control, settle, streamlit_server, wait_idle, wait_shown
from tests.support.i18n import english_on_page

SHOTS = Path(__file__).resolve().parent / "screenshots"
DEMO = "zh_complex_two_characters"


def _menu_link(page, path: str):
    """The sidebar's link to the page `path` (by position: its text is in the reader's language)."""
    index = [p.path for p in PAGES].index(path)
    return page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"] a').nth(index)


def _no_english(page) -> None:
    assert english_on_page(page) == []


def _open_all(page, selector: str) -> None:
    """Open every closed expander matching `selector` (one click each, each waiting for its rerun)."""
    for summary in page.locator(selector).all():
        details = summary.locator("xpath=ancestor::details[1]")
        if details.count() and details.get_attribute("open") is None:
            summary.click()
            settle(page)


def test_the_trace_explorer_in_chinese_has_no_english_left():
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})  # the README's screenshot size
        page.goto(url + "/trace?lang=zh", wait_until="domcontentloaded")
        wait_shown(page, '[data-testid="stAlert"]', "还没有运行")
        _no_english(page)

        # a run of the demo, on the debugger (reached through the Chinese menu), to its end
        _menu_link(page, "pages/debugger.py").click()
        page.locator(f".st-key-demo_{DEMO} button").first.wait_for(timeout=60_000)
        wait_idle(page)
        page.locator(f".st-key-demo_{DEMO} button").first.click()
        settle(page)
        page.locator('button[data-action="continue"]:not([disabled])').first.wait_for(timeout=60_000)
        press_control(page, "continue")
        wait_shown(page, ".rdi-result")

        _menu_link(page, "pages/trace.py").click()
        wait_shown(page, '[data-testid="stTable"]')
        assert "59 个协议字段中" in page.locator("body").inner_text()
        _no_english(page)
        page.locator('[data-testid="stTable"] td').first.wait_for()
        page.screenshot(path=str(SHOTS / "trace_zh.png"))

        # every group open, then only the present fields
        _open_all(page, '[data-testid="stExpander"] summary')
        _no_english(page)
        page.locator('[data-testid="stCheckbox"] label, [data-testid="stToggle"] label').first.click()
        settle(page)
        wait_shown(page, '[data-testid="stTable"]')
        _no_english(page)
        page.locator('[data-testid="stTable"] td').first.wait_for()
        page.screenshot(path=str(SHOTS / "trace_zh_present.png"))
        assert not page.get_by_text("Traceback").count()
