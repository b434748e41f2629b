"""A what-if on a messages field (`add_messages`) edits a message by id or appends one, and says which, with
the same result as LangGraph's own `update_state(cfg, {"messages": [msg]}, as_node=...)` and run."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.fork import message_edit, message_fields
from rag_debugger.debugger.session import GraphSession


def _agent():
    """agent answers the last human message; echo counts the messages it sees."""
    b = StateGraph(MessagesState)
    b.add_node("agent", lambda s: {"messages": [AIMessage(f"re: {s['messages'][-1].content}", id="ai-1")]})
    b.add_node("echo", lambda s: {"messages": [AIMessage(f"{len(s['messages'])} messages", id="echo-1")]})
    b.add_edge(START, "agent")
    b.add_edge("agent", "echo")
    b.add_edge("echo", END)
    return b


def _langgraph_fork(edit, as_node="agent"):
    g = _agent().compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "o"}}
    g.invoke({"messages": [HumanMessage("hi", id="h-1")]}, cfg)
    after_agent = next(s for s in g.get_state_history(cfg) if s.next == ("echo",))
    forked = g.update_state(after_agent.config, {"messages": edit}, as_node=as_node)
    g.invoke(None, forked)
    return [(type(m).__name__, m.content, m.id) for m in g.get_state(cfg).values["messages"]]


def _debugger_fork(edit_json):
    s = GraphSession(spec="t:g", graph=_agent().compile(checkpointer=InMemorySaver()))
    s.start({"messages": [HumanMessage("hi", id="h-1")]})
    s.run_to_end()
    seg = s.fork(0, "messages", edit_json)  # after step 1 (agent)
    msgs = seg.stepper.current_values()["messages"]
    return seg, [(type(m).__name__, m.content, m.id) for m in msgs]


def test_a_message_with_a_known_id_is_replaced_like_update_state_does():
    seg, got = _debugger_fork({"role": "assistant", "content": "edited", "id": "ai-1"})
    assert got == _langgraph_fork([AIMessage("edited", id="ai-1")])
    assert ("AIMessage", "edited", "ai-1") in got and ("AIMessage", "re: hi", "ai-1") not in got
    assert seg.message_edit.replaced == ("ai-1",) and seg.message_edit.appended == 0


def test_a_message_without_an_id_is_appended_and_said_so():
    seg, got = _debugger_fork({"role": "user", "content": "and another"})
    oracle = _langgraph_fork([HumanMessage("and another")])
    strip = [(kind, content) for kind, content, _id in got]
    assert strip == [(kind, content) for kind, content, _id in oracle]
    assert strip[:3] == [("HumanMessage", "hi"), ("AIMessage", "re: hi"), ("HumanMessage", "and another")]
    assert seg.message_edit.appended == 1 and not seg.message_edit.replaced


class LogState(TypedDict, total=False):
    log: Annotated[list, operator.add]


def test_an_operator_add_field_is_still_refused_and_a_bad_message_says_why():
    S = LogState
    b = StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_edge(START, "a")
    b.add_edge("a", END)
    s = GraphSession(spec="t:g", graph=b.compile(checkpointer=InMemorySaver()))
    s.start({"log": []})
    s.run_to_end()
    assert message_fields(s.graph) == frozenset()
    with pytest.raises(DebuggerUserError, match="appending reducer"):
        s.fork(0, "log", ["x"])
    m = GraphSession(spec="t:g", graph=_agent().compile(checkpointer=InMemorySaver()))
    m.start({"messages": [HumanMessage("hi", id="h-1")]})
    m.run_to_end()
    with pytest.raises(DebuggerUserError, match="not a message"):
        m.fork(0, "messages", {"no": "role"})


def test_message_edit_reads_every_shape_add_messages_takes():
    current = [HumanMessage("hi", id="h-1")]
    assert message_edit(current, "plain text").appended == 1
    assert message_edit(current, ["user", "a tuple"]).appended == 2  # a list of two strings: two messages
    assert message_edit(current, [{"role": "user", "content": "x", "id": "h-1"}]).replaced == ("h-1",)
