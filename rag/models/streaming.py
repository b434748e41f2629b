"""Reading one streamed model reply: the text as it comes, Stop, the time budget, and the whole message at the end.

Why a reader thread: a stream yields nothing while the server reads a long prompt (seconds on a CPU), and a
person who presses Stop then must not wait for the next token. The chunks are read in a thread of their
own and handed over through a queue; the calling thread waits on the queue in short slices, checking
`cancel_requested()` and the budget between them. On Stop or at the budget's end the caller leaves at once
and the reader closes the stream as soon as its current read returns: closing it is what makes a local
server (llama.cpp, Ollama) stop generating.
"""
from __future__ import annotations

import contextvars
import queue
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

from langchain_core.messages import AIMessage, AIMessageChunk

from rag.models.calls import CallCancelled, cancel_requested

_POLL_S = 0.05
_END = object()

# The SDK's streaming helper for `response_format` keeps the parsed object in a field typed None; dumping each
# event then warns once per chunk. Nothing is wrong with the reply: the warning is noise in every log.
warnings.filterwarnings("ignore", message=r"Pydantic serializer warnings", category=UserWarning)


class StreamDeadline(Exception):
    """The budget ran out before the stream ended (the stream is closed)."""


@dataclass
class StreamedReply:
    message: AIMessage
    finish_reason: Optional[str]
    text: str
    """Every text delta, concatenated (content, or the tool call's arguments)."""
    chunks: int = 0
    """Chunks that carried text: a token each on llama.cpp, Ollama and vLLM, whose streams may carry no usage."""


def delta_text(chunk: Any) -> str:
    """The new text of one chunk: its content, or the argument pieces of its tool call (function_calling)."""
    content = getattr(chunk, "content", "")
    text = content if isinstance(content, str) else "".join(
        p.get("text", "") if isinstance(p, dict) else str(p) for p in content or [])
    for call in getattr(chunk, "tool_call_chunks", None) or []:
        text += call.get("args") or ""
    return text


def _as_message(acc: Optional[AIMessageChunk]) -> AIMessage:
    if acc is None:
        return AIMessage(content="")
    tool_calls = list(acc.tool_calls or [])
    invalid = list(acc.invalid_tool_calls or [])
    return AIMessage(content=acc.content, additional_kwargs=dict(acc.additional_kwargs),
                     response_metadata=dict(acc.response_metadata), tool_calls=tool_calls,
                     invalid_tool_calls=invalid, usage_metadata=acc.usage_metadata, id=acc.id)


def read_stream(open_stream: Callable[[], Iterator[Any]], *, deadline: float,
                on_text: Optional[Callable[[str], None]] = None,
                cancelled: Callable[[], bool] = cancel_requested) -> StreamedReply:
    """Read a stream of message chunks to its end. `deadline` is a `time.perf_counter()` value. Raises
    CallCancelled on Stop, StreamDeadline at the deadline, and whatever the stream itself raised."""
    handoff: "queue.Queue[tuple[str, Any]]" = queue.Queue()
    stop = threading.Event()

    def reader() -> None:
        stream = None
        try:
            stream = open_stream()
            for chunk in stream:
                if stop.is_set():
                    break
                handoff.put(("chunk", chunk))
            else:
                handoff.put(("end", _END))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
            handoff.put(("error", exc))
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                try:
                    close()  # closes the HTTP response: the server stops generating
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass

    ctx = contextvars.copy_context()
    thread = threading.Thread(target=ctx.run, args=(reader,), name="model-stream", daemon=True)
    thread.start()
    acc: Optional[AIMessageChunk] = None
    parts: list[str] = []
    try:
        while True:
            if cancelled():
                raise CallCancelled("the model call was stopped")
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise StreamDeadline()
            try:
                what, item = handoff.get(timeout=min(_POLL_S, remaining))
            except queue.Empty:
                continue
            if what == "end":
                break
            if what == "error":
                raise item
            text = delta_text(item)
            acc = item if acc is None else acc + item
            if text:
                parts.append(text)
                if on_text is not None:
                    try:
                        on_text(text)
                    except Exception:  # noqa: BLE001 - a broken observer must not fail the call
                        pass
    finally:
        stop.set()
    message = _as_message(acc)
    return StreamedReply(message=message, finish_reason=message.response_metadata.get("finish_reason"),
                         text="".join(parts), chunks=len(parts))


__all__ = ["read_stream", "StreamedReply", "StreamDeadline", "delta_text"]
