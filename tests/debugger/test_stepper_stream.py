"""A step builds its record from what LangGraph streams; it must equal what reading back gives.

Before streaming, every step read the head and the step's tasks back with `get_state`. Each test
here steps a graph and compares the record (and the cached head) with that read-back, and checks
which path was taken: streamed for plain steps, read back for errors, retries and interrupts.
"""
from __future__ import annotations

import operator
import sqlite3
import threading
from typing import Annotated, TypedDict

import pytest
from langgraph.channels import UntrackedValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from rag_debugger.debugger import GraphStepper
from tests.debugger import toy_graphs as tg
from tests.debugger.readback import assert_head_is_read_back, checked_step


@pytest.fixture(autouse=True)
def _reset_calls():
    tg.CALLS.clear()


def _sqlite_saver() -> SqliteSaver:
    return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))


SAVERS = {"memory": InMemorySaver, "sqlite": _sqlite_saver}


def checked_run(s: GraphStepper) -> list[tuple]:
    out = []
    while not s.done:
        record, calls = checked_step(s)
        out.append((record, calls))
        if record.error or record.interrupted:
            break
    return out


@pytest.mark.parametrize("saver", sorted(SAVERS))
@pytest.mark.parametrize("build,inp", [
    (tg.linear_graph, {"n": 0}),
    (tg.conditional_graph, {"x": 3}),
    (tg.fanout_graph, {"question": "q"}),
])
def test_plain_steps_are_streamed_and_equal_the_read_back(saver, build, inp):
    graph = build().builder.compile(checkpointer=SAVERS[saver]())
    s = GraphStepper(graph)
    s.start(inp)
    assert_head_is_read_back(s)
    steps = checked_run(s)
    assert s.done and steps
    assert [calls for _, calls in steps] == [0] * len(steps)


def test_fanout_lanes_keep_the_task_order_of_the_checkpoint():
    s = GraphStepper(tg.fanout_graph())
    s.start({"question": "q"})
    checked_step(s)
    record, calls = checked_step(s)
    assert calls == 0 and len(record.lanes) == 3
    assert [lane.task_id for lane in record.lanes] == [t.id for t in s.graph.get_state(
        {"configurable": {"thread_id": s.thread_id, "checkpoint_id": record.before_checkpoint_id}}).tasks]


class PairState(TypedDict, total=False):
    pair: tuple
    seen: Annotated[list, operator.add]


def _pair_graph(saver):
    b = StateGraph(PairState)
    b.add_node("make", lambda s: {"pair": (1, 2), "seen": [("make", 1)]})
    b.add_node("keep", lambda s: {"seen": [("keep", tuple(s["pair"]))]})
    b.add_edge(START, "make")
    b.add_edge("make", "keep")
    b.add_edge("keep", END)
    return b.compile(checkpointer=saver)


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_values_and_writes_are_shown_as_the_checkpointer_stores_them(saver):
    s = GraphStepper(_pair_graph(SAVERS[saver]()))
    s.start({})
    steps = checked_run(s)
    assert [calls for _, calls in steps] == [0, 0]
    make = steps[0][0]
    assert make.lanes[0].writes == {"pair": [1, 2], "seen": [["make", 1]]}  # tuples come back as lists
    assert make.values_after["pair"] == [1, 2]


