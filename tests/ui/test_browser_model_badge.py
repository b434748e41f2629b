"""In a real browser: the sidebar's model badge follows the run's own calls after a connection test of the
same health, and follows each call of a live Continue while it still runs. A Step reruns only the debugger's
fragment, outside which the badge is drawn: going from the connection test to a run's call counts as a
change of the badge (one page rerun); while a step runs off the page, the live view's fragment redraws it."""
from __future__ import annotations

from tests.support.browser import ROOT, chromium_page, load_demo, streamlit_server, wait_idle
from tests.support.fake_openai import SlowStream, running_fake_openai

PLAN = {"complexity": "simple", "complexity_reason": "ping", "sub_questions": []}
GRADE = {"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
         "route": "answer", "reason": "Danjin", "missing_slots": [], "hitl_prompt": "", "hitl_options": []}


def test_the_badge_leaves_the_connection_test_for_the_runs_calls():
    with running_fake_openai() as fake:
        fake.reply(PLAN, schema="ComplexityResult")
        fake.reply(GRADE, schema="EvidenceGrade")
        fake.reply({"answer": "Havoc [1]"}, method="plain")
        env = {"RAG_MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test-badge-0000",
               "RAG_MODEL_MAX_RETRIES": "0", "RAG_MODEL_TIMEOUT_SECONDS": "10"}
        with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
            page.set_viewport_size({"width": 1280, "height": 720})
            page.goto(url + "/settings", wait_until="domcontentloaded")
            wait_idle(page)
            page.get_by_role("button", name="Test connection", exact=True).first.click()
            sidebar = page.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text("connection test").wait_for(timeout=60_000)
            page.goto(url + "/", wait_until="domcontentloaded")
            wait_idle(page)
            page.locator(".rdi-controls").first.wait_for(timeout=60_000)
            page.locator(".st-key-question textarea").fill("What is the attribute of Danjin in the game?")
            page.locator(".st-key-question textarea").press("Tab")
            wait_idle(page)
            page.locator(".rdi-controls").get_by_role("button", name="Run", exact=True).click()
            page.locator(".rdi-result").first.wait_for(timeout=60_000)
            wait_idle(page)
            badge = sidebar.get_by_text("last call OK")
            badge.wait_for(timeout=30_000)
            assert "connection test" not in badge.inner_text(), badge.inner_text()
            assert "grader" in badge.inner_text() or "answerer" in badge.inner_text(), badge.inner_text()


def test_the_badge_follows_each_call_while_a_live_continue_still_runs():
    """A Continue that calls a live model runs off the page; the badge follows its calls in place (drawn by
    the live view's polling fragment), not only once the Continue has ended."""
    with running_fake_openai() as fake:
        fake.reply(PLAN, schema="ComplexityResult")
        fake.script(SlowStream(None, interval=0.1), schema="EvidenceGrade")  # a grader that never stops
        env = {"RAG_MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test-badge-0001",
               "RAG_MODEL_MAX_RETRIES": "0", "RAG_MODEL_TIMEOUT_SECONDS": "120"}
        with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
            page.goto(url, wait_until="domcontentloaded")
            wait_idle(page)
            sidebar = page.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text("not called yet").wait_for(timeout=60_000)
            load_demo(page, "en_answer_temperature")
            page.locator(".rdi-controls").get_by_role("button", name="Continue to end", exact=True).click()
            page.locator('.rdi-live[data-state="running"] .rdi-live-call[data-role="grader"]').wait_for(timeout=60_000)
            # the planner's call ended while the Continue goes on: the badge says so without a page rerun
            sidebar.get_by_text("last call OK (planner").wait_for(timeout=30_000)
            assert page.locator('.rdi-live[data-state="running"]').count() == 1
            assert sidebar.get_by_text("Model:").count() == 1  # redrawn in place, not added below the old one
            page.locator(".rdi-controls").get_by_role("button", name="Stop", exact=True).click()
            page.locator(".rdi-live-note", has_text="Stopped").wait_for(timeout=60_000)
            wait_idle(page)
            assert sidebar.get_by_text("Model:").count() == 1
