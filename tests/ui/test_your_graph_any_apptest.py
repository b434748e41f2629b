"""The Your graph page on graphs of the LangGraph conformance corpus, as their users start them: messages
typed as plain text, a saved input that is one value, and a `langgraph.json` project to pick a graph from."""
from __future__ import annotations

import json

import pytest

from rag_debugger.ui.graph_page import GRAPH_FIELD, PROJECT_PICK
from tests.support.apptest import press


@pytest.fixture
def page(graph_app):
    return graph_app


def final_state(at) -> str:
    return at.json[0].value if at.json else ""


def test_a_message_typed_as_plain_text_starts_a_messages_graph(page):
    at = page("tests.conformance.graphs_states:messages_state")
    box = next(w for w in at.text_area if w.label.startswith("messages"))
    box.input("hello there").run()
    press(at, "run")
    assert not at.error, [e.value for e in at.error]
    state = final_state(at)
    assert "echo: hello there" in state and "HELLO THERE" in state


def test_a_saved_input_that_is_one_value_starts_a_root_value_graph(page, tmp_path):
    saved = tmp_path / "input.json"
    saved.write_text("[7]", encoding="utf-8")
    at = page("tests.conformance.graphs_states:root_list", RAG_DEBUG_INPUT=str(saved))
    assert not at.warning, [w.value for w in at.warning]
    press(at, "run")
    assert not at.error, [e.value for e in at.error]
    assert json.loads(final_state(at)) == {"__root__": [7, 1, 2, 3]}


def test_a_langgraph_json_lists_its_graphs_and_one_is_picked(page, tmp_path):
    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"drafts": "tests.conformance.graphs_states:total_false",
                                             "chat": "tests.conformance.graphs_states:messages_state"}}))
    at = page("drafts", RAG_DEBUG_CONFIG=str(config))
    assert at.text_input(key=GRAPH_FIELD).value == "tests.conformance.graphs_states:total_false"
    pick = at.selectbox(key=PROJECT_PICK)
    assert pick.options == ["drafts · tests.conformance.graphs_states:total_false",
                            "chat · tests.conformance.graphs_states:messages_state"]
    pick.set_value("tests.conformance.graphs_states:messages_state").run()
    assert not at.error, [e.value for e in at.error]
    assert at.text_input(key=GRAPH_FIELD).value == "tests.conformance.graphs_states:messages_state"
    assert any(w.label.startswith("messages") for w in at.text_area)
