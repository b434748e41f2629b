"""Which Your-graph files are written as data for the file's script, and which values the script may draw
itself: anything the script could draw differently from `rag_debugger.views.value_view.leaf_html` stays drawn by
the app (the browser test checks the two agree on every position)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from rag_debugger.debugger.session import GraphSession
from rag_debugger.debugger.state_diff import ABSENT
from rag_debugger.exports.run_file import graph_report
from rag_debugger.exports.run_file_data import drawn_by_script, scripted
from rag_debugger.views.graph_parts import graph_parts
from rag_debugger.views.inspector_html import RAG_PARTS


@pytest.mark.parametrize("value, expected", [
    (None, True), (ABSENT, True), (True, True), (False, True), (0, True), (-(2 ** 53) + 1, True),
    (2 ** 53, False), (-(2 ** 60), False), ("", True), ('<b>"x"</b> & y', True), ("三", True),
    ("x" * 160, True), ("x" * 161, False), ("two\nlines", False), ("tab\there", False),
    (1.0, False), (0.5, False), ([1], False), ({"k": 1}, False), ((1,), False), (b"x", False),
])
def test_values_the_script_draws(value, expected):
    assert drawn_by_script(value) is expected


class Flag(int):
    """An int subclass may print itself otherwise (like bool): drawn by the app."""


def test_subclasses_of_plain_types_are_drawn_by_the_app():
    assert not drawn_by_script(Flag(1))


def chain() -> GraphSession:
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "hello"})
    s.run_to_end()
    return s


def test_a_your_graph_run_is_written_as_data_and_a_rag_run_is_not():
    s = chain()
    assert scripted(s, graph_parts(s))
    assert not scripted(s, RAG_PARTS)  # evidence and typed RAG values: drawn by the app
    assert '"mode":"data"' in graph_report(s)
    assert '"mode":"data"' not in graph_report(s, as_data=False)


def test_a_timeline_column_the_script_cannot_draw_keeps_the_file_pre_drawn():
    s = chain()
    parts = graph_parts(s)
    parts = replace(parts, timeline_columns=(*(parts.timeline_columns or ()), "decision"))
    assert not scripted(s, parts)
