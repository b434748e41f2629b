"""Retry, cache and error-handler policies on nodes."""
from __future__ import annotations

import operator
from collections import Counter
from typing import Annotated

from langchain_core.runnables import RunnableConfig
from langgraph.cache.memory import InMemoryCache
from langgraph.errors import NodeError
from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, Command, RetryPolicy, Send
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


def _always_fails(state: S) -> dict:
    raise TimeoutError("the service never answers")


_b4 = StateGraph(S)
_b4.add_node("stubborn", _always_fails, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False,
                                                                 retry_on=TimeoutError))
_b4.add_edge(START, "stubborn")
_b4.add_edge("stubborn", END)
retry_exhausted = _b4.compile()
"""Every attempt fails: the run ends on the node's error after its last attempt."""


LANE_ATTEMPTS: Counter = Counter()
"""Attempts per (thread, lane): each lane's first attempt fails once."""


class Item(TypedDict):
    n: int


def _fan(state: S) -> list[Send]:
    return [Send("lane", {"n": n}) for n in (1, 2, 3)]


def _lane(item: Item, config: RunnableConfig) -> dict:
    key = (config["configurable"]["thread_id"], item["n"])
    LANE_ATTEMPTS[key] += 1
    if item["n"] == 2 and LANE_ATTEMPTS[key] == 1:
        raise ConnectionError("lane 2 drops its first connection")
    return {"log": [f"lane {item['n']}"]}


def _total(state: S) -> dict:
    return {"x": len(state.get("log") or [])}


_b5 = StateGraph(S)
_b5.add_node("lane", _lane, retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False,
                                                     retry_on=ConnectionError))
_b5.add_node("total", _total, cache_policy=CachePolicy(ttl=None))
_b5.add_conditional_edges(START, _fan, ["lane"])
_b5.add_edge("lane", "total")
_b5.add_edge("total", END)
lanes_retry_cache = _b5.compile(cache=InMemoryCache())
"""Send lanes of one node, one retried; then a cached node."""


CASES = [
    Case("retry", f"{M}:retry", {"x": 1}, what_if=(0, "x", 10), breakpoint="after"),
    Case("cache", f"{M}:cached", {"x": 3}, what_if=(0, "x", 4)),
    Case("error_handler", f"{M}:error_handler", {"x": 0}),
    Case("retry_exhausted", f"{M}:retry_exhausted", {"x": 0}, fails=True),
    Case("lanes_retry_cache", f"{M}:lanes_retry_cache", {"x": 0}, what_if=(0, "x", 7), breakpoint="total"),
]
