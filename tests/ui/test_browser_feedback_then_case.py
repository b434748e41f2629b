"""A real browser: the verdict and corrections given as feedback ("wrong, expected no_knowledge", the words
the answer must say) reach the case "Add to a question set" stores, whichever of the two panels was opened
first. The form reads the feedback when it is drawn and when it is used, never only when first drawn."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, open_demo, press_control, settle, streamlit_server, wait_shown
from tests.ui.test_browser_feedback import _pick

ADD = '[class*="st-key-debugger_add_to_set_"]'


def _give_feedback(page) -> None:
    page.locator(".st-key-feedback_folded summary").first.click()
    wait_shown(page, ".st-key-feedback_verdict")
    page.locator(".st-key-feedback_verdict").get_by_text("wrong", exact=True).click()
    wait_shown(page, ".st-key-feedback_reason")
    _pick(page, "feedback_reason", "wrong route")
    _pick(page, "feedback_route", "no_knowledge")
    page.locator(".st-key-feedback_words input").fill("not in the manual")
    page.locator(".st-key-feedback_words input").press("Tab")
    settle(page)
    page.locator(".st-key-feedback_save button").click()
    wait_shown(page, '[data-testid="stAlert"]', "Feedback saved: wrong on run")


def _open_add(page) -> None:
    page.locator(".st-key-debugger_add_to_set_folded summary").first.click()
    wait_shown(page, f'{ADD}[class*="_new_name"] input')


@pytest.mark.parametrize("order", ["feedback_first", "add_panel_first"])
def test_the_feedback_reaches_the_case_in_either_order(order):
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer" and not d.hitl_answer)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        open_demo(page, url, demo.id)
        press_control(page, "continue")
        settle(page)
        wait_shown(page, ".st-key-debugger_add_to_set_folded")
        if order == "feedback_first":
            _give_feedback(page)
            _open_add(page)
        else:
            _open_add(page)
            route = page.locator(f'{ADD}[class*="_route"]').first
            expect(route.locator("input").first).to_have_value("answer")  # the run's route: no feedback yet
            _give_feedback(page)
        wait_shown(page, '[data-testid="stApp"]', "Starts from the feedback that marked this run wrong: route no_knowledge")
        route = page.locator(f'{ADD}[class*="_route"]').first
        route.scroll_into_view_if_needed()
        expect(route.locator("input").first).to_have_value("no_knowledge")
        expect(page.locator(f'{ADD}[class*="_words"] input').first).to_have_value("not in the manual")
        page.locator(f'{ADD}[class*="_new_name"] input').first.fill("Order")
        page.locator(f'{ADD}[class*="_new_name"] input').first.press("Tab")
        settle(page)
        page.locator(".st-key-debugger_add_to_set_add button").first.click()
        settle(page)
        page.get_by_text("Added case q1 to question set “Order” (1 case)").first.wait_for(timeout=30_000)
        assert not page.get_by_text("Traceback").count()

    from rag_debugger.ui.panels.add_to_set import set_store

    store = set_store()
    (summary,) = store.list_sets()
    (stored,) = store.get(summary.set_id).cases
    case = stored.case
    assert (case.expected_route, case.verdict) == ("no_knowledge", "wrong")
    assert case.expected_answer_contains == ["not in the manual"]
