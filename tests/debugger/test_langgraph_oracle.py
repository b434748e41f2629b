"""LangGraph itself is the oracle: each graph runs once with LangGraph alone (`stream_mode="debug"`,
`get_state`, `Command(resume=...)`) and once through the debugger's session, and the debugger must show
what LangGraph did: interrupts answered by id with any JSON value, compiled breakpoints, error handlers,
retries, cache hits and `Command(goto)` edges."""
from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

import pytest
from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, Command, RetryPolicy, Send, interrupt

from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.session import GraphSession
from rag_debugger.debugger.stepper import GraphStepper


class LanesState(TypedDict, total=False):
    items: list
    out: Annotated[list, operator.add]


def _lanes_graph():
    """Two Send lanes, each asking in interrupt() with a dict, each using the answer's "data"."""
    def ask(s):
        resp = interrupt({"item": s["items"][0]})
        return {"out": [{"item": s["items"][0], "got": resp["data"]}]}

    b = StateGraph(LanesState)
    b.add_node("ask", ask)
    b.add_conditional_edges(START, lambda s: [Send("ask", {"items": [x]}) for x in s["items"]], ["ask"])
    b.add_edge("ask", END)
    return b


def _oracle(builder, inp, answers_by_item, **compile_kw):
    """LangGraph alone: run, then answer each pending interrupt (by id, in the given order of items), one resume each."""
    g = builder.compile(checkpointer=InMemorySaver(), **compile_kw)
    cfg = {"configurable": {"thread_id": "oracle"}}
    list(g.stream(inp, cfg, stream_mode="debug"))
    for item in answers_by_item:
        pending = {i.value["item"]: i.id for i in g.get_state(cfg).interrupts}
        list(g.stream(Command(resume={pending[item]: answers_by_item[item]}), cfg, stream_mode="debug"))
    return g.get_state(cfg)


def _session(builder, **compile_kw) -> GraphSession:
    g = builder.compile(checkpointer=InMemorySaver(), **compile_kw)
    return GraphSession(spec="test:graph", graph=g)


def test_parallel_interrupts_answered_one_at_a_time_with_json_like_langgraph():
    answers = {"y": {"data": 2}, "x": {"data": [1, "one"]}}
    oracle = _oracle(_lanes_graph(), {"items": ["x", "y"]}, answers)
    s = _session(_lanes_graph())
    s.start({"items": ["x", "y"]})
    asked = s.step()
    assert asked.interrupted and len(s.pending_interrupts()) == 2
    for item in ("y", "x"):
        p = next(p for p in s.pending_interrupts() if p.value["item"] == item)
        record = s.resume(answers[item], p.interrupt_id)
    assert s.finished and not s.pending_interrupts()
    assert not record.interrupted  # every interrupt of the step is answered: it no longer waits
    assert all(lane.answered and not lane.interrupts for lane in record.lanes)
    final = s.current.stepper.current_values()
    assert sorted(final["out"], key=str) == sorted(oracle.values["out"], key=str)
    assert {o["item"]: o["got"] for o in final["out"]} == {"x": [1, "one"], "y": 2}


def test_a_step_diff_and_time_travel_read_the_same_state():
    s = _session(_lanes_graph())
    s.start({"items": ["x", "y"]})
    s.step()
    first = next(p for p in s.pending_interrupts() if p.value["item"] == "x")
    half = s.resume({"data": 1}, first.interrupt_id)  # one lane answered, the other waits
    stepper = s.current.stepper
    for i, record in enumerate(stepper.steps):
        assert record.values_after == stepper.state_at(i)
    # the state now is LangGraph's own get_state on the thread: the answered lane's write is in it
    live = dict(stepper.graph.get_state({"configurable": {"thread_id": stepper.thread_id}}).values)
    assert stepper.current_values() == live and live != half.values_after
    # LangGraph by checkpoint id: what time travel reads
    cfg = {"configurable": {"thread_id": stepper.thread_id, "checkpoint_id": half.after_checkpoint_id}}
    assert half.values_after == dict(stepper.graph.get_state(cfg).values)


