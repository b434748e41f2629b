"""A real browser: clicking a timeline row moves the graph to that step, in the graph that step
ran in (the main run's, even after a HITL resume)."""
from __future__ import annotations

from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, open_demo, press_control, settle, streamlit_server, wait_idle
from tests.support.graph_probe import graph_markup, node_fill, rgb

SHOTS = Path(__file__).resolve().parent / "screenshots"
DONE = rgb("#a5d6a7")
CURRENT = rgb("#ffb74d")


def _click_control(page, action: str) -> None:
    press_control(page, action)
    settle(page)


def _travel(page, row: int) -> None:
    page.locator("#timeline tbody tr").nth(row).click()
    page.get_by_text(f"Viewing the state after step {row + 1} ").first.wait_for(timeout=15_000)
    wait_idle(page)


def test_a_timeline_click_moves_the_graph_even_after_a_resume(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.hitl_answer)
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        open_demo(page, url, demo.id)
        _click_control(page, "continue")
        page.get_by_text("The workflow asks you").first.wait_for(timeout=30_000)
        assert node_fill(page, "__end__") == DONE  # the finished run

        _travel(page, 0)  # step 1: classify_complexity ran, retrieve_initial runs next
        assert node_fill(page, "classify_complexity") == DONE
        assert node_fill(page, "retrieve_initial") == CURRENT
        assert node_fill(page, "__end__") not in (DONE, CURRENT)
        page.screenshot(path=str(SHOTS / "travel_step1.png"))

        main_steps = page.locator("#timeline tbody tr").count()
        page.get_by_role("textbox", name="Answer").fill(demo.hitl_answer)
        page.get_by_role("button", name="Send answer").click()
        page.get_by_text("HITL resume #1").first.wait_for(timeout=15_000)
        wait_idle(page)
        _click_control(page, "step")
        page.locator("#timeline tbody tr").nth(main_steps).wait_for(timeout=15_000)
        assert "restore_from_snapshot" in graph_markup(page)  # the resume graph

        _travel(page, main_steps - 1)  # the main run's last step
        markup = graph_markup(page)
        assert "RAG workflow" in markup and "restore_from_snapshot" not in markup
        assert node_fill(page, "__end__") == DONE
        page.screenshot(path=str(SHOTS / "travel_main_after_resume.png"))

        _travel(page, main_steps)  # back in the resume graph, after its first step
        assert "restore_from_snapshot" in graph_markup(page)
        assert node_fill(page, "restore_from_snapshot") == DONE
        assert node_fill(page, "retrieve_targeted") == CURRENT
        assert not page.get_by_text("Traceback").count()
