"""A real browser (Debian's chromium via Playwright) on `streamlit run app.py`: upload a small
question set on the Evaluate page, run it, see the route confusion matrix, and open the failing
case in the step debugger."""
from __future__ import annotations

import json
from pathlib import Path

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle, wait_shown

SHOTS = Path(__file__).resolve().parent / "screenshots"
CASES = [
    {"id": "temp", "question": "What is the operating temperature range of the Lumen X2?", "expected_route": "answer"},
    {"id": "capital", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"},
    {"id": "pass_price", "question": "月卡的价格是多少？", "expected_route": "clarify"},
    {"id": "wrong_on_purpose", "question": "How do I reset the Nova?", "expected_route": "answer"},
]


def test_upload_a_set_run_it_and_see_the_confusion_matrix(tmp_path):
    set_file = tmp_path / "mine.jsonl"
    set_file.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in CASES) + "\n", "utf-8")
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/evaluate")
        wait_idle(page)
        page.get_by_role("heading", name="Evaluate").first.wait_for(timeout=30_000)
        wait_shown(page, ".st-key-eval_set")  # the app is idle and the picker drawn: a click now opens it
        page.locator(".st-key-eval_set").click()
        page.get_by_role("option", name="Upload a file…").click()
        page.locator('.st-key-eval_upload input[type="file"]').set_input_files(str(set_file))
        # the server has read the file (not only the browser listing it): Run now runs this set
        wait_shown(page, ".st-key-eval_upload_read", "mine.jsonl: 4 cases read")
        page.locator(".st-key-eval_run button").click()

        wait_shown(page, ".st-key-eval_confusion table")
        matrix = page.locator(".st-key-eval_confusion table").first
        rows = {r.locator("th").first.inner_text().strip(): [c.inner_text().strip() for c in r.locator("td").all()]
                for r in matrix.locator("tbody tr").all()}
        # columns: answer, clarify, scope_select, no_knowledge, correct
        assert rows == {"answer": ["1", "0", "1", "0", "1/2"], "clarify": ["0", "1", "0", "0", "1/1"],
                        "no_knowledge": ["0", "0", "0", "1", "1/1"]}
        assert page.get_by_text("mine.jsonl on bundled").first.is_visible()
        matrix.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "evaluate.png"))
        assert not page.get_by_text("Traceback").count()

        # the failing case is the one picked; it opens in the step debugger with its question in the box
        page.get_by_role("button", name="Open in step debugger").first.click()
        box = page.locator(".st-key-question textarea").first
        box.wait_for(timeout=60_000)
        wait_idle(page)
        assert box.input_value() == "How do I reset the Nova?"
        page.get_by_text("Opened the evaluation case").first.wait_for(timeout=30_000)
    assert (SHOTS / "evaluate.png").stat().st_size > 10_000
