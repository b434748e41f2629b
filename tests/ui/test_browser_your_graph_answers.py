"""A real browser on the Your graph page: an interrupt() answered with JSON reaches the node as a dict, and a
stored paused thread opens as the paused thread it is, its question shown at once, nothing left beside the file."""
from __future__ import annotations

import os

from langgraph.checkpoint.sqlite import SqliteSaver

from tests.debugger.thread_graphs import write_threads
from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle


def click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).first.click()
    settle(page)


def test_an_interrupt_answered_with_json_in_the_browser():
    with streamlit_server(ROOT / "app.py", args=["--graph", "tests.ui.answer_graphs:query_graph"]) as url, \
            chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("No run yet").first.wait_for(timeout=30_000)
        click(page, "Step")
        page.get_by_text("asks you (interrupt)").first.wait_for(timeout=15_000)
        page.get_by_text("JSON", exact=True).first.click()
        settle(page)
        box = page.get_by_label("Your answer (JSON)")
        box.fill('{"data": {"height": 2.5}}')
        box.press("Control+Enter")
        settle(page)
        click(page, "Send answer")
        page.get_by_text('Resumed with {"data": {"height": 2.5}}').first.wait_for(timeout=15_000)
        page.get_by_text("finished").first.wait_for(timeout=15_000)
        assert not page.get_by_text("Traceback").count()
        assert not page.get_by_text("TypeError").count()


def test_a_paused_stored_thread_opens_as_paused_with_its_question(tmp_path):
    folder = tmp_path / "user"  # the user's own folder (the app's history file is elsewhere in tmp_path)
    folder.mkdir()
    db = str(folder / "app.db")
    with SqliteSaver.from_conn_string(db) as saver:
        write_threads(saver)
    with streamlit_server(ROOT / "app.py", args=["--graph", "tests.debugger.thread_graphs:graph",
                                                  "--checkpointer", f"sqlite:///{db}"]) as url, \
            chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("Threads 1–3 of 3, newest first").first.wait_for(timeout=30_000)
        page.get_by_label("Filter by thread id").fill("paused")
        page.get_by_label("Filter by thread id").press("Enter")
        settle(page)
        page.get_by_text("Threads 1–1 of 1, newest first").first.wait_for(timeout=15_000)
        click(page, "Open thread")
        page.get_by_text("Paused thread t-paused from your checkpointer").first.wait_for(timeout=15_000)
        page.get_by_text("Publish?").first.wait_for(timeout=15_000)  # before "Answer it here"
        page.get_by_text("the stored thread is paused here").first.wait_for(timeout=15_000)
        assert not page.get_by_text("Replay of an exported run").count()
        assert not page.get_by_text("The run finished").count()
        assert sorted(os.listdir(folder)) == ["app.db"]  # opened immutable: no -wal / -shm beside it
