"""Bounded, streamed calls through the real ChatOpenAI client and the loopback fake server: reply caps, the
`truncated` kind, one time budget, Retry-After, client-side queueing, tokens as they come, and Stop."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import pytest

from rag.errors import ModelCallError
from rag.models.call_limits import DEFAULT_MAX_TOKENS
from rag.models.calls import CallCancelled, live_calls, model_call_sink
from rag.models.openai_compat import build_openai_roles
from rag.schemas import ComplexityResult, EvidenceGrade
from tests.models.conftest import GRADE, PLAN
from tests.support.fake_openai import Delay, HttpError, Respond, SlowStream, Truncated

METHODS = ["json_schema", "function_calling", "json_mode"]
pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")


class Recorder:
    """A live-call observer that keeps everything it hears."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started: list[tuple[str, str, str]] = []
        self.tokens: dict[str, list[str]] = {}
        self.ended: list[tuple[str, bool, Optional[str]]] = []
        self.first_token = threading.Event()

    def call_started(self, call_id, role, model, task_id):
        with self.lock:
            self.started.append((call_id, role, model))
            self.tokens[call_id] = []

    def call_token(self, call_id, text):
        with self.lock:
            self.tokens[call_id].append(text)
        self.first_token.set()

    def call_ended(self, call_id, ok, error_kind):
        with self.lock:
            self.ended.append((call_id, ok, error_kind))

    def text(self, call_id: str) -> str:
        return "".join(self.tokens[call_id])


@pytest.mark.parametrize("role,payload,default", [
    ("planner", {"question": "q"}, DEFAULT_MAX_TOKENS["planner"]),
    ("grader", {"question": "q", "context": "c"}, DEFAULT_MAX_TOKENS["grader"]),
    ("rewriter", {"question": "q"}, DEFAULT_MAX_TOKENS["rewriter"]),
])
def test_every_role_sends_its_cap_and_streams(scripted, make_settings, role, payload, default):
    getattr(build_openai_roles(make_settings()), role).invoke(payload)
    [req] = scripted.requests
    assert req.max_tokens == default
    assert req.body.get("max_tokens") == default, "local servers read max_tokens, not max_completion_tokens"
    assert req.stream is True and req.body["stream_options"] == {"include_usage": True}


def test_a_configured_cap_is_sent(scripted, make_settings):
    build_openai_roles(make_settings(max_tokens_grader=77)).grader.invoke({"question": "q", "context": "c"})
    assert scripted.requests[0].max_tokens == 77


@pytest.mark.parametrize("method", METHODS)
def test_a_reply_cut_at_the_cap_is_retried_once_with_twice_the_cap(fake_openai, make_settings, method):
    fake_openai.script(Truncated(PLAN), times=1)
    fake_openai.reply(PLAN)
    out = build_openai_roles(make_settings(structured_output_method=method)).planner.invoke({"question": "q"})
    assert out == ComplexityResult(**PLAN)
    assert [r.max_tokens for r in fake_openai.requests] == [384, 768]


@pytest.mark.parametrize("method", METHODS)
def test_a_reply_cut_twice_fails_as_truncated(fake_openai, make_settings, method):
    fake_openai.script(Truncated(GRADE))
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(structured_output_method=method, model_max_retries=2)).grader.invoke(
            {"question": "q", "context": "c"})
    assert err.value.kind == "truncated"
    assert "RAG_MAX_TOKENS_GRADER" in str(err.value) and "1280 tokens" in str(err.value)
    assert len(fake_openai.requests) == 2, "retried once with a larger cap, not with the retries of a transient error"


def test_the_budget_covers_every_attempt_and_the_message_says_the_time_spent(fake_openai, make_settings):
    fake_openai.script(HttpError.server_error(), times=2)
    fake_openai.script(Delay(5, Respond(PLAN)))
    started = time.monotonic()
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(model_timeout_seconds=1.0, model_max_retries=5)).planner.invoke({"question": "q"})
    elapsed = time.monotonic() - started
    assert err.value.kind == "timeout"
    assert elapsed < 1.0 + 1.0, "one budget for the call, retries included, not one per attempt"
    assert len(fake_openai.requests) == 3
    assert "3 attempts in 1.0 s of a 1 s budget" in str(err.value)


def test_a_timeout_is_not_retried_against_a_loopback_server(fake_openai, make_settings):
    fake_openai.script(Delay(3, Respond(PLAN)))
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(model_timeout_seconds=0.5, model_max_retries=3)).planner.invoke({"question": "q"})
    assert err.value.kind == "timeout"
    assert len(fake_openai.requests) == 1, "the server is still generating: a second request only queues behind it"


def test_retry_after_of_a_429_is_honoured(fake_openai, make_settings):
    fake_openai.script(HttpError.rate_limited(retry_after=0.6), times=1)
    fake_openai.reply(PLAN)
    out = build_openai_roles(make_settings(model_timeout_seconds=5, model_max_retries=1)).planner.invoke({"question": "q"})
    assert out == ComplexityResult(**PLAN)
    first, second = fake_openai.requests
    assert second.received_at - first.received_at >= 0.55


def test_a_retry_after_beyond_the_budget_fails_at_once(fake_openai, make_settings):
    fake_openai.script(HttpError.rate_limited(retry_after=30))
    started = time.monotonic()
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(model_timeout_seconds=2, model_max_retries=3)).planner.invoke({"question": "q"})
    assert err.value.kind == "rate_limit"
    assert time.monotonic() - started < 2
    assert len(fake_openai.requests) == 1


