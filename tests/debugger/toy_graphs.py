"""Small graphs built for the debugger tests: each shows one LangGraph feature the stepper must handle."""
from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass
from typing import Annotated, Literal, Optional, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

CALLS: Counter = Counter()
"""Node call counts, so tests can prove that time travel runs nothing."""


class LinearState(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def _inc(name: str):
    def node(state: LinearState) -> dict:
        CALLS[name] += 1
        return {"n": state.get("n", 0) + 1, "log": [name]}

    node.__name__ = name
    node.__doc__ = f"Adds one to n ({name})."
    return node


def linear_graph():
    """START -> a -> b -> c -> END."""
    b = StateGraph(LinearState)
    for name in ("a", "b", "c"):
        b.add_node(name, _inc(name))
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    b.add_edge("c", END)
    return b.compile(checkpointer=InMemorySaver())


class BranchState(TypedDict, total=False):
    x: int
    route: str
    answer: Optional[str]


def classify(state: BranchState) -> dict:
    """Decides the route from the sign of x."""
    return {"route": "pos" if state["x"] >= 0 else "neg"}


def by_route(state: BranchState) -> Literal["positive", "negative"]:
    return "positive" if state["route"] == "pos" else "negative"


def positive(state: BranchState) -> dict:
    return {"answer": "plus"}


def negative(state: BranchState) -> dict:
    return {"answer": None}


def check(state: BranchState) -> dict:
    return {}


def finish_or_retry(state: BranchState) -> str:
    return "done"


def conditional_graph():
    """classify -(Literal)-> positive|negative -> check -(path map done/again)-> END|classify."""
    b = StateGraph(BranchState)
    b.add_node("classify", classify)
    b.add_node("positive", positive)
    b.add_node("negative", negative)
    b.add_node("check", check)
    b.add_edge(START, "classify")
    b.add_conditional_edges("classify", by_route)
    b.add_edge("positive", "check")
    b.add_edge("negative", "check")
    b.add_conditional_edges("check", finish_or_retry, {"done": END, "again": "classify"})
    return b.compile(checkpointer=InMemorySaver())


class FanState(TypedDict, total=False):
    question: str
    subs: list
    results: Annotated[list, operator.add]
    trace: dict
    final: str


class SubState(TypedDict):
    sub: str


def plan(state: FanState) -> dict:
    return {"subs": [f"{state['question']}-{i}" for i in range(3)], "trace": {"stage": "plan"}}


def fan_out(state: FanState):
    return [Send("worker", {"sub": s}) for s in state["subs"]]


def worker(state: SubState) -> dict:
    CALLS["worker"] += 1
    if "boom" in state["sub"] and state["sub"].endswith("-1"):
        raise ValueError(f"worker failed on {state['sub']}")
    return {"results": [state["sub"].upper()]}


def merge(state: FanState) -> dict:
    trace = dict(state.get("trace") or {})
    trace.pop("stage", None)
    trace.update(route="answer", count=len(state["results"]))
    return {"final": "+".join(state["results"]), "trace": trace}


def fanout_graph():
    """plan -(Send x3)-> worker -> merge -> END, results appended by operator.add."""
    b = StateGraph(FanState)
    b.add_node("plan", plan)
    b.add_node("worker", worker)
    b.add_node("merge", merge)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", fan_out, ["worker"])
    b.add_edge("worker", "merge")
    b.add_edge("merge", END)
    return b.compile(checkpointer=InMemorySaver())


class CrashState(TypedDict, total=False):
    value: int


def ok_node(state: CrashState) -> dict:
    return {"value": 1}


def crash_node(state: CrashState) -> dict:
    raise RuntimeError("disk on fire")


def crashing_graph():
    b = StateGraph(CrashState)
    b.add_node("ok", ok_node)
    b.add_node("crash", crash_node)
    b.add_edge(START, "ok")
    b.add_edge("ok", "crash")
    b.add_edge("crash", END)
    return b.compile(checkpointer=InMemorySaver())


@dataclass
class Multiplier:
    factor: int


class CtxState(TypedDict, total=False):
    n: int


def scale(state: CtxState, runtime: Runtime[Multiplier]) -> dict:
    return {"n": state["n"] * runtime.context.factor}


def context_graph():
    b = StateGraph(CtxState, context_schema=Multiplier)
    b.add_node("scale", scale)
    b.add_edge(START, "scale")
    b.add_edge("scale", END)
    return b.compile(checkpointer=InMemorySaver())


def unwired_graph():
    """A router with neither path map nor Literal: LangGraph's drawing loses b and c's edges."""
    b = StateGraph(LinearState)
    for name in ("a", "b", "c"):
        b.add_node(name, _inc(name))
    b.add_edge(START, "a")
    b.add_conditional_edges("a", lambda s: "b")
    b.add_edge("b", "c")
    b.add_edge("c", END)
    return b.compile(checkpointer=InMemorySaver())
