"""An input form from a graph's schema: one typed field per simple field, JSON for the rest, and
every problem named by field."""
from __future__ import annotations

import operator
from typing import Annotated, Optional, TypedDict

import pytest
from pydantic import BaseModel, Field

from rag_debugger.debugger.input_form import (
    InputFormError,
    initial_text,
    input_schema,
    json_schema_fields,
    parse_form,
    schema_fields,
    with_defaults,
)
from rag_debugger.debugger.loading import load_graph


class Typed(TypedDict, total=False):
    name: str
    count: int
    ratio: Optional[float]
    flag: bool
    items: Annotated[list[str], operator.add]


class Model(BaseModel):
    question: str
    limit: int = 3
    tags: list[str] = Field(default_factory=list, description="labels")


def kinds(fields):
    return {f.name: f.kind for f in fields}


def test_typeddict_fields_get_typed_widgets_and_json_for_the_rest():
    fields = schema_fields(Typed)
    assert kinds(fields) == {"name": "text", "count": "int", "ratio": "float", "flag": "bool", "items": "json"}
    assert next(f for f in fields if f.name == "items").type_name == "list[str]"
    assert next(f for f in fields if f.name == "ratio").type_name == "float (optional)"


def test_pydantic_fields_carry_required_defaults_and_descriptions():
    fields = {f.name: f for f in schema_fields(Model)}
    assert fields["question"].required and not fields["limit"].required
    assert fields["limit"].default == 3 and fields["tags"].default == [] and fields["tags"].help == "labels"


def test_the_schema_is_read_from_a_compiled_graph():
    assert [f.name for f in schema_fields(input_schema(load_graph("rag_debugger.examples.fanout:graph")))] == \
        ["words", "sizes", "total"]


def test_parse_converts_json_and_leaves_blank_fields_out():
    fields = schema_fields(Typed)
    out = parse_form(fields, {"name": "ann", "count": 2, "ratio": None, "flag": True, "items": '["a"]'})
    assert out == {"name": "ann", "count": 2, "flag": True, "items": ["a"]}


def test_every_problem_is_named_by_field():
    fields = schema_fields(Typed)
    with pytest.raises(InputFormError) as err:
        parse_form(fields, {"items": "[1,", "count": 1, "flag": False})
    assert "items: not valid JSON" in str(err.value)
    with pytest.raises(InputFormError, match=r"items: expected list\[str\]"):
        parse_form(fields, {"items": '{"a": 1}'})


def test_a_pydantic_schema_is_validated_whole():
    fields = schema_fields(Model)
    with pytest.raises(InputFormError, match="question: required"):
        parse_form(fields, {"question": None, "limit": 3})
    # an empty or blank text is a value, as LangGraph and pydantic take it
    assert parse_form(fields, {"question": "  ", "limit": 3}, schema=Model)["question"] == "  "
    assert parse_form(fields, {"question": "why?", "limit": 3, "tags": ""}, schema=Model) == \
        {"question": "why?", "limit": 3}


def test_a_saved_input_becomes_the_starting_values():
    fields = with_defaults(schema_fields(Typed), {"name": "bob", "items": ["x"]})
    assert [initial_text(f) for f in fields if f.name in ("name", "items")] == ["bob", '["x"]']


def test_json_schema_fields_check_enum_and_bounds():
    fields = json_schema_fields({"type": "object", "required": ["n"], "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 5}, "mode": {"type": "string", "enum": ["a", "b"]}}})
    assert kinds(fields) == {"n": "int", "mode": "text"}
    with pytest.raises(InputFormError, match="n: must be at most 5; mode: must be one of a, b"):
        parse_form(fields, {"n": 7, "mode": "c"})
    assert parse_form(fields, {"n": 2, "mode": ""}) == {"n": 2}
    (single,) = json_schema_fields({"type": "number"})
    assert single.name == "value" and single.kind == "float"
