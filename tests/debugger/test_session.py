"""The "Your graph" session without Streamlit: loading, launch options, context, export and replay."""
from __future__ import annotations

import json

import pytest
from langgraph.graph import END, START, StateGraph

from debugger.errors import DebuggerUserError, GraphLoadError
from debugger.loading import load_saved_input, with_checkpointer
from debugger.session import GraphSession
from ui.launch import parse_launch


def test_launch_options_come_from_the_command_line_then_the_environment():
    opts = parse_launch(["--graph", "a.b:g", "--input", "in.json"], {"RAG_DEBUG_GRAPH": "x:y", "RAG_DEBUG_CONTEXT": "c:d"})
    assert opts.graph == "a.b:g" and opts.input == "in.json" and opts.context == "c:d"
    assert parse_launch([], {"RAG_DEBUG_GRAPH": "x:y"}).graph == "x:y"
    assert parse_launch(["-q", "--gr", "tests/x.py"], {}).graph is None  # someone else's arguments


def test_a_graph_compiled_without_a_checkpointer_gets_one_and_is_left_as_it_was():
    b = StateGraph(dict)
    b.add_node("a", lambda s: {})
    b.add_edge(START, "a")
    b.add_edge("a", END)
    plain = b.compile()
    steppable = with_checkpointer(plain)
    assert steppable.checkpointer is not None and plain.checkpointer is None


def test_a_bad_path_is_a_user_error():
    with pytest.raises(GraphLoadError, match="could not import"):
        GraphSession.open("no.such:module")


def test_a_context_factory_is_called():
    s = GraphSession.open("examples.chain:graph", context_spec="collections:OrderedDict")
    assert s.context == {}


def test_a_saved_input_must_be_a_json_object(tmp_path):
    bad = tmp_path / "in.json"
    bad.write_text("[1]")
    with pytest.raises(DebuggerUserError, match="must hold a JSON object"):
        load_saved_input(str(bad))
    with pytest.raises(DebuggerUserError, match="could not read"):
        load_saved_input(str(tmp_path / "missing.json"))


def test_a_run_exports_and_replays_with_the_same_steps():
    s = GraphSession.open("examples.fanout:graph")
    s.start({"words": ["a", "bb"]})
    s.run_to_end()
    live = [(r.nodes, r.values_after) for _, r in s.all_steps()]
    data = json.loads(json.dumps(s.export_run()))
    replay = GraphSession.open("examples.fanout:graph")
    replay.open_replay(data)
    replay.run_to_end()
    assert replay.replay_mode and [(r.nodes, r.values_after) for _, r in replay.all_steps()] == live
    with pytest.raises(DebuggerUserError, match="not a run exported"):
        replay.open_replay({"format": "other"})


def test_step_waits_for_the_answer_to_an_interrupt():
    s = GraphSession.open("examples.approval:graph")
    s.start({"request": "r"})
    s.run_to_end()
    assert s.done and not s.finished  # the Step and Continue buttons are off until answered
    with pytest.raises(DebuggerUserError, match="waiting for your answer"):
        s.step()
    s.resume("reject")
    s.run_to_end()
    assert s.finished and s.current.stepper.current_values()["status"] == "revise"


def test_step_into_a_subgraph_runs_it_node_by_node_on_the_parents_input():
    parent = GraphSession.open("examples.nested:graph")
    parent.start({"topic": " graphs "})
    assert parent.subgraphs_next() == ()
    parent.step()  # plan
    assert parent.subgraphs_next() == ("research",)
    child = parent.step_into("research")
    assert child.parent is parent and child.current.stepper.current_values()["topic"] == "graphs"
    assert child.current.stepper.next_nodes == ("search",)
    child.step()
    assert child.current.stepper.next_nodes == ("summarize",)
    child.run_to_end()
    assert child.finished and child.current.stepper.current_values()["notes"][-1] == "summary: graphs is a topic"
    assert parent.current.stepper.next_nodes == ("research",)  # the parent has not moved
    with pytest.raises(DebuggerUserError, match="not a subgraph"):
        parent.step_into("plan")


def test_the_react_example_loops_through_its_tool_until_it_answers():
    s = GraphSession.open("examples.react:graph")
    assert s.lint() == []
    s.start({"question": "(3 + 4) * 2?", "numbers": [3, 4]})
    s.run_to_end()
    assert [r.nodes for _, r in s.all_steps()] == [("agent",), ("tools",), ("agent",), ("tools",), ("agent",)]
    assert s.current.stepper.current_values()["answer"] == "The answer is 14."


@pytest.mark.parametrize("spec", ["examples.chain:graph", "examples.fanout:graph", "examples.approval:graph",
                                  "examples.nested:graph", "examples.react:graph"])
def test_every_example_lints_clean(spec):
    assert GraphSession.open(spec).lint() == []
