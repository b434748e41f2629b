"""A real browser (Debian's chromium via Playwright) on `streamlit run app.py`: click a demo,
step, reach a HITL question, answer it with an option button, and see the resumed result."""
from __future__ import annotations

from pathlib import Path

from rag.demo import load_demo_questions

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"


def click(page, name: str, *, exact: bool = True) -> None:
    page.get_by_role("button", name=name, exact=exact).first.click()
    page.wait_for_timeout(150)
    wait_idle(page)


def test_demo_to_hitl_option_and_back_to_a_result(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "scope_select" and d.hitl_answer)
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        # the graph: an SVG laid out on the server by Graphviz (scripts/test.sh installs it)
        graph = page.locator('[data-testid="stImage"] img').first
        graph.wait_for(timeout=30_000)
        assert graph.evaluate("img => img.naturalWidth") > 200
        page.locator(".st-key-graph_interactive label").first.click()  # the in-browser renderer
        page.wait_for_selector('[data-testid="stGraphVizChart"] svg g.node', timeout=30_000)
        assert page.locator('[data-testid="stGraphVizChart"] svg g.node').count() >= 10

        page.locator(f".st-key-demo_{demo.id} button").first.click()  # Streamlit tags a widget with its key
        page.wait_for_timeout(150)
        wait_idle(page)
        page.get_by_text("0 steps · paused before").first.wait_for(timeout=30_000)
        click(page, "⏭ Step")
        page.get_by_text("Step 1:").first.wait_for(timeout=15_000)
        wait_idle(page)
        # clicking a row of the timeline travels back to that step (the grid draws on a canvas)
        grid = page.locator('[class*="st-key-timeline_table"]').first
        box = grid.bounding_box()
        marker = (box["x"] + 18, box["y"] + 35 + 17)  # the row marker of the first data row
        page.mouse.move(*marker)
        page.wait_for_timeout(200)
        page.mouse.click(*marker)
        page.get_by_text("nothing was re-run").first.wait_for(timeout=15_000)
        wait_idle(page)
        click(page, "⏩ Continue to end")
        page.get_by_text("The workflow asks you").first.wait_for(timeout=30_000)
        page.screenshot(path=str(SHOTS / "hitl_question.png"), full_page=True)

        option = page.get_by_role("button", name=demo.hitl_answer, exact=True)
        assert option.count() == 1, "the expected option button is shown"
        option.click()
        page.wait_for_timeout(150)
        wait_idle(page)
        page.get_by_text("HITL resume #1").first.wait_for(timeout=15_000)
        click(page, "⏩ Continue to end")
        page.get_by_text(f"Result: {demo.expected_resume_route}").first.wait_for(timeout=30_000)
        page.screenshot(path=str(SHOTS / "resumed_result.png"), full_page=True)
        # lazy panels: built only when opened
        assert page.get_by_text('hitl_snapshot').count() == 0
        page.get_by_text("Full state", exact=True).click()
        page.get_by_text("hitl_snapshot").first.wait_for(timeout=15_000)
        assert not page.get_by_text("Traceback").count()
    assert (SHOTS / "resumed_result.png").stat().st_size > 10_000
