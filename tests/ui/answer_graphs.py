"""Graphs written the way LangGraph's own tests write them, for the Your graph page's answers and breakpoints."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send, interrupt


class QueryState(TypedDict, total=False):
    topic: str
    data: object


def _lookup(state: QueryState) -> dict:
    resp = interrupt({"query": f"Find data on {state.get('topic', '')}"})
    return {"data": resp["data"]}  # the node needs a dict back, as LangGraph hands it


def _query_builder() -> StateGraph:
    b = StateGraph(QueryState)
    b.add_node("lookup", _lookup)
    b.add_edge(START, "lookup")
    b.add_edge("lookup", END)
    return b


query_graph = _query_builder()


class LanesState(TypedDict, total=False):
    items: list
    out: Annotated[list, operator.add]


def _ask(state: dict) -> dict:
    item = state["items"][0]
    return {"out": [f"{item}={interrupt(f'Value for {item}?')}"]}


def _lanes_builder() -> StateGraph:
    b = StateGraph(LanesState)
    b.add_node("ask", _ask)
    b.add_conditional_edges(START, lambda s: [Send("ask", {"items": [x]}) for x in s["items"]], ["ask"])
    b.add_edge("ask", END)
    return b


lanes_graph = _lanes_builder()


class ChainState(TypedDict, total=False):
    trail: Annotated[list, operator.add]


def _chain_builder() -> StateGraph:
    b = StateGraph(ChainState)
    for name in ("a", "b", "c"):
        b.add_node(name, lambda s, n=name: {"trail": [n]})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    b.add_edge("c", END)
    return b


def paused_graph():
    """Compiled with a breakpoint before `b`, as an application would."""
    from langgraph.checkpoint.memory import InMemorySaver

    return _chain_builder().compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
