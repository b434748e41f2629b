"""Threads of a user's own SQLite checkpointer, written by a real application script and read back by
`rag_debugger.debugger.threads`: listing (paged, filtered, subgraphs under their parent, interrupts), a lazy history
window, forking into the debugger's checkpointer so a resume goes on exactly, the file left byte-for-byte
unchanged, and every bad input refused with a clear message."""
from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from rag_debugger.debugger.threads import (
    CheckpointerError,
    fork_thread,
    on_store,
    open_store,
    parse_checkpointer_url,
    read_window,
    redact,
    stepper_on_thread,
    uuid6_time,
)
from tests.debugger.thread_graphs import builder, write_long_thread, write_threads


def digest(path: str) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def db(tmp_path) -> str:
    path = str(tmp_path / "app.db")
    with SqliteSaver.from_conn_string(path) as saver:
        write_threads(saver)
        for i in range(25):
            saver.put({"configurable": {"thread_id": f"bulk-{i:02d}", "checkpoint_ns": ""}},
                      {"v": 1, "id": f"1ef00000-0000-6000-8000-{i:012d}", "ts": "", "channel_values": {},
                       "channel_versions": {}, "versions_seen": {}}, {"step": -1, "source": "input"}, {})
    return path


def store_of(path: str, writable: bool = False):
    return open_store(parse_checkpointer_url("sqlite:///" + path, writable=writable))


def test_the_threads_are_listed_a_page_at_a_time_with_counts_interrupts_and_subgraphs(db):
    store = store_of(db)
    graph = on_store(builder().compile(), store)
    page = store.list_threads(offset=0, limit=20, graph=graph)
    assert page.total == 28 and len(page.threads) == 20
    mine = store.list_threads("t-", graph=graph)
    by_id = {t.thread_id: t for t in mine.threads}
    assert set(by_id) == {"t-finished", "t-paused", "t-fanout"} and mine.total == 3
    assert by_id["t-paused"].interrupt and by_id["t-paused"].next == ("review",)
    assert not by_id["t-finished"].interrupt and by_id["t-finished"].next == ()
    assert by_id["t-fanout"].checkpoints == 6
    assert [s.namespace.split(":")[0] for s in by_id["t-fanout"].subgraphs] == ["finish"]
    assert by_id["t-fanout"].last_update.startswith("20")
    # the filter is a literal substring: % and _ match themselves
    assert store.list_threads("%").total == 0 and store.list_threads("t_").total == 0
    second = store.list_threads(offset=20, limit=20)
    assert len(second.threads) == 8
    assert not {t.thread_id for t in second.threads} & {t.thread_id for t in page.threads}


def test_a_long_thread_opens_as_a_window_of_its_newest_checkpoints(tmp_path):
    path = str(tmp_path / "long.db")
    with SqliteSaver.from_conn_string(path) as saver:
        write_long_thread(saver, "long", 300)
    store = store_of(path)
    from tests.debugger.thread_graphs import loop_builder

    graph = on_store(loop_builder().compile(), store)
    window = read_window(graph, "long", limit=10)
    assert window.more and len(window.checkpoints) == 10
    steps = [c.step for c in window.checkpoints]
    assert steps == sorted(steps) and steps[-1] == store.count("long") - 2
    older = read_window(graph, "long", limit=10, before=window.checkpoints[0].checkpoint_id)
    assert older.checkpoints[-1].step == steps[0] - 1


def test_a_fork_resumes_exactly_as_the_thread_would_and_the_file_is_unchanged(db, tmp_path):
    before = digest(db)
    store = store_of(db)
    stepper, forked = stepper_on_thread(store, "t-paused", builder().compile(), own=InMemorySaver(), fork_id="copy")
    assert forked and [p.node for p in stepper.pending_interrupts] == ["review"]
    stepper.resume("yes")
    forked_end = stepper.current_values()
    store.close()
    assert digest(db) == before
    # the same answer given to the original thread, in a copy of the file, as the application would
    twin = str(tmp_path / "twin.db")
    src = sqlite3.connect(db)
    dst = sqlite3.connect(twin)
    src.backup(dst)
    src.close()
    dst.close()
    with SqliteSaver.from_conn_string(twin) as saver:
        app = builder().compile(checkpointer=saver)
        expected = app.invoke(Command(resume="yes"), {"configurable": {"thread_id": "t-paused"}})
    assert forked_end == expected and forked_end["answer"] == "yes"


def test_writable_resumes_the_thread_in_place(db):
    store = store_of(db, writable=True)
    stepper, forked = stepper_on_thread(store, "t-paused", builder().compile(), own=InMemorySaver(), fork_id="unused")
    assert not forked and stepper.thread_id == "t-paused"
    stepper.resume("no")
    store.close()
    with SqliteSaver.from_conn_string(db) as saver:
        state = builder().compile(checkpointer=saver).get_state({"configurable": {"thread_id": "t-paused"}})
    assert state.values["answer"] == "no" and not state.next


def test_read_only_refuses_to_write(db):
    store = store_of(db)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        fork_thread(store, "t-finished", store.saver, "into-the-users-file")


