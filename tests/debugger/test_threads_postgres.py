"""Threads an application wrote with `PostgresSaver`, opened read-only from a real PostgreSQL server: listed
with counts, interrupts and subgraphs, read a window at a time, forked into the debugger so a resume goes on
exactly, and the database unchanged afterwards; a server that is down gets a message with no password."""
from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver

from rag_debugger.debugger.threads import (
    CheckpointerError,
    on_store,
    open_store,
    parse_checkpointer_url,
    read_window,
    stepper_on_thread,
)
from tests.debugger.thread_graphs import builder, write_threads
from tests.support.browser import free_port

TABLES = ("checkpoints", "checkpoint_writes", "checkpoint_blobs", "checkpoint_migrations")


def with_password(url: str, password: str = "hunter2-secret") -> str:
    return url.replace("postgres@", f"postgres:{password}@", 1)


def fingerprint(server, url: str) -> list:
    return [server.sql(f"SELECT count(*), md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM {name} t", url)
            for name in TABLES]


@pytest.fixture
def pg_url(postgres_server) -> str:
    url = postgres_server.new_database()
    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        write_threads(saver)
    return url


def test_postgres_threads_open_read_only_and_a_fork_resumes_exactly(postgres_server, pg_url):
    before = fingerprint(postgres_server, pg_url)
    store = open_store(parse_checkpointer_url(with_password(pg_url)))
    assert "hunter2-secret" not in store.source.shown
    graph = on_store(builder().compile(), store)
    page = store.list_threads("t-", graph=graph)
    by_id = {t.thread_id: t for t in page.threads}
    assert set(by_id) == {"t-finished", "t-paused", "t-fanout"}
    assert by_id["t-paused"].interrupt and by_id["t-paused"].next == ("review",) and not by_id["t-finished"].interrupt
    assert all(len(t.subgraphs) == 1 for t in page.threads) and by_id["t-fanout"].checkpoints == 6
    window = read_window(graph, "t-fanout")
    assert any([t.name for t in c.tasks] == ["work"] * 4 for c in window.checkpoints)
    stepper, forked = stepper_on_thread(store, "t-paused", builder().compile(), own=InMemorySaver(), fork_id="copy")
    stepper.resume("yes")
    assert forked and stepper.current_values()["answer"] == "yes" and stepper.done
    with pytest.raises(Exception, match="read-only transaction"):
        store.saver.put({"configurable": {"thread_id": "x", "checkpoint_ns": ""}},
                        {"v": 1, "id": "1ef00000-0000-6000-8000-000000000001", "ts": "", "channel_values": {},
                         "channel_versions": {}, "versions_seen": {}}, {}, {})
    store.close()
    assert fingerprint(postgres_server, pg_url) == before
    with PostgresSaver.from_conn_string(pg_url) as saver:
        original = builder().compile(checkpointer=saver).get_state({"configurable": {"thread_id": "t-paused"}})
    assert original.next == ("review",)


def test_writable_postgres_resumes_in_place(pg_url):
    store = open_store(parse_checkpointer_url(pg_url, writable=True))
    stepper, forked = stepper_on_thread(store, "t-paused", builder().compile(), own=InMemorySaver(), fork_id="unused")
    stepper.resume("no")
    store.close()
    with PostgresSaver.from_conn_string(pg_url) as saver:
        state = builder().compile(checkpointer=saver).get_state({"configurable": {"thread_id": "t-paused"}})
    assert not forked and state.values["answer"] == "no" and not state.next


def test_a_server_that_is_down_gets_a_message_without_the_password():
    url = f"postgresql://me:hunter2-secret@127.0.0.1:{free_port()}/app"
    with pytest.raises(CheckpointerError, match="could not connect to postgresql://me:\\*\\*\\*@127.0.0.1") as err:
        open_store(parse_checkpointer_url(url))
    assert "hunter2-secret" not in str(err.value)


def test_a_database_without_checkpointer_tables_is_refused(postgres_server):
    url = postgres_server.new_database()
    with pytest.raises(CheckpointerError, match="no LangGraph checkpointer tables"):
        open_store(parse_checkpointer_url(url))