def test_answers_sent_together_with_a_state_update_like_command_resume_update():
    class St(TypedDict, total=False):
        items: list
        out: Annotated[list, operator.add]
        note: str

    b = StateGraph(St)

    def ask(s):
        return {"out": [interrupt({"item": s["items"][0]})["data"]]}
    b.add_node("ask", ask)
    b.add_conditional_edges(START, lambda s: [Send("ask", {"items": [x]}) for x in s["items"]], ["ask"])
    b.add_edge("ask", END)
    g = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "o"}}
    list(g.stream({"items": ["x", "y"]}, cfg, stream_mode="debug"))
    ids = {i.value["item"]: i.id for i in g.get_state(cfg).interrupts}
    list(g.stream(Command(resume={ids["x"]: {"data": 1}, ids["y"]: {"data": 2}}, update={"note": "n"}), cfg,
                  stream_mode="debug"))
    oracle = g.get_state(cfg).values

    s = GraphSession(spec="t:g", graph=b.compile(checkpointer=InMemorySaver()))
    s.start({"items": ["x", "y"]})
    s.step()
    ids = {p.value["item"]: p.interrupt_id for p in s.pending_interrupts()}
    s.resume_all({ids["x"]: {"data": 1}, ids["y"]: {"data": 2}}, update={"note": "n"})
    values = s.current.stepper.current_values()
    assert s.finished and values["note"] == oracle["note"] == "n"
    assert sorted(values["out"]) == sorted(oracle["out"]) == [1, 2]


def test_a_resume_update_is_filed_in_the_paused_step_as_langgraph_files_it():
    """LangGraph keeps a resume's update as writes of the paused checkpoint: its history shows the update in
    the step that paused. The step records, time travel and LangGraph's history agree."""
    class St(TypedDict, total=False):
        topic: str
        answer: str
        n: int

    b = StateGraph(St)
    b.add_node("draft", lambda s: {"topic": s["topic"] + " drafted"})
    b.add_node("ask", lambda s: {"answer": interrupt("ok?")})
    b.add_edge(START, "draft")
    b.add_edge("draft", "ask")
    b.add_edge("ask", END)
    s = _session(b)
    s.start({"topic": "t"})
    s.run_to_end()
    s.resume("fine", update={"n": 42})
    stepper = s.current.stepper
    history = {h.config["configurable"]["checkpoint_id"]: dict(h.values)
               for h in stepper.graph.get_state_history(stepper.config)}
    drafted = stepper.steps[0]
    assert drafted.values_after == history[drafted.after_checkpoint_id] == {"topic": "t drafted", "n": 42}
    for i, record in enumerate(stepper.steps):
        assert record.values_after == stepper.state_at(i) == history[record.after_checkpoint_id]
    assert stepper.current_values() == {"topic": "t drafted", "answer": "fine", "n": 42}


def test_the_state_now_keeps_the_writes_of_a_lane_that_finished_beside_a_failed_one():
    """A fan-out lane fails, its sibling finished: LangGraph's get_state on the thread (the state a resume goes
    on from) holds the sibling's write; the failed step's diff reads the checkpoint, as time travel does."""
    def work(s):
        if s["items"][0] == "bad":
            raise RuntimeError("lane failed")
        return {"out": [s["items"][0]]}

    b = StateGraph(LanesState)
    b.add_node("work", work)
    b.add_conditional_edges(START, lambda s: [Send("work", {"items": [x]}) for x in s["items"]], ["work"])
    b.add_edge("work", END)
    s = _session(b)
    s.start({"items": ["good", "bad"]})
    failed = s.step()
    stepper = s.current.stepper
    assert failed.error and "lane failed" in failed.error
    live = dict(stepper.graph.get_state(stepper.config).values)
    assert stepper.current_values() == live and live["out"] == ["good"]
    assert failed.values_after == stepper.state_at(0) and failed.values_after.get("out", []) == []


