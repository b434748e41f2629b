"""Streamlit's front end warns "Multiple different fragmentIds detected in a single batch of widget updates"
when one click changes a widget outside the debugger's fragment (the question box losing focus, an open
popover closing) and one inside it (the inspector's Run / Step / Continue), and then reruns only one of the
two. The walks below do what a user does, with the console captured: type a question and press Run or Step
at once, open a popover and press Continue, answer a HITL question, load a bundled example on Your graph and
step it through its interrupts, upload a file to a knowledge base. None may log that warning, and each click
still does what it says."""
from __future__ import annotations

from tests.support.browser import ROOT, chromium_page, load_demo, press_control, settle, streamlit_server, wait_idle

FRAGMENT_WARNING = "Multiple different fragmentIds"


def watch_console(page) -> list[str]:
    seen: list[str] = []
    page.on("console", lambda m: seen.append(m.text) if m.type in ("warning", "error") else None)
    return seen


def fragment_warnings(seen: list[str]) -> list[str]:
    return [t for t in seen if FRAGMENT_WARNING in t]


def click_action(page, action: str) -> None:
    press_control(page, action)
    settle(page)
    wait_idle(page)


def position(page) -> str:
    return page.locator(".rdi-position").first.inner_text()


def test_debugger_clicks_that_also_blur_the_box_or_close_a_popover_send_one_fragment_a_batch(tmp_path):
    with streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(tmp_path / "h.db")}) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        seen = watch_console(page)
        page.goto(url)
        wait_idle(page)
        walked: dict[str, list[str]] = {}

        box = page.locator(".st-key-question textarea").first
        box.fill("What is the operating temperature range of the Lumen X2?")
        click_action(page, "run")  # no Ctrl+Enter first: the click itself sends the box
        page.get_by_text("· finished").first.wait_for(timeout=90_000)
        assert "operating temperature" in page.locator(".rdi-target").first.inner_text()  # the typed question ran
        walked["type, then Run"] = fragment_warnings(seen)

        box.fill("How do I update the firmware of the Lumen X2?")
        click_action(page, "step")
        page.get_by_text("· 1 step ·").first.wait_for(timeout=90_000)
        walked["type, then Step"] = fragment_warnings(seen)

        page.locator(".st-key-breakpoints_folded button").first.click()  # open the popover, leave it open
        settle(page)
        click_action(page, "continue")  # the click closes the popover too
        page.get_by_text("The workflow asks you (clarify)").first.wait_for(timeout=90_000)
        walked["a popover open, then Continue"] = fragment_warnings(seen)

        page.locator(".st-key-hitl_opt_1 button").first.click()  # Android
        settle(page)
        wait_idle(page)
        page.get_by_text("paused before").first.wait_for(timeout=90_000)
        page.locator(".st-key-demos_folded button").first.click()  # the demos popover open ...
        settle(page)
        click_action(page, "continue")  # ... and the resume continued
        page.locator(".rdi-result", has_text="Result: answer").first.wait_for(timeout=90_000)
        walked["answer the question, then Continue with the demos open"] = fragment_warnings(seen)

        page.locator(".st-key-demos_folded button").first.click()
        settle(page)
        load_demo(page, "en_complex_two_products")
        for n in (1, 2, 3):
            page.keyboard.press("s")
            page.get_by_text(f"· {n} step").first.wait_for(timeout=90_000)
            wait_idle(page)
        walked["a demo, then three steps by key"] = fragment_warnings(seen)
    assert not any(walked.values()), walked


def test_your_graph_and_knowledge_base_walks_log_no_fragment_warning(tmp_path):
    doc = tmp_path / "widget.md"
    doc.write_text("# Widget\n\nThe widget has a blue button. Press it twice to reset.\n", "utf-8")
    env = {"RAG_HISTORY_DB": str(tmp_path / "h.db"), "RAG_CACHE_DIR": str(tmp_path / "cache")}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        seen = watch_console(page)
        walked: dict[str, list[str]] = {}
        page.goto(url + "/your_graph")
        wait_idle(page)
        page.locator(".st-key-yg_example [role=combobox]").first.click()
        page.get_by_role("option", name="rag_debugger.examples.approval:graph").click()
        settle(page)
        wait_idle(page)
        click_action(page, "step")
        click_action(page, "continue")
        page.get_by_role("button", name="approve").first.click()  # the first interrupt
        settle(page)
        wait_idle(page)
        click_action(page, "continue")
        page.get_by_text("How urgent is it?").first.wait_for(timeout=90_000)
        page.locator(".st-key-yg_inside, [data-testid=stMain]").locator("input[type=number]").last.fill("2")
        page.get_by_role("button", name="Send answer").first.click()  # the field's value goes with the click
        settle(page)
        wait_idle(page)
        page.get_by_text("· finished").first.wait_for(timeout=90_000)  # the answer resumed it to its end
        walked["Your graph: an example through its two interrupts"] = fragment_warnings(seen)

        page.goto(url + "/knowledge_bases")
        wait_idle(page)
        page.locator(".st-key-kb_new_name input").first.fill("walk")
        page.get_by_role("button", name="Create", exact=True).click()
        page.get_by_text("Knowledge base walk created").first.wait_for(timeout=90_000)
        wait_idle(page)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(doc))
        page.get_by_text("widget.md").first.wait_for(timeout=15_000)
        page.get_by_role("button", name="Upload and ingest").click()
        page.get_by_text("Ingestion finished: 1 ingested").first.wait_for(timeout=120_000)
        wait_idle(page)
        walked["Knowledge bases: create, upload, ingest"] = fragment_warnings(seen)
    assert not any(walked.values()), walked
