"""Server-side layout: `pip install -r requirements.txt` alone lays the graph out (graphviz-pure,
found beside the running Python even when PATH has no Graphviz), a system `dot` is used when
forced or as the next choice, and every failure means None (the page then lists the nodes)."""
from __future__ import annotations

import re
import shutil

import pytest

from rag_debugger.debugger import graph_to_dot
from rag_debugger.debugger.graph_view import GraphDrawing
from rag_debugger.views import svg as svg_mod
from tests.debugger import toy_graphs as tg


@pytest.fixture
def layout(monkeypatch):
    """Choose the layout programs as the app would at start, with a fresh cache."""
    programs, svg = svg_mod.layout_programs, svg_mod.layout_svg

    def choose(value: str | None = None, path: str | None = None):
        if value is None:
            monkeypatch.delenv(svg_mod.LAYOUT_ENV, raising=False)
        else:
            monkeypatch.setenv(svg_mod.LAYOUT_ENV, value)
        if path is not None:
            monkeypatch.setenv("PATH", path)
        svg_mod.layout_programs.cache_clear()
        svg_mod.layout_svg.cache_clear()
        return svg_mod.layout_programs()

    yield choose
    programs.cache_clear()
    svg.cache_clear()


def test_requirements_alone_lay_the_graph_out_without_dot_on_path(layout, tmp_path):
    programs = layout(path=str(tmp_path))  # a PATH with no Graphviz at all
    assert [name for name, _ in programs] == ["graphviz-pure"]
    drawing = GraphDrawing(tg.linear_graph(), current=("b",), done=("a",))
    svg = svg_mod.layout_svg(drawing.layout_dot())
    assert svg.startswith("<svg") and "viewBox=" in svg
    head = svg[: svg.index(">")]
    assert "width=" not in head and "height=" not in head  # sized by the page's CSS
    for node in ("a", "b", "c"):
        assert f"<title>{node}</title>" in svg  # the page finds nodes by title to mark them
    assert "<!--" not in svg and "<?xml" not in svg


def test_the_layout_has_no_marks_so_it_is_laid_out_once(layout):
    layout()
    first = GraphDrawing(tg.fanout_graph(), current=("worker",), done=("plan",), fanout_edges=(("plan", "worker", 3),))
    later = GraphDrawing(tg.fanout_graph(), current=("__end__",), done=("plan", "worker"),
                         fanout_edges=(("plan", "worker", 5),))
    assert first.layout_dot() == later.layout_dot()
    assert "#ffb74d" not in first.layout_dot() and "#a5d6a7" not in first.layout_dot()
    svg = svg_mod.layout_svg(first.layout_dot())
    assert svg_mod.layout_svg(later.layout_dot()) is svg  # cached: no second layout
    assert ">Send xN</text>" in svg  # room for "Send ×5", which the page writes in


@pytest.mark.skipif(shutil.which("dot") is None, reason="system Graphviz not installed (scripts/test.sh installs it)")
def test_system_dot_when_asked_for(layout):
    assert [name for name, _ in layout("dot")] == ["dot"]
    svg = svg_mod.layout_svg(GraphDrawing(tg.linear_graph()).layout_dot())
    assert svg.startswith("<svg") and "<title>b</title>" in svg


def test_a_failing_program_falls_through_to_the_next(layout, monkeypatch):
    real = layout()
    monkeypatch.setattr(svg_mod, "layout_programs", lambda: (("broken", "/bin/false"),) + real)
    assert svg_mod.layout_svg(graph_to_dot(tg.linear_graph())).startswith("<svg")


def test_no_program_or_bad_input_gives_none(layout, monkeypatch):
    layout()
    assert svg_mod.layout_svg("digraph { this is not dot") is None
    assert layout("html") == ()
    assert svg_mod.layout_svg(graph_to_dot(tg.linear_graph())) is None
    monkeypatch.setattr(svg_mod, "_find", lambda program: None)
    assert layout() == ()


def test_inline_svg_strips_the_document_around_the_element():
    doc = ('<?xml version="1.0"?>\n<!DOCTYPE svg>\n<!-- made by x -->\n<svg width="10pt" height="20pt" '
           'viewBox="0 0 10 20"><!-- a --><g><title>n</title></g></svg>\n')
    assert svg_mod.inline_svg(doc) == '<svg viewBox="0 0 10 20"><g><title>n</title></g></svg>\n'
    assert svg_mod.inline_svg("no picture") is None


def test_marks_are_written_into_the_laid_out_picture(layout):
    layout()
    drawing = GraphDrawing(tg.fanout_graph(), current=("worker",), done=("__start__", "plan"),
                           fanout_edges=(("plan", "worker", 3),))
    svg = svg_mod.layout_svg(drawing.layout_dot())
    marked = svg_mod.mark_svg(svg, drawing.marks())
    assert re.search(r'class="node rdi-current">\s*<title>worker</title>', marked)
    assert re.search(r'class="node rdi-done">\s*<title>plan</title>', marked)
    assert not re.search(r'class="node rdi-\w+">\s*<title>merge</title>', marked)
    assert ">Send ×3</text>" in marked and "Send xN" not in marked
    assert "<style>" in marked and "#ffb74d" in marked  # styled inside the SVG: works as an image
    assert svg_mod.mark_svg(svg, {}) .replace(svg_mod.MARK_STYLE, "") == svg
