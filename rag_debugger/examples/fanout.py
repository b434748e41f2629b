"""Map-reduce with `Send`: one `measure` task per word, all in one superstep, then `total` sums them.

    streamlit run app.py -- --graph rag_debugger.examples.fanout:graph
"""
from __future__ import annotations

import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel, Field


class FanoutState(BaseModel):
    words: list[str] = Field(default_factory=lambda: ["map", "reduce", "send"])
    sizes: Annotated[list[int], operator.add] = Field(default_factory=list)
    total: int = 0


def split(state: FanoutState) -> dict:
    """Drops blank words before the fan-out."""
    return {"words": [w for w in state.words if w.strip()]}


def fan_out(state: FanoutState) -> list[Send]:
    """One `measure` task per word."""
    return [Send("measure", {"word": w}) for w in state.words]


def measure(item: dict) -> dict:
    """Measures one word (runs once per `Send`)."""
    return {"sizes": [len(item["word"])]}


def total(state: FanoutState) -> dict:
    """Adds the sizes up."""
    return {"total": sum(state.sizes)}


def make_graph():
    """A zero-argument factory: the debugger calls it and compiles what it returns."""
    b = StateGraph(FanoutState)
    b.add_node("split", split)
    b.add_node("measure", measure)  # type: ignore[arg-type]  # a Send payload, not the state
    b.add_node("total", total)
    b.add_edge(START, "split")
    b.add_conditional_edges("split", fan_out, ["measure"])
    b.add_edge("measure", "total")
    b.add_edge("total", END)
    return b


graph = make_graph
