"""A real browser: the URL names the run and the step being viewed. F5 mid-run goes on with the
same run, live; a link opens the run at its step (replayed after the server restarted); a bad link
gets a message; the unfinished run shows as abandoned in the history, which can hide it."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, open_demo, press_control, settle, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"


def _params(page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def _step(page) -> None:
    press_control(page, "step")
    settle(page)


def _title(page) -> str:
    return page.locator(".rdi-step-title").first.inner_text()


def test_reload_and_links_open_the_run_at_the_step(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "rewrite_then_answer")  # 6 steps
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        open_demo(page, url, demo.id)
        _step(page)
        _step(page)
        page.wait_for_url(re.compile(r"[?&]step=2\b"), timeout=15_000)
        run_id = _params(page)["run"]
        assert run_id.startswith("main-")

        page.reload(wait_until="domcontentloaded")  # F5 mid-run: the same run, live, at the same step
        wait_idle(page)
        page.locator(".rdi-step-title", has_text="Step 2:").first.wait_for(timeout=30_000)
        assert "retrieve_initial" in _title(page)
        assert page.get_by_label("Question").input_value() == demo.question
        page.get_by_text("2 steps · paused before").first.wait_for(timeout=5_000)
        assert not page.get_by_text("Replay — recorded run").count()
        page.screenshot(path=str(SHOTS / "reload_mid_run.png"))
        assert _params(page) == {"run": run_id, "step": "2"}
        _step(page)  # and it goes on
        page.locator(".rdi-step-title", has_text="Step 3:").first.wait_for(timeout=15_000)
        page.wait_for_url(re.compile(r"[?&]step=3\b"), timeout=15_000)

        page.locator("#timeline tbody tr").first.click()  # travel: the URL follows
        page.wait_for_url(re.compile(r"[?&]step=1\b"), timeout=15_000)
        wait_idle(page)
        link = page.url

        page.goto(url + "/?run=no-such-run&step=x", wait_until="domcontentloaded")  # a bad link
        wait_idle(page)
        page.get_by_text("not in this app's run history").first.wait_for(timeout=30_000)
        page.get_by_text("No run yet").first.wait_for(timeout=5_000)
        assert not page.get_by_text("Traceback").count()

    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:  # the server restarted
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/" + link.split("/", 3)[3], wait_until="domcontentloaded")  # the link, sent to a colleague
        wait_idle(page)
        page.get_by_text("Replay — recorded run").first.wait_for(timeout=30_000)  # from the history
        page.locator(".rdi-step-title", has_text="Step 1:").first.wait_for(timeout=5_000)
        assert "classify_complexity" in _title(page)
        page.get_by_text("1 step · paused before").first.wait_for(timeout=5_000)  # Step walks on from there
        assert page.get_by_label("Question").input_value() == demo.question
        page.screenshot(path=str(SHOTS / "link_after_restart.png"))

        page.goto(url + "/history", wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text(f"run {run_id} · main · abandoned").first.wait_for(timeout=30_000)
        page.get_by_text("never finished").first.wait_for(timeout=5_000)
        page.screenshot(path=str(SHOTS / "history_abandoned.png"))
        page.get_by_text("Hide abandoned runs").first.click()
        page.get_by_text("Every run in the history was abandoned").first.wait_for(timeout=15_000)
        assert not page.get_by_text("Traceback").count()


def test_a_reload_at_a_hitl_question_can_still_answer_it(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.hitl_answer)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        open_demo(page, url, demo.id)
        press_control(page, "continue")
        page.get_by_text("The workflow asks you").first.wait_for(timeout=30_000)
        page.wait_for_url(re.compile(r"[?&]run=main-"), timeout=15_000)
        wait_idle(page)

        colleague = page.context.browser.new_context().new_page()  # another browser, same link
        colleague.goto(page.url, wait_until="domcontentloaded")
        wait_idle(colleague)
        colleague.get_by_text("Replay — recorded run").first.wait_for(timeout=30_000)  # never the owner's session
        colleague.get_by_text("The workflow asked (clarify) — recorded").first.wait_for(timeout=5_000)
        colleague.close()

        page.reload(wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("The workflow asks you").first.wait_for(timeout=30_000)  # live, not a recording
        assert not page.get_by_text("Replay — recorded run").count()
        page.get_by_role("textbox", name="Answer").fill(demo.hitl_answer)
        page.get_by_role("button", name="Send answer").click()
        page.get_by_text("HITL resume #1").first.wait_for(timeout=15_000)
        wait_idle(page)
        page.wait_for_url(re.compile(r"[?&]run=resume-"), timeout=15_000)  # the link follows the newest run
        assert not page.get_by_text("Traceback").count()
