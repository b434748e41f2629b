"""A real browser on `streamlit run app.py`, the whole loop: run a demo in the step debugger, mark it wrong with
the expected route `no_knowledge` (feedback), add it to a new question set (the form starts from that
correction), run that set on Evaluate (the case fails, and links to
the run it came from), download the set and run it with `python -m rag.eval FILE --min-route-accuracy 1.0`
(exit 1)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import expect

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, open_demo, press_control, settle, streamlit_server, wait_idle, wait_shown
from tests.ui.test_browser_feedback import _pick

SHOTS = Path(__file__).resolve().parent / "screenshots"
ADD = '[class*="st-key-debugger_add_to_set_"]'


def test_a_run_becomes_a_case_that_guards_it(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer" and not d.hitl_answer)
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        open_demo(page, url, demo.id)
        press_control(page, "continue")
        settle(page)
        wait_shown(page, ".st-key-debugger_add_to_set_folded")

        page.locator(".st-key-feedback_folded summary").first.click()  # the run is wrong: it should have said so
        wait_shown(page, ".st-key-feedback_verdict")
        page.locator(".st-key-feedback_verdict").get_by_text("wrong", exact=True).click()
        wait_shown(page, ".st-key-feedback_reason")
        _pick(page, "feedback_reason", "wrong route")
        _pick(page, "feedback_route", "no_knowledge")
        page.locator(".st-key-feedback_save button").click()
        wait_shown(page, '[data-testid="stAlert"]', "Feedback saved: wrong on run")

        page.locator(".st-key-debugger_add_to_set_folded summary").first.click()  # open the folded panel
        wait_shown(page, f'{ADD}[class*="_new_name"] input')
        page.locator(f'{ADD}[class*="_new_name"] input').first.fill("Loop")
        page.locator(f'{ADD}[class*="_new_name"] input').first.press("Tab")
        settle(page)
        page.screenshot(path=str(SHOTS / "add_to_set_form.png"))
        wait_shown(page, '[data-testid="stApp"]', "Starts from the feedback that marked this run wrong: route no_knowledge")
        route = page.locator(f'{ADD}[class*="_route"]').first
        route.scroll_into_view_if_needed()
        expect(route.locator("input").first).to_have_value("no_knowledge")  # the correction, not the run's route
        page.locator(".st-key-debugger_add_to_set_add button").first.click()
        settle(page)
        page.get_by_text("Added case q1 to question set “Loop” (1 case)").first.wait_for(timeout=30_000)
        page.screenshot(path=str(SHOTS / "add_to_set.png"))

        page.goto(url + "/evaluate", wait_until="domcontentloaded")
        wait_idle(page)
        wait_shown(page, ".st-key-qs_evaluate button")
        page.locator(".st-key-qs_evaluate button").first.click()
        settle(page)
        page.get_by_text("The set is picked above").first.wait_for(timeout=30_000)
        page.locator(".st-key-eval_run button").first.click()
        wait_shown(page, ".st-key-eval_confusion table")
        matrix = page.locator(".st-key-eval_confusion table").first
        rows = {r.locator("th").first.inner_text().strip(): [c.inner_text().strip() for c in r.locator("td").all()]
                for r in matrix.locator("tbody tr").all()}
        assert rows == {"no_knowledge": ["1", "0", "0", "0", "0/1"]}  # expected no_knowledge, got answer
        assert page.get_by_text("Loop on bundled").first.is_visible()
        # the person said "wrong" by naming another route: the judge disagrees with them
        page.get_by_text("Agreement between the judge and people").first.wait_for(timeout=10_000)
        link = page.get_by_role("link", name="Open the run it came from").first
        href = link.get_attribute("href")
        assert href.startswith("debugger?run=main-")
        run_id = href.split("run=", 1)[1]
        page.get_by_text("Agreement between the judge and people").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "question_set_agreement.png"))
        page.locator(".st-key-qs_download").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "question_set_editor.png"))

        with page.expect_download() as download:
            page.locator(".st-key-qs_download button").first.click()
        saved = tmp_path / "Loop.jsonl"
        download.value.save_as(saved)
        assert not page.get_by_text("Traceback").count()

        page.goto(url + "/" + href, wait_until="domcontentloaded")  # the link opens the run in the debugger
        wait_idle(page)
        expect(page.get_by_label("Question")).to_have_value(demo.question, timeout=30_000)
        assert f"run={run_id}" in page.url and not page.get_by_text("not in this app's run history").count()

    lines = saved.read_text("utf-8").splitlines()
    case = json.loads(lines[0])
    assert len(lines) == 1 and case["question"] == demo.question and case["expected_route"] == "no_knowledge"
    assert case["from_run"] == run_id and case["verdict"] == "wrong"
    env = {**os.environ, "RAG_MODEL_PROVIDER": "offline"}
    done = subprocess.run([sys.executable, "-m", "rag.eval", str(saved), "--min-route-accuracy", "1.0", "--no-cache"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    assert "MISS q1: expected no_knowledge, got answer" in done.stdout
    assert "route_accuracy: 0.000" in done.stdout
