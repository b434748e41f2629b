"""The live-run checkpointer of a shared history (rag/runs/mirrored_saver.py) on a real LangGraph graph: a
primary saver that starts failing loses the database once and the run goes on in memory with its history
readable; threads this process never wrote are read from the primary. The shutdown watcher's pure rule too."""
from __future__ import annotations

from typing import TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from rag.runs.mirrored_saver import MirroredSaver
from rag_debugger.ui.shutdown import stopping


class Flaky(InMemorySaver):
    """A primary that goes down on demand (as a database would: every write raises)."""

    down = False
    calls = 0

    def put(self, *args, **kwargs):
        self.calls += 1
        if self.down:
            raise ConnectionError("server closed the connection")
        return super().put(*args, **kwargs)

    def put_writes(self, *args, **kwargs):
        self.calls += 1
        if self.down:
            raise ConnectionError("server closed the connection")
        return super().put_writes(*args, **kwargs)


class S(TypedDict):
    n: int


def graph(saver):
    g = StateGraph(S)
    for name in ("a", "b", "c"):
        g.add_node(name, lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    return g.compile(checkpointer=saver, interrupt_before=["b", "c"])


def test_a_primary_that_goes_down_is_lost_once_and_the_run_goes_on_in_memory():
    primary, lost = Flaky(), []
    saver = MirroredSaver(primary, on_lost=lost.append)
    app, config = graph(saver), {"configurable": {"thread_id": "t1"}}
    app.invoke({"n": 0}, config)
    assert primary.get_tuple(config) is not None  # copied while it answers
    primary.down = True
    app.invoke(None, config)
    calls = primary.calls
    app.invoke(None, config)
    assert app.get_state(config).values == {"n": 3} and not app.get_state(config).next
    assert len(lost) == 1 and isinstance(lost[0], ConnectionError) and saver.lost
    assert primary.calls == calls  # once lost, never waited on again
    history = list(app.get_state_history(config))
    assert [h.values.get("n") for h in history][:4] == [3, 2, 1, 0]  # time travel reads memory


def test_threads_this_process_never_wrote_come_from_the_primary_and_forget_frees_memory():
    primary = Flaky()
    graph(primary).invoke({"n": 5}, {"configurable": {"thread_id": "recorded"}})
    saver = MirroredSaver(primary)
    app = graph(saver)
    assert app.get_state({"configurable": {"thread_id": "recorded"}}).values == {"n": 6}
    app.invoke({"n": 0}, {"configurable": {"thread_id": "live"}})
    saver.forget("live")
    assert "live" not in saver.memory.storage
    assert app.get_state({"configurable": {"thread_id": "live"}}).values == {"n": 1}  # the primary kept it


@pytest.mark.parametrize("state, expected", [("INITIAL", False), ("NO_SESSIONS_CONNECTED", False),
                                             ("ONE_OR_MORE_SESSIONS_CONNECTED", False), ("STOPPING", True),
                                             ("STOPPED", True)])
def test_the_watcher_leaves_only_when_streamlit_stops(state, expected):
    from streamlit.runtime import RuntimeState

    assert stopping(RuntimeState[state]) is expected
