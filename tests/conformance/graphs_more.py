"""What real projects do besides: async nodes and tools, a node's own input schema, a subgraph with a
state of its own called from a node, a node that writes nothing, a store, a custom stream writer."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage
from langchain_core.tools import tool
from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.types import Overwrite, interrupt
from pydantic import BaseModel
from typing_extensions import Literal, TypedDict

from tests.conformance.case import Case
from tests.conformance.fake_model import ScriptedToolModel

M = "tests.conformance.graphs_more"


class S(TypedDict, total=False):
    x: int
    note: str
    log: Annotated[list[str], operator.add]


# ----- async nodes, one of them asking a person -------------------------------------------------------
async def _fetch(state: S) -> dict:
    await asyncio.sleep(0)
    return {"x": state.get("x", 0) + 1, "log": ["fetched"]}


async def _confirm(state: S) -> dict:
    await asyncio.sleep(0)
    ok = interrupt({"confirm": state["x"]})
    return {"note": f"confirmed={ok}", "log": ["confirmed"]}


_b = StateGraph(S)
_b.add_node("fetch", _fetch)
_b.add_node("confirm", _confirm)
_b.add_edge(START, "fetch")
_b.add_edge("fetch", "confirm")
_b.add_edge("confirm", END)
async_nodes = _b.compile()


@task
async def _slow_double(n: int) -> int:
    await asyncio.sleep(0)
    return n * 2


@entrypoint()
async def async_entrypoint(n: int) -> int:
    return await _slow_double(n) + 1


# ----- an async-only tool in a ToolNode --------------------------------------------------------------
@tool
async def lookup(city: str) -> str:
    """Look a city up."""
    await asyncio.sleep(0)
    return f"{city} found"


def _agent(state: MessagesState) -> dict:
    return {"messages": [ScriptedToolModel(calls=[("lookup", {"city": "Rome"})]).invoke(state["messages"])]}


_b2 = StateGraph(MessagesState)
_b2.add_node("agent", _agent)
_b2.add_node("tools", ToolNode([lookup]))
_b2.add_edge(START, "agent")
_b2.add_conditional_edges("agent", tools_condition)
_b2.add_edge("tools", "agent")
async_tools = _b2.compile()


# ----- a node with its own input schema (a private channel) ------------------------------------------
class Private(TypedDict):
    secret: str


class Public(TypedDict, total=False):
    x: int
    note: str


def _hide(state: Public) -> Private:
    return {"secret": f"s{state.get('x', 0)}"}


def _reveal(state: Private) -> dict:
    return {"note": state["secret"].upper()}


_b3 = StateGraph(Public)
_b3.add_node("hide", _hide)
_b3.add_node("reveal", _reveal, input_schema=Private)
_b3.add_edge(START, "hide")
_b3.add_edge("hide", "reveal")
_b3.add_edge("reveal", END)
private_channel = _b3.compile()


# ----- a subgraph with a state of its own, called from a node -----------------------------------------
class Inner(TypedDict):
    text: str
    length: int


def _measure(state: Inner) -> dict:
    return {"length": len(state["text"])}


_ib = StateGraph(Inner)
_ib.add_node("measure", _measure)
_ib.add_edge(START, "measure")
_ib.add_edge("measure", END)
_inner = _ib.compile()


def _call_inner(state: S) -> dict:
    out = _inner.invoke({"text": state.get("note") or "abc", "length": 0})
    return {"x": out["length"], "log": ["inner called"]}


_b4 = StateGraph(S)
_b4.add_node("call_inner", _call_inner)
_b4.add_edge(START, "call_inner")
_b4.add_edge("call_inner", END)
subgraph_in_node = _b4.compile()


# ----- a node that writes nothing, and one that streams custom events -----------------------------------
def _noop(state: S) -> None:
    return None


def _talk(state: S) -> dict:
    get_stream_writer()({"progress": "half"})
    return {"log": ["talked"]}


_b5 = StateGraph(S)
_b5.add_node("noop", _noop)
_b5.add_node("talk", _talk)
_b5.add_edge(START, "noop")
_b5.add_edge("noop", "talk")
_b5.add_edge("talk", END)
noop_and_writer = _b5.compile()


# ----- a store the nodes read and write -------------------------------------------------------------------
def _remember(state: S, *, store: BaseStore) -> dict:
    store.put(("notes",), "last", {"x": state.get("x", 0)})
    return {"log": ["remembered"]}


def _recall(state: S, *, store: BaseStore) -> dict:
    item = store.get(("notes",), "last")
    return {"note": f"recalled {item.value['x'] if item else None}"}


_b6 = StateGraph(S)
_b6.add_node("remember", _remember)
_b6.add_node("recall", _recall)
_b6.add_edge(START, "remember")
_b6.add_edge("remember", "recall")
_b6.add_edge("recall", END)
with_store = _b6.compile(store=InMemoryStore())


# ----- a pydantic state with messages, and a Literal field --------------------------------------------
class Conversation(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    mood: Literal["calm", "busy"] = "calm"


def _answer(state: Conversation) -> dict:
    return {"messages": [AIMessage(content=f"{state.mood}: {state.messages[-1].content}")]}


_b7 = StateGraph(Conversation)
_b7.add_node("answer", _answer)
_b7.add_edge(START, "answer")
_b7.add_edge("answer", END)
pydantic_messages = _b7.compile()


# ----- Overwrite: a write that replaces a reducer's value ----------------------------------------------
def _reset(state: S) -> dict:
    return {"log": Overwrite(["reset"])}


def _append(state: S) -> dict:
    return {"log": ["appended"]}


_b8 = StateGraph(S)
_b8.add_node("append", _append)
_b8.add_node("reset", _reset)
_b8.add_edge(START, "append")
_b8.add_edge("append", "reset")
_b8.add_edge("reset", END)
overwrite = _b8.compile()


# ----- a @task called inside a graph's node (durable execution of a side effect) ----------------------------
@task
def _stamp(text: str) -> str:
    return f"[{text}]"


def _with_task(state: S) -> dict:
    return {"note": _stamp(state.get("note") or "none").result(), "log": ["stamped"]}


_b9 = StateGraph(S)
_b9.add_node("with_task", _with_task)
_b9.add_node("talk", _talk)
_b9.add_edge(START, "with_task")
_b9.add_edge("with_task", "talk")
_b9.add_edge("talk", END)
task_in_node = _b9.compile()


CASES = [
    Case("async_nodes", f"{M}:async_nodes", {"x": 1}, answers=(True,), what_if=(0, "x", 10), tags=("async",)),
    Case("async_entrypoint", f"{M}:async_entrypoint", 3, tags=("async",)),
    Case("async_tools", f"{M}:async_tools", {"messages": "where is Rome?"}, breakpoint="tools", tags=("async",)),
    Case("private_channel", f"{M}:private_channel", {"x": 4}, breakpoint="reveal"),
    Case("subgraph_in_node", f"{M}:subgraph_in_node", {"note": "hello"}),
    Case("noop_and_writer", f"{M}:noop_and_writer", {}, breakpoint="talk"),
    Case("with_store", f"{M}:with_store", {"x": 9}, what_if=(0, "x", 1)),
    Case("pydantic_messages", f"{M}:pydantic_messages", {"messages": [{"role": "user", "content": "hi"}],
                                                         "mood": "busy"}),
    Case("overwrite", f"{M}:overwrite", {"log": ["given"]}, breakpoint="reset"),
    Case("task_in_node", f"{M}:task_in_node", {"note": "n"}, what_if=(0, "note", "edited"), breakpoint="talk"),
]