def test_a_fan_out_thread_reads_back_with_its_lanes(db):
    store = store_of(db)
    window = read_window(on_store(builder().compile(), store), "t-fanout")
    fan = [c for c in window.checkpoints if c.next == ("work",) * 4]
    assert fan and [t.name for t in fan[0].tasks] == ["work"] * 4 and not window.more


@pytest.mark.parametrize("make, message", [
    (lambda p: None, "no SQLite file"),
    (lambda p: open(p, "w").write("hello, not a database " * 100), "file is not a database"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE notes(x)").connection.commit(), "not a LangGraph checkpointer"),
])
def test_bad_files_get_a_clear_message_and_are_not_created_or_changed(tmp_path, make, message):
    path = str(tmp_path / "bad.db")
    make(path)
    existed = os.path.exists(path)
    before = digest(path) if existed else None
    with pytest.raises(CheckpointerError, match=message):
        store = store_of(path)
        store.list_threads()
    assert os.path.exists(path) == existed and (digest(path) if existed else None) == before


def test_a_locked_file_gets_a_clear_message(db):
    holder = sqlite3.connect(db)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(CheckpointerError, match="locked"):
            store_of(db).list_threads()
    finally:
        holder.rollback()
        holder.close()


def test_a_thread_of_another_graph_is_refused(db):
    from tests.debugger.thread_graphs import loop_builder

    store = store_of(db)
    other = on_store(loop_builder().compile(), store)
    with pytest.raises(CheckpointerError, match="nodes the loaded graph does not have .*plan"):
        read_window(other, "t-finished")
    assert store.list_threads("t-finished", graph=other).threads[0].problem


def test_an_unknown_thread_is_refused(db):
    store = store_of(db)
    with pytest.raises(CheckpointerError, match="no thread 'nope'"):
        read_window(on_store(builder().compile(), store), "nope")


def test_a_checkpoint_this_langgraph_checkpoint_cannot_read_is_reported(db):
    conn = sqlite3.connect(db)
    conn.execute("UPDATE checkpoints SET type = 'from-the-future' WHERE thread_id = 't-finished'")
    conn.commit()
    conn.close()
    store = store_of(db)
    with pytest.raises(CheckpointerError, match="installed langgraph-checkpoint .* cannot read"):
        read_window(on_store(builder().compile(), store), "t-finished")


@pytest.mark.parametrize("url, kind", [("sqlite:///x.db", "sqlite"), ("postgresql://u:pw@h/db", "postgres"),
                                       ("postgres://h/db", "postgres")])
def test_urls(url, kind):
    assert parse_checkpointer_url(url).kind == kind


@pytest.mark.parametrize("url", ["", "mysql://h/db", "sqlite:///", "/path/to/file.db"])
def test_bad_urls_are_refused_without_the_password(url):
    with pytest.raises(CheckpointerError):
        parse_checkpointer_url(url)
    with pytest.raises(CheckpointerError) as err:
        parse_checkpointer_url("mysql://me:s3cret@h/db")
    assert "s3cret" not in str(err.value)


def test_redact_and_uuid6_time():
    assert redact("postgresql://me:s3cret@db.local:5432/app") == "postgresql://me:***@db.local:5432/app"
    assert redact("postgresql://db.local/app") == "postgresql://db.local/app"
    assert uuid6_time("not-an-id") is None


def test_going_on_from_a_past_checkpoint_reruns_from_there_in_a_fork(db):
    before = digest(db)
    store = store_of(db)
    window = read_window(on_store(builder().compile(), store), "t-fanout")
    fan = next(c for c in window.checkpoints if c.next == ("work",) * 4)
    stepper, forked = stepper_on_thread(store, "t-fanout", builder().compile(), own=InMemorySaver(), fork_id="again",
                                        at=fan.checkpoint_id)
    assert forked and stepper.next_nodes == ("work",) * 4
    stepper.run_to_end()
    assert stepper.done and stepper.current_values() == window.checkpoints[-1].values
    assert [s.nodes for s in stepper.steps] == [("work",), ("finish",), ("review",)]
    store.close()
    assert digest(db) == before


def test_writable_goes_on_from_a_past_checkpoint_on_a_new_branch_of_the_thread(db):
    store = store_of(db, writable=True)
    graph = on_store(builder().compile(), store)
    first = read_window(graph, "t-finished").checkpoints
    review = next(c for c in first if c.next == ("review",))
    stepper, forked = stepper_on_thread(store, "t-finished", builder().compile(), own=InMemorySaver(), fork_id="unused",
                            at=review.checkpoint_id)
    assert not forked and stepper.next_nodes == ("review",)
    stepper.step()
    assert stepper.done and store.count("t-finished") == len(first) + 2  # the copy of the past checkpoint, its step


def test_going_on_from_an_unknown_checkpoint_is_refused(db):
    store = store_of(db)
    with pytest.raises(CheckpointerError, match="cannot go on from checkpoint"):
        stepper_on_thread(store, "t-finished", builder().compile(), own=InMemorySaver(), fork_id="x", at="not-a-checkpoint")
