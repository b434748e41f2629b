"""The Your graph link's rules, as a table: what `?graph=&run=&step=` names, and what a bad one says."""
from __future__ import annotations

import pytest

from rag_debugger.debugger.session import GraphSession
from rag_debugger.views.graph_link import graph_link_for, link_params, parse_graph_link

CHAIN = "rag_debugger.examples.chain:graph"


@pytest.mark.parametrize(("params", "spec", "run", "step", "problem"), [
    ({"graph": CHAIN, "run": "graph-abc", "step": "2"}, CHAIN, "graph-abc", 2, None),
    ({"graph": f" {CHAIN} "}, CHAIN, None, None, None),
    ({"graph": CHAIN, "run": "graph-abc"}, CHAIN, "graph-abc", None, None),
    ({"graph": "../etc/passwd", "run": "graph-abc"}, None, "graph-abc", None, "is not a graph"),
    ({"graph": "a:b" + "c" * 400}, None, None, None, "is not a graph"),
    ({"graph": CHAIN, "run": "<script>", "step": "1"}, CHAIN, None, None,
     "is not a run id"),
    ({"graph": CHAIN, "run": "graph-abc", "step": "-1"}, CHAIN, "graph-abc", None,
     "is not a step number"),
    ({}, None, None, None, None),
])
def test_parse_graph_link(params, spec, run, step, problem):
    link = parse_graph_link(params)
    assert (link.spec, link.run.run_id, link.run.step) == (spec, run, step)
    assert (problem is None and not link.problems) or any(problem in p for p in link.problems)


def test_the_link_names_the_graph_and_the_recorded_run_and_a_subgraph_names_its_parent():
    s = GraphSession.open("rag_debugger.examples.nested:graph")
    assert graph_link_for(s, None) == {"graph": "rag_debugger.examples.nested:graph"}  # no run yet
    s.start({"topic": "t"})
    s.step()
    assert graph_link_for(s, None) == {"graph": "rag_debugger.examples.nested:graph"}  # not recorded: no history hook
    s.current.run_id = "graph-0001"
    assert graph_link_for(s, None) == {"graph": "rag_debugger.examples.nested:graph", "run": "graph-0001", "step": "1"}
    child = s.step_into("research")
    assert graph_link_for(child, None) == {"graph": "rag_debugger.examples.nested:graph"}


def test_link_params_keep_only_the_links_own():
    assert link_params({"graph": "a:b", "run": "r", "step": "1", "lang": "zh", "x": "y"}) == {
        "graph": "a:b", "run": "r", "step": "1"}
