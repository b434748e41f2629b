"""Your graph at projector sizes: when the graph asks a question (`interrupt()`), the controls and the graph
stay where they were on the first screen and the question's form comes below the controls (it used to sit
above them and push the controls and the graph off the screen). This page's own rows (graph name, examples,
lint, input, breakpoints) stand above its controls, so only the graph's top is held to the first screen here,
not its end. Screenshots go to tests/ui/screenshots/, to be looked at."""
from __future__ import annotations

import pytest

from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle
from tests.ui.test_browser_first_screen import SCROLLED, SHOTS, _box


@pytest.mark.parametrize("width,height", [(1280, 720), (1024, 768)])
def test_an_interrupt_question_keeps_the_controls_and_graph_on_the_first_screen(width, height):
    with streamlit_server(ROOT / "app.py", args=["--graph", "tests.ui.answer_graphs:query_graph"]) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("No run yet").first.wait_for(timeout=30_000)
        page.get_by_role("button", name="Step", exact=True).first.click()
        settle(page)
        question = page.get_by_text("asks you (interrupt)").first
        question.wait_for(timeout=15_000)
        wait_idle(page)
        page.mouse.move(1, 1)
        page.wait_for_timeout(150)
        page.screenshot(path=str(SHOTS / f"your_graph_interrupt_{width}x{height}.png"))
        assert not any(page.evaluate(SCROLLED)), "the page is scrolled"
        controls, graph = _box(page, ".rdi-controls"), _box(page, ".rdi-graph img")
        assert controls and 0 <= controls["y"] and controls["y"] + controls["height"] <= height, controls
        assert graph and 0 <= graph["y"] and graph["y"] + graph["height"] / 2 <= height, ("the graph", graph)
        asked = question.bounding_box()
        assert asked and asked["y"] >= controls["y"] + controls["height"], ("the question is below the controls", asked)
