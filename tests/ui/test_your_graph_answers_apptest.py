"""The Your graph page answers interrupts as LangGraph takes them (any JSON value, several by id, with a
state update), stops at the graph's compiled breakpoints, and picks bundled examples with their input."""
from __future__ import annotations

from rag_debugger.ui.graph_page import GRAPH_FIELD, SESSION_KEY
from tests.support.apptest import inspector_dot, inspector_text, press


def _field(at, label_start: str):
    return next(w for w in (*at.text_input, *at.text_area) if w.label.startswith(label_start))


def test_a_json_answer_reaches_the_node_as_a_dict(graph_app):
    at = graph_app("tests.ui.answer_graphs:query_graph")
    _field(at, "topic").input("tides")
    at.run()
    press(at, "step")
    assert any("Find data on tides" in t.value for t in at.text)
    kind = at.radio(key="yg_ans_0_kind")
    assert kind.value == "text"  # a question in words
    kind.set_value("json").run()
    at.text_area(key="yg_ans_0_text").input('{"data": {"height": 2.5}}').run()
    at.button(key="yg_ans_0_send").click().run()
    assert not at.exception
    session = at.session_state[SESSION_KEY]
    assert session.finished and session.current.stepper.current_values()["data"] == {"height": 2.5}
    assert not any("Error" in e.value for e in at.error)


def test_bad_json_is_refused_with_a_message_and_nothing_runs(graph_app):
    at = graph_app("tests.ui.answer_graphs:query_graph")
    press(at, "step")
    at.radio(key="yg_ans_0_kind").set_value("json").run()
    at.text_area(key="yg_ans_0_text").input("{not json").run()
    at.button(key="yg_ans_0_send").click().run()
    assert any("not JSON" in w.value for w in at.warning)
    assert at.session_state[SESSION_KEY].pending_interrupts()


def test_two_lanes_answered_one_then_both_with_a_state_update(graph_app):
    at = graph_app("tests.ui.answer_graphs:lanes_graph")
    _field(at, "items").input('["x", "y", "z"]')
    at.run()
    press(at, "step")
    session = at.session_state[SESSION_KEY]
    pending = session.pending_interrupts()
    assert len(pending) == 3 and any("3 interrupts wait" in i.value for i in at.info)
    slot = {p.value: p.interrupt_id[:16] for p in pending}
    at.text_area(key=f"yg_ans_{slot['Value for x?']}_text").input("1").run()
    at.button(key=f"yg_ans_{slot['Value for x?']}_send").click().run()  # one at a time
    assert len(session.pending_interrupts()) == 2
    assert "answered" in inspector_text(at)
    slot = {p.value: p.interrupt_id[:16] for p in session.pending_interrupts()}
    at.text_area(key=f"yg_ans_{slot['Value for y?']}_text").input("2").run()
    at.text_area(key=f"yg_ans_{slot['Value for z?']}_text").input("3").run()
    at.button(key="yg_send_all").click().run()  # the rest together
    assert not at.exception and session.finished and not session.pending_interrupts()
    assert sorted(session.current.stepper.current_values()["out"]) == ["x=1", "y=2", "z=3"]
    assert "waits for an answer" not in inspector_text(at)


def test_run_stops_at_the_graphs_compiled_breakpoint_and_draws_it(graph_app):
    at = graph_app("tests.ui.answer_graphs:paused_graph")
    assert "pauses before" in inspector_dot(at)
    press(at, "run")
    assert any("interrupt_before" in i.value and "`b`" in i.value for i in at.info)
    assert "paused before b" in inspector_text(at)
    press(at, "continue")
    assert "finished" in inspector_text(at)


def test_a_bundled_example_and_its_input_file_are_picked(graph_app):
    at = graph_app("rag_debugger.examples.chain:graph")
    at.selectbox(key="yg_example").select("rag_debugger.examples.approval:graph").run()
    assert not at.exception
    assert at.text_input(key=GRAPH_FIELD).value == "rag_debugger.examples.approval:graph"
    assert at.selectbox(key="yg_example_input").value == "approval_input.json"
    assert _field(at, "request").value == "Can I get a refund for order 42?"
    at.selectbox(key="yg_example_input").select("—").run()
    assert _field(at, "request").value == ""
