"""Retry, cache and error-handler policies on nodes."""
from __future__ import annotations

import operator
from collections import Counter
from typing import Annotated

from langchain_core.runnables import RunnableConfig
from langgraph.cache.memory import InMemoryCache
from langgraph.errors import NodeError
from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, Command, RetryPolicy
from typing_extensions import TypedDict

from tests.conformance.case import Case

M = "tests.conformance.graphs_policies"

ATTEMPTS: Counter = Counter()
"""Attempts per thread: a node fails on the first attempt of each run, whoever runs it."""


class S(TypedDict, total=False):
    x: int
    status: str
    log: Annotated[list[str], operator.add]


def _flaky(state: S, config: RunnableConfig) -> dict:
    thread = config["configurable"]["thread_id"]
    ATTEMPTS[thread] += 1
    if ATTEMPTS[thread] == 1:
        raise ConnectionError("first attempt fails")
    return {"x": state.get("x", 0) + 1, "log": ["flaky ok"]}


def _after(state: S) -> dict:
    return {"log": [f"after x={state.get('x')}"]}


_b = StateGraph(S)
_b.add_node("flaky", _flaky, retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False,
                                                          retry_on=ConnectionError))
_b.add_node("after", _after)
_b.add_edge(START, "flaky")
_b.add_edge("flaky", "after")
_b.add_edge("after", END)
retry = _b.compile()


def _square(state: S) -> dict:
    return {"x": state.get("x", 0) ** 2, "log": ["squared"]}


_b2 = StateGraph(S)
_b2.add_node("square", _square, cache_policy=CachePolicy(ttl=None))
_b2.add_node("after", _after)
_b2.add_edge(START, "square")
_b2.add_edge("square", "after")
_b2.add_edge("after", END)
cached = _b2.compile(cache=InMemoryCache())


def _fails(state: S) -> dict:
    raise KeyError("missing")


def _handle(state: S, error: NodeError) -> Command:
    return Command(update={"status": f"recovered from {error.node}"}, goto="after")


_b3 = StateGraph(S)
_b3.add_node("fails", _fails, error_handler=_handle, destinations=("after",))
_b3.add_node("after", _after)
_b3.add_edge(START, "fails")
_b3.add_edge("after", END)
error_handler = _b3.compile()


CASES = [
    Case("retry", f"{M}:retry", {"x": 1}, what_if=(0, "x", 10), breakpoint="after"),
    Case("cache", f"{M}:cached", {"x": 3}, what_if=(0, "x", 4)),
    Case("error_handler", f"{M}:error_handler", {"x": 0}),
]
