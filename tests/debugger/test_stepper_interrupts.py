"""`interrupt()` in a stepped graph: the stepper sees the pending question, and `resume(value)`
answers it with `Command(resume=...)` as one superstep."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send, interrupt

from rag_debugger.debugger import GraphStepper, StepperError
from rag_debugger.debugger.loading import load_graph


def _approval():
    s = GraphStepper(load_graph("rag_debugger.examples.approval:graph"))
    s.start({"request": "refund?"})
    return s


def test_a_pending_interrupt_is_seen_with_its_value_and_node():
    s = _approval()
    assert s.pending_interrupts == ()
    s.run_to_end()
    (pending,) = s.pending_interrupts
    assert pending.node == "review"
    assert pending.value["options"] == ["approve", "reject"]
    assert pending.interrupt_id
    assert not s.done and s.next_nodes == ("review",)


def test_resume_answers_the_interrupt_and_runs_one_superstep():
    s = _approval()
    s.run_to_end()
    steps = len(s.steps)
    record = s.resume("approve")
    assert len(s.steps) == steps + 1 and record.nodes == ("review",)
    assert record.lanes[0].writes == {"decision": "approve"}
    assert record.annotations["resume"] == "approve"
    assert s.current_values()["decision"] == "approve"
    (pending,) = s.pending_interrupts if s.pending_interrupts else (None,)
    assert pending is None and s.next_nodes == ("details",)  # paused before the next node, nothing asked yet
    s.run_to_end()
    assert s.pending_interrupts[0].node == "details"  # the typed question
    s.resume({"priority": 2})
    s.run_to_end()
    assert s.done and s.current_values()["status"] == "sent" and s.current_values()["priority"] == 2


def test_continue_stops_at_an_interrupt_and_does_not_ask_again():
    s = _approval()
    s.run_to_end()
    steps = len(s.steps)
    assert s.run_to_end() == [] and len(s.steps) == steps


def test_resume_without_a_pending_interrupt_is_refused():
    s = _approval()
    with pytest.raises(StepperError, match="no interrupt"):
        s.resume("approve")


def test_time_travel_still_reads_the_state_before_the_answer():
    s = _approval()
    s.run_to_end()
    s.resume("reject")
    s.run_to_end()
    assert s.done and s.current_values()["status"] == "revise"
    assert "decision" not in s.state_at(0)


class LanesState(TypedDict, total=False):
    items: list[str]
    answers: Annotated[list[str], operator.add]


def _asking_lanes():
    def ask(item: dict) -> dict:
        return {"answers": [f"{item['item']}={interrupt(item['item'])}"]}

    b = StateGraph(LanesState)
    b.add_node("prep", lambda s: {})
    b.add_node("ask", ask)
    b.add_edge(START, "prep")
    b.add_conditional_edges("prep", lambda s: [Send("ask", {"item": i}) for i in s["items"]], ["ask"])
    b.add_edge("ask", END)
    return b.compile(checkpointer=InMemorySaver())


def test_parallel_interrupts_are_answered_one_by_one_by_id():
    s = GraphStepper(_asking_lanes())
    s.start({"items": ["a", "b"]})
    s.run_to_end()
    pending = s.pending_interrupts
    assert sorted(p.value for p in pending) == ["a", "b"]
    with pytest.raises(StepperError, match="2 interrupts"):
        s.resume("x")
    first = next(p for p in pending if p.value == "a")
    s.resume("yes", interrupt_id=first.interrupt_id)
    assert [p.value for p in s.pending_interrupts] == ["b"]
    s.resume("no")
    s.run_to_end()
    assert s.done and sorted(s.current_values()["answers"]) == ["a=yes", "b=no"]


def test_an_interrupt_inside_a_subgraph_names_the_parent_task_and_resumes():
    inner = StateGraph(LanesState)
    inner.add_node("ask", lambda s: {"answers": [interrupt(["a", "b"])]})
    inner.add_edge(START, "ask")
    inner.add_edge("ask", END)
    outer = StateGraph(LanesState)
    outer.add_node("sub", inner.compile())
    outer.add_edge(START, "sub")
    outer.add_edge("sub", END)
    s = GraphStepper(outer.compile(checkpointer=InMemorySaver()))
    s.start({})
    s.run_to_end()
    (pending,) = s.pending_interrupts
    assert pending.node == "sub" and pending.value == ["a", "b"]
    s.resume("b")
    s.run_to_end()
    assert s.done and s.current_values()["answers"] == ["b"]
