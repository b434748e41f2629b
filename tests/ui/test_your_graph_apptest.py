"""The "Your graph" page under AppTest, on the example graphs in `examples/`: a graph named at
launch opens at `/`, lint and an input form from the schema, stepping with Send lanes and
reducer-aware diffs, time travel, interrupt() answered with an option and with a typed form, bad
paths and bad input with a clear message, no RAG panel."""
from __future__ import annotations

import re

import pytest

from rag_debugger.ui.graph_page import GRAPH_FIELD
from tests.support.apptest import inspector_dot, inspector_table, inspector_text, press, travel_to_step


@pytest.fixture
def page(graph_app):
    """The app started with a graph (`RAG_DEBUG_GRAPH`, what `-- --graph` also sets)."""
    return graph_app


def shown(at) -> str:
    return "\n".join(m.value for m in at.markdown) + "\n" + inspector_text(at)


def messages(at) -> list[str]:
    return [e.value for e in (*at.error, *at.warning)]


def test_a_launch_graph_opens_at_root_with_lint_and_a_form_from_its_schema(page):
    at = page("rag_debugger.examples.chain:graph")
    assert at.title[0].value == ":material/account_tree: Your graph"
    assert at.text_input(key=GRAPH_FIELD).value == "rag_debugger.examples.chain:graph"
    assert any("Graph lint: no findings" in c.value for c in at.caption)
    from tests.support.markdown import shown as read

    labels = [read(w.label) for w in (*at.text_input, *at.number_input, *at.text_area)]
    assert "text · str" in labels and "repeat · int" in labels and "log · list[str] (JSON)" in labels
    # no RAG panels on this page
    text = shown(at)
    assert "Evidence" not in text and "Demo questions" not in text and "What does each node do? (docstrings)" in text


def test_step_shows_the_highlighted_node_and_a_reducer_aware_diff(page):
    at = page("rag_debugger.examples.chain:graph")
    at.text_input(key=next(w.key for w in at.text_input if w.label == "text · str")).input("  hello   big world ")
    at.run()
    press(at, "step")
    assert "paused before count" in inspector_text(at)
    dot = inspector_dot(at)
    assert re.search(r'"count" \[.*fillcolor="#ffb74d"', dot) and re.search(r'"clean" \[.*fillcolor="#a5d6a7"', dot)
    diff = inspector_table(at, "diff")
    assert dict(zip(diff["field"], diff["kind"], strict=True)) == {"text": "changed", "log[0]": "appended"}
    press(at, "continue")
    assert "finished" in inspector_text(at)
    assert any("final state" in s.value for s in at.success)
    assert '"HELLO BIG WORLD"' in at.json[0].value
    travel_to_step(at, 0)
    assert "nothing was re-run" in inspector_text(at)
    assert "Step 1:" in inspector_text(at)


def test_send_fan_out_steps_as_parallel_lanes(page):
    at = page("rag_debugger.examples.fanout:graph")
    words = next(w for w in at.text_area if w.label.startswith("words"))
    words.input('["a", "bb", "ccc", "dddd"]')
    at.run()
    press(at, "step")
    press(at, "step")
    text = inspector_text(at)
    assert "4 parallel lanes" in text
    assert "Send ×4" in inspector_dot(at)
    press(at, "continue")
    assert '"total": 10' in at.json[0].value.replace(" ", "").replace('"total":10', '"total": 10')


def test_an_interrupt_is_answered_with_an_option_then_a_typed_form(page):
    at = page("rag_debugger.examples.approval:graph", RAG_DEBUG_INPUT="rag_debugger/examples/approval_input.json")
    request = next(w for w in at.text_input if w.label.startswith("request"))
    assert request.value == "Can I get a refund for order 42?"  # the saved input
    press(at, "continue")
    assert "`review` asks you" in shown(at)
    assert "Send this reply? Re: Can I get a refund" in "\n".join(t.value for t in at.text)
    at.button(key="yg_opt_0_0").click().run()  # "approve"
    assert any("Resumed with approve" in s.value for s in at.success)
    press(at, "continue")
    assert "`details` asks you" in shown(at)
    priority = at.number_input(key="yg_ans_0_priority")
    priority.set_value(9)
    at.button(key="FormSubmitter:yg_answer_form_0-Send answer").click().run()
    assert any("priority: must be at most 5" in m for m in messages(at))
    at.number_input(key="yg_ans_0_priority").set_value(3)
    at.button(key="FormSubmitter:yg_answer_form_0-Send answer").click().run()
    assert "finished" in inspector_text(at)  # the answer ran `details`, the last node
    final = at.json[0].value
    assert '"status": "sent"' in final and '"priority": 3' in final


@pytest.mark.parametrize("spec, message", [
    ("no.such:module", "could not import 'no.such'"),
    ("rag_debugger.examples.fanout:FanoutState", "is a FanoutState; expected a compiled graph"),
    ("rag_debugger.examples.approval:route", "needs arguments (state)"),
    ("rag_debugger.examples.chain", "expected 'package.module:attr'"),
])
def test_a_bad_path_gets_a_clear_message(page, spec, message):
    at = page(spec)
    assert any(message in m for m in messages(at)), messages(at)
    assert "Traceback" not in shown(at)


def test_bad_json_input_is_refused_with_the_field_named(page):
    at = page("rag_debugger.examples.chain:graph")
    log = next(w for w in at.text_area if w.label.startswith("log"))
    log.input("[not json").run()
    press(at, "step")
    assert any("log: not valid JSON" in m for m in messages(at)), messages(at)
    assert "No run yet" in inspector_text(at)


def test_a_subgraph_is_drawn_as_a_cluster(page):
    at = page("rag_debugger.examples.nested:graph")
    dot = inspector_dot(at)
    assert 'subgraph "cluster_sub_research"' in dot and '"research:search";' in dot
    press(at, "step")
    press(at, "step")
    assert re.search(r'"research:search" \[.*fillcolor="#a5d6a7"', inspector_dot(at))


def test_the_field_loads_another_graph(page):
    at = page("rag_debugger.examples.chain:graph")
    at.text_input(key=GRAPH_FIELD).input("rag_debugger.examples.fanout:graph")
    at.button(key="yg_load").click().run()
    assert "rag_debugger.examples.fanout:graph" in inspector_dot(at)


def test_step_into_a_subgraph_and_back(page):
    at = page("rag_debugger.examples.nested:graph")
    press(at, "step")
    at.button(key="yg_into_research").click().run()
    assert "paused before search" in inspector_text(at)
    assert "rag_debugger.examples.nested:graph › research" in inspector_dot(at)
    press(at, "step")
    assert "paused before summarize" in inspector_text(at)
    at.button(key="yg_step_out").click().run()
    assert "paused before research" in inspector_text(at)
