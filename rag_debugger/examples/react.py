"""A ReAct-style tool loop with a fake model: `agent` decides to call a tool or answer, `tools` runs
the call, and the loop goes round until the agent answers. No model, no network.

    streamlit run app.py -- --graph rag_debugger.examples.react:graph
"""
from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from langgraph.graph import START, StateGraph

TOOLS = {
    "add": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
}


class ReactState(TypedDict, total=False):
    question: str
    numbers: list[int]
    messages: Annotated[list[dict], operator.add]
    answer: str


def fake_model(state: ReactState) -> dict:
    """Stands in for a chat model: add the numbers, then multiply the sum by 2, then answer."""
    results = [m["content"] for m in state.get("messages", []) if m.get("role") == "tool"]
    nums = state.get("numbers") or [1, 2]
    if not results:
        return {"role": "assistant", "tool_call": {"name": "add", "args": [nums[0], sum(nums[1:])]}}
    if len(results) == 1:
        return {"role": "assistant", "tool_call": {"name": "multiply", "args": [results[0], 2]}}
    return {"role": "assistant", "content": f"The answer is {results[-1]}."}


def agent(state: ReactState) -> dict:
    """Asks the (fake) model what to do next."""
    reply = fake_model(state)
    update: dict = {"messages": [reply]}
    if "content" in reply:
        update["answer"] = reply["content"]
    return update


def tools(state: ReactState) -> dict:
    """Runs the tool the last model reply called."""
    call = state["messages"][-1]["tool_call"]
    return {"messages": [{"role": "tool", "name": call["name"], "content": TOOLS[call["name"]](*call["args"])}]}


def should_continue(state: ReactState) -> Literal["tools", "__end__"]:
    return "tools" if "tool_call" in state["messages"][-1] else "__end__"


builder = StateGraph(ReactState)
builder.add_node("agent", agent)
builder.add_node("tools", tools)
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", should_continue)
builder.add_edge("tools", "agent")

graph = builder
