"""A stored thread is read with LangGraph's msgpack allow-list, strictly: a crafted checkpoint value or pending
write naming `("os", "system", ...)` is shown as undecodable and never run, while the graph's own values
(messages, Send, Interrupt, its schema's types) read as before."""
from __future__ import annotations

import sqlite3

import ormsgpack
import pytest
from langgraph.checkpoint.serde.jsonplus import EXT_CONSTRUCTOR_SINGLE_ARG, JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from rag_debugger.debugger.session import GraphSession
from rag_debugger.debugger.strict_serde import UNDECODABLE, StrictSerializer
from rag_debugger.debugger.threads import on_store, open_store, parse_checkpointer_url, pending_interrupts, read_window
from tests.debugger.thread_graphs import builder, write_threads


def _evil(marker) -> ormsgpack.Ext:
    return ormsgpack.Ext(EXT_CONSTRUCTOR_SINGLE_ARG, ormsgpack.packb(["os", "system", f"touch {marker}"]))


@pytest.fixture
def crafted(tmp_path):
    """An application's database with threads, then poisoned: the finished thread's newest checkpoint holds the
    triple in a state field, and the paused thread has a pending write holding it."""
    path = str(tmp_path / "app.db")
    marker = tmp_path / "ran"
    with SqliteSaver.from_conn_string(path) as saver:
        write_threads(saver)
    conn = sqlite3.connect(path)
    blob_id, blob = conn.execute(
        "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id='t-finished' AND checkpoint_ns='' "
        "ORDER BY checkpoint_id DESC LIMIT 1").fetchone()
    checkpoint = JsonPlusSerializer(allowed_msgpack_modules=None).loads_typed(("msgpack", blob))
    checkpoint["channel_values"]["answer"] = _evil(marker)
    conn.execute("UPDATE checkpoints SET checkpoint=? WHERE thread_id='t-finished' AND checkpoint_id=?",
                 (ormsgpack.packb(checkpoint, option=ormsgpack.OPT_NON_STR_KEYS), blob_id))
    head, task = conn.execute(
        "SELECT checkpoint_id, task_id FROM writes WHERE thread_id='t-paused' AND checkpoint_ns='' "
        "AND channel='__interrupt__' ORDER BY checkpoint_id DESC LIMIT 1").fetchone()
    conn.execute("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) "
                 "VALUES ('t-paused', '', ?, ?, 7, 'answer', 'msgpack', ?)",
                 (head, task + "-x", ormsgpack.packb(_evil(marker))))
    conn.commit()
    conn.close()
    return path, marker


def test_the_default_serializer_would_run_it(crafted, tmp_path):
    """The test's own check that the file is dangerous: LangGraph's permissive default runs the command."""
    path, marker = crafted
    conn = sqlite3.connect(path)
    (value,) = conn.execute("SELECT value FROM writes WHERE channel='answer' AND idx=7").fetchone()
    JsonPlusSerializer(allowed_msgpack_modules=True).loads_typed(("msgpack", value))
    assert marker.exists()


def test_a_crafted_checkpoint_and_pending_write_are_shown_undecodable_never_run(crafted):
    path, marker = crafted
    store = open_store(parse_checkpointer_url("sqlite:///" + path))
    graph = builder().compile()
    bound = on_store(graph, store)
    store.list_threads(graph=bound)
    window = read_window(bound, "t-finished")
    assert window.checkpoints[-1].values["answer"].startswith(UNDECODABLE)
    assert "os.system" in window.checkpoints[-1].values["answer"]
    pending = pending_interrupts(bound, "t-paused")
    assert pending and pending[0].value["question"] == "Publish?"  # the thread's own interrupt still reads
    session = GraphSession(spec="t:g", graph=graph)
    session.open_thread(store, "t-paused")
    session.open_thread(store, "t-finished")
    assert session.current.stepper.current_values()["answer"].startswith(UNDECODABLE)
    session.go_on_thread()  # read-only: the thread is copied into the debugger's checkpointer, strictly
    assert not marker.exists()


def test_safe_values_and_the_graphs_own_types_still_decode():
    from langchain_core.messages import HumanMessage
    from langgraph.types import Send

    strict = StrictSerializer()
    for value in ([HumanMessage("hi", id="1")], Send("work", {"x": 1})):
        assert strict.loads_typed(JsonPlusSerializer().dumps_typed(value)) == value
    from pydantic import BaseModel

    class Mine(BaseModel):
        x: int = 1

    data = JsonPlusSerializer().dumps_typed(Mine())
    assert str(strict.loads_typed(data)).startswith(UNDECODABLE)  # not on any list: not rebuilt
    allowed = strict.with_msgpack_allowlist([(Mine.__module__, "Mine")])
    assert isinstance(allowed, StrictSerializer) and allowed.allowed == {(Mine.__module__, "Mine")}
