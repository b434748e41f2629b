"""Server-side SVG rendering: the highlighted node keeps its colour; failure means None, not an error."""
from __future__ import annotations

import pytest

from debugger import graph_to_dot
from debugger import svg as svg_mod
from tests.debugger import toy_graphs as tg


@pytest.mark.skipif(not svg_mod.dot_available(), reason="Graphviz `dot` is installed by scripts/test.sh")
def test_svg_keeps_nodes_and_highlight():
    graph = tg.linear_graph()
    dot = graph_to_dot(graph, current=["b"], done=["a"])
    svg = svg_mod.dot_to_svg(dot)
    assert svg.startswith("<svg")
    assert "#ffb74d" in svg and "#a5d6a7" in svg
    assert ">b</text>" in svg


def test_missing_dot_binary_falls_back(monkeypatch):
    monkeypatch.setattr(svg_mod, "dot_available", lambda: False)
    svg_mod.dot_to_svg.cache_clear()
    assert svg_mod.dot_to_svg("digraph { a -> b }") is None
    svg_mod.dot_to_svg.cache_clear()


@pytest.mark.skipif(not svg_mod.dot_available(), reason="Graphviz `dot` is installed by scripts/test.sh")
def test_invalid_dot_gives_none():
    assert svg_mod.dot_to_svg("digraph { this is not dot") is None
