"""A real browser on two app servers sharing one PostgreSQL history (a throw-away cluster the suite starts):
a run being stepped on one server is listed on the other, still running (the second server's start did not
mark it abandoned), and its link opens there as a read-only replay at the linked step."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, load_demo, press_control, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"


def _params(page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def _step(page) -> None:
    press_control(page, "step")
    page.wait_for_timeout(150)
    wait_idle(page)


def test_two_servers_on_one_database_see_each_others_runs(postgres_server):
    demo = next(d for d in load_demo_questions() if d.expected_route == "rewrite_then_answer")
    env = {"RAG_HISTORY_URL": postgres_server.new_database()}
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", env=env) as url_a, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(url_a, wait_until="domcontentloaded")
        wait_idle(page)
        load_demo(page, demo.id)
        _step(page)
        _step(page)
        page.wait_for_url(re.compile(r"[?&]step=2\b"), timeout=15_000)
        run_id = _params(page)["run"]
        link = page.url.split("/", 3)[3]

        with streamlit_server(ROOT / "app.py", env=env) as url_b:
            # a colleague: another browser (its own cookies) on the other server
            colleague = page.context.browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            colleague.goto(url_b + "/history", wait_until="domcontentloaded")
            wait_idle(colleague)
            # listed on the other server, and still running: B's start marked only its own leftovers
            colleague.get_by_text(f"run {run_id} · main · running").first.wait_for(timeout=30_000)
            colleague.get_by_text("shared by every app server").first.wait_for(timeout=5_000)
            colleague.screenshot(path=str(SHOTS / "shared_history_other_server.png"))

            colleague.goto(url_b + "/" + link, wait_until="domcontentloaded")  # the link, opened on server B
            wait_idle(colleague)
            colleague.get_by_text("Replay — recorded run").first.wait_for(timeout=30_000)
            colleague.locator(".rdi-step-title", has_text="Step 2:").first.wait_for(timeout=10_000)
            assert colleague.get_by_label("Question").input_value() == demo.question
            assert not colleague.get_by_text("Traceback").count()
            colleague.screenshot(path=str(SHOTS / "shared_history_replay.png"))

        _step(page)  # the owner goes on stepping, live, on server A
        page.locator(".rdi-step-title", has_text="Step 3:").first.wait_for(timeout=15_000)
        assert not page.get_by_text("Replay — recorded run").count()
