"""A real browser on `streamlit run app.py -- --graph rag_debugger.examples.approval:graph`: `/` opens the Your
graph page, Step runs a node, Continue stops at the interrupt(), an option button answers it."""
from __future__ import annotations

from pathlib import Path

from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"


def click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).first.click()
    settle(page)


def _clipped(page, selector: str) -> bool:
    """Whether any text inside `selector` is cut short: a box that ends its text in an ellipsis holds more than
    it shows (Streamlit's button label does so by one pixel when it reads "Load …")."""
    return page.locator(selector).first.evaluate(
        "b => [b, ...b.querySelectorAll('*')].some(e => getComputedStyle(e).textOverflow === 'ellipsis'"
        " && e.scrollWidth > e.clientWidth)")


def test_step_your_own_graph_and_answer_its_interrupt():
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", args=["--graph", "rag_debugger.examples.approval:graph",
                                                  "--input", "rag_debugger/examples/approval_input.json"]) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": 1024, "height": 768})  # a projector's size: the narrowest the app is made for
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_role("heading", name="Your graph").wait_for(timeout=30_000)
        page.get_by_text("No run yet").first.wait_for(timeout=30_000)
        assert not _clipped(page, ".st-key-yg_load button"), "the Load graph button's label is cut short"
        click(page, "Step")
        page.get_by_text("1 step · paused before review").first.wait_for(timeout=15_000)
        click(page, "Continue to end")
        page.get_by_text("asks you (interrupt)").first.wait_for(timeout=15_000)
        page.get_by_text("Send this reply? Re: Can I get a refund for order 42?").first.wait_for()
        page.screenshot(path=str(SHOTS / "your_graph_interrupt.png"), full_page=True)
        click(page, "approve")
        page.get_by_text("Resumed with approve").first.wait_for(timeout=15_000)
        page.get_by_text("paused before details").first.wait_for(timeout=15_000)
        assert not page.get_by_text("Traceback").count()
