"""A subgraph as a node: `research` is a compiled graph of its own (`search -> summarize`).

    streamlit run app.py -- --graph rag_debugger.examples.nested:graph
"""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class NestedState(TypedDict, total=False):
    topic: str
    notes: Annotated[list[str], operator.add]
    report: str


def search(state: NestedState) -> dict:
    """Finds notes on the topic (fake)."""
    return {"notes": [f"{state.get('topic', '')} is a topic", f"{state.get('topic', '')} has notes"]}


def summarize(state: NestedState) -> dict:
    """Keeps the first note."""
    return {"notes": [f"summary: {state.get('notes', [''])[0]}"]}


_inner = StateGraph(NestedState)
_inner.add_node("search", search)
_inner.add_node("summarize", summarize)
_inner.add_edge(START, "search")
_inner.add_edge("search", "summarize")
_inner.add_edge("summarize", END)
research = _inner.compile()


def plan(state: NestedState) -> dict:
    """Trims the topic."""
    return {"topic": state.get("topic", "graphs").strip() or "graphs"}


def write(state: NestedState) -> dict:
    """Writes the report from the notes."""
    return {"report": " / ".join(state.get("notes", []))}


builder = StateGraph(NestedState)
builder.add_node("plan", plan)
builder.add_node("research", research)
builder.add_node("write", write)
builder.add_edge(START, "plan")
builder.add_edge("plan", "research")
builder.add_edge("research", "write")
builder.add_edge("write", END)

graph = builder
