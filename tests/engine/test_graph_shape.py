"""The compiled graphs as the debugger draws them: every node connected, the spec's edges present."""
from __future__ import annotations

from rag import build_rag_graph, build_resume_graph
from rag.graph.build import MAIN_NODES, RESUME_NODES, node_docs


def edges(graph):
    return {(e.source, e.target, e.conditional) for e in graph.get_graph().edges}


def test_no_node_is_drawn_orphaned():
    for graph, names in ((build_rag_graph(), MAIN_NODES), (build_resume_graph(), RESUME_NODES)):
        drawn = graph.get_graph()
        connected = {e.source for e in drawn.edges} | {e.target for e in drawn.edges}
        assert set(names) <= set(drawn.nodes)
        assert set(drawn.nodes) <= connected


def test_main_graph_edges_follow_the_spec():
    e = edges(build_rag_graph())
    assert ("__start__", "classify_complexity", False) in e
    assert ("classify_complexity", "retrieve_initial", True) in e
    assert ("classify_complexity", "prepare_sub_questions", True) in e
    assert ("grade_documents", "rewrite_question", True) in e
    assert ("grade_documents", "__end__", True) in e
    assert ("rewrite_question", "retrieve_rewritten", True) in e
    assert ("retrieve_rewritten", "grade_documents", False) in e
    assert ("prepare_sub_questions", "rag_sub_agent", True) in e
    assert ("rag_sub_agent", "synthesis", False) in e
    assert ("synthesis", "__end__", False) in e


def test_resume_graph_never_classifies_or_rewrites():
    nodes = set(build_resume_graph().get_graph().nodes)
    assert nodes == {"__start__", "__end__", *RESUME_NODES}


def test_every_node_documents_why_it_exists():
    docs = node_docs()
    assert set(docs) == set(MAIN_NODES) | set(RESUME_NODES)
    assert all(len(text) > 20 for text in docs.values())
