"""A real browser (Debian's chromium via Playwright) on `streamlit run app.py`: open the prompt
playground, edit the grader prompt, run A/B, and see the two results side by side."""
from __future__ import annotations

from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"
EDIT = "\nBE STRICT: answer only when a passage names the attribute word for word."


def test_edit_a_prompt_run_ab_and_see_two_results_side_by_side(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    SHOTS.mkdir(exist_ok=True)
    env = {"RAG_HISTORY_DB": str(tmp_path / "history.db"), "RAG_PROMPT_DIR": str(tmp_path / "prompt_versions")}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")  # through app.py's st.navigation, as a user does
        wait_idle(page)
        page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]').get_by_text("Prompt playground").first.click()
        settle(page)
        page.get_by_role("heading", name="Prompt playground").first.wait_for(timeout=30_000)
        page.get_by_text("grader (grade_documents)").first.click()
        settle(page)

        box = page.locator(".st-key-pg_b_grader textarea").first
        box.wait_for(timeout=15_000)
        original = box.input_value()
        assert "{question}" in original and "{context}" in original
        box.click()
        page.keyboard.press("Control+End")
        page.keyboard.type(EDIT)
        page.locator(".st-key-pg_question input").first.click()  # blur: Streamlit commits the text area
        settle(page)
        page.get_by_text("Valid template").first.wait_for(timeout=15_000)

        page.locator(f".st-key-pg_demo_{demo.id} button").first.click()
        settle(page)
        assert page.locator(".st-key-pg_question input").first.input_value() == demo.question
        page.locator(".st-key-pg_run button").first.click()
        settle(page)

        side_a = page.locator(".st-key-pg_side_a").first
        side_b = page.locator(".st-key-pg_side_b").first
        side_a.wait_for(timeout=60_000)
        side_b.wait_for(timeout=10_000)
        assert "A — current" in side_a.inner_text() and "B — edited" in side_b.inner_text()
        a, b = side_a.bounding_box(), side_b.bounding_box()
        assert a and b and a["x"] + a["width"] <= b["x"] + 1, "B sits to the right of A"
        assert abs(a["y"] - b["y"]) < 5, "A and B start on the same row"
        assert page.get_by_text("ignores prompt text").first.is_visible()
        assert box.input_value().endswith(EDIT.strip())  # the edit is still there after the run
        side_a.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "playground_ab.png"), full_page=True)
        assert not page.get_by_text("Traceback").count()
    assert (SHOTS / "playground_ab.png").stat().st_size > 10_000
