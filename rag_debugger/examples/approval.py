"""Human in the loop with `interrupt()`: `draft` writes a reply, `review` pauses the run and asks a
person to pick an option, `send` or `revise` follows the answer. `details` asks for a typed answer
(the interrupt value carries a JSON schema).

    streamlit run app.py -- --graph rag_debugger.examples.approval:graph --input rag_debugger/examples/approval_input.json
"""
from __future__ import annotations

from typing import Literal, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class ApprovalState(TypedDict, total=False):
    request: str
    draft: str
    decision: str
    priority: int
    status: str


def draft(state: ApprovalState) -> dict:
    """Drafts a reply to the request."""
    return {"draft": f"Re: {state.get('request', '')}"}


def review(state: ApprovalState) -> dict:
    """Asks a person to approve or reject the draft (pauses the run)."""
    answer = interrupt({"question": f"Send this reply? {state.get('draft', '')}", "options": ["approve", "reject"]})
    return {"decision": str(answer)}


def route(state: ApprovalState) -> Literal["details", "revise"]:
    return "details" if state.get("decision") == "approve" else "revise"


def details(state: ApprovalState) -> dict:
    """Asks for the priority of the reply, as a typed form (pauses the run)."""
    answer = interrupt({
        "question": "How urgent is it?",
        "schema": {"type": "object", "properties": {"priority": {"type": "integer", "minimum": 1, "maximum": 5}},
                   "required": ["priority"]},
    })
    return {"priority": int(answer["priority"]), "status": "sent"}


def revise(state: ApprovalState) -> dict:
    """Sends the draft back for another try."""
    return {"status": "revise"}


builder = StateGraph(ApprovalState)
builder.add_node("draft", draft)
builder.add_node("review", review)
builder.add_node("details", details)
builder.add_node("revise", revise)
builder.add_edge(START, "draft")
builder.add_edge("draft", "review")
builder.add_conditional_edges("review", route)
builder.add_edge("details", END)
builder.add_edge("revise", END)

graph = builder.compile(checkpointer=InMemorySaver())
"""Compiled with its own checkpointer, as an app would be (`interrupt()` needs one)."""
