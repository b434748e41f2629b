"""The one rule for which of Run / Step / Continue / Restart / Stop can be clicked (rag_debugger/views/control_rule.py),
as a table over the session's states, and the state read from both sessions (the RAG workflow's and a graph
of your own) at the same places of a run."""
from __future__ import annotations

import pytest

from rag_debugger.views.control_rule import ControlState, control_state, enabled_buttons

ON = {"run": True, "step": True, "continue": True, "restart": True, "stop": False}


def _but(**off: bool) -> dict[str, bool]:
    return {**ON, **off}


S = ControlState
TABLE = [
    ("not started", S(started=False, finished=False), _but(restart=False)),
    ("not started, a question typed", S(started=False, finished=False, new_input=True), ON),
    ("paused before a node", S(started=True, finished=False), ON),
    ("waiting for an answer to interrupt()", S(started=True, finished=False, waiting=True),
     _but(step=False, **{"continue": False})),
    ("the RAG workflow's follow-up question", S(started=True, finished=True, waiting=True),
     _but(step=False, **{"continue": False})),
    ("a follow-up question, a new question typed", S(started=True, finished=True, waiting=True, new_input=True), ON),
    ("finished", S(started=True, finished=True), _but(step=False, **{"continue": False})),
    ("finished, a new question typed", S(started=True, finished=True, new_input=True), ON),
    ("a step failed (Step retries it)", S(started=True, finished=False), ON),
    ("replay at its start", S(started=True, finished=False, replay=True), _but(run=False)),
    ("replay in the middle", S(started=True, finished=False, replay=True), _but(run=False)),
    ("replay at its end", S(started=True, finished=True, replay=True),
     _but(run=False, step=False, **{"continue": False})),
    ("replay at its end, the box differs (locked to the recording)",
     S(started=True, finished=True, replay=True, new_input=True), _but(run=False, step=False, **{"continue": False})),
    ("a live step running", S(started=True, finished=False, running=True),
     {"run": False, "step": False, "continue": False, "restart": False, "stop": True}),
    ("a live step running, a new question typed", S(started=True, finished=False, new_input=True, running=True),
     {"run": False, "step": False, "continue": False, "restart": False, "stop": True}),
]


@pytest.mark.parametrize("state, expected", [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_which_buttons_are_on(state, expected):
    assert enabled_buttons(state) == expected


# ----- the state as read from real sessions -------------------------------------------------------------

def _graph(spec: str):
    from rag_debugger.debugger.session import GraphSession

    return GraphSession.open(spec)


def test_a_graph_of_your_own_through_a_run_with_an_interrupt():
    session = _graph("rag_debugger.examples.approval:graph")
    assert control_state(session) == S(started=False, finished=False)
    session.start({"request": "Can I get a refund for order 42?"})
    assert control_state(session) == S(started=True, finished=False)
    session.continue_()
    assert session.pending_interrupts()
    assert control_state(session) == S(started=True, finished=False, waiting=True)
    assert not enabled_buttons(control_state(session))["step"]


def test_a_graph_of_your_own_finished_failed_and_replayed():
    session = _graph("rag_debugger.examples.chain:graph")
    session.start({"text": "a  b"})
    session.run_to_end()
    assert control_state(session) == S(started=True, finished=True)
    export = session.export_run()
    session.open_replay(export)
    assert control_state(session) == S(started=True, finished=False, replay=True)  # at its start
    session.step()
    assert control_state(session).replay and not control_state(session).finished  # in the middle
    session.current.stepper.run_to_end()
    assert control_state(session) == S(started=True, finished=True, replay=True)
    assert enabled_buttons(control_state(session)) == _but(run=False, step=False, **{"continue": False})


def test_the_rag_workflow_paused_asking_and_with_a_new_question_in_the_box():
    from rag.demo import load_demo_questions
    from rag_debugger.workbench.session import DebugSession

    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.hitl_answer)
    session = DebugSession()
    assert control_state(session, box=demo.question) == S(started=False, finished=False, new_input=True)
    session.start(demo.question)
    session.step()
    assert control_state(session, box=demo.question) == S(started=True, finished=False)
    session.run_to_end()
    asking = control_state(session, box=demo.question)
    assert asking == S(started=True, finished=True, waiting=True)
    assert control_state(session, box="another question") == asking._replace(new_input=True)
    assert control_state(session, running=True) == S(started=True, finished=False, running=True)


def test_a_failed_step_leaves_step_on_to_retry_it():
    from typing import TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph

    from rag_debugger.debugger.session import GraphSession

    class State(TypedDict):
        n: int

    def boom(state: State) -> dict:
        raise RuntimeError("disk on fire")

    builder = StateGraph(State)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    builder.add_edge("boom", END)
    session = GraphSession(spec="tests.ui:boom", graph=builder.compile(checkpointer=InMemorySaver()))
    session.start({"n": 1})
    session.step()
    assert session.current.stepper.error
    assert control_state(session) == S(started=True, finished=False)
    assert enabled_buttons(control_state(session))["step"]


def test_the_rag_workflow_finished_but_its_result_failed_still_offers_restart(monkeypatch):
    """A result that cannot be worked out (the answering model's client failing) is a finished run, not
    a page without buttons: reading the state for the rule must not raise."""
    import rag.answering
    from rag.demo import load_demo_questions
    from rag.errors import ModelCallError
    from rag_debugger.workbench.session import DebugSession

    def unreachable(*args, **kwargs):
        raise ModelCallError("connection", "the answering model could not be reached")

    monkeypatch.setattr(rag.answering, "answer_for", unreachable)
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    session = DebugSession()
    session.start(demo.question)
    session.run_to_end()
    assert control_state(session, box=demo.question) == S(started=True, finished=True)
    assert enabled_buttons(control_state(session)) == _but(step=False, **{"continue": False})
