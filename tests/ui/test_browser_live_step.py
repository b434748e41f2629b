"""Chromium on `streamlit run app.py` with a slow streaming OpenAI-compatible server (tests/support/fake_openai.py
`SlowStream`): a Step shows the planner's tokens while it runs, Step is off and Stop on meanwhile, leaving
the page and coming back shows the step still running, and Stop during a Send lane leaves the run paused
before that node."""
from __future__ import annotations

import json
import time

from tests.support.browser import ROOT, chromium_page, load_demo, streamlit_server, wait_idle
from tests.support.fake_openai import SlowStream, running_fake_openai

PLAN = {"complexity": "complex", "complexity_reason": "two characters",
        "sub_questions": ["丹瑾用什么武器？", "青棠用什么武器？"]}


def pieces(obj: dict, size: int = 4) -> list[str]:
    text = json.dumps(obj, ensure_ascii=False)
    return [text[i:i + size] for i in range(0, len(text), size)]


def control(page, name: str):
    return page.locator(".rdi-controls").get_by_role("button", name=name, exact=True)


def position(page) -> str:
    return page.locator(".rdi-position").first.inner_text()


def test_tokens_appear_while_a_step_runs_and_stop_in_a_lane_leaves_the_run_before_it():
    with running_fake_openai() as fake:
        fake.script(SlowStream(pieces(PLAN), interval=0.15), schema="ComplexityResult")  # ~6 s of tokens
        fake.script(SlowStream(None, interval=0.1), schema="EvidenceGrade")  # a grader that never stops
        env = {"RAG_MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test-live",
               "FAST_MODEL": "fast-model", "GRADE_MODEL": "grade-model", "RAG_MODEL_MAX_RETRIES": "0",
               "RAG_MODEL_TIMEOUT_SECONDS": "120"}
        with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
            page.goto(url, wait_until="domcontentloaded")
            wait_idle(page)
            load_demo(page, "zh_complex_two_characters")

            control(page, "Step").click()
            planner = page.locator('.rdi-live-call[data-role="planner"] .rdi-live-text')
            planner.filter(has_text='{"complexity').first.wait_for(timeout=60_000)
            # the tokens are on the page while the step still runs
            assert page.locator('.rdi-live[data-state="running"]').count() == 1
            assert "0 steps" in position(page)
            assert control(page, "Step").is_disabled() and control(page, "Continue to end").is_disabled()
            assert control(page, "Stop").is_enabled()
            shown_while_running = planner.first.inner_text()
            page.get_by_text("1 step · paused before").first.wait_for(timeout=60_000)
            assert len(shown_while_running) < len(json.dumps(PLAN, ensure_ascii=False))
            assert control(page, "Stop").count() == 0 and control(page, "Step").is_enabled()

            control(page, "Step").click()  # prepare_sub_questions: no model call
            page.get_by_text("2 steps · paused before").first.wait_for(timeout=60_000)
            wait_idle(page)
            assert "rag_sub_agent" in position(page)

            control(page, "Step").click()  # the fan-out: a grader streams in a lane
            lane_call = page.locator('.rdi-lane .rdi-live-call[data-role="grader"] .rdi-live-text')
            lane_call.filter(has_text='"').first.wait_for(timeout=60_000)
            assert page.locator(".rdi-lane-title", has_text="丹瑾用什么武器？").count() == 1

            # another page and back: the step is still running, and shown as such
            page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]', has_text="Trace explorer").click()
            page.locator("h1", has_text="Trace explorer").first.wait_for(timeout=60_000)
            page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]', has_text="Step debugger").click()
            page.locator('.rdi-live[data-state="running"] .rdi-lane').first.wait_for(timeout=60_000)
            assert control(page, "Step").is_disabled()

            control(page, "Stop").click()
            page.locator(".rdi-live-note", has_text="Stopped: grader call cancelled after").wait_for(timeout=60_000)
            assert "2 steps" in position(page) and "rag_sub_agent" in position(page)
            assert control(page, "Step").is_enabled()
            # the stream was closed: a local server stops generating (the server notices at its next write)
            deadline = time.monotonic() + 20
            while fake.closed_early < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert fake.closed_early >= 1
            assert not page.get_by_text("Traceback").count()
