"""The first screen holds what it promises, at projector sizes, in every state a demo passes through: the
demo loaded, each step, the HITL question, right after the answer (resumed), a replay, after Run and
finished. In each, unscrolled, the controls, the whole graph and the current step's heading are inside the
window; what a run says (messages, the HITL form, the replay banner) is below the graph, never pushing it
down. Screenshots of every state go to tests/ui/screenshots/first_screen_*.png, to be looked at."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.browser import ROOT, chromium_page, load_demo, press_control, settle, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"
SCROLLED = """() => [window.scrollY, ...[...document.querySelectorAll('[data-testid="stMain"], '
               + '[data-testid="stAppViewContainer"], [data-testid="stMainBlockContainer"]')].map(e => e.scrollTop)]"""


def _box(page, selector: str):
    found = page.locator(selector).first
    return found.bounding_box() if found.count() else None


def check(page, state: str, width: int, height: int, *, heading: bool = True) -> None:
    page.mouse.move(1, 1)
    page.wait_for_timeout(150)  # the graph is fitted on the next frame after the page settles
    page.screenshot(path=str(SHOTS / f"first_screen_{state}_{width}x{height}.png"))
    assert not any(page.evaluate(SCROLLED)), f"{state}: the page is scrolled"
    controls, graph = _box(page, ".rdi-controls"), _box(page, ".rdi-graph img")
    assert controls and 0 <= controls["y"] and controls["y"] + controls["height"] <= height, (state, controls)
    assert graph and 0 <= graph["y"] and graph["y"] + graph["height"] <= height, (state, "the whole graph", graph)
    assert graph["height"] >= 0.45 * height - 1, (state, "the graph kept its size", graph)
    title = _box(page, ".rdi-step-title")
    if heading:
        assert title and title["y"] + title["height"] <= height, (state, "the step's heading", title)


def demo(page, demo_id: str) -> None:
    """Load a demo from the folded list beside the question box (a run is loaded: the list is folded)."""
    page.locator(".st-key-demos_folded button").first.click()
    page.locator(f".st-key-demo_{demo_id} button").first.wait_for(timeout=30_000)
    settle(page)
    load_demo(page, demo_id)
    page.keyboard.press("Escape")  # the popover closes with the click; make sure
    page.mouse.click(5, 5)
    settle(page)


def step(page, n: int) -> None:
    press_control(page, "step")
    page.get_by_text(f"· {n} step").first.wait_for(timeout=30_000)
    wait_idle(page)


def finish(page) -> None:
    press_control(page, "continue")
    page.get_by_text("· finished").first.wait_for(timeout=30_000)
    wait_idle(page)


@pytest.mark.parametrize("width,height", [(1280, 720), (1024, 768)])
def test_every_state_of_a_demo_keeps_the_graph_on_the_first_screen(width, height):
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", env={"DEBUGGER_GRAPH_LAYOUT": "graphviz-pure"}) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        wait_idle(page)
        page.locator(".st-key-question textarea").fill("What is the operating temperature range of the Lumen X2?")
        page.locator("h1").first.click()
        settle(page)
        press_control(page, "run")  # a first visit: Run from the box
        page.get_by_text("· finished").first.wait_for(timeout=30_000)
        wait_idle(page)
        check(page, "after_run", width, height)

        demo(page, "zh_complex_dimensions")
        check(page, "demo_loaded", width, height, heading=False)  # nothing has run: no step to head
        for n in (1, 2, 3):  # classify, plan, the parallel lanes
            step(page, n)
            check(page, f"step{n}", width, height)
        finish(page)
        check(page, "finished", width, height)

        demo(page, "en_clarify_platform")
        finish(page)
        page.get_by_text("The workflow asks you (clarify)").first.wait_for(timeout=30_000)
        check(page, "hitl_question", width, height)
        page.get_by_role("button", name="Android", exact=True).click()  # below the graph
        page.get_by_text("HITL resume #1").first.wait_for(timeout=30_000)
        settle(page)
        check(page, "resumed", width, height, heading=False)  # the resume has not stepped yet
        finish(page)
        check(page, "resumed_finished", width, height)

        link = page.url  # the run in a new browser session: a replay of the recorded run
        replay = page.context.browser.new_page(viewport={"width": width, "height": height})
        try:
            replay.goto(link)
            wait_idle(replay)
            replay.locator(".rdi-replay-chip").first.wait_for(timeout=60_000)  # said beside the graph
            replay.locator(".rdi-graph img").first.wait_for(timeout=30_000)
            wait_idle(replay)
            check(replay, "replay", width, height)
            note = _box(replay, '[data-testid="stSidebar"] [data-testid="stAlert"] [data-testid="stMarkdownContainer"]')
            side = _box(replay, '[data-testid="stSidebarUserContent"]')
            assert note and side and note["width"] >= 0.75 * side["width"], "the offline note uses the sidebar's width"
            assert not replay.get_by_text("Traceback").count()
        finally:
            replay.close()
