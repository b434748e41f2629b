"""A small graph and a script that writes real threads with it into a user's checkpointer, as an
application would: a finished thread, one paused at an `interrupt()`, one whose plan fans out with `Send`
(4 lanes), one with a subgraph (its checkpoints live under `checkpoint_ns`), and optionally a long one."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt


class State(TypedDict, total=False):
    topic: str
    parts: int
    ask: bool
    done: Annotated[list, operator.add]
    answer: str


def plan(state: State) -> dict:
    return {"answer": ""}


def fan(state: State):
    return [Send("work", {"topic": f"{state.get('topic', '')}#{i}"}) for i in range(state.get("parts", 1))]


def work(state: State) -> dict:
    return {"done": [state["topic"]]}


def review(state: State) -> dict:
    if state.get("ask"):
        return {"answer": str(interrupt({"question": "Publish?", "options": ["yes", "no"]}))}
    return {"answer": "auto"}


class Inner(TypedDict, total=False):
    done: Annotated[list, operator.add]


def _inner_node(state: Inner) -> dict:
    return {"done": ["inner"]}


def _inner():
    b = StateGraph(Inner)
    b.add_node("polish", _inner_node)
    b.add_edge(START, "polish")
    b.add_edge("polish", END)
    return b.compile()


def builder() -> StateGraph:
    b = StateGraph(State)
    b.add_node("plan", plan)
    b.add_node("work", work)
    b.add_node("finish", _inner())
    b.add_node("review", review)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", fan, ["work"])
    b.add_edge("work", "finish")
    b.add_edge("finish", "review")
    b.add_edge("review", END)
    return b


graph = builder()
"""What `--graph tests.debugger.thread_graphs:graph` loads (a builder: the debugger compiles it)."""


class Loop(TypedDict, total=False):
    n: int
    limit: int
    log: Annotated[list, operator.add]


def tick(state: Loop) -> dict:
    return {"n": state.get("n", 0) + 1, "log": [state.get("n", 0)]}


def loop_builder() -> StateGraph:
    b = StateGraph(Loop)
    b.add_node("tick", tick)
    b.add_edge(START, "tick")
    b.add_conditional_edges("tick", lambda s: "tick" if s["n"] < s.get("limit", 0) else END, ["tick", END])
    return b


def write_threads(saver) -> dict[str, str]:
    """Write the three threads with `saver`; returns their ids by kind."""
    app = builder().compile(checkpointer=saver)
    ids = {"finished": "t-finished", "paused": "t-paused", "fanout": "t-fanout"}
    app.invoke({"topic": "a", "parts": 1}, {"configurable": {"thread_id": ids["finished"]}})
    app.invoke({"topic": "b", "parts": 2, "ask": True}, {"configurable": {"thread_id": ids["paused"]}})
    app.invoke({"topic": "c", "parts": 4}, {"configurable": {"thread_id": ids["fanout"]}})
    return ids


def write_long_thread(saver, thread_id: str, steps: int) -> None:
    """A thread of about `steps` checkpoints: one `tick` per superstep."""
    app = loop_builder().compile(checkpointer=saver)
    app.invoke({"n": 0, "limit": max(1, steps - 2)}, {"configurable": {"thread_id": thread_id}, "recursion_limit": steps + 10})


__all__ = ["graph", "builder", "write_threads", "write_long_thread", "Command"]
