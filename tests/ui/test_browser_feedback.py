"""A real browser: open a demo run in the step debugger, mark it wrong with the expected route no_knowledge and a
note full of markup, then find it on Run history filtered by "Marked wrong", the note shown as plain text."""
from __future__ import annotations

from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_shown

RUN = "demo-en_no_knowledge"
NOTE = "**bold** ![x](http://127.0.0.1:9/x.png) <img src=x> tail"


def _pick(page, widget_key: str, option: str) -> None:
    settle(page)
    for attempt in range(3):  # a click that lands while the fragment redraws the box opens nothing: open it again
        page.locator(f".st-key-{widget_key} [role='combobox']").first.click()
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=5_000)
            break
        except Exception:  # noqa: BLE001
            if attempt == 2:
                raise
            page.keyboard.press("Escape")
    settle(page)


def test_feedback_on_a_demo_run_shows_on_run_history_filtered_by_wrong():
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        fetched: list[str] = []
        page.on("request", lambda request: fetched.append(request.url))
        page.goto(url + "/history", wait_until="domcontentloaded")
        wait_shown(page, ".st-key-history_demo_pack button")
        page.locator(".st-key-history_demo_pack button").first.click()
        wait_shown(page, ".st-key-history_open button")
        page.locator(".st-key-history_run [role='combobox']").first.click()
        page.get_by_role("option").filter(has_text="capital of Australia").first.click()
        settle(page)
        page.locator(".st-key-history_open button").first.click()
        wait_shown(page, '[data-testid="stApp"]', "Replay — recorded run")

        page.locator(".st-key-feedback_folded summary").first.click()  # the folded panel under the position
        wait_shown(page, ".st-key-feedback_verdict")
        page.locator(".st-key-feedback_verdict").get_by_text("wrong", exact=True).click()
        wait_shown(page, ".st-key-feedback_reason")
        _pick(page, "feedback_reason", "wrong route")
        page.locator(".st-key-feedback_note textarea").fill(NOTE)
        _pick(page, "feedback_route", "no_knowledge")
        page.locator(".st-key-feedback_save button").click()
        wait_shown(page, '[data-testid="stAlert"]', "Feedback saved: wrong on run")
        wait_shown(page, '[data-testid="stApp"]', "Feedback on this run: wrong ×1")

        page.goto(url + "/history", wait_until="domcontentloaded")
        wait_shown(page, ".st-key-history_feedback_filter")
        _pick(page, "history_feedback_filter", "Marked wrong")
        wait_shown(page, '[data-testid="stApp"]', "Feedback on this run: wrong ×1")
        page.locator(".st-key-history_run [role='combobox']").first.click()  # the only run left: the one marked wrong
        options = page.get_by_role("option")
        options.first.wait_for()
        assert options.count() == 1 and "capital of Australia" in options.first.inner_text()
        page.keyboard.press("Escape")
        page.locator(".st-key-history_feedback_folded summary").first.click()
        wait_shown(page, '[data-testid="stMarkdown"]', "**bold** ![x](http://127.0.0.1:9/x.png) <img src=x> tail")
        panel = page.locator(".st-key-history_feedback_folded")
        assert panel.locator("img").count() == 0 and panel.locator("strong", has_text="bold").count() == 0
        assert "route no_knowledge" in panel.inner_text()
        assert not any(u.startswith("http://127.0.0.1:9/") for u in fetched)  # the note's image was never fetched
        assert not page.get_by_text("Traceback").count()
