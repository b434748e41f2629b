"""Every kind of state LangGraph accepts, each in a graph of two or three nodes."""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Optional

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field
from typing_extensions import NotRequired, TypedDict

from tests.conformance.case import Case

M = "tests.conformance.graphs_states"


# ----- TypedDict, total=False: every key optional ---------------------------------------------------
class Loose(TypedDict, total=False):
    topic: str
    draft: str
    words: int


def _write(state: Loose) -> dict:
    """Drafts a line on the topic (or on nothing)."""
    return {"draft": f"about {state.get('topic', 'nothing')}"}


def _count(state: Loose) -> dict:
    return {"words": len(state["draft"].split())}


_b = StateGraph(Loose)
_b.add_node("write", _write)
_b.add_node("count", _count)
_b.add_edge(START, "write")
_b.add_edge("write", "count")
_b.add_edge("count", END)
total_false = _b.compile()


# ----- NotRequired keys next to required ones; an empty string is a value --------------------------
class Mixed(TypedDict):
    foo: str
    bar: NotRequired[int]
    log: Annotated[list[str], operator.add]


def _first(state: Mixed) -> dict:
    return {"foo": state["foo"] + "a", "log": ["first"]}


def _second(state: Mixed) -> dict:
    return {"bar": state.get("bar", 0) + 1, "log": ["second"]}


_b2 = StateGraph(Mixed)
_b2.add_node("first", _first)
_b2.add_node("second", _second)
_b2.add_edge(START, "first")
_b2.add_edge("first", "second")
not_required = _b2  # a builder: the loader compiles it


# ----- pydantic state with defaults --------------------------------------------------------------
class Order(BaseModel):
    item: str
    qty: int = 1
    notes: list[str] = Field(default_factory=list)
    total: Optional[float] = None


def _price(state: Order) -> dict:
    return {"total": 2.5 * state.qty, "notes": [*state.notes, "priced"]}


def _confirm(state: Order) -> dict:
    return {"notes": [*state.notes, f"confirmed {state.item}"]}


_b3 = StateGraph(Order)
_b3.add_node("price", _price)
_b3.add_node("confirm", _confirm)
_b3.add_edge(START, "price")
_b3.add_edge("price", "confirm")
_b3.add_edge("confirm", END)
pydantic_defaults = _b3.compile()


# ----- dataclass state -----------------------------------------------------------------------------
@dataclass
class Counter:
    name: str
    count: int = 0
    seen: list[str] = field(default_factory=list)


def _tick(state: Counter) -> dict:
    return {"count": state.count + 1, "seen": [*state.seen, state.name]}


def _tock(state: Counter) -> dict:
    return {"count": state.count * 10}


_b4 = StateGraph(Counter)
_b4.add_node("tick", _tick)
_b4.add_node("tock", _tock)
_b4.add_edge(START, "tick")
_b4.add_edge("tick", "tock")
_b4.add_edge("tock", END)
dataclass_state = _b4.compile()


# ----- one root value: the state is a list --------------------------------------------------------
def _add_one(state: list) -> list:
    return [len(state)]


def _add_two(state: list) -> list:
    return [len(state), len(state) + 1]


_b5 = StateGraph(Annotated[list, operator.add])
_b5.add_node("one", _add_one)
_b5.add_node("two", _add_two)
_b5.add_edge(START, "one")
_b5.add_edge("one", "two")
_b5.add_edge("two", END)
root_list = _b5.compile()


# ----- MessagesState, fed the forms add_messages accepts ------------------------------------------
def _echo(state: MessagesState) -> dict:
    last = state["messages"][-1]
    return {"messages": [AIMessage(content=f"echo: {last.content}", id="echo-1")]}


def _shout(state: MessagesState) -> dict:
    return {"messages": [AIMessage(content=str(state["messages"][-1].content).upper())]}


_b6 = StateGraph(MessagesState)
_b6.add_node("echo", _echo)
_b6.add_node("shout", _shout)
_b6.add_edge(START, "echo")
_b6.add_edge("echo", "shout")
_b6.add_edge("shout", END)
messages_state = _b6.compile()


# ----- a custom messages state with more keys ------------------------------------------------------
class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    turns: NotRequired[int]


def _reply(state: Chat) -> dict:
    return {"messages": [("assistant", f"you said {state['messages'][-1].content}")],
            "turns": state.get("turns", 0) + 1}


_b7 = StateGraph(Chat)
_b7.add_node("reply", _reply)
_b7.add_edge(START, "reply")
_b7.add_edge("reply", END)
chat_state = _b7.compile()


# ----- input and output schemas that differ from the state -----------------------------------------
class In(TypedDict):
    question: str


class Out(TypedDict):
    answer: str


class Inner(In, Out):
    scratch: str


def _think(state: In) -> dict:
    return {"scratch": state["question"][::-1]}


def _answer(state: Inner) -> dict:
    return {"answer": f"{state['question']} -> {state['scratch']}"}


_b8 = StateGraph(Inner, input_schema=In, output_schema=Out)
_b8.add_node("think", _think)
_b8.add_node("answer", _answer)
_b8.add_edge(START, "think")
_b8.add_edge("think", "answer")
_b8.add_edge("answer", END)
io_schemas = _b8.compile()


# ----- context_schema, read through Runtime --------------------------------------------------------
@dataclass
class Ctx:
    user: str = "ada"
    greeting: str = "hello"


class Greet(TypedDict, total=False):
    name: str
    text: str


def _greet(state: Greet, runtime: Runtime[Ctx]) -> dict:
    return {"text": f"{runtime.context.greeting} {state.get('name') or runtime.context.user}"}


_b9 = StateGraph(Greet, context_schema=Ctx)
_b9.add_node("greet", _greet)
_b9.add_edge(START, "greet")
_b9.add_edge("greet", END)
with_context = _b9.compile()


def make_graph():
    """A zero-argument factory, as a project's module may export one."""
    b = StateGraph(Loose)
    b.add_node("write", _write)
    b.add_edge(START, "write")
    b.add_edge("write", END)
    return b.compile()


CASES = [
    Case("total_false", f"{M}:total_false", {"topic": "tea"}, what_if=(0, "draft", "a much longer draft")),
    Case("total_false_empty", f"{M}:total_false", {}),
    Case("not_required", f"{M}:not_required", {"foo": "", "log": []}, what_if=(0, "foo", "x"), breakpoint="second"),
    Case("pydantic_defaults", f"{M}:pydantic_defaults", {"item": "pen"}, what_if=(0, "total", 1.0),
         breakpoint="confirm"),
    Case("dataclass_state", f"{M}:dataclass_state", {"name": "x"}, what_if=(0, "count", 5)),
    Case("root_list", f"{M}:root_list", [7]),
    Case("messages_dict", f"{M}:messages_state", {"messages": [{"role": "user", "content": "hi"}]},
         breakpoint="shout"),
    Case("messages_tuple", f"{M}:messages_state", {"messages": [("user", "hey")]}),
    Case("messages_string", f"{M}:messages_state", {"messages": "plain"}),
    Case("chat_state", f"{M}:chat_state", {"messages": [{"role": "user", "content": "ok"}]}),
    Case("io_schemas", f"{M}:io_schemas", {"question": "why"}, what_if=(0, "scratch", "edited"),
         breakpoint="answer"),
    Case("with_context", f"{M}:with_context", {"name": ""}, context=f"{M}:Ctx"),
    Case("factory", f"{M}:make_graph", {"topic": "x"}),
]
