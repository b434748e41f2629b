"""Control flow: branches, loops with an exit, Send fan-outs, Command routing, subgraphs, defer, errors."""
from __future__ import annotations

import operator
from typing import Annotated, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send
from typing_extensions import TypedDict

from tests.conformance.case import Case

M = "tests.conformance.graphs_control"


class S(TypedDict, total=False):
    n: int
    route: str
    items: list[str]
    out: Annotated[list[str], operator.add]


# ----- a branch with a Literal return type --------------------------------------------------------
def _classify(state: S) -> dict:
    return {"route": "big" if state.get("n", 0) > 5 else "small"}


def _big(state: S) -> dict:
    return {"out": ["big"]}


def _small(state: S) -> dict:
    return {"out": ["small"]}


def _which(state: S) -> Literal["big", "small"]:
    return "big" if state["route"] == "big" else "small"


_b = StateGraph(S)
_b.add_node("classify", _classify)
_b.add_node("big", _big)
_b.add_node("small", _small)
_b.add_edge(START, "classify")
_b.add_conditional_edges("classify", _which)
_b.add_edge("big", END)
_b.add_edge("small", END)
branch_literal = _b.compile()


# ----- a branch with a path map -------------------------------------------------------------------
def _route_map(state: S) -> str:
    return "yes" if state.get("n", 0) % 2 == 0 else "no"


_b2 = StateGraph(S)
_b2.add_node("classify", _classify)
_b2.add_node("big", _big)
_b2.add_node("small", _small)
_b2.add_edge(START, "classify")
_b2.add_conditional_edges("classify", _route_map, {"yes": "big", "no": "small"})
_b2.add_edge("big", END)
_b2.add_edge("small", END)
branch_path_map = _b2.compile()


# ----- a loop with an exit --------------------------------------------------------------------------
def _again(state: S) -> dict:
    return {"n": state.get("n", 0) + 1, "out": [f"lap {state.get('n', 0)}"]}


def _loop_or_stop(state: S) -> Literal["again", "__end__"]:
    return "again" if state["n"] < 3 else END


_b3 = StateGraph(S)
_b3.add_node("again", _again)
_b3.add_edge(START, "again")
_b3.add_conditional_edges("again", _loop_or_stop)
loop_exit = _b3.compile()


# ----- a Send fan-out and a join ----------------------------------------------------------------------
def _plan(state: S) -> dict:
    return {"items": [f"t{i}" for i in range(state.get("n", 3))]}


def _fan(state: S) -> list[Send]:
    return [Send("work", {"items": [item]}) for item in state["items"]]


def _work(state: S) -> dict:
    return {"out": [state["items"][0].upper()]}


def _join(state: S) -> dict:
    return {"route": ",".join(sorted(state["out"]))}


_b4 = StateGraph(S)
_b4.add_node("plan", _plan)
_b4.add_node("work", _work)
_b4.add_node("join", _join)
_b4.add_edge(START, "plan")
_b4.add_conditional_edges("plan", _fan, ["work"])
_b4.add_edge("work", "join")
_b4.add_edge("join", END)
send_fanout = _b4.compile()


# ----- a Send whose node answers with a Command -------------------------------------------------------
def _work_cmd(state: S) -> Command[Literal["join"]]:
    return Command(update={"out": [state["items"][0] + "!"]}, goto="join")


_b5 = StateGraph(S)
_b5.add_node("plan", _plan)
_b5.add_node("work", _work_cmd)
_b5.add_node("join", _join)
_b5.add_edge(START, "plan")
_b5.add_conditional_edges("plan", _fan, ["work"])
_b5.add_edge("join", END)
send_command = _b5.compile()


# ----- Command(goto) with destinations=, and Command[Literal] ----------------------------------------
def _decide(state: S) -> Command:
    return Command(update={"route": "left"}, goto="left" if state.get("n", 0) < 2 else "right")


def _left(state: S) -> dict:
    return {"out": ["left"]}


def _right(state: S) -> dict:
    return {"out": ["right"]}


_b6 = StateGraph(S)
_b6.add_node("decide", _decide, destinations=("left", "right"))
_b6.add_node("left", _left)
_b6.add_node("right", _right)
_b6.add_edge(START, "decide")
_b6.add_edge("left", END)
_b6.add_edge("right", END)
command_destinations = _b6.compile()


