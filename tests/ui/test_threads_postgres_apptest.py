"""The Your graph page on threads an application wrote with `PostgresSaver`: listed, opened and answered in a
fork, the database unchanged, and the password shown nowhere on the page."""
from __future__ import annotations

from langgraph.checkpoint.postgres import PostgresSaver

from rag_debugger.ui.threads_panel import PICK_KEY
from tests.debugger.thread_graphs import write_threads

SPEC = "tests.debugger.thread_graphs:graph"
TABLES = ("checkpoints", "checkpoint_writes", "checkpoint_blobs")


def fingerprint(server, url: str) -> list:
    return [server.sql(f"SELECT count(*), md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM {name} t", url)
            for name in TABLES]


def page_text(at) -> str:
    return "\n".join(str(e.value) for e in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.success))


def test_postgres_threads_on_the_page(graph_app, postgres_server):
    url = postgres_server.new_database()
    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        write_threads(saver)
    before = fingerprint(postgres_server, url)
    secret_url = url.replace("postgres@", "postgres:hunter2-secret@", 1)
    at = graph_app(SPEC, RAG_DEBUG_CHECKPOINTER=secret_url)
    assert {"t-finished", "t-paused", "t-fanout"} <= set(at.dataframe[0].value.iloc[:, 0])
    at.selectbox(key=PICK_KEY).select("t-paused")
    next(b for b in at.button if b.key == "yg_open_thread").click()
    at.run()
    next(b for b in at.button if b.key == "yg_go_on").click()
    at.run()
    next(b for b in at.button if b.label == "yes").click()
    at.run()
    assert not at.exception
    text = page_text(at)
    assert "Resumed with yes" in text and "as a fork" in text
    assert "hunter2-secret" not in text and "postgres:***@" in text
    assert fingerprint(postgres_server, url) == before
