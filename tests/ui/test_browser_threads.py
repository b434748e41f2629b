"""A real browser on `streamlit run app.py -- --graph ... --checkpointer sqlite:///app.db`: the stored threads
are listed, the paused one is found by its id, opened, and its interrupt answered in a fork; the file an
application wrote is byte-for-byte unchanged afterwards."""
from __future__ import annotations

import hashlib

from langgraph.checkpoint.sqlite import SqliteSaver

from tests.debugger.thread_graphs import write_threads
from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle


def click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).first.click()
    settle(page)


def test_open_a_stored_thread_and_answer_it_in_a_fork(tmp_path):
    db = str(tmp_path / "app.db")
    with SqliteSaver.from_conn_string(db) as saver:
        write_threads(saver)
    before = hashlib.sha256(open(db, "rb").read()).hexdigest()
    with streamlit_server(ROOT / "app.py", args=["--graph", "tests.debugger.thread_graphs:graph",
                                                  "--checkpointer", f"sqlite:///{db}"]) as url, \
            chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("Threads in your checkpointer").first.wait_for(timeout=30_000)
        page.get_by_text("Threads 1–3 of 3, newest first").first.wait_for(timeout=15_000)
        page.get_by_label("Filter by thread id").fill("paused")
        page.get_by_label("Filter by thread id").press("Enter")
        settle(page)
        page.get_by_text("Threads 1–1 of 1, newest first").first.wait_for(timeout=15_000)
        click(page, "Open thread")
        page.get_by_text("This thread waits at an interrupt() in review.").first.wait_for(timeout=15_000)
        click(page, "Answer it here")
        page.get_by_text("as a fork").first.wait_for(timeout=15_000)
        page.get_by_text("asks you (interrupt)").first.wait_for(timeout=15_000)
        click(page, "yes")
        page.get_by_text("Resumed with yes").first.wait_for(timeout=15_000)
        assert not page.get_by_text("Traceback").count()
    assert hashlib.sha256(open(db, "rb").read()).hexdigest() == before