def _decide_typed(state: S) -> Command[Literal["left", "right"]]:
    return Command(update={"n": state.get("n", 0) + 1}, goto="right")


_b7 = StateGraph(S)
_b7.add_node("decide", _decide_typed)
_b7.add_node("left", _left)
_b7.add_node("right", _right)
_b7.add_edge(START, "decide")
_b7.add_edge("left", END)
_b7.add_edge("right", END)
command_literal = _b7.compile()


# ----- a Command loop: a node sends itself back until done --------------------------------------------
def _count_up(state: S) -> Command[Literal["count_up", "__end__"]]:
    n = state.get("n", 0) + 1
    return Command(update={"n": n, "out": [str(n)]}, goto="count_up" if n < 3 else END)


_b8 = StateGraph(S)
_b8.add_node("count_up", _count_up)
_b8.add_edge(START, "count_up")
command_loop = _b8.compile()


# ----- a subgraph as a node, and Command(graph=PARENT) out of one ------------------------------------
def _sub_a(state: S) -> dict:
    return {"out": ["sub_a"]}


def _sub_b(state: S) -> dict:
    return {"n": state.get("n", 0) + 100}


_sb = StateGraph(S)
_sb.add_node("sub_a", _sub_a)
_sb.add_node("sub_b", _sub_b)
_sb.add_edge(START, "sub_a")
_sb.add_edge("sub_a", "sub_b")
_sb.add_edge("sub_b", END)
_inner = _sb.compile()


def _before(state: S) -> dict:
    return {"out": ["before"]}


def _after(state: S) -> dict:
    return {"out": [f"after {state.get('n', 0)}"]}


_b9 = StateGraph(S)
_b9.add_node("before", _before)
_b9.add_node("inner", _inner)
_b9.add_node("after", _after)
_b9.add_edge(START, "before")
_b9.add_edge("before", "inner")
_b9.add_edge("inner", "after")
_b9.add_edge("after", END)
subgraph = _b9.compile()


def _escape(state: S) -> Command:
    return Command(graph=Command.PARENT, goto="after", update={"out": ["escaped"]})


_sb2 = StateGraph(S)
_sb2.add_node("escape", _escape)
_sb2.add_edge(START, "escape")
_escaper = _sb2.compile()

_b10 = StateGraph(S)
_b10.add_node("before", _before)
_b10.add_node("inner", _escaper, destinations=("after",))
_b10.add_node("after", _after)
_b10.add_edge(START, "before")
_b10.add_edge("before", "inner")
_b10.add_edge("after", END)
command_parent = _b10.compile()


# ----- defer=True: a node that waits for every branch ---------------------------------------------------
def _short(state: S) -> dict:
    return {"out": ["short"]}


def _long1(state: S) -> dict:
    return {"out": ["long1"]}


def _long2(state: S) -> dict:
    return {"out": ["long2"]}


def _final(state: S) -> dict:
    return {"route": "+".join(state["out"])}


_b11 = StateGraph(S)
_b11.add_node("short", _short)
_b11.add_node("long1", _long1)
_b11.add_node("long2", _long2)
_b11.add_node("final", _final, defer=True)
_b11.add_edge(START, "short")
_b11.add_edge(START, "long1")
_b11.add_edge("long1", "long2")
_b11.add_edge("short", "final")
_b11.add_edge("long2", "final")
_b11.add_edge("final", END)
deferred = _b11.compile()


# ----- a join of two parallel branches (a waiting edge) ------------------------------------------------
_b12 = StateGraph(S)
_b12.add_node("short", _short)
_b12.add_node("long1", _long1)
_b12.add_node("final", _final)
_b12.add_edge(START, "short")
_b12.add_edge(START, "long1")
_b12.add_edge(["short", "long1"], "final")
_b12.add_edge("final", END)
parallel_join = _b12.compile()


# ----- a node that raises -----------------------------------------------------------------------------
def _fine(state: S) -> dict:
    return {"n": 1}


def _boom(state: S) -> dict:
    raise ValueError(f"boom at n={state.get('n')}")


_b13 = StateGraph(S)
_b13.add_node("fine", _fine)
_b13.add_node("boom", _boom)
_b13.add_edge(START, "fine")
_b13.add_edge("fine", "boom")
_b13.add_edge("boom", END)
node_error = _b13.compile()


