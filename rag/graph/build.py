"""Assembling the compiled graphs (docs/workflow.md §1). Every conditional edge declares its targets (a
`Literal` return type or a path list), so `get_graph()` draws every node connected.

The graphs are compiled WITHOUT breakpoints: the debugger pauses per call with
`interrupt_before="*"`, so one compiled graph serves normal runs and stepping.

`compiled_graph(kind, checkpointer)` is the one registry every caller uses (the API, the app's
sessions, the run history, replay, the playground): a graph is compiled once per checkpointer and
shared, because compiling costs milliseconds per call and the debugger draws a graph's topology once
per compiled object. `build_rag_graph` / `build_resume_graph` stay public for people who embed the
pipeline and want their own compiled object.
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, Literal, Optional

from langgraph.graph import END, START, StateGraph

from rag.context import RagContext
from rag.graph import nodes
from rag.graph.node_descriptions import describe
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
    """Each node's user-facing description in the active language, for the debugger's "what does this node
    do" view and the graph's tooltips (`rag.graph.node_descriptions`; the docstrings stay for developers).
    Call it when drawing, not at import: the language is per browser session."""
    return {name: describe(name) for name in sorted(set(MAIN_NODES) | set(RESUME_NODES))}


GraphKind = Literal["main", "resume"]
_BUILDERS = {"main": build_rag_graph, "resume": build_resume_graph}
_registry_lock = threading.Lock()
_without_saver: dict[str, Any] = {}
_by_saver_fallback: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()
_SLOT = "_rag_compiled_graphs"


def _slot(checkpointer: Any) -> dict[str, Any]:
    """The per-checkpointer cache. It lives on the checkpointer itself, so the graphs go away with
    it (a graph holds its checkpointer: a dict keyed by the checkpointer would keep both alive)."""
    if checkpointer is None:
        return _without_saver
    slot = getattr(checkpointer, _SLOT, None)
    if slot is None:
        try:
            slot = {}
            setattr(checkpointer, _SLOT, slot)
        except (AttributeError, TypeError):  # a saver with __slots__: a weak map, kept alive by its graphs
            slot = _by_saver_fallback.setdefault(checkpointer, {})
    return slot


def compiled_graph(kind: GraphKind = "main", checkpointer: Optional[Any] = None) -> Any:
    """The compiled main or resume graph for this checkpointer (None: no persistence), compiled once
    and shared by every caller that passes the same checkpointer."""
    if kind not in _BUILDERS:
        raise ValueError(f"unknown graph kind {kind!r}; expected main or resume")
    with _registry_lock:
        slot = _slot(checkpointer)
        if kind not in slot:
            slot[kind] = _BUILDERS[kind](checkpointer)
        return slot[kind]