class SplitState(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _split_graph():
    """split -> zeta + alpha in one superstep: the loop lists them by name, `get_state` in
    definition order (zeta first)."""
    b = StateGraph(SplitState)
    b.add_node("split", lambda s: {"log": ["split"]})
    b.add_node("zeta", lambda s: {"log": ["zeta"]})
    b.add_node("alpha", lambda s: {"log": ["alpha"]})
    b.add_node("join", lambda s: {"log": ["join"]})
    b.add_edge(START, "split")
    b.add_edge("split", "zeta")
    b.add_edge("split", "alpha")
    b.add_edge(["zeta", "alpha"], "join")
    b.add_edge("join", END)
    return b.compile(checkpointer=InMemorySaver())


def test_parallel_nodes_out_of_name_order_keep_get_states_order():
    s = GraphStepper(_split_graph())
    s.start({})
    split, calls = checked_step(s)
    assert split.next_nodes == ("zeta", "alpha") == s.next_nodes
    assert calls == 1  # the head is read back: the streamed one lists alpha first
    both, calls = checked_step(s)
    assert [lane.node for lane in both.lanes] == ["zeta", "alpha"] and calls == 0
    checked_run(s)
    assert s.done and sorted(s.current_values()["log"]) == ["alpha", "join", "split", "zeta"]


def test_failing_lane_and_retries_read_back_like_before():
    s = GraphStepper(tg.fanout_graph().builder.compile(checkpointer=_sqlite_saver()))
    s.start({"question": "boom"})
    checked_step(s)
    failed, calls = checked_step(s)
    # 3: the head, the step's tasks, and the values as the checkpoint holds them (pending writes not applied)
    assert failed.error == "ValueError: worker failed on boom-1" and calls == 3
    assert len(failed.lanes) == 3
    again, calls = checked_step(s)  # the failed lane runs again
    assert again.error == failed.error and calls == 4  # ... and the step before it, which has pending writes


class FlakyState(TypedDict, total=False):
    subs: list
    results: Annotated[list, operator.add]


FLAKY = {"failures": 0}
LANE_A_DONE = threading.Event()


def _flaky_graph():
    """plan -(Send x2)-> work; work on "b" fails once, then succeeds. It fails only after lane "a"
    has finished (it waits for it), so LangGraph keeps a's writes for the retry."""
    LANE_A_DONE.clear()

    def work(state: dict) -> dict:
        if state["sub"] == "b" and FLAKY["failures"] == 0:
            FLAKY["failures"] += 1
            LANE_A_DONE.wait(timeout=30)
            raise RuntimeError("flaky")
        if state["sub"] == "a":
            LANE_A_DONE.set()
        return {"results": [state["sub"]]}

    from langgraph.types import Send

    b = StateGraph(FlakyState)
    b.add_node("plan", lambda s: {"subs": ["a", "b"]})
    b.add_node("work", work)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", lambda s: [Send("work", {"sub": x}) for x in s["subs"]], ["work"])
    b.add_edge("work", END)
    return b.compile(checkpointer=InMemorySaver())


def test_a_retry_that_succeeds_records_every_lane_of_the_superstep():
    FLAKY["failures"] = 0
    s = GraphStepper(_flaky_graph())
    s.start({})
    checked_step(s)
    failed, _ = checked_step(s)
    assert failed.error == "RuntimeError: flaky"
    # A lane still running when another fails is dropped by LangGraph and runs again.
    kept = [lane.node for lane in failed.lanes if lane.writes is not None]
    retried, calls = checked_step(s)  # streams only the lanes it re-ran: read back when any was kept
    # read back when any was kept, and then the step before it (with the kept writes pending) by checkpoint id
    assert retried.ok and s.done and calls == (2 if kept else 0)
    assert [lane.writes for lane in retried.lanes] == [{"results": ["a"]}, {"results": ["b"]}]
    assert retried.values_after["results"] == ["a", "b"]


class AskState(TypedDict, total=False):
    question: str
    answer: str


def _asking_graph():
    b = StateGraph(AskState)
    b.add_node("prepare", lambda s: {"question": "which one?"})
    b.add_node("ask", lambda s: {"answer": interrupt({"ask": s["question"]})})
    b.add_edge(START, "prepare")
    b.add_edge("prepare", "ask")
    b.add_edge("ask", END)
    return b.compile(checkpointer=InMemorySaver())


def test_an_interrupt_is_read_back_like_before():
    s = GraphStepper(_asking_graph())
    s.start({})
    (_, streamed), (asked, calls) = checked_run(s)
    assert streamed == 0 and calls == 3  # the third reads the values as the checkpoint holds them
    assert asked.interrupted and asked.lanes[0].writes is None
    assert asked.lanes[0].interrupts == ("{'ask': 'which one?'}",)
    assert not s.done and s.next_nodes == ("ask",)


class ScratchState(TypedDict, total=False):
    n: int
    scratch: Annotated[int, UntrackedValue]


def test_a_graph_with_untracked_values_is_always_read_back():
    b = StateGraph(ScratchState)
    b.add_node("a", lambda s: {"n": 1, "scratch": 7})
    b.add_edge(START, "a")
    b.add_edge("a", END)
    s = GraphStepper(b.compile(checkpointer=InMemorySaver()))
    assert not s._streamable
    s.start({"n": 0})
    ((record, calls),) = checked_run(s)
    assert calls == 2 and record.lanes[0].writes == {"n": 1}  # never stored, never shown
