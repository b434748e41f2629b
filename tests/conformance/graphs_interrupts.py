"""`interrupt()` where LangGraph allows it, and breakpoints compiled into a graph."""
from __future__ import annotations

import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt
from typing_extensions import TypedDict

from tests.conformance.case import Case

M = "tests.conformance.graphs_interrupts"


class S(TypedDict, total=False):
    topic: str
    answer: str
    answers: Annotated[list, operator.add]
    items: list[str]
    n: int


def _draft(state: S) -> dict:
    return {"topic": (state.get("topic") or "") + " drafted"}


def _ask(state: S) -> dict:
    value = interrupt(f"approve {state['topic']}?")
    return {"answer": value}


def _done(state: S) -> dict:
    return {"answers": [f"closed with {state.get('answer')!r}"]}


def _chain(ask) -> StateGraph:
    b = StateGraph(S)
    b.add_node("draft", _draft)
    b.add_node("ask", ask)
    b.add_node("done", _done)
    b.add_edge(START, "draft")
    b.add_edge("draft", "ask")
    b.add_edge("ask", "done")
    b.add_edge("done", END)
    return b


one = _chain(_ask).compile(checkpointer=InMemorySaver())


# ----- several interrupts in one node -------------------------------------------------------------
def _ask_twice(state: S) -> dict:
    first = interrupt("first name?")
    second = interrupt({"question": "last name?", "first": first})
    return {"answer": f"{first} {second}"}


several = _chain(_ask_twice).compile(checkpointer=InMemorySaver())


# ----- a dict value answered with a dict (the node reads keys of the answer) ------------------------
def _ask_dict(state: S) -> dict:
    resp = interrupt({"query": state["topic"], "options": ["approve", "reject"]})
    return {"answer": resp["data"], "n": resp.get("score", 0)}


dict_value = _chain(_ask_dict).compile(checkpointer=InMemorySaver())


# ----- an interrupt in a loop: ask until the answer is "stop" ----------------------------------------
def _collect(state: S) -> dict:
    value = interrupt(f"item {len(state.get('answers') or [])}?")
    return {"answers": [value]}


def _more(state: S) -> str:
    return END if state["answers"][-1] == "stop" else "collect"


_b = StateGraph(S)
_b.add_node("collect", _collect)
_b.add_edge(START, "collect")
_b.add_conditional_edges("collect", _more, ["collect", END])
in_loop = _b.compile(checkpointer=InMemorySaver())


# ----- an interrupt inside a subgraph ------------------------------------------------------------------
_sb = StateGraph(S)
_sb.add_node("ask", _ask)
_sb.add_edge(START, "ask")
_sb.add_edge("ask", END)
_inner = _sb.compile()

_b2 = StateGraph(S)
_b2.add_node("draft", _draft)
_b2.add_node("inner", _inner)
_b2.add_node("done", _done)
_b2.add_edge(START, "draft")
_b2.add_edge("draft", "inner")
_b2.add_edge("inner", "done")
_b2.add_edge("done", END)
in_subgraph = _b2.compile(checkpointer=InMemorySaver())


# ----- interrupts in parallel Send lanes -------------------------------------------------------------
def _plan(state: S) -> dict:
    return {"items": ["x", "y"]}


def _fan(state: S) -> list[Send]:
    return [Send("review", {"topic": item}) for item in state["items"]]


def _review(state: S) -> dict:
    verdict = interrupt(f"review {state['topic']}")
    return {"answers": [f"{state['topic']}={verdict}"]}


_b3 = StateGraph(S)
_b3.add_node("plan", _plan)
_b3.add_node("review", _review)
_b3.add_edge(START, "plan")
_b3.add_conditional_edges("plan", _fan, ["review"])
_b3.add_edge("review", END)
parallel_lanes = _b3.compile(checkpointer=InMemorySaver())


# ----- answered with Command(resume=..., update=...) ----------------------------------------------------
resume_update = _chain(_ask).compile(checkpointer=InMemorySaver())


# ----- breakpoints compiled into the graph -----------------------------------------------------------
def _plain(state: S) -> dict:
    return {"answer": "plain"}


compiled_before = _chain(_plain).compile(checkpointer=InMemorySaver(), interrupt_before=["ask"])
compiled_after = _chain(_plain).compile(checkpointer=InMemorySaver(), interrupt_after=["draft"])


CASES = [
    Case("interrupt_one", f"{M}:one", {"topic": "t"}, answers=("yes",), what_if=(0, "topic", "other")),
    Case("interrupt_several", f"{M}:several", {"topic": "t"}, answers=("Ada", "Lovelace")),
    Case("interrupt_dict", f"{M}:dict_value", {"topic": "t"}, answers=({"data": "approve", "score": 3},)),
    Case("interrupt_loop", f"{M}:in_loop", {}, answers=("a", "b", "stop")),
    Case("interrupt_subgraph", f"{M}:in_subgraph", {"topic": "t"}, answers=("ok",)),
    Case("interrupt_parallel", f"{M}:parallel_lanes", {}, answers=("good", "bad")),
    Case("resume_update", f"{M}:resume_update", {"topic": "t"},
         answers=(Command(resume="fine", update={"n": 42}),)),
    Case("compiled_before", f"{M}:compiled_before", {"topic": "t"}),
    Case("compiled_after", f"{M}:compiled_after", {"topic": "t"}),
]


# ----- an answer that routes: interrupt() then Command(goto) --------------------------------------------
def _route_by_person(state: S) -> Command:
    choice = interrupt({"question": "which way?", "options": ["left", "right"]})
    return Command(goto="left" if choice == "left" else "right", update={"answer": choice})


def _left(state: S) -> dict:
    return {"answers": ["went left"]}


def _right(state: S) -> dict:
    return {"answers": ["went right"]}


_b4 = StateGraph(S)
_b4.add_node("route", _route_by_person, destinations=("left", "right"))
_b4.add_node("left", _left)
_b4.add_node("right", _right)
_b4.add_edge(START, "route")
_b4.add_edge("left", END)
_b4.add_edge("right", END)
human_route = _b4.compile(checkpointer=InMemorySaver())


# ----- two parallel branches (not Sends) that both ask -----------------------------------------------------
def _ask_a(state: S) -> dict:
    return {"answers": [f"a={interrupt('a?')}"]}


def _ask_b(state: S) -> dict:
    return {"answers": [f"b={interrupt('b?')}"]}


_b5 = StateGraph(S)
_b5.add_node("ask_a", _ask_a)
_b5.add_node("ask_b", _ask_b)
_b5.add_node("done", _done)
_b5.add_edge(START, "ask_a")
_b5.add_edge(START, "ask_b")
_b5.add_edge(["ask_a", "ask_b"], "done")
_b5.add_edge("done", END)
parallel_branches = _b5.compile(checkpointer=InMemorySaver())


CASES += [
    Case("human_route", f"{M}:human_route", {}, answers=("right",)),
    Case("interrupt_branches", f"{M}:parallel_branches", {}, answers=("one", "two")),
]
