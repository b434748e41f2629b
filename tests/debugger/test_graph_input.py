"""The input a graph takes, as LangGraph takes it: the form follows `get_input_jsonschema()`, messages in
every form `add_messages` accepts become real message objects, optional keys are optional, an empty
string is a value, and a graph whose input is one value has one field that is the whole input."""
from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from rag_debugger.debugger.input_form import (
    ROOT_FIELD,
    InputFormError,
    as_messages,
    form_input,
    graph_fields,
    parse_input,
)
from tests.conformance import graphs_functional as fn
from tests.conformance import graphs_states as st


def fields_of(graph):
    return {f.name: f for f in graph_fields(graph)}


@pytest.mark.parametrize("given, kinds", [
    ("hi", [HumanMessage]),
    (["user", "hi"], [HumanMessage, HumanMessage]),  # a JSON list is a list of messages, as LangGraph reads it
    ([["user", "hi"], ["assistant", "yo"]], [HumanMessage, AIMessage]),
    ([{"role": "user", "content": "hi"}], [HumanMessage]),
    ({"type": "ai", "content": "x"}, [AIMessage]),
])
def test_messages_in_every_form_add_messages_accepts_become_real_messages(given, kinds):
    messages = as_messages(given)
    assert [type(m) for m in messages] == kinds
    assert all(type(m) is not BaseMessage for m in messages)


@pytest.mark.parametrize("typed", ["plain words", '"plain words"', '[{"role": "user", "content": "plain words"}]',
                                   '[["user", "plain words"]]'])
def test_a_messages_field_takes_text_or_json_as_typed(typed):
    fields = graph_fields(st.messages_state)
    (msg,) = parse_input(st.messages_state, fields, {"messages": typed})["messages"]
    assert isinstance(msg, HumanMessage) and msg.content == "plain words"


def test_optional_keys_are_optional_and_required_ones_required():
    assert not any(f.required for f in graph_fields(st.total_false))  # total=False
    mixed = fields_of(st.not_required.compile())
    assert (mixed["foo"].required, mixed["bar"].required) == (True, False)  # NotRequired
    order = fields_of(st.pydantic_defaults)
    assert order["item"].required and not order["qty"].required and not order["total"].required
    counter = fields_of(st.dataclass_state)
    assert set(counter) == {"name", "count", "seen"} and counter["name"].required and not counter["seen"].required


def test_an_empty_string_is_a_value_and_a_missing_required_key_is_named():
    fields = graph_fields(st.not_required.compile())
    assert form_input(st.not_required.compile(), fields, {"foo": "", "log": []}) == {"foo": "", "log": []}
    with pytest.raises(InputFormError, match="foo: required"):
        form_input(st.not_required.compile(), fields, {"log": []})


def test_a_saved_input_is_the_input_as_given_and_schema_defaults_stay_the_graphs():
    assert form_input(st.pydantic_defaults, graph_fields(st.pydantic_defaults), {"item": "pen"}) == {"item": "pen"}
    assert "Left blank: 1" in fields_of(st.pydantic_defaults)["qty"].help


@pytest.mark.parametrize("graph, saved, expected", [
    (st.root_list, [7, 8], [7, 8]),
    (fn.tasks_in_sequence, 4, 4),
    (fn.tasks_in_parallel, [1, 2], [1, 2]),
    (fn.asks, {"topic": "cats"}, {"topic": "cats"}),
])
def test_a_graph_whose_input_is_one_value_has_one_field_that_is_the_input(graph, saved, expected):
    (field,) = graph_fields(graph)
    assert field.name == ROOT_FIELD and field.root and field.required
    assert form_input(graph, [field], saved) == expected


def test_a_wrong_value_is_named_with_its_field():
    with pytest.raises(InputFormError, match="input: expected int"):
        parse_input(fn.tasks_in_sequence, graph_fields(fn.tasks_in_sequence), {ROOT_FIELD: "four"})


def test_a_choice_among_strings_is_typed_as_text_and_checked():
    from tests.conformance.graphs_more import pydantic_messages

    fields = graph_fields(pydantic_messages)
    mood = fields_of(pydantic_messages)["mood"]
    assert mood.kind == "text" and not mood.required
    assert parse_input(pydantic_messages, fields, {"messages": "hi", "mood": "busy"})["mood"] == "busy"
    with pytest.raises(InputFormError, match="mood: expected"):
        parse_input(pydantic_messages, fields, {"messages": "hi", "mood": "angry"})
