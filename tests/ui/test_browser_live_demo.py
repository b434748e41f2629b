"""A real browser (Debian's chromium via Playwright) on `streamlit run app.py`, walked the way a
presenter walks the debugger in front of an audience: HITL options for a clarify question, a new
question after a run ended, the question box across pages, a refused question, /debugger, the
timeline's decisions, and a dead model endpoint."""
from __future__ import annotations

import os
import re
from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle
from tests.support.fake_openai import closed_port_url

SHOTS = Path(os.environ.get("RAG_TEST_SHOTS", "")) if os.environ.get("RAG_TEST_SHOTS") else None
"""Set RAG_TEST_SHOTS to a folder to keep 1280x720 screenshots of these walks (to look at them)."""


def shot(page, name: str, focus: str = ".rdi-controls") -> None:
    if SHOTS is not None:
        page.locator(focus).first.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"))


def control(page, name: str):
    return page.locator(".rdi-controls").get_by_role("button", name=name, exact=True)


def open_app(page, url: str, path: str = "/") -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(url + path, wait_until="domcontentloaded")
    wait_idle(page)
    page.locator(".rdi-controls").first.wait_for(timeout=60_000)


def box(page):
    return page.locator(".st-key-question textarea")


def type_question(page, text: str) -> None:
    """Type into the question box and leave it, which sends it to the app."""
    box(page).fill(text)
    page.locator("h1").first.click()
    settle(page)


def demo(route: str, **match):
    return next(d for d in load_demo_questions() if d.expected_route == route
                and all(getattr(d, k) == v for k, v in match.items()))


def test_clarify_options_are_buttons_and_enter_sends_a_typed_answer():
    typed = demo("clarify", lang="zh")
    clicked = demo("clarify", lang="en")
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        open_app(page, url)
        # a typed answer, sent with Enter
        page.locator(f".st-key-demo_{typed.id} button").first.click()
        settle(page)
        control(page, "Continue to end").click()
        page.get_by_text("The workflow asks you (clarify)").first.wait_for(timeout=30_000)
        wait_idle(page)
        answer = page.get_by_role("textbox", name="Answer")
        answer.fill(typed.hitl_answer)
        answer.press("Enter")
        page.get_by_text("HITL resume #1").first.wait_for(timeout=30_000)
        wait_idle(page)

        # the English clarify question: one button per option, free text still there
        page.locator(".st-key-demos_folded button").first.click()
        page.locator(f".st-key-demo_{clicked.id} button").first.wait_for(timeout=30_000)
        settle(page)
        page.locator(f".st-key-demo_{clicked.id} button").first.click()
        settle(page)
        control(page, "Continue to end").click()
        page.get_by_text("The workflow asks you (clarify)").first.wait_for(timeout=30_000)
        wait_idle(page)
        options = page.locator('[class*="st-key-hitl_opt_"] button')
        labels = [t.strip() for t in options.all_inner_texts()]
        assert clicked.hitl_answer in labels and len(labels) >= 2, labels
        assert page.get_by_role("textbox", name="Answer").is_visible()
        shot(page, "clarify_options", focus='[class*="st-key-hitl_opt_"]')
        page.get_by_role("button", name=clicked.hitl_answer, exact=True).click()
        page.get_by_text("HITL resume #1").first.wait_for(timeout=30_000)
        settle(page)
        control(page, "Continue to end").click()
        page.locator(".rdi-result", has_text=f"Result: {clicked.expected_resume_route}").first.wait_for(timeout=30_000)
        assert not page.get_by_text("Traceback").count()


def test_after_a_run_ends_the_controls_run_the_question_the_box_shows():
    first, second, third = "丹瑾是什么属性？", "What is the capital of Australia?", "今天北京的天气怎么样？"
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        open_app(page, url)
        type_question(page, first)
        control(page, "Run").click()
        page.locator(".rdi-result", has_text="Result: answer").first.wait_for(timeout=30_000)
        wait_idle(page)
        assert control(page, "Step").is_disabled()
        target = page.locator(".rdi-target")
        assert first in target.inner_text()

        # typing a new question turns Step back on and says what it will run, before the box is sent
        box(page).fill(second)
        assert control(page, "Step").is_enabled() and control(page, "Continue to end").is_enabled()
        assert "start the question in the box" in target.inner_text() and second in target.inner_text()
        shot(page, "new_question_named")
        control(page, "Step").click()
        page.get_by_text("1 step · paused before").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.locator(".rdi-target", has_text=f"The controls act on the loaded run: “{second}”").wait_for(timeout=15_000)

        # Restart runs what the box shows, never the older question
        box(page).fill(third)
        control(page, "Restart").click()
        page.locator(".rdi-target", has_text=f"loaded run: “{third}”").wait_for(timeout=30_000)
        wait_idle(page)
        assert page.get_by_text("0 steps · paused before").count()
        control(page, "Continue to end").click()
        page.locator(".rdi-result", has_text="Result: no_knowledge").first.wait_for(timeout=30_000)
        assert not page.get_by_text("Traceback").count()


