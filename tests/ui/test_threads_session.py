"""`GraphSession` on a stored thread: it opens as a window of the newest checkpoints (positioned at the
end, so the timeline and time travel show them), reads older windows on demand until the start, and goes
on from the head in a fork whose steps follow the stored ones."""
from __future__ import annotations

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.session import GraphSession
from rag_debugger.debugger.threads import WINDOW, open_store, parse_checkpointer_url
from tests.debugger.thread_graphs import builder, loop_builder, write_long_thread, write_threads


def test_a_long_thread_opens_as_a_window_and_older_ones_are_read_on_demand(tmp_path):
    path = str(tmp_path / "long.db")
    with SqliteSaver.from_conn_string(path) as saver:
        write_long_thread(saver, "long", 50)
    store = open_store(parse_checkpointer_url(f"sqlite:///{path}"))
    session = GraphSession(spec="loop", graph=loop_builder().compile())
    seg = session.open_thread(store, "long")
    assert len(seg.stepper.recorded) == WINDOW and seg.thread.more and session.replay_mode
    first = session.all_steps()
    assert first and first[-1][1].values_after["n"] == 48
    while seg.thread.more:
        seg = session.older_checkpoints()
    assert len(seg.stepper.recorded) == store.count("long")
    steps = [rec for _seg, rec in session.all_steps()]
    assert steps[0].values_before.get("n") == 0 and [s.values_after["n"] for s in steps] == list(range(1, 49))
    with pytest.raises(DebuggerUserError, match="no older checkpoints"):
        session.older_checkpoints()


def test_going_on_from_a_paused_thread_runs_in_a_fork_after_the_stored_steps(tmp_path):
    path = str(tmp_path / "app.db")
    with SqliteSaver.from_conn_string(path) as saver:
        write_threads(saver)
    store = open_store(parse_checkpointer_url(f"sqlite:///{path}"))
    session = GraphSession(spec="g", graph=builder().compile())
    session.open_thread(store, "t-paused")
    stored = len(session.all_steps())
    assert session.segments[0].thread.pending and not session.pending_interrupts()
    live = session.go_on_thread()
    assert live.thread.forked and not session.replay_mode and [p.node for p in session.pending_interrupts()] == ["review"]
    session.resume("yes")
    assert session.finished and len(session.all_steps()) == stored + 1
    assert session.current.stepper.current_values()["answer"] == "yes"
    with pytest.raises(DebuggerUserError, match="open a stored thread first"):
        session.go_on_thread()


def test_going_on_from_a_past_step_keeps_the_stored_steps_up_to_it(tmp_path):
    path = str(tmp_path / "app.db")
    with SqliteSaver.from_conn_string(path) as saver:
        write_threads(saver)
    store = open_store(parse_checkpointer_url(f"sqlite:///{path}"))
    session = GraphSession(spec="g", graph=builder().compile())
    session.open_thread(store, "t-finished")
    assert [rec.nodes for _s, rec in session.all_steps()] == [("plan",), ("work",), ("finish",), ("review",)]
    session.go_on_thread(after_step=1)
    session.run_to_end()
    nodes = [rec.nodes for _s, rec in session.all_steps()]
    assert nodes == [("plan",), ("work",), ("finish",), ("review",)] and session.finished
    assert session.segments[1].thread.forked and len(session.segments[0].stepper.steps) == 2


@pytest.mark.parametrize("argv, env, url, writable", [
    (["--checkpointer", "sqlite:///a.db"], {}, "sqlite:///a.db", False),
    ([], {"RAG_DEBUG_CHECKPOINTER": "postgresql://h/db"}, "postgresql://h/db", False),
    (["--checkpointer", "sqlite:///a.db"], {"RAG_DEBUG_CHECKPOINTER": "sqlite:///b.db"}, "sqlite:///a.db", False),
    (["--checkpointer", "sqlite:///a.db", "--checkpointer-writable"], {}, "sqlite:///a.db", True),
    ([], {"RAG_DEBUG_CHECKPOINTER": "sqlite:///a.db", "RAG_DEBUG_CHECKPOINTER_WRITABLE": "1"}, "sqlite:///a.db", True),
    ([], {"RAG_DEBUG_CHECKPOINTER_WRITABLE": "0"}, None, False),
])
def test_the_checkpointer_comes_from_the_command_line_or_the_environment(argv, env, url, writable):
    from rag_debugger.launch import parse_launch

    opts = parse_launch(argv, env)
    assert (opts.checkpointer, opts.checkpointer_writable) == (url, writable)
