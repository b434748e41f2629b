"""The model layer against a real small model on loopback (SmolLM2-135M-Instruct under llama-cpp-python's
server): structured-output methods, caps, budgets, streaming, prompt sensitivity and a bounded evaluation.

Nothing here depends on the model being right: it is not (it routes about one question in seven right).
What is checked is what a person with a local model relies on: a method that works is found, no call runs
past its cap or its budget, the text streams as it is written, and a prompt change changes what it says.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from rag.errors import ModelCallError
from rag.models.call_limits import DEFAULT_MAX_TOKENS
from rag.models.calls import live_calls, model_call_sink
from rag.models.connection import test_connection
from rag.models.openai_compat import build_openai_roles
from tests.engine.fakes import FakeRetriever, chunk

pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")

GRADER_INPUT = {"question": "What element is Danjin?",
                "context": "[1] Danjin is a Havoc resonator from Jinzhou who fights with a sword."}


def one_chunk() -> FakeRetriever:
    """One short chunk for every query: the grader's prompt stays small, so a call takes seconds."""
    return FakeRetriever(default=[chunk(1, "Danjin is a Havoc resonator from Jinzhou who fights with a sword.")])


class Tokens:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[float, str, str]] = []
        self.ended: dict[str, float] = {}

    def call_started(self, call_id, role, model, task_id):
        pass

    def call_token(self, call_id, text):
        with self.lock:
            self.events.append((time.perf_counter(), call_id, text))

    def call_ended(self, call_id, ok, error_kind):
        self.ended[call_id] = time.perf_counter()


def test_json_schema_is_refused_and_test_connection_picks_function_calling(real_settings):
    report = test_connection(real_settings(structured_output_method="json_schema"))
    assert report.ok, report.message
    first = report.attempts[0]
    assert (first.method, first.error_kind, first.status) == ("json_schema", "unsupported_method", 500)
    assert report.method == "function_calling" and report.switch_method == "function_calling"
    assert "RAG_STRUCTURED_OUTPUT_METHOD=function_calling" in report.suggestion


@pytest.mark.parametrize("method,outcomes", [
    ("json_schema", {"unsupported_method"}),
    ("function_calling", {None}),
    ("json_mode", {None, "invalid_output", "truncated"}),  # grammar-free JSON from a 135M model: either way
])
def test_each_method_through_test_connection(real_settings, method, outcomes):
    report = test_connection(real_settings(structured_output_method=method), methods=[method])
    [attempt] = report.attempts
    assert attempt.error_kind in outcomes, attempt.message
    assert attempt.ok is (attempt.error_kind is None)


@pytest.mark.parametrize("role,payload", [("planner", {"question": "Compare the attack of Danjin and Jiyan"}),
                                          ("grader", GRADER_INPUT)], ids=["planner", "grader"])
def test_a_planner_and_a_grader_call_stay_within_their_caps_and_budget(real_settings, role, payload):
    settings = real_settings(model_timeout_seconds=90)
    calls: list[dict] = []
    seen = Tokens()
    started = time.perf_counter()
    with model_call_sink(calls.append), live_calls(seen):
        try:
            getattr(build_openai_roles(settings), role).invoke(payload)
        except ModelCallError as exc:  # the model may answer nonsense: a clean, typed failure is fine
            assert exc.kind in ("invalid_output", "truncated"), str(exc)
    elapsed = time.perf_counter() - started
    assert calls and all(c["role"] == role for c in calls)
    assert elapsed <= settings.model_timeout_seconds + 5
    cap = DEFAULT_MAX_TOKENS[role]
    for number, call in enumerate(calls):  # llama.cpp streams one token a chunk and reports no usage
        assert call["max_tokens"] == cap * (2 if number else 1)
        assert 0 < call["chunks"] <= call["max_tokens"]
    assert seen.events, "the reply streamed"
    first_token = seen.events[0][0]
    assert first_token < max(seen.ended.values()), "tokens arrived before the call ended"


def test_a_rewriter_call_with_function_calling_keeps_the_server_alive(real_settings, real_model_base_url):
    """The rewriter's schema has a 1,200-character limit; sent as a grammar it killed llama-cpp-python's
    server. Whatever the small model writes, the call ends in a result or a typed error, and the server lives."""
    import urllib.request

    try:
        build_openai_roles(real_settings()).rewriter.invoke(
            {"question": "What element is Danjin v3.2?", "context": GRADER_INPUT["context"], "grade_reason": "too specific"})
    except ModelCallError as exc:
        assert exc.kind in ("invalid_output", "truncated"), str(exc)
    with urllib.request.urlopen(real_model_base_url + "/models", timeout=10) as reply:
        assert reply.status == 200


