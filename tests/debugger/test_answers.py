"""How a typed answer to interrupt() becomes the value sent back, and where compiled breakpoints pause: tables."""
from __future__ import annotations

import pytest

from rag_debugger.debugger.answers import default_kind, parse_answer, parse_update
from rag_debugger.debugger.breakpoints import CompiledBreakpoints
from rag_debugger.debugger.errors import DebuggerUserError


@pytest.mark.parametrize("kind, typed, sent", [
    ("text", "yes", "yes"),
    ("text", None, ""),
    ("json", '{"data": [1, 2]}', {"data": [1, 2]}),
    ("json", '"quoted"', "quoted"),
    ("json", "null", None),
    ("number", "3", 3),
    ("number", "2.5", 2.5),
    ("number", "1e3", 1000.0),
    ("bool", True, True),
    ("bool", None, False),
])
def test_an_answer_is_sent_as_the_kind_chosen(kind, typed, sent):
    assert parse_answer(kind, typed) == sent and type(parse_answer(kind, typed)) is type(sent)


@pytest.mark.parametrize("kind, typed, says", [
    ("json", "{oops", "not JSON"),
    ("json", "  ", "empty"),
    ("number", "three", "not a number"),
])
def test_an_answer_that_does_not_fit_says_why(kind, typed, says):
    with pytest.raises(DebuggerUserError, match=says):
        parse_answer(kind, typed)


@pytest.mark.parametrize("value, kind", [
    ("Approve?", "text"), ({"query": "find x"}, "text"), ({"item": 1}, "json"), ([1, 2], "json"), (3, "number"),
    (True, "bool"), (None, "text"),
])
def test_the_answer_box_starts_as_the_kind_the_question_suggests(value, kind):
    assert default_kind(value) == kind


def test_a_state_update_is_a_json_object_or_nothing():
    assert parse_update("") is None and parse_update('{"a": 1}') == {"a": 1}
    for bad, says in [("[1]", "JSON object"), ("{", "not JSON")]:
        with pytest.raises(DebuggerUserError, match=says):
            parse_update(bad)


class Compiled:
    def __init__(self, before=(), after=()):
        self.interrupt_before_nodes, self.interrupt_after_nodes = before, after


@pytest.mark.parametrize("before, after, ran, upcoming, stop", [
    (["b"], [], ["a"], ["b"], "before:b"),
    ([], ["a"], ["a"], ["b"], "after:a"),
    (["b"], ["a"], ["a"], ["b"], "after:a"),      # LangGraph checks "after" first
    ("*", [], ["a"], ["b", "b"], "before:b"),
    ([], "*", ["x"], ["y"], "after:x"),
    (["b"], [], ["a"], [], None),                 # the run ended: nothing to pause before
    (["b"], [], ["a"], ["c"], None),
])
def test_compiled_breakpoints_pause_where_langgraph_does(before, after, ran, upcoming, stop):
    compiled = CompiledBreakpoints.of(Compiled(before, after))
    assert compiled.stop(ran, upcoming) == stop


def test_a_graph_without_compiled_breakpoints_has_none():
    assert not CompiledBreakpoints.of(Compiled())
    assert CompiledBreakpoints.of(Compiled(["b"], ["a"])).labels() == {"a": "after", "b": "before"}