def test_an_answer_for_an_unknown_interrupt_is_refused():
    s = _session(_lanes_graph())
    s.start({"items": ["x", "y"]})
    s.step()
    with pytest.raises(DebuggerUserError):
        s.resume_all({"no-such-id": 1})
    with pytest.raises(DebuggerUserError):
        s.resume("one answer for two questions")


class ChainState(TypedDict, total=False):
    trail: Annotated[list, operator.add]


def _chain():
    b = StateGraph(ChainState)
    for name in "abcd":
        b.add_node(name, lambda s, n=name: {"trail": [n]})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    b.add_edge("c", "d")
    b.add_edge("d", END)
    return b


def _langgraph_pauses(before, after):
    """Where LangGraph alone pauses: the next nodes at each pause, invoke(input) then invoke(None) until the end."""
    g = _chain().compile(checkpointer=InMemorySaver(), interrupt_before=before, interrupt_after=after)
    cfg = {"configurable": {"thread_id": "o"}}
    pauses, inp = [], {"trail": []}
    while True:
        g.invoke(inp, cfg)
        inp = None
        snap = g.get_state(cfg)
        if not snap.next:
            return pauses, snap.values["trail"]
        pauses.append(snap.next)


@pytest.mark.parametrize("before, after", [(["c"], []), ([], ["a"]), (["a"], ["c"]), ("*", [])])
def test_run_and_continue_stop_where_langgraph_pauses_at_compiled_breakpoints(before, after):
    expected, trail = _langgraph_pauses(before, after)
    s = GraphSession(spec="t:g", graph=_chain().compile(checkpointer=InMemorySaver(), interrupt_before=before,
                                                        interrupt_after=after))
    s.start({"trail": []})
    seen = []
    s.run_to_end(from_input=True)
    while not s.finished:
        seen.append(s.current.stepper.next_nodes)
        assert s.compiled_pause is not None
        s.continue_()
    assert seen == [tuple(n) for n in expected]
    assert s.current.stepper.current_values()["trail"] == trail


def test_compiled_breakpoints_are_drawn_on_the_graph():
    s = GraphSession(spec="t:g", graph=_chain().compile(checkpointer=InMemorySaver(), interrupt_before=["c"],
                                                        interrupt_after=["a"]))
    dot = s.drawing().layout_dot()
    assert "pauses before" in dot and "pauses after" in dot
    c_line = next(line for line in dot.splitlines() if line.strip().startswith('"c" ['))
    assert "peripheries" in c_line and "pauses before" in c_line
    b_line = next(line for line in dot.splitlines() if line.strip().startswith('"b" ['))
    assert "pauses" not in b_line