# ----- one lane of a fan-out raises, the other writes ----------------------------------------------------
def _maybe(state: S) -> dict:
    if state["items"][0] == "t1":
        raise RuntimeError("lane t1 failed")
    return {"out": [state["items"][0]]}


_b14 = StateGraph(S)
_b14.add_node("plan", _plan)
_b14.add_node("work", _maybe)
_b14.add_edge(START, "plan")
_b14.add_conditional_edges("plan", _fan, ["work"])
_b14.add_edge("work", END)
lane_error = _b14.compile()


CASES = [
    Case("branch_literal", f"{M}:branch_literal", {"n": 7}, what_if=(0, "route", "small"), breakpoint="big"),
    Case("branch_path_map", f"{M}:branch_path_map", {"n": 3}, breakpoint="small"),
    Case("loop_exit", f"{M}:loop_exit", {"n": 0}, what_if=(0, "n", 2), breakpoint="again"),
    Case("send_fanout", f"{M}:send_fanout", {"n": 3}, what_if=(0, "items", ["a", "b"]), breakpoint="join"),
    Case("send_command", f"{M}:send_command", {"n": 2}, breakpoint="join"),
    Case("command_destinations", f"{M}:command_destinations", {"n": 0}, what_if=(0, "n", 5), breakpoint="left"),
    Case("command_literal", f"{M}:command_literal", {}, breakpoint="right"),
    Case("command_loop", f"{M}:command_loop", {"n": 0}, what_if=(0, "n", 1)),
    Case("subgraph", f"{M}:subgraph", {"n": 1}, what_if=(0, "n", 5), breakpoint="after"),
    Case("command_parent", f"{M}:command_parent", {"n": 1}, breakpoint="after"),
    Case("deferred", f"{M}:deferred", {}, breakpoint="final"),
    Case("parallel_join", f"{M}:parallel_join", {}, breakpoint="final"),
    Case("node_error", f"{M}:node_error", {"n": 0}, fails=True, breakpoint="boom"),
    Case("lane_error", f"{M}:lane_error", {"n": 2}, fails=True),
]


# ----- Send into a compiled subgraph ------------------------------------------------------------------------
def _fan_inner(state: S) -> list[Send]:
    return [Send("inner", {"n": i}) for i in range(2)]


def _lane_note(state: S) -> dict:
    return {"out": [f"lane {state.get('n')}"]}


class _LaneOut(TypedDict):
    out: Annotated[list[str], operator.add]


_lb = StateGraph(S, output_schema=_LaneOut)
_lb.add_node("note", _lane_note)
_lb.add_edge(START, "note")
_lb.add_edge("note", END)

_b15 = StateGraph(S)
_b15.add_node("plan", _plan)
_b15.add_node("inner", _lb.compile())
_b15.add_edge(START, "plan")
_b15.add_conditional_edges("plan", _fan_inner, ["inner"])
_b15.add_edge("inner", END)
send_subgraph = _b15.compile()

# ----- two parallel nodes writing one plain key: LangGraph refuses the step (InvalidUpdateError) -------------
def _set_a(state: S) -> dict:
    return {"route": "a"}


def _set_b(state: S) -> dict:
    return {"route": "b"}


_b16 = StateGraph(S)
_b16.add_node("set_a", _set_a)
_b16.add_node("set_b", _set_b)
_b16.add_edge(START, "set_a")
_b16.add_edge(START, "set_b")
concurrent_writes = _b16.compile()

CASES += [Case("send_subgraph", f"{M}:send_subgraph", {"n": 1}),
          Case("concurrent_writes", f"{M}:concurrent_writes", {}, fails=True)]


# ----- a Command whose goto is a list of Sends (a fan-out decided by a node) ------------------------------------
def _plan_and_send(state: S) -> Command:
    items = [f"c{i}" for i in range(state.get("n", 2))]
    return Command(update={"items": items}, goto=[Send("work", {"items": [item]}) for item in items])


_b17 = StateGraph(S)
_b17.add_node("plan", _plan_and_send, destinations=("work",))
_b17.add_node("work", _work)
_b17.add_node("join", _join)
_b17.add_edge(START, "plan")
_b17.add_edge("work", "join")
_b17.add_edge("join", END)
command_sends = _b17.compile()

CASES += [Case("command_sends", f"{M}:command_sends", {"n": 3}, what_if=(0, "n", 1), breakpoint="join")]