def timeline_column(page, name: str) -> list[str]:
    heads = [h.strip() for h in page.locator("#timeline thead th").all_inner_texts()]
    col = heads.index(name)
    return [row.locator("td").nth(col).inner_text().strip() for row in page.locator("#timeline tbody tr").all()]


def test_box_pages_refusals_labels_and_the_timeline_read_true():
    """Five small things a presenter trips over; each is checked and reported on its own."""
    fast = next(d for d in load_demo_questions() if "fast path" in d.label)
    broken: list[str] = []
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        # /debugger opens the debugger: it said "Page not found" once the tab had opened the app
        open_app(page, url)
        page.goto(url + "/debugger", wait_until="domcontentloaded")
        wait_idle(page)
        page.locator("h1").first.wait_for(timeout=60_000)
        if page.get_by_text("Page not found").count() or not page.locator("h1", has_text="Step debugger").count():
            broken.append("/debugger does not open the debugger")
            open_app(page, url)
        page.locator(".rdi-controls").first.wait_for(timeout=60_000)

        # a demo label says only what its run does
        label = page.locator(f".st-key-demo_{fast.id} button").first.inner_text()
        page.locator(f".st-key-demo_{fast.id} button").first.click()
        settle(page)
        control(page, "Continue to end").click()
        result = page.locator(".rdi-result", has_text="Result: answer").first
        result.wait_for(timeout=30_000)
        wait_idle(page)
        chunks = int(re.search(r"(\d+) chunks handed", result.inner_text()).group(1))
        claimed = re.search(r"(\d+|one|two|three) chunks?", label)
        if claimed and claimed.group(1) not in (str(chunks), {1: "one", 2: "two", 3: "three"}.get(chunks)):
            broken.append(f"the demo label {label!r} contradicts the {chunks} chunks shown")
        page.locator("#timeline tbody tr").first.wait_for()

        # the timeline shows each decision on the step that made it, once
        nodes, decisions = timeline_column(page, "nodes"), timeline_column(page, "decision")
        assert nodes == ["classify_complexity", "retrieve_initial", "grade_documents"]
        if not (decisions[0] == "complexity=simple" and decisions[1] == "" and decisions[2].startswith("route=answer")):
            broken.append(f"timeline decisions {decisions}")
        shot(page, "timeline_decisions", focus="#timeline")

        # the question box survives a visit to another page
        page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]', has_text="Settings").click()
        page.locator("h1", has_text="Settings").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]', has_text="Step debugger").click()
        page.locator(".rdi-controls").first.wait_for(timeout=30_000)
        wait_idle(page)
        if box(page).input_value() != fast.question:
            broken.append(f"the question box came back as {box(page).input_value()!r}")

        # a refused question shows the reason, not the previous question's result under it
        type_question(page, "问" * 4_001)
        control(page, "Run").click()
        page.get_by_text("4,001 characters").first.wait_for(timeout=30_000)
        wait_idle(page)
        if page.locator(".rdi-result").count() or not page.get_by_text("No run yet").count():
            broken.append("a refused question leaves the previous result on screen")
        shot(page, "refused_question")
        assert not page.get_by_text("Traceback").count()
    assert broken == []


def test_a_dead_model_endpoint_is_a_degraded_run_and_a_red_badge():
    env = {"RAG_MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": closed_port_url(), "OPENAI_API_KEY": "sk-test-DEAD-0000",
           "RAG_MODEL_MAX_RETRIES": "0", "RAG_MODEL_TIMEOUT_SECONDS": "3"}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        open_app(page, url)
        sidebar = page.locator('[data-testid="stSidebar"]')
        assert sidebar.get_by_text("not called yet").count()  # no claim of health before a call
        type_question(page, "丹瑾是什么属性？")
        control(page, "Run").click()
        banner = page.locator(".rdi-degraded")
        banner.wait_for(timeout=60_000)
        wait_idle(page)
        text = banner.inner_text()
        assert "Degraded run" in text and "grader" in text and "connection" in text, text
        result = page.locator(".rdi-result").first
        assert "no_knowledge" in result.inner_text()
        assert banner.bounding_box()["y"] < result.bounding_box()["y"]  # said before the route
        badge = sidebar.get_by_text("last call FAILED")
        badge.wait_for(timeout=30_000)
        assert "grader" in badge.inner_text() and "connection" in badge.inner_text()
        shot(page, "degraded_run")
        assert "sk-test-DEAD-0000" not in page.content()
        assert not page.get_by_text("Traceback").count()
