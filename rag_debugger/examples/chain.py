"""A plain chain: START -> clean -> count -> shout -> END, with a list that a reducer appends to.

    streamlit run app.py -- --graph rag_debugger.examples.chain:graph
"""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class ChainState(TypedDict, total=False):
    text: str
    repeat: int
    words: int
    shouted: str
    log: Annotated[list[str], operator.add]


def clean(state: ChainState) -> dict:
    """Collapses whitespace in the text."""
    return {"text": " ".join(state.get("text", "").split()), "log": ["clean"]}


def count(state: ChainState) -> dict:
    """Counts the words of the text."""
    return {"words": len(state.get("text", "").split()), "log": ["count"]}


def shout(state: ChainState) -> dict:
    """Upper-cases the text, `repeat` times."""
    return {"shouted": " ".join([state.get("text", "").upper()] * max(1, state.get("repeat", 1))), "log": ["shout"]}


builder = StateGraph(ChainState)
builder.add_node("clean", clean)
builder.add_node("count", count)
builder.add_node("shout", shout)
builder.add_edge(START, "clean")
builder.add_edge("clean", "count")
builder.add_edge("count", "shout")
builder.add_edge("shout", END)

graph = builder
"""The builder: the debugger compiles it with an in-memory checkpointer."""
