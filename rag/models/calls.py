"""Model calls as they happen (role, model, when, how long, tokens when the model reports them),
for the debugger's "where the time went" waterfall.

Why a context variable with a sink and not a field of the trace: the trace's fields are the
protocol's, and a timing is not part of a run's outcome. Whoever wants the calls (the debugger
session, around one Step) installs a sink; LangGraph runs a step's tasks in threads with a copy of
the caller's context, so the sink is seen from every parallel lane. Without a sink nothing is kept.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Optional

_SINK: ContextVar[Optional[Callable[[dict], None]]] = ContextVar("rag_model_call_sink", default=None)


@contextmanager
def model_call_sink(sink: Callable[[dict], None]) -> Iterator[None]:
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


def usage_of(raw: Any) -> tuple[Optional[int], Optional[int]]:
    """(tokens in, tokens out) from a LangChain message's `usage_metadata`, when the model said."""
    usage = getattr(raw, "usage_metadata", None) or {}
    return usage.get("input_tokens"), usage.get("output_tokens")


def _task_id() -> Optional[str]:
    """The LangGraph task (lane) making the call, so a trace can hang the call under its lane."""
    try:
        from langgraph.config import get_config

        ns = get_config().get("metadata", {}).get("langgraph_checkpoint_ns") or ""
    except Exception:  # noqa: BLE001 - outside a graph run there is no task
        return None
    return ns.rpartition("|")[2].partition(":")[2] or None


def _output_of(raw: Any) -> Optional[str]:
    content = getattr(raw, "content", None)
    if content:
        return content if isinstance(content, str) else str(content)
    calls = getattr(raw, "tool_calls", None)
    return str(calls) if calls else None


def record_model_call(role: str, model: str, started: float, *, raw: Any = None,
                      error_kind: Optional[str] = None, method: Optional[str] = None,
                      prompt: Optional[str] = None, chunks: Optional[int] = None,
                      max_tokens: Optional[int] = None) -> None:
    """`started` is `time.perf_counter()` at the call's start; a no-op without a sink. The prompt and
    the output travel unredacted: every consumer that shows or sends them redacts them itself. `chunks` is
    how many streamed chunks carried text (a token each on local servers, whose streams may report no
    usage) and `max_tokens` the cap the call was sent with."""
    sink = _SINK.get()
    if sink is None:
        return
    tokens_in, tokens_out = usage_of(raw)
    try:
        sink({"role": role, "model": model, "started": started,
              "elapsed_ms": round((time.perf_counter() - started) * 1000.0, 3),
              "tokens_in": tokens_in, "tokens_out": tokens_out, "ok": error_kind is None, "error_kind": error_kind,
              "method": method, "prompt": prompt, "output": _output_of(raw), "task_id": _task_id(),
              "wall_end_ns": time.time_ns(), "chunks": chunks, "max_tokens": max_tokens})
    except Exception:  # noqa: BLE001 - a broken observer must not fail the model call
        pass


# --- Live calls: tokens as they come, and Stop -------------------------------------------------------
# Why a second context variable beside the sink above: the sink hears of a call once it has ended (for the
# waterfall); a person watching a slow local model needs the call while it runs (which role, which lane,
# the text so far) and a way to stop it. The debugger installs an observer and a cancel event around one
# Step; the model client streams, reports every delta and checks the event between chunks. Closing the
# stream is what makes a local server (llama.cpp, Ollama) stop generating.

import threading  # noqa: E402 - kept beside the part that needs it
from typing import Protocol  # noqa: E402


class CallCancelled(Exception):
    """The person pressed Stop while a model call was running: the step did not happen."""


class LiveCallObserver(Protocol):
    def call_started(self, call_id: str, role: str, model: str, task_id: Optional[str]) -> None: ...

    def call_token(self, call_id: str, text: str) -> None: ...

    def call_ended(self, call_id: str, ok: bool, error_kind: Optional[str]) -> None: ...


_LIVE: ContextVar[Optional[LiveCallObserver]] = ContextVar("rag_live_call_observer", default=None)
_CANCEL: ContextVar[Optional[threading.Event]] = ContextVar("rag_call_cancel", default=None)


@contextmanager
def live_calls(observer: Optional[LiveCallObserver], cancel: Optional[threading.Event] = None) -> Iterator[None]:
    """Around one Step: every model call made under it (in any lane) reports to `observer` and stops,
    raising CallCancelled, once `cancel` is set."""
    t1, t2 = _LIVE.set(observer), _CANCEL.set(cancel)
    try:
        yield
    finally:
        _LIVE.reset(t1)
        _CANCEL.reset(t2)


def live_observer() -> Optional[LiveCallObserver]:
    return _LIVE.get()


def cancel_requested() -> bool:
    event = _CANCEL.get()
    return bool(event is not None and event.is_set())


def current_task_id() -> Optional[str]:
    """The lane (LangGraph task id) of the running call, for observers that draw one stream per lane."""
    return _task_id()
