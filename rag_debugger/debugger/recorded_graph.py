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


#: Nodes a stand-in draws: past this many, the rest are one node saying how many were left out (a file of a
#: recording naming thousands of nodes would otherwise lay out and store a picture that large).
MAX_STAND_IN_NODES = 100
#: Edges a stand-in draws: steps that each ran many nodes would otherwise be joined every node to every node.
MAX_STAND_IN_EDGES = 400
#: Characters LangGraph reserves in node names (its namespace separators), and what a stand-in shows instead:
#: a recording can name anything ("tools:search"), and the name was refused with a ValueError.
_RESERVED = {":": "\ua789", "|": "\u00a6"}


def stand_in_name(name: str) -> str:
    """`name` as a stand-in's node is called: LangGraph's reserved characters replaced by look-alikes."""
    for reserved, shown in _RESERVED.items():
        name = name.replace(reserved, shown)
    return name


def graph_from_steps(steps: Iterable[Any]) -> Any:
    """A compiled graph whose nodes are those of `steps` (`StepRecord`s, in order) and whose edges join
    each step's nodes to the next step's; START to the first, the last to END. At most `MAX_STAND_IN_NODES`
    nodes (the others become one node that says how many) and `MAX_STAND_IN_EDGES` edges."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph

    order = [tuple(stand_in_name(str(n)) for n in step.nodes if not str(n).startswith("__")) for step in steps]
    order = [nodes for nodes in order if nodes]
    names = list(dict.fromkeys(n for nodes in order for n in nodes))
    kept = set(names[:MAX_STAND_IN_NODES])
    if len(names) > MAX_STAND_IN_NODES:
        more = f"… {len(names) - MAX_STAND_IN_NODES} more nodes"
        order = [tuple(dict.fromkeys(n if n in kept else more for n in nodes)) for nodes in order]
        names = [*names[:MAX_STAND_IN_NODES], more]
    builder = StateGraph(_Nothing)
    for name in names:
        builder.add_node(name, _idle)
    edges: dict[tuple[str, str], None] = {}
    for before, after in zip([(START,), *order], [*order, (END,)], strict=True):
        for a in before:
            for b in after:
                if len(edges) < MAX_STAND_IN_EDGES or (a, b) in edges:
                    edges[(a, b)] = None
    for a, b in edges:
        if not (a == START and b == END):
            builder.add_edge(a, b)
    return builder.compile(checkpointer=InMemorySaver())