def test_a_runaway_prompt_is_capped_and_retried_once_with_a_larger_cap(real_settings):
    from rag.answering import model_completer

    settings = real_settings(max_tokens_answerer=24, model_timeout_seconds=60)
    complete, _model = model_completer(settings)
    calls: list[dict] = []
    with model_call_sink(calls.append):
        with pytest.raises(ModelCallError) as err:
            complete("Write a very long essay, at least two thousand words, about the history of the sea. "
                     "Never stop writing.")
    assert err.value.kind == "truncated"
    assert [c["error_kind"] for c in calls] == ["truncated", "truncated"]
    assert [c["max_tokens"] for c in calls] == [24, 48], "the cap, then twice the cap: never a runaway"
    assert all(c["chunks"] <= c["max_tokens"] for c in calls)


def test_the_playground_ab_gives_two_outputs_for_two_prompts(real_settings):
    from rag.playground.ab_fork import run_ab
    from rag.prompts.templates import load_default_prompts

    settings = real_settings(model_timeout_seconds=90)
    default = load_default_prompts().planner
    other = ("You split questions. Say the question below is complex, give the reason 'two characters', and "
             "write two sub-questions, one per character.\n\nQuestion:\n{question}")
    result = run_ab("Compare the attack of Danjin and the defence of Jiyan in detail", "planner", other,
                    template_a=default, settings=settings, retriever=one_chunk())
    assert result.a.role_calls == result.b.role_calls == 1
    assert result.a.error is None and result.b.error is None, (result.a.error, result.b.error)
    assert result.a.role_output != result.b.role_output, "a model that reads prompts answers two prompts differently"


BUNDLED_SET = Path(__file__).resolve().parents[2] / "rag" / "data" / "eval" / "bundled.jsonl"
EVAL_TOP_K = 2
"""Chunks the evaluation's grader reads: SmolLM2 reads prompts at 80-90 tokens/s here, so with the default
eight chunks a grader call spent ~40 s on its prompt alone and the bundled set took over 20 minutes; with two,
the set takes a few minutes. What is checked does not depend on how much evidence the model sees."""


def _rag_error_names() -> set[str]:
    from rag.errors import RagError

    names, todo = set(), [RagError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return names


def test_the_bundled_evaluation_finishes_with_a_route_per_case_and_its_failures_as_kinds(real_settings):
    """The whole bundled question set against the real model, as `python -m rag.eval --set bundled` runs it:
    it ends, every case has a route (a degraded run still ends in one), no case ends in an exception that is
    not one of the project's own, and each call that failed for good (cut at its cap twice, out of time, not
    fitting the schema) is in the case's results and the report as its role and kind."""
    from rag.eval.cases import load_cases
    from rag.eval.report import evaluation_html
    from rag.eval.runner import run_cases
    from rag.eval.scoring import ROUTES, degraded_kinds

    settings = real_settings(model_timeout_seconds=60, top_k=EVAL_TOP_K)
    cases = load_cases(BUNDLED_SET)
    calls: list[dict] = []
    calls_before: list[int] = []
    started = time.perf_counter()
    with model_call_sink(calls.append):
        results = run_cases(cases, settings, cache=False, on_result=lambda _r: calls_before.append(len(calls)))
    elapsed = time.perf_counter() - started

    assert len(results) == len(cases) >= 20
    assert [r.id for r in results] == [c.id for c in cases]
    assert all(r.route in ROUTES for r in results), [(r.id, r.route, r.error) for r in results if r.route not in ROUTES]
    own = _rag_error_names()
    untyped = [(r.id, r.error) for r in results if r.error and r.error.split(":", 1)[0] not in own]
    assert not untyped, untyped
    # no call outlives its budget, so neither does the evaluation (a case makes at most a planner, four
    # sub-question graders, a rewrite and its grade)
    assert calls and all(c["elapsed_ms"] <= settings.model_timeout_seconds * 1000 + 2000 for c in calls)
    assert elapsed < len(cases) * 7 * settings.model_timeout_seconds
    # every role call that failed for good is the case's degradation, by role and kind
    for i, r in enumerate(results):
        own_calls = calls[(calls_before[i - 1] if i else 0):calls_before[i]]
        failed = {f"{c['role']}: {c['error_kind']}" for c in own_calls
                  if c["error_kind"] and c["role"] in ("planner", "grader", "rewriter")}
        assert failed <= set(r.degraded), (r.id, failed, r.degraded)
    kinds = degraded_kinds(results)
    html = evaluation_html(["smollm2"], [results], set_name="bundled", kb="bundled")
    for item in kinds:
        role, _sep, kind = item.partition(": ")
        assert role in ("planner", "grader", "rewriter", "retriever") and kind and " " not in kind, item
        assert item in html
    print(f"\nbundled set: {len(results)} cases in {elapsed:.0f} s; degraded calls: {kinds or 'none'}")
