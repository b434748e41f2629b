"""DOT drawing of a compiled graph with the debugger's position, and orphan detection."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from rag_debugger.debugger import GraphStepper, fanout_edges_from_steps, graph_to_dot, node_docs, orphan_nodes
from tests.debugger import toy_graphs as tg


def node_line(dot: str, node: str) -> str:
    (line,) = [x for x in dot.splitlines() if x.strip().startswith(f'"{node}" [')]
    return line


def edge_line(dot: str, src: str, dst: str) -> str:
    (line,) = [x for x in dot.splitlines() if x.strip().startswith(f'"{src}" -> "{dst}"')]
    return line


def test_start_end_shapes_and_node_order():
    dot = graph_to_dot(tg.linear_graph())
    assert dot.startswith("digraph G {") and dot.rstrip().endswith("}")
    assert 'label="START", shape="circle"' in node_line(dot, "__start__")
    assert 'label="END", shape="doublecircle"' in node_line(dot, "__end__")
    order = [m for m in re.findall(r'^  "([^"]+)" \[', dot, re.M)]
    assert order == ["__start__", "a", "b", "c", "__end__"]
    assert 'style="dashed"' not in edge_line(dot, "a", "b")


def test_conditional_edges_are_dashed_with_path_map_labels():
    g = tg.conditional_graph()
    dot = graph_to_dot(g)
    assert 'style="dashed"' in edge_line(dot, "classify", "positive")
    assert 'style="dashed"' in edge_line(dot, "classify", "negative")
    assert 'label="done"' in edge_line(dot, "check", "__end__")
    assert 'label="again"' in edge_line(dot, "check", "classify")
    assert 'style="dashed"' not in edge_line(dot, "positive", "check")
    plain = graph_to_dot(g, conditional_labels=False)
    assert "label=\"done\"" not in edge_line(plain, "check", "__end__")


def test_current_and_done_nodes_are_highlighted_differently():
    dot = graph_to_dot(tg.linear_graph(), current=["b"], done=["a", "b"])
    assert 'fillcolor="#ffb74d"' in node_line(dot, "b") and 'bold' in node_line(dot, "b")
    assert 'fillcolor="#a5d6a7"' in node_line(dot, "a")
    assert "fillcolor" not in node_line(dot, "c") and "bold" not in node_line(dot, "c")
    end_now = graph_to_dot(tg.linear_graph(), current=["__end__"])
    assert 'fillcolor="#ffb74d"' in node_line(end_now, "__end__")


def test_fanout_edges_are_drawn_as_send():
    dot = graph_to_dot(tg.fanout_graph(), fanout_edges=[("plan", "worker", 3)])
    line = edge_line(dot, "plan", "worker")
    assert 'label="Send ×3"' in line and 'style="bold"' in line and 'color="#1565c0"' in line
    assert 'label="Send"' in edge_line(graph_to_dot(tg.fanout_graph(), fanout_edges=[("plan", "worker")]),
                                       "plan", "worker")
    with pytest.raises(ValueError):
        graph_to_dot(tg.fanout_graph(), fanout_edges=[("plan",)])


def test_fanout_edges_detected_from_the_steps_run():
    g = tg.fanout_graph()
    s = GraphStepper(g)
    s.start({"question": "q"})
    s.run_to_end()
    assert fanout_edges_from_steps(g, s.steps) == (("plan", "worker", 3),)
    lin = GraphStepper(tg.linear_graph())
    lin.start({"n": 0})
    lin.run_to_end()
    assert fanout_edges_from_steps(lin.graph, lin.steps) == ()


def test_legend_title_and_tooltips():
    g = tg.linear_graph()
    docs = node_docs(g)
    assert docs == {"a": "Adds one to n (a).", "b": "Adds one to n (b).", "c": "Adds one to n (c)."}
    dot = graph_to_dot(g, title='My "graph"', docs={**docs, "c": 'line1\nsays "hi" \\ bye'})
    assert "subgraph cluster_legend" in dot
    for text in ("about to run", "already run", "conditional", "Send fan-out"):
        assert f'label="{text}"' in dot
    assert 'label="My \\"graph\\""' in dot
    assert 'tooltip="Adds one to n (a)."' in node_line(dot, "a")
    assert 'tooltip="line1 says \\"hi\\" \\\\ bye"' in node_line(dot, "c")
    assert "cluster_legend" not in graph_to_dot(g, legend=False)


def test_output_is_deterministic_and_accepts_a_drawn_graph():
    g = tg.conditional_graph()
    kwargs = dict(current={"check", "positive"}, done={"classify"})
    assert graph_to_dot(g, **kwargs) == graph_to_dot(g, **kwargs)
    assert graph_to_dot(g.get_graph(), **kwargs) == graph_to_dot(g, **kwargs)
    assert graph_to_dot(g, **kwargs) == graph_to_dot(tg.conditional_graph(), **kwargs)


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz dot binary not installed")
def test_dot_is_valid_graphviz():
    dot = graph_to_dot(tg.fanout_graph(), current=["worker"], done=["plan"],
                       fanout_edges=[("plan", "worker", 3)], title="t", docs={"plan": 'a "b"\nc'})
    out = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "<svg" in out.stdout


def test_orphan_nodes():
    assert orphan_nodes(tg.linear_graph()) == set()
    assert orphan_nodes(tg.fanout_graph()) == set()
    assert orphan_nodes(tg.conditional_graph()) == set()
    assert orphan_nodes(tg.unwired_graph()) == {"b", "c"}


def test_stepper_draws_its_own_position():
    s = GraphStepper(tg.fanout_graph())
    s.start({"question": "q"})
    dot = s.to_dot()
    assert 'fillcolor="#ffb74d"' in node_line(dot, "plan") and "fillcolor" not in node_line(dot, "merge")
    s.step()
    s.step()
    dot = s.to_dot(title="run")
    assert 'fillcolor="#a5d6a7"' in node_line(dot, "plan") and 'fillcolor="#a5d6a7"' in node_line(dot, "worker")
    assert 'fillcolor="#ffb74d"' in node_line(dot, "merge")
    assert 'label="Send ×3"' in edge_line(dot, "plan", "worker")
    s.run_to_end()
    assert s.nodes_run == ("plan", "worker", "merge")
    assert 'fillcolor="#ffb74d"' in node_line(s.to_dot(), "__end__")


def test_failed_node_is_not_marked_done():
    s = GraphStepper(tg.crashing_graph())
    s.start({})
    s.run_to_end()
    assert s.nodes_run == ("ok",)
    dot = s.to_dot()
    assert 'fillcolor="#ffb74d"' in node_line(dot, "crash")


def test_a_drawing_splits_the_fixed_layout_from_the_marks_of_one_position():
    from rag_debugger.debugger.graph_view import GraphDrawing

    drawing = GraphDrawing(tg.fanout_graph(), current=("worker", "plan"), done=("plan", "__start__"),
                           fanout_edges=(("plan", "worker", 3),), title="T")
    assert drawing.marks() == {"current": ["plan", "worker"], "done": ["__start__"],
                               "send": {"plan->worker": "Send ×3"}}  # a node both run and next is next
    assert 'fillcolor="#ffb74d"' in node_line(drawing.dot(), "worker")  # the DOT shows the same marks
    assert 'label="Send ×3"' in edge_line(drawing.dot(), "plan", "worker")
    bare = drawing.layout_dot()
    assert "fillcolor=\"#ffb74d\"" not in bare and 'label="Send xN"' in edge_line(bare, "plan", "worker")
    assert "cluster_legend" not in bare  # the page draws the legend
    assert GraphDrawing(tg.fanout_graph(), fanout_edges=(("plan", "worker"),), title="T").layout_dot() == bare
