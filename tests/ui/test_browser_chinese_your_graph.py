"""The Your graph page in Chinese, in a real browser: `streamlit run app.py -- --graph rag_debugger.examples.approval:graph`
opened with `?lang=zh`. The input form is filled, a Step runs a node, Continue stops at the options
interrupt, an option answers it, Continue stops at the typed (JSON schema) interrupt, and the form's answer
finishes the run. At each stage no English UI text may be left (the graph's data stays as it is)."""
from __future__ import annotations

from pathlib import Path

from tests.support.browser import ROOT, chromium_page, press_control, settle, streamlit_server, wait_idle, wait_shown
from tests.support.i18n import english_on_page

SHOTS = Path(__file__).resolve().parent / "screenshots"

#: Data the page shows as it is: the graph's spec, node and field names, the interrupt's own questions.
DATA = ("rag_debugger.examples.approval:graph", "Send this reply?", "Can I get a refund for order 42?", "How urgent is it?")


def english(page) -> list[str]:
    return english_on_page(page, allowed=DATA)


def act(page, action: str) -> None:
    """One of the inspector's controls (Run / Step / Continue / Restart), found by its action, not its label."""
    press_control(page, action)
    settle(page)


def test_your_graph_page_in_chinese_through_a_run_with_two_interrupts():
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", args=["--graph", "rag_debugger.examples.approval:graph"]) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "?lang=zh", wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_role("heading", name="你的图").wait_for(timeout=30_000)
        page.get_by_role("button", name="加载图").wait_for()
        assert english(page) == []

        # the input form, generated from the graph's input schema, with Chinese labels and placeholders
        form = page.get_by_text("输入（来自图输入模式的").first
        form.wait_for()
        request = page.get_by_role("textbox", name="request · str")
        request.fill("Can I get a refund for order 42?")
        request.press("Tab")
        settle(page)
        assert page.get_by_placeholder("（未设置）").count() >= 1
        assert english(page) == []

        act(page, "step")
        wait_shown(page, '[data-testid="stExpander"] summary', "本次运行的输入")
        assert english(page) == []

        act(page, "continue")
        wait_shown(page, ".st-key-yg_interrupt_0", "向你提问（中断）")
        page.get_by_text("Send this reply? Re: Can I get a refund for order 42?").first.wait_for()
        assert english(page) == []
        page.screenshot(path=str(SHOTS / "your_graph_zh_interrupt.png"))

        page.locator(".st-key-yg_interrupt_0").get_by_role("button", name="approve", exact=True).click()
        settle(page)
        wait_shown(page, '[data-testid="stAlert"]', "已用 approve 恢复")
        assert english(page) == []

        act(page, "continue")
        wait_shown(page, ".st-key-yg_interrupt_0", "How urgent is it?")
        box = page.locator(".st-key-yg_interrupt_0")
        box.get_by_role("spinbutton").fill("3")
        box.get_by_role("button", name="发送回答").click()
        settle(page)
        # the answer is the superstep that ends the run
        wait_shown(page, '[data-testid="stAlert"]', "运行已完成。最终状态：")
        assert english(page) == []
        assert not page.get_by_text("Traceback").count()
        page.screenshot(path=str(SHOTS / "your_graph_zh_finished.png"))
