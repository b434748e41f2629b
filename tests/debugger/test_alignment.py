"""Two runs of a graph aligned step by step: table tests on real LangGraph runs of the toy graphs."""
from __future__ import annotations

import operator
from typing import Annotated

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from typing_extensions import TypedDict

from rag_debugger.debugger import GraphStepper
from rag_debugger.debugger.alignment import Segment, compare_runs, match_lanes
from rag_debugger.debugger.records import LaneRecord
from tests.debugger import toy_graphs as tg


def run(graph, inp) -> list[Segment]:
    stepper = GraphStepper(graph)
    stepper.start(inp)
    stepper.run_to_end()
    return [Segment(label="main", steps=list(stepper.steps))]


def test_the_same_input_twice_has_no_divergence():
    a, b = run(tg.linear_graph(), {"n": 0}), run(tg.linear_graph(), {"n": 0})
    result = compare_runs(a, b)
    assert result.first is None
    assert [r.kind for r in result.rows] == ["same", "same", "same"]
    assert [(r.a, r.b) for r in result.rows] == [(1, 1), (2, 2), (3, 3)]


def test_a_different_input_is_named_at_the_first_step_with_the_input_field():
    result = compare_runs(run(tg.linear_graph(), {"n": 0}), run(tg.linear_graph(), {"n": 5}))
    first = result.first
    assert (first.step, first.node, first.field, first.from_input) == (1, "a", "n", True)


@pytest.mark.parametrize("x_a, x_b, expected", [
    (1, 1, None),
    # the route differs at the classify step; then each run takes its own branch node
    (1, -1, (1, "classify", "route")),
])
def test_branches_align_by_node_and_show_steps_only_one_run_has(x_a, x_b, expected):
    graph = tg.conditional_graph()
    result = compare_runs(run(graph, {"x": x_a}), run(graph, {"x": x_b}), ignore=("x",))
    first = result.first
    assert (None if first is None else (first.step, first.node, first.field)) == expected
    if expected:
        kinds = [(r.kind, r.nodes_a, r.nodes_b) for r in result.rows]
        assert ("only_a", ("positive",), ()) in kinds and ("only_b", (), ("negative",)) in kinds


def test_a_difference_carried_from_an_earlier_step_is_not_counted_again():
    result = compare_runs(run(tg.linear_graph(), {"n": 0}), run(tg.linear_graph(), {"n": 5}))
    # each step writes n (n+1 differs at every step) but `log` is the same in both runs
    assert all("log" not in r.fields for r in result.rows)


def test_lanes_are_matched_by_key_and_a_missing_lane_is_a_difference():
    a = [LaneRecord(task_id="1", node="sub", writes={"q": "x"}), LaneRecord(task_id="2", node="sub", writes={"q": "y"})]
    b = [LaneRecord(task_id="3", node="sub", writes={"q": "y"})]
    pairs = match_lanes(a, b, lambda lane: lane.writes["q"])
    assert pairs == (("x", 0, None), ("y", 1, 0))


def test_fanout_lanes_are_paired_by_their_key_in_the_aligned_step():
    graph = tg.fanout_graph()
    result = compare_runs(run(graph, {"question": "q"}), run(graph, {"question": "q"}),
                          lane_key=lambda lane: repr(lane.writes))
    assert result.first is None
    fan = [r for r in result.rows if len(r.lanes) == 3]
    assert fan and all(x is not None and y is not None for _, x, y in fan[0].lanes)
    other = compare_runs(run(graph, {"question": "q"}), run(graph, {"question": "r"}),
                         lane_key=lambda lane: repr(lane.writes))
    assert (other.first.step, other.first.field) == (1, "question")
    fan = [r for r in other.rows if len(r.lanes) >= 3][0]
    assert fan.kind == "differs" and all(x is None or y is None for _, x, y in fan.lanes)


@pytest.mark.parametrize("a, b", [
    ("", ""), ("abc", "abc"), ("abc", "abxc"), ("aaaa", "aa"), ("xabcx", "yabcy"), ("abc", ""), ("", "ab"),
    ("aaaaab", "aaaacb"),
])
def test_aligning_keys_covers_both_sequences_in_order(a, b):
    from rag_debugger.debugger.alignment import align_keys

    ops = align_keys(list(a), list(b))
    assert [(i1, i2) for _, i1, i2, _, _ in ops if i2 > i1] == _runs(len(a), ops, 1)
    assert [(j1, j2) for _, _, _, j1, j2 in ops if j2 > j1] == _runs(len(b), ops, 3)
    assert all(a[i1:i2] == b[j1:j2] for tag, i1, i2, j1, j2 in ops if tag == "equal")


def _runs(n, ops, at):
    """The opcodes' ranges on one side tile it from 0 to n without gaps."""
    ranges = [(op[at], op[at + 1]) for op in ops if op[at + 1] > op[at]]
    assert (ranges[0][0] if ranges else 0) == 0 and (ranges[-1][1] if ranges else 0) == n
    assert all(x[1] == y[0] for x, y in zip(ranges, ranges[1:], strict=False))
    return ranges