class LogState(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def test_an_error_handler_task_is_shown_with_its_writes_in_the_step_langgraph_ran_it():
    def bad(s):
        raise RuntimeError("always")

    b = StateGraph(LogState)
    b.add_node("bad", bad, error_handler=lambda s: {"log": ["handled"]})
    b.add_edge(START, "bad")
    b.add_edge("bad", END)
    oracle = [ev["payload"] for ev in b.compile(checkpointer=InMemorySaver()).stream(
        {"n": 0}, {"configurable": {"thread_id": "o"}}, stream_mode="debug") if ev["type"] == "task_result"]
    handler = next(p for p in oracle if p["name"].startswith("__error_handler__"))
    st = GraphStepper(b.compile(checkpointer=InMemorySaver()))
    st.start({"n": 0})
    record = st.step()
    lanes = {lane.node: lane for lane in record.lanes}
    assert set(lanes) == {p["name"] for p in oracle}
    assert lanes["bad"].error == "RuntimeError: always"
    assert lanes[handler["name"]].writes == handler["result"] and lanes[handler["name"]].handles == "bad"
    assert record.values_after["log"] == ["handled"]  # the field changed, and the step says who wrote it


def test_retry_attempts_and_cache_hits_are_shown_as_what_ran():
    calls = {"n": 0}

    def flaky(s):
        calls["n"] += 1
        if calls["n"] % 3:
            raise ConnectionError(f"try {calls['n']}")
        return {"log": ["flaky"]}

    b = StateGraph(LogState)
    b.add_node("cached", lambda s: {"log": ["computed"]}, cache_policy=CachePolicy())
    b.add_node("flaky", flaky, retry_policy=RetryPolicy(max_attempts=5, initial_interval=0.001, jitter=False))
    b.add_edge(START, "cached")
    b.add_edge("cached", "flaky")
    b.add_edge("flaky", END)
    g = b.compile(checkpointer=InMemorySaver(), cache=InMemoryCache())
    runs = []
    for _ in range(2):
        st = GraphStepper(g)
        st.start({"n": 0})
        runs.append(st.run_to_end())
    (first_cached, first_flaky), (second_cached, second_flaky) = runs
    assert not first_cached.lanes[0].cached and second_cached.lanes[0].cached
    assert second_cached.lanes[0].writes == {"log": ["computed"]}
    assert first_flaky.lanes[0].attempts == 3
    assert first_flaky.lanes[0].failed_attempts == ("ConnectionError: try 1", "ConnectionError: try 2")
    assert second_flaky.lanes[0].attempts == 3


def test_command_goto_destinations_are_drawn_as_edges():
    def go(s) -> Command[Literal["left", "right"]]:
        return Command(goto="left")

    b = StateGraph(LogState)
    b.add_node("go", go)
    b.add_node("left", lambda s: {"log": ["l"]})
    b.add_node("right", lambda s: {"log": ["r"]}, destinations=())
    b.add_node("hop", lambda s: Command(goto=END), destinations=("left",))
    b.add_edge(START, "go")
    b.add_edge("left", END)
    b.add_edge("right", "hop")
    g = b.compile(checkpointer=InMemorySaver())
    reported = {(e.source, e.target) for e in g.get_graph().edges}
    dot = GraphSession(spec="t:g", graph=g).drawing().layout_dot()
    for source, target in [("go", "left"), ("go", "right"), ("hop", "left")]:
        assert (source, target) in reported
        assert f'"{source}" -> "{target}"' in dot


def test_continue_into_a_node_that_asks_reports_the_question_not_a_breakpoint():
    """A breakpoint on `details`, which calls interrupt(): Continue stops before it (a hit), then runs it and stops
    at its question, where `details` is still "next" but no breakpoint was hit (the page showed a stale
    "Breakpoint: paused before details" above the question)."""
    from rag_debugger.examples.approval import builder as approval

    s = GraphSession(spec="rag_debugger.examples.approval:graph", graph=approval.compile(checkpointer=InMemorySaver()))
    s.start({"request": "refund"})
    assert s.continue_({"details"}).hit is None and s.pending_interrupts()[0].node == "review"
    s.resume("approve")
    assert s.current.stepper.next_nodes == ("details",)
    assert s.continue_({"details"}).hit is None  # it goes on from the breakpoint it is paused at...
    assert s.pending_interrupts()[0].node == "details"  # ...and stops at the question: no breakpoint hit


def test_several_interrupts_in_one_node_are_asked_one_after_another_like_langgraph():
    class Two(TypedDict, total=False):
        a: object
        b: object

    def both(s):
        return {"a": interrupt("first?"), "b": interrupt({"question": "second?"})}

    b = StateGraph(Two)
    b.add_node("both", both)
    b.add_edge(START, "both")
    b.add_edge("both", END)
    g = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "o"}}
    g.invoke({}, cfg)
    asked = [g.get_state(cfg).interrupts[0].value]
    g.invoke(Command(resume=1), cfg)
    asked.append(g.get_state(cfg).interrupts[0].value)
    g.invoke(Command(resume={"x": [2]}), cfg)
    s = GraphSession(spec="t:g", graph=b.compile(checkpointer=InMemorySaver()))
    s.start({})
    s.step()
    seen = [s.pending_interrupts()[0].value]
    s.resume(1)
    seen.append(s.pending_interrupts()[0].value)
    s.resume({"x": [2]})
    assert seen == asked and s.finished
    assert s.current.stepper.current_values() == g.get_state(cfg).values == {"a": 1, "b": {"x": [2]}}
