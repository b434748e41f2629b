"""Assembling the compiled graphs (docs/workflow.md §1). Every conditional edge declares its targets (a
`Literal` return type or a path list), so `get_graph()` draws every node connected.

The graphs are compiled WITHOUT breakpoints: the debugger pauses per call with
`interrupt_before="*"`, so one compiled graph serves normal runs and stepping.
"""
from __future__ import annotations

from typing import Any, Optional

from langgraph.graph import END, START, StateGraph

from rag.context import RagContext
from rag.graph import nodes
from rag.schemas import RAGState

#: Edges that are a `Send` fan-out (drawn distinctly by the debugger).
FANOUT_EDGES = (("prepare_sub_questions", "rag_sub_agent"),)

MAIN_NODES = (
    "classify_complexity", "retrieve_initial", "grade_documents", "rewrite_question", "retrieve_rewritten",
    "prepare_sub_questions", "rag_sub_agent", "synthesis",
)
RESUME_NODES = ("restore_from_snapshot", "retrieve_targeted", "grade_documents")


def build_rag_graph(checkpointer: Optional[Any] = None):
    """The main workflow: complexity → simple chain (≤1 rewrite) or complex chain (Send fan-out)."""
    g = StateGraph(RAGState, context_schema=RagContext)
    g.add_node("classify_complexity", nodes.classify_complexity)
    g.add_node("retrieve_initial", nodes.retrieve_initial)
    g.add_node("grade_documents", nodes.grade_documents)
    g.add_node("rewrite_question", nodes.rewrite_question)
    g.add_node("retrieve_rewritten", nodes.retrieve_rewritten)
    g.add_node("prepare_sub_questions", nodes.prepare_sub_questions)
    g.add_node("rag_sub_agent", nodes.rag_sub_agent)
    g.add_node("synthesis", nodes.synthesis)

    g.add_edge(START, "classify_complexity")
    g.add_conditional_edges("classify_complexity", nodes.route_after_complexity)
    g.add_edge("retrieve_initial", "grade_documents")
    g.add_conditional_edges("grade_documents", nodes.route_after_grade)
    g.add_conditional_edges("rewrite_question", nodes.route_after_rewrite)
    g.add_edge("retrieve_rewritten", "grade_documents")
    g.add_conditional_edges("prepare_sub_questions", nodes.fanout_sub_questions, ["rag_sub_agent"])
    g.add_edge("rag_sub_agent", "synthesis")
    g.add_edge("synthesis", END)
    return g.compile(checkpointer=checkpointer, name="rag_graph")


def build_resume_graph(checkpointer: Optional[Any] = None):
    """The HITL resume path as a graph of its own, so it can be stepped like the main one:
    restore → targeted retrieval → grade → END (no rewrite, no re-classification)."""
    g = StateGraph(RAGState, context_schema=RagContext)
    g.add_node("restore_from_snapshot", nodes.restore_from_snapshot)
    g.add_node("retrieve_targeted", nodes.retrieve_targeted)
    g.add_node("grade_documents", nodes.grade_documents)
    g.add_edge(START, "restore_from_snapshot")
    g.add_edge("restore_from_snapshot", "retrieve_targeted")
    g.add_edge("retrieve_targeted", "grade_documents")
    g.add_edge("grade_documents", END)
    return g.compile(checkpointer=checkpointer, name="rag_resume_graph")


def node_docs() -> dict[str, str]:
    """Each node's docstring, for the debugger's "what does this node do" view."""
    out = {}
    for name in set(MAIN_NODES) | set(RESUME_NODES):
        fn = getattr(nodes, name)
        out[name] = (fn.__doc__ or "").strip()
    return out
