"""A real browser (Debian's chromium via Playwright) on `streamlit run app.py`: click a demo,
step, reach a HITL question, answer it with an option button, and see the resumed result."""
from __future__ import annotations

from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, load_demo, settle, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"


def click(page, name: str, *, exact: bool = True) -> None:
    page.get_by_role("button", name=name, exact=exact).first.click()
    settle(page)


def marked(page, mark: str) -> list[str]:
    """Names of the nodes the picture on the page marks with `mark` (rdi-current: about to run,
    rdi-done: already run), read from the SVG the browser shows."""
    return page.evaluate(
        """(mark) => {
             const src = document.querySelector('.rdi-graph img').src;
             const svg = new DOMParser().parseFromString(atob(src.split(',')[1]), 'image/svg+xml');
             return [...svg.querySelectorAll('g.node.' + mark + ' > title')].map(t => t.textContent);
           }""", mark)


def test_demo_to_hitl_option_and_back_to_a_result(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "scope_select" and d.hitl_answer)
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        # the graph: an SVG laid out once on the server by the pip-installed graphviz-pure, shown in
        # the left column beside the step (not drawn below the page)
        page.locator(".rdi-left .rdi-graph img").first.wait_for(timeout=30_000)
        assert page.locator('[data-testid="stGraphVizChart"]').count() == 0

        page.locator(f".st-key-demo_{demo.id} button").first.click()  # Streamlit tags a widget with its key
        settle(page)
        page.get_by_text("0 steps · paused before").first.wait_for(timeout=30_000)
        click(page, "Step")
        page.get_by_text("Step 1:").first.wait_for(timeout=15_000)
        wait_idle(page)
        # the step moved the marks on the same picture: what runs next, what has run
        assert marked(page, "rdi-current") == ["retrieve_initial"]
        assert "classify_complexity" in marked(page, "rdi-done")
        # unchanged fields are hidden until asked for, in the browser (no rerun)
        unchanged = page.locator("#diff tr.rdi-kind-unchanged").first
        assert not unchanged.is_visible()
        page.get_by_text("Show unchanged fields").first.click()
        unchanged.wait_for(state="visible", timeout=5_000)
        click(page, "Step")
        page.get_by_text("Step 2:").first.wait_for(timeout=15_000)
        assert marked(page, "rdi-current") == ["grade_documents"]
        assert page.locator("#diff tr.rdi-kind-unchanged").first.is_visible()  # the choice survives a step
        # clicking a row of the timeline travels back to that step
        page.locator("#timeline tbody tr").first.click()
        page.get_by_text("nothing was re-run").first.wait_for(timeout=15_000)
        wait_idle(page)
        assert page.locator(".rdi-step-title").first.inner_text().startswith("Step 1:")
        page.get_by_text("Back to the latest step").first.click()
        page.get_by_text("nothing was re-run").first.wait_for(state="detached", timeout=15_000)
        wait_idle(page)
        page.locator("#timeline tbody tr").first.focus()  # the rows are reachable from the keyboard
        page.keyboard.press("Enter")
        page.get_by_text("nothing was re-run").first.wait_for(timeout=15_000)
        wait_idle(page)
        click(page, "Continue to end")
        page.get_by_text("The workflow asks you").first.wait_for(timeout=30_000)
        page.screenshot(path=str(SHOTS / "hitl_question.png"), full_page=True)

        option = page.get_by_role("button", name=demo.hitl_answer, exact=True)
        assert option.count() == 1, "the expected option button is shown"
        option.click()
        settle(page)
        page.get_by_text("HITL resume #1").first.wait_for(timeout=15_000)
        click(page, "Continue to end")
        page.locator(".rdi-result", has_text=f"Result: {demo.expected_resume_route}").first.wait_for(timeout=30_000)
        page.screenshot(path=str(SHOTS / "resumed_result.png"), full_page=True)
        # lazy panels: built only when opened
        full_state = page.locator('[data-testid="stJson"]', has_text="hitl_snapshot")
        assert full_state.count() == 0
        page.get_by_text("Show the full state below").first.click()
        full_state.first.wait_for(timeout=15_000)
        assert not page.get_by_text("Traceback").count()
    assert (SHOTS / "resumed_result.png").stat().st_size > 10_000


def test_without_any_layout_program_the_graph_is_a_marked_list_beside_the_step():
    """A platform with neither graphviz-pure's wheel nor a system `dot`: the nodes as a list, in
    the same column, and a Step moves the same marks on it."""
    with streamlit_server(ROOT / "app.py", env={"DEBUGGER_GRAPH_LAYOUT": "html"}) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.locator(".rdi-left .rdi-graph-list li").first.wait_for(timeout=30_000)
        assert page.locator(".rdi-graph img").count() == 0
        demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
        load_demo(page, demo.id)
        click(page, "Step")
        page.get_by_text("Step 1:").first.wait_for(timeout=15_000)
        wait_idle(page)
        current = page.eval_on_selector_all(".rdi-graph-list li.rdi-current", "els => els.map(e => e.dataset.node)")
        done = page.eval_on_selector_all(".rdi-graph-list li.rdi-done", "els => els.map(e => e.dataset.node)")
        assert current == ["retrieve_initial"] and "classify_complexity" in done
