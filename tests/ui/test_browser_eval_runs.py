"""A real browser: run a question set on the Evaluate page, then click the failing case through to the run
the evaluation recorded. Its gold was lost at retrieval, so the debugger opens that run's replay at the
retrieval step, where "Why these chunks?" shows what cut it."""
from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle, wait_shown

SHOTS = Path(__file__).resolve().parent / "screenshots"
CASES = [
    {"id": "temp", "question": "What is the operating temperature range of the Lumen X2?", "expected_route": "answer",
     "expected_sources": ["lumen_x2_manual.md"]},
    # scope_select, not answer; and its gold file is not among the chunks the retrieval kept
    {"id": "wrong_on_purpose", "question": "How do I reset the Nova?", "expected_route": "answer",
     "expected_passages": ["a sentence that no document of the knowledge base holds"]},
]


def test_a_failing_case_opens_its_recorded_run_at_the_retrieval_step(tmp_path):
    set_file = tmp_path / "mine.jsonl"
    set_file.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in CASES) + "\n", "utf-8")
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/evaluate")
        wait_idle(page)
        wait_shown(page, ".st-key-eval_set")
        page.locator(".st-key-eval_set").click()
        page.get_by_role("option", name="Upload a file…").click()
        page.locator('.st-key-eval_upload input[type="file"]').set_input_files(str(set_file))
        wait_shown(page, ".st-key-eval_upload_read", "mine.jsonl: 2 cases read")
        page.locator(".st-key-eval_run button").click()
        wait_shown(page, ".st-key-eval_confusion table")

        link = page.get_by_role("link", name="Open its run at the retrieval step").first
        link.wait_for(timeout=30_000)
        link.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "eval_case_run_link.png"))
        link.click()

        page.wait_for_url(re.compile(r"/debugger\?.*run=main-"), timeout=30_000)
        wait_idle(page)
        page.get_by_text("Replay — recorded run").first.wait_for(timeout=30_000)
        page.locator(".rdi-step-title", has_text="Step 2:").first.wait_for(timeout=15_000)
        assert "retrieve_initial" in page.locator(".rdi-step-title").first.inner_text()
        assert page.get_by_label("Question").input_value() == "How do I reset the Nova?"
        query = {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}
        assert query["step"] == "2" and query["run"].startswith("main-")
        page.screenshot(path=str(SHOTS / "eval_case_run_opened.png"))
        assert not page.get_by_text("Traceback").count()
