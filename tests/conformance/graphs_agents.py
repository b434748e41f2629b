"""Prebuilt agents and a hand-built tool loop, driven by a deterministic tool-calling model."""
from __future__ import annotations

from typing import Annotated

from langchain_core.messages import ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, create_react_agent, tools_condition
from langgraph.prebuilt.chat_agent_executor import AgentState
from langgraph.types import Command, interrupt

from tests.conformance.case import Case
from tests.conformance.fake_model import ScriptedToolModel

M = "tests.conformance.graphs_agents"


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool
def population(city: str) -> str:
    """How many people live in a city."""
    return f"{len(city)} million in {city}"


@tool
def book(flight: str) -> str:
    """Book a flight, after a person approves it."""
    answer = interrupt({"tool": "book", "flight": flight, "question": "book it?"})
    return f"booked {flight}" if answer == "yes" else f"not booked ({answer})"


react_parallel = create_react_agent(
    ScriptedToolModel(calls=[("weather", {"city": "Paris"}), ("population", {"city": "Lima"})]),
    [weather, population])

react_interrupt = create_react_agent(ScriptedToolModel(calls=[("book", {"flight": "LH123"})]), [book])


def _agent(state: MessagesState) -> dict:
    model = ScriptedToolModel(calls=[("weather", {"city": "Oslo"})]).bind_tools([weather])
    return {"messages": [model.invoke(state["messages"])]}


_b = StateGraph(MessagesState)
_b.add_node("agent", _agent)
_b.add_node("tools", ToolNode([weather]))
_b.add_edge(START, "agent")
_b.add_conditional_edges("agent", tools_condition)
_b.add_edge("tools", "agent")
tool_loop = _b.compile()


CASES = [
    Case("react_parallel_tools", f"{M}:react_parallel", {"messages": [("user", "weather and people?")]}),
    Case("react_interrupt_tool", f"{M}:react_interrupt", {"messages": [{"role": "user", "content": "fly"}]},
         answers=("yes",)),
    Case("tool_loop", f"{M}:tool_loop", {"messages": "how is Oslo?"}, breakpoint="tools",
         what_if=(0, "messages", {"role": "user", "content": "and Bergen?"})),
]


# ----- a tool that updates the agent's state with a Command (a handoff-style tool) ---------------------------
class Notes(AgentState):
    notes: list[str]


@tool
def take_note(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Write a note into the agent's state."""
    return Command(update={"notes": [text], "messages": [ToolMessage(f"noted {text}", tool_call_id=tool_call_id)]})


react_command_tool = create_react_agent(ScriptedToolModel(calls=[("take_note", {"text": "milk"})]), [take_note],
                                        state_schema=Notes)

CASES += [Case("react_command_tool", f"{M}:react_command_tool", {"messages": "remember milk", "notes": []},
                  what_if=(0, "messages", {"role": "user", "content": "and eggs"}))]