def test_a_loopback_endpoint_gets_one_call_at_a_time(fake_openai, make_settings):
    fake_openai.script(Delay(0.2, Respond(GRADE)))
    roles = build_openai_roles(make_settings(model_timeout_seconds=30))
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(lambda i: roles.grader.invoke({"question": f"q{i}", "context": "c"}), range(3)))
    times = sorted(r.received_at for r in fake_openai.requests)
    assert all(b - a >= 0.18 for a, b in zip(times, times[1:], strict=False)), "Send lanes queue in the client"


def test_concurrency_can_be_raised(fake_openai, make_settings):
    fake_openai.script(Delay(0.5, Respond(GRADE)))
    roles = build_openai_roles(make_settings(model_timeout_seconds=30, model_concurrency=3))
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(lambda i: roles.grader.invoke({"question": f"q{i}", "context": "c"}), range(3)))
    times = sorted(r.received_at for r in fake_openai.requests)
    assert times[-1] - times[0] < 0.4, "three slots: the three calls reach the server together"


# ---------------------------------------------------------------------------------------------------
# Tokens as they come, and Stop
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_an_observer_hears_every_delta_and_the_end(scripted, make_settings, method):
    seen = Recorder()
    with live_calls(seen):
        out = build_openai_roles(make_settings(structured_output_method=method)).grader.invoke(
            {"question": "q", "context": "c"})
    assert out == EvidenceGrade(**GRADE)
    [(call_id, role, model)] = seen.started
    assert (role, model) == ("grader", "grade-model")
    assert len(seen.tokens[call_id]) > 3, "the reply arrives in pieces"
    assert EvidenceGrade.model_validate_json(seen.text(call_id)) == out, "the deltas are the reply's text"
    assert seen.ended == [(call_id, True, None)]


def test_stop_closes_the_stream_and_raises_call_cancelled(fake_openai, make_settings):
    fake_openai.script(SlowStream(pieces=None, interval=0.05))  # a runaway: never ends by itself
    seen, stop = Recorder(), threading.Event()
    calls: list[dict] = []
    roles = build_openai_roles(make_settings(model_timeout_seconds=30))
    threading.Thread(target=lambda: (seen.first_token.wait(10), stop.set()), daemon=True).start()
    with live_calls(seen, stop), model_call_sink(calls.append):
        with pytest.raises(CallCancelled):
            roles.planner.invoke({"question": "q"})
    assert seen.ended and seen.ended[-1][1:] == (False, "cancelled")
    assert calls and calls[-1]["error_kind"] == "cancelled"
    deadline = time.monotonic() + 5
    while fake_openai.closed_early < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake_openai.closed_early == 1, "the server saw the stream closed: a local server stops generating"
    assert len(fake_openai.requests) == 1


def test_stop_while_queued_for_the_endpoint_sends_nothing(fake_openai, make_settings):
    fake_openai.script(Delay(1.0, Respond(GRADE)))
    roles = build_openai_roles(make_settings(model_timeout_seconds=30))
    busy = threading.Thread(target=lambda: roles.grader.invoke({"question": "a", "context": "c"}))
    busy.start()
    assert fake_openai.wait_for_requests(1, timeout=10)
    stop = threading.Event()
    stop.set()
    with live_calls(None, stop), pytest.raises(CallCancelled):
        roles.grader.invoke({"question": "b", "context": "c"})
    busy.join()
    assert len(fake_openai.requests) == 1


def test_a_runaway_is_cut_by_the_budget_and_its_stream_closed(fake_openai, make_settings):
    fake_openai.script(SlowStream(pieces=None, interval=0.02))
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(model_timeout_seconds=0.6)).planner.invoke({"question": "q"})
    assert err.value.kind == "timeout"
    deadline = time.monotonic() + 5
    while fake_openai.closed_early < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake_openai.closed_early == 1


def test_the_answerer_is_capped_and_streamed(fake_openai, make_settings):
    from rag.answering import model_completer

    fake_openai.script(SlowStream(pieces=["The answer ", "is 42 [1]."], interval=0.01))
    complete, model = model_completer(make_settings(model_timeout_seconds=5))
    seen = Recorder()
    with live_calls(seen):
        assert complete("question and context") == "The answer is 42 [1]."
    [req] = fake_openai.requests
    assert req.max_tokens == DEFAULT_MAX_TOKENS["answerer"] and req.stream
    assert seen.started[0][1] == "answerer"


def test_the_forced_tool_carries_no_length_limits(scripted, make_settings):
    """llama.cpp builds a grammar from the tool's schema; the rewriter's 1,200-character limit made
    llama-cpp-python's server refuse the grammar and die. The limits are checked on the reply instead."""
    build_openai_roles(make_settings(structured_output_method="function_calling")).rewriter.invoke({"question": "q"})
    [req] = scripted.requests
    assert req.tool_name == "RewritePlan"
    assert "maxLength" not in str(req.body["tools"])


def test_a_reply_past_a_length_limit_is_still_invalid_output(fake_openai, make_settings):
    fake_openai.reply({"method": "step_back", "step_back_question": "x" * 400})
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(structured_output_method="function_calling")).rewriter.invoke({"question": "q"})
    assert err.value.kind == "invalid_output" and "step_back_question" in str(err.value)
