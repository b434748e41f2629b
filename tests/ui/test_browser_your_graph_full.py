"""Your graph at full power in a real browser, on the bundled chain example: set a breakpoint, Continue
stops there (the c key), Continue again finishes; edit a field after step 1 and run the fork; the comparison shows;
the URL names the graph, the run and the step, and opening it in a new tab shows the same place (replayed
from the run history)."""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle


def click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).first.click()
    settle(page)


def query(url: str) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(url).query).items()}


def test_breakpoint_fork_comparison_and_link():
    with streamlit_server(ROOT / "app.py", args=["--graph", "rag_debugger.examples.chain:graph"]) as url, \
            chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_role("heading", name="Your graph").wait_for(timeout=30_000)
        page.get_by_label("text · str").fill("one two three")
        page.get_by_label("text · str").press("Enter")
        settle(page)

        # a breakpoint before shout
        page.get_by_role("button", name="Breakpoints: none").click()
        picker = page.locator(".st-key-ygbreakpoint_pick")
        picker.wait_for(timeout=15_000)
        picker.locator("input").first.click()
        page.get_by_role("option", name="shout").first.click()
        settle(page)
        page.get_by_role("button", name="Breakpoints: shout").first.wait_for(timeout=15_000)
        page.keyboard.press("Escape")

        page.locator(".rdi-position").first.click()  # focus on the page, not on a field
        page.keyboard.press("c")  # the RAG debugger's keys: c = Continue
        page.get_by_text("2 steps · paused before shout").first.wait_for(timeout=15_000)
        page.get_by_text("Breakpoint: paused before").first.wait_for(timeout=15_000)
        page.wait_for_url(re.compile(r"[?&]step=2\b"), timeout=15_000)
        click(page, "Continue to end")
        page.get_by_text("3 steps · finished").first.wait_for(timeout=15_000)

        # what if: text after step 1, run forward as a fork
        page.locator('[data-testid="stExpander"] summary', has_text="What if").first.click()
        page.get_by_text("New value (JSON, or plain text)").first.wait_for(timeout=15_000)
        step = page.locator(".st-key-yg_what_if_step input")
        step.fill("1")
        step.press("Enter")
        settle(page)
        value = page.locator(".st-key-yg_what_if_value_0_text textarea")
        value.wait_for(timeout=15_000)
        value.fill('"just two"')
        value.press("Control+Enter")
        settle(page)
        click(page, "Run the fork")
        page.get_by_text("Final states compared: original → fork").first.wait_for(timeout=15_000)
        page.locator("text=/JUST TWO/ >> visible=true").first.wait_for(timeout=15_000)  # case-sensitive
        assert not page.get_by_text("Traceback").count()

        # the link: the fork's run, at its last step; a new tab opens the same place from the history
        page.wait_for_url(re.compile(r"[?&]run=graph-"), timeout=15_000)
        link = query(page.url)
        assert link["graph"] == "rag_debugger.examples.chain:graph"
        colleague = page.context.browser.new_context().new_page()  # another browser session: nothing shared
        colleague.goto(page.url, wait_until="domcontentloaded")
        wait_idle(colleague)
        colleague.get_by_text(f"Replay of run {link['run']}").first.wait_for(timeout=30_000)
        colleague.get_by_text("finished").first.wait_for(timeout=15_000)
        colleague.locator("text=/JUST TWO/ >> visible=true").first.wait_for(timeout=15_000)
        assert query(colleague.url)["run"] == link["run"]
        assert not colleague.get_by_text("Traceback").count()
