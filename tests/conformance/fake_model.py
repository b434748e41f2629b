"""A deterministic tool-calling chat model: what an agent test needs without a network or a real model.

Why a `BaseChatModel` subclass and not langchain-core's fakes: `create_react_agent` calls `bind_tools`,
which the generic fakes do not support, and the replies must depend on the conversation (a resumed or
replayed run asks the model again and must get the same answer)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedToolModel(BaseChatModel):
    """First turn after a human message: one AI message calling every tool in `calls` (in parallel);
    after the tool results: a final answer naming them. `calls`: (tool name, arguments) pairs."""

    calls: list[tuple[str, dict]] = []

    @property
    def _llm_type(self) -> str:
        return "scripted-tool-model"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedToolModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                  run_manager: Optional[CallbackManagerForLLMRun] = None, **kwargs: Any) -> ChatResult:
        last = messages[-1] if messages else None
        turn = sum(1 for m in messages if isinstance(m, HumanMessage))
        if isinstance(last, ToolMessage):
            results = [str(m.content) for m in messages if isinstance(m, ToolMessage)]
            reply = AIMessage(content="done: " + "; ".join(results))
        else:
            reply = AIMessage(content="", tool_calls=[
                {"name": name, "args": args, "id": f"call_{turn}_{i}", "type": "tool_call"}
                for i, (name, args) in enumerate(self.calls)])
        return ChatResult(generations=[ChatGeneration(message=reply)])
