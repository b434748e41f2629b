"""The debugger at projector sizes, in a real browser, from a plain `pip install -r requirements.txt`:
as the page opens, unscrolled, the controls, the whole graph and the current step's diff are on the
first screen (the demos and breakpoints sit beside the question box); the graph's text is big enough
to read; the timeline's columns are all there. Screenshots of each size are written to
tests/ui/screenshots/ to be looked at."""
from __future__ import annotations

from pathlib import Path

import pytest

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, load_demo, press_control, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"
MIN_GRAPH_TEXT_PX = 12.0
"""Node names at 11 units in the SVG must be drawn at least this big (CSS px) after scaling."""


SCROLLED = """() => [window.scrollY, ...[...document.querySelectorAll('[data-testid="stMain"], '
               + '[data-testid="stAppViewContainer"], [data-testid="stMainBlockContainer"]')].map(e => e.scrollTop)]"""
"""How far the window and Streamlit's scrolling containers are scrolled (all 0: the first screen)."""


def box(page, selector: str) -> dict:
    handle = page.locator(selector).first
    handle.wait_for(timeout=30_000)
    return handle.bounding_box()


def step_until(page, n: int) -> None:
    press_control(page, "step")
    page.get_by_text(f"{n} step{'' if n == 1 else 's'} ·").first.wait_for(timeout=30_000)
    wait_idle(page)


@pytest.mark.parametrize("width,height", [(1280, 720), (1024, 768)])
def test_controls_graph_and_diff_fit_one_screen(width, height):
    demo = next(d for d in load_demo_questions() if d.id == "zh_complex_dimensions")
    SHOTS.mkdir(exist_ok=True)
    # no system Graphviz asked for: the layout comes from what requirements.txt installs
    with streamlit_server(ROOT / "app.py", env={"DEBUGGER_GRAPH_LAYOUT": "graphviz-pure"}) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        wait_idle(page)
        load_demo(page, demo.id)
        for n in (1, 2, 3):  # classify, plan, the parallel lanes: the tallest step of the demo
            step_until(page, n)
        page.mouse.move(1, 1)
        page.screenshot(path=str(SHOTS / f"projector_{width}x{height}.png"))
        assert not any(page.evaluate(SCROLLED)), "the page was scrolled: the test is about the first screen"

        controls, graph = box(page, ".rdi-controls"), box(page, ".rdi-graph img")
        step_title, diff_head = box(page, ".rdi-step-title"), box(page, ".rdi-right table thead")
        assert controls["y"] >= 0 and controls["x"] + controls["width"] <= width
        for folded in (".st-key-demos_folded", ".st-key-breakpoints_folded"):  # beside the box, not below it
            assert box(page, folded)["y"] + box(page, folded)["height"] <= controls["y"]
            assert box(page, folded)["x"] > box(page, ".st-key-question textarea")["x"]
        assert graph["y"] >= 0 and graph["y"] + graph["height"] <= height, "the whole graph is on the screen"
        assert graph["x"] + graph["width"] <= step_title["x"], "the graph is beside the step, not above it"
        assert step_title["y"] + step_title["height"] <= height
        assert diff_head["y"] + diff_head["height"] + 40 <= height, "the diff's first row is on the screen"
        # every node name drawn at a readable size: 11 SVG units times the picture's scale (the image
        # keeps its proportions inside its box)
        scale = page.locator(".rdi-graph img").first.evaluate(
            """img => { const svg = atob(img.src.split(',')[1]);
                        const [, , w, h] = svg.match(/viewBox="([^"]+)"/)[1].split(' ').map(Number);
                        const r = img.getBoundingClientRect();
                        return Math.min(r.width / w, r.height / h); }""")
        assert 11 * scale >= MIN_GRAPH_TEXT_PX, f"graph text {11 * scale:.1f}px at {width}x{height}"
        assert page.locator('[data-testid="stGraphVizChart"]').count() == 0  # no second drawing below

        press_control(page, "continue")
        page.get_by_text("· finished").first.wait_for(timeout=30_000)
        wait_idle(page)
        timeline = page.locator("#timeline").first
        timeline.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(SHOTS / f"projector_{width}x{height}_timeline.png"))
        heads = page.eval_on_selector_all("#timeline thead th", "ths => ths.map(th => th.textContent)")
        assert "decision" in heads and "progress (ms since the run began)" in heads
        frame = timeline.evaluate("t => { const s = t.closest('.rdi-scroll'); "
                                  "return [s.scrollWidth, s.clientWidth, s.getBoundingClientRect().right]; }")
        assert frame[0] <= frame[1] + 1, "the timeline is wider than its box: columns are cut"
        assert frame[2] <= width
        for head in ("decision", "progress (ms since the run began)"):
            cell = page.locator("#timeline thead th", has_text=head).first.bounding_box()
            assert cell["x"] + cell["width"] <= width + 0.5, f"the {head} column is cut at {width}px"
