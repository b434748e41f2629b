"""A real browser: a Step sends the inspector only what changed (rag_debugger/views/section_delivery.py). The style
sheet, the node help and a graph picture the browser already has are not sent again; an inspector
that lost what it showed asks once for everything and shows it again."""
from __future__ import annotations

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, open_demo, press_control, settle, streamlit_server

CSS_RULE = b".rdi-root h4 {"
NODE_HELP = b"What does each node do?"
PICTURE = b"data:image/svg+xml"


def _step(page, frames: list) -> bytes:
    frames.clear()
    press_control(page, "step")
    settle(page)
    return b"".join(frames)


def _restart(page) -> None:
    press_control(page, "restart")
    page.get_by_text("0 steps · paused before").first.wait_for(timeout=30_000)
    settle(page)


def test_a_step_sends_only_what_changed_and_a_revisited_position_sends_no_picture():
    demo = next(d for d in load_demo_questions() if d.expected_route == "complex")
    frames: list[bytes] = []
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda f: frames.append(f if isinstance(f, bytes) else f.encode())))
        open_demo(page, url, demo.id)
        sent = _step(page, frames)
        assert b"1 step" in sent  # the position line came with the Step
        assert PICTURE in sent  # a position this page has not shown yet
        for unchanged in (CSS_RULE, NODE_HELP):
            assert unchanged not in sent, unchanged
        # still drawn: the style applies, the node help is on the page
        assert page.evaluate("getComputedStyle(document.querySelector('.rdi-cols')).display") == "flex"
        assert page.get_by_text("What does each node do?").count()

        _restart(page)
        again = _step(page, frames)
        assert PICTURE not in again  # the browser keeps the picture of a position it has shown
        assert page.locator(".rdi-graph img").first.is_visible()
        assert page.locator(".rdi-position").first.text_content().count("1 step ·") == 1


def test_an_inspector_that_lost_what_it_showed_asks_for_everything_once():
    demo = next(d for d in load_demo_questions() if d.expected_route == "complex")
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        open_demo(page, url, demo.id)
        press_control(page, "step")
        settle(page)
        # as if the component had been mounted afresh: it holds nothing the server thinks it has
        page.evaluate("""() => { const root = document.querySelector('.rdi-root');
            root.__shown = {}; root.__graphs = new Map();
            for (const s of root.querySelectorAll('[data-sec]')) if (s.dataset.sec !== 'controls') s.innerHTML = ''; }""")
        press_control(page, "step")
        page.get_by_text("2 steps").first.wait_for(timeout=30_000)
        settle(page)
        assert page.evaluate("window.__rdiResends") == 1
        assert page.locator(".rdi-graph img").first.is_visible()
        assert "digraph" in page.locator("pre.rdi-dot").first.text_content()
        assert page.locator("#timeline tbody tr").count() == 2
        assert not page.get_by_text("Traceback").count()