def test_per_run_ids_are_not_differences_but_content_is():
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from rag_debugger.debugger.alignment import differing_fields, without_run_ids

    def run(ids: tuple[str, str, str], answer: str) -> dict:
        call = {"name": "weather", "args": {"city": "Oslo"}, "id": ids[1], "type": "tool_call"}
        return {"messages": [HumanMessage("hi", id=ids[0]), AIMessage("", tool_calls=[call], id=ids[2]),
                             ToolMessage(answer, tool_call_id=ids[1])]}

    a, b = run(("m1", "call_abc", "lc_run--1"), "sunny"), run(("m9", "call_xyz", "lc_run--2"), "sunny")
    assert differing_fields(a, b) == ()
    assert differing_fields(a, b, run_ids=False) == ("messages",)
    assert differing_fields(a, run(("m9", "call_xyz", "lc_run--2"), "rain")) == ("messages",)
    # the tool result still pairs with its call after the ids are renamed
    plain = without_run_ids(a)["messages"]
    assert plain[1]["tool_calls"][0]["id"] == plain[2]["tool_call_id"] == "call#1"


def test_send_lanes_of_one_node_pair_in_their_order():
    a = [LaneRecord(task_id=str(i), node="work", writes={"out": [i]}) for i in range(3)]
    b = [LaneRecord(task_id=f"b{i}", node="work", writes={"out": [i]}) for i in range(2)]
    assert match_lanes(a, b, lambda lane: lane.node) == (("work", 0, 0), ("work #2", 1, 1), ("work #3", 2, None))


def test_a_missing_send_lane_shows_as_missing_and_the_others_pair_with_their_twins():
    from rag_debugger.debugger.alignment import pair_lanes

    def lanes(*items: str) -> list[LaneRecord]:
        return [LaneRecord(task_id=f"{x}{i}", node="work", writes={"out": [x]}) for i, x in enumerate(items)]

    assert pair_lanes(lanes("x", "y", "z"), lanes("x", "z")) == (("work", 0, 0), ("work #2", 1, None),
                                                                 ("work #3", 2, 1))
    # lanes that wrote differently still pair in their order (their fields then differ)
    assert pair_lanes(lanes("x", "y"), lanes("p", "q")) == (("work", 0, 0), ("work #2", 1, 1))
    assert pair_lanes(lanes("x"), lanes("x", "y")) == (("work", 0, 0), ("work #2", None, 1))



class Sent(TypedDict, total=False):
    out: Annotated[list[str], operator.add]


def _fanout(order: list[str], loud: bool = False) -> object:
    """A graph that sends one lane per item of `order` (in that order); `loud`: every lane writes its item loud."""
    b = StateGraph(Sent)
    b.add_node("work", lambda item: {"out": [item["x"].upper() if loud else item["x"]]})
    b.add_conditional_edges(START, lambda s: [Send("work", {"x": x}) for x in order], ["work"])
    b.add_edge("work", END)
    return b.compile(checkpointer=InMemorySaver())


def test_a_send_lane_knows_the_argument_langgraph_gave_it():
    stepper = GraphStepper(_fanout(["x", "y"]))
    stepper.start({})
    (record,) = stepper.run_to_end()
    assert [lane.sent for lane in record.lanes] == [{"x": "x"}, {"x": "y"}]
    # a task an edge triggered was sent nothing
    linear = GraphStepper(tg.linear_graph())
    linear.start({"n": 0})
    assert all(lane.sent is None for r in linear.run_to_end() for lane in r.lanes)


def test_send_lanes_sent_in_another_order_pair_by_their_argument():
    from rag_debugger.debugger.alignment import pair_lanes

    a = run(_fanout(["x", "y", "z"]), {})[0].steps[0].lanes
    b = run(_fanout(["z", "x", "y"], loud=True), {})[0].steps[0].lanes
    # each lane pairs with the one sent the same item, whatever it wrote and wherever it came (no lane of B
    # wrote what a lane of A did, so only the argument can pair them)
    pairs = [(a[i].sent, b[j].sent) for _key, i, j in pair_lanes(a, b)]
    assert pairs == [({"x": "x"}, {"x": "x"}), ({"x": "y"}, {"x": "y"}), ({"x": "z"}, {"x": "z"})]
    loud = compare_runs(run(_fanout(["x", "y", "z"]), {}), run(_fanout(["z", "x", "y"], loud=True), {}))
    assert loud.first is not None and loud.first.field == "out"
    # the same lanes sent in another order: paired crosswise
    swapped = compare_runs(run(_fanout(["x", "y"]), {}), run(_fanout(["y", "x"]), {}))
    assert swapped.rows[0].lanes == (("work", 0, 1), ("work #2", 1, 0))
