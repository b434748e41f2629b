"""What if: a field edited at a checkpoint runs forward as a fork; the original branch stays as it
was; an appending field is refused."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from rag_debugger.debugger import GraphStepper
from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.fork import fork_stepper


class S(TypedDict, total=False):
    route: str
    out: str
    log: Annotated[list, operator.add]


def decide(state: S) -> dict:
    return {"route": "a", "log": ["decide"]}


def route(state: S) -> str:
    return "on_a" if state.get("route") == "a" else "on_b"


def graph():
    g = StateGraph(S)
    g.add_node("decide", decide)
    g.add_node("on_a", lambda s: {"out": "A", "log": ["a"]})
    g.add_node("on_b", lambda s: {"out": "B", "log": ["b"]})
    g.add_edge(START, "decide")
    g.add_conditional_edges("decide", route, ["on_a", "on_b"])
    g.add_edge("on_a", END)
    g.add_edge("on_b", END)
    return g.compile(checkpointer=InMemorySaver())


def test_an_edited_route_takes_the_other_branch_and_the_original_stays():
    s = GraphStepper(graph())
    s.start({})
    s.run_to_end()
    assert s.current_values()["out"] == "A"
    original_final = s.steps[-1].values_after
    fork = fork_stepper(s, 0, {"route": "b"}, as_node="decide")
    assert fork.next_nodes == ("on_b",)  # the graph's own edges decide, from the edited state
    fork.run_to_end()
    assert fork.done and fork.current_values()["out"] == "B"
    assert fork.current_values()["log"] == ["decide", "b"]  # no step ran twice
    assert s.state_at(0)["route"] == "a" and s.state_at(1)["out"] == "A"  # the original, by checkpoint id
    assert original_final["out"] == "A"


def test_an_appending_field_cannot_be_edited():
    s = GraphStepper(graph())
    s.start({})
    s.step()
    with pytest.raises(StepperError, match="appending reducer"):
        fork_stepper(s, 0, {"log": []}, as_node="decide")


def test_a_fork_from_recorded_values_runs_on_a_new_thread():
    from rag_debugger.debugger.fork import fork_from_values

    g = graph()
    fork = fork_from_values(g, {"route": "b", "log": ["decide"]}, as_node="decide", thread_id="replay-fork")
    assert fork.next_nodes == ("on_b",)
    fork.run_to_end()
    assert fork.current_values() == {"route": "b", "out": "B", "log": ["decide", "b"]}
