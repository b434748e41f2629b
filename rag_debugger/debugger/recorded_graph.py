"""A stand-in for a graph that must not be imported: its nodes and edges as a recording shows them.

Why: a recorded run's file (the HTML report) needs the graph's topology only, and a run of the history
may name a module the allow-list refuses (an imported file can name anything); importing it would run
its code. The stand-in holds the nodes the run went through, joined in the order they ran: less than
the real graph (no branch the run did not take), but nothing of the user's is imported. Its nodes do
nothing; it is drawn, never run.
"""
from __future__ import annotations

from typing import Any, Iterable, TypedDict


class _Nothing(TypedDict, total=False):
    """The stand-in's state: none (a replay reads the recorded values, not the graph's)."""


def _idle(state: _Nothing) -> dict:
    return {}


def graph_from_steps(steps: Iterable[Any]) -> Any:
    """A compiled graph whose nodes are those of `steps` (`StepRecord`s, in order) and whose edges join
    each step's nodes to the next step's; START to the first, the last to END."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph

    order = [tuple(n for n in step.nodes if not n.startswith("__")) for step in steps]
    order = [nodes for nodes in order if nodes]
    builder = StateGraph(_Nothing)
    for name in dict.fromkeys(n for nodes in order for n in nodes):
        builder.add_node(str(name), _idle)
    edges: dict[tuple[str, str], None] = {}
    for before, after in zip([(START,), *order], [*order, (END,)], strict=True):
        for a in before:
            for b in after:
                edges[(a, b)] = None
    for a, b in edges:
        if not (a == START and b == END):
            builder.add_edge(a, b)
    return builder.compile(checkpointer=InMemorySaver())
