"""The "Test connection" check against the loopback server: each failure kind, and the method fallback."""
from __future__ import annotations

import pytest

from rag.models import connection
from rag.settings import RagSettings
from tests.models.conftest import FAKE_KEY, PLAN
from tests.support.fake_openai import Delay, HttpError, Malformed, Respond, closed_port_url

pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")

check = connection.test_connection


def test_a_working_endpoint_reports_latency_and_the_method(fake_openai, make_settings):
    fake_openai.reply(PLAN)
    report = check(make_settings(structured_output_method="json_schema"))
    assert report.ok and report.error_kind is None
    assert report.method == "json_schema" == report.configured_method
    assert report.latency_ms is not None and 0 <= report.latency_ms < 5000
    assert report.model == "fast-model" and report.base_url == fake_openai.base_url
    assert report.suggestion == ""
    assert [r.method for r in fake_openai.requests] == ["json_schema"], "exactly one small structured call"
    assert fake_openai.requests[0].schema_name == "ComplexityResult"


def test_the_grade_model_can_be_checked_too(fake_openai, make_settings):
    fake_openai.reply(PLAN)
    report = check(make_settings(), model="grade-model")
    assert report.ok and report.model == "grade-model"
    assert fake_openai.requests[0].model == "grade-model"


def test_json_schema_rejected_falls_back_to_function_calling_and_says_so(fake_openai, make_settings):
    fake_openai.reply(PLAN)
    fake_openai.reject_method("json_schema")
    report = check(make_settings(structured_output_method="json_schema"))
    assert report.ok
    assert report.method == "function_calling"
    assert "RAG_STRUCTURED_OUTPUT_METHOD=function_calling" in report.suggestion
    assert report.switch_method == "function_calling"
    assert "json_schema" in report.message
    assert fake_openai.methods_seen == ["json_schema", "function_calling"]
    assert [(a.method, a.ok, a.error_kind) for a in report.attempts] == [
        ("json_schema", False, "unsupported_method"), ("function_calling", True, None)]


def test_no_json_schema_and_no_tools_falls_back_to_json_mode(fake_openai, make_settings):
    fake_openai.reply(PLAN)
    fake_openai.reject_method("json_schema").reject_method("function_calling")
    report = check(make_settings())
    assert report.ok and report.method == "json_mode"
    assert "RAG_STRUCTURED_OUTPUT_METHOD=json_mode" in report.suggestion
    assert fake_openai.methods_seen == ["json_schema", "function_calling", "json_mode"]


def test_a_backend_that_ignores_the_method_and_answers_garbage_falls_back(fake_openai, make_settings):
    fake_openai.script(Malformed("Sure! The question is simple."), method="json_schema")
    fake_openai.reply(PLAN)
    report = check(make_settings())
    assert report.ok and report.method == "function_calling"
    assert report.attempts[0].error_kind == "invalid_output"


def test_no_method_works(fake_openai, make_settings):
    for method in ("json_schema", "function_calling", "json_mode"):
        fake_openai.reject_method(method)
    report = check(make_settings())
    assert not report.ok and report.method is None
    assert report.error_kind == "unsupported_method"
    assert "tool calling or JSON mode" in report.suggestion
    assert len(report.attempts) == 3


def test_configured_function_calling_falls_back_to_json_mode_first(fake_openai, make_settings):
    fake_openai.reply(PLAN)
    fake_openai.reject_method("function_calling")
    report = check(make_settings(structured_output_method="function_calling"))
    assert report.ok and report.method == "json_mode"
    assert fake_openai.methods_seen == ["function_calling", "json_mode"]


def test_explicit_methods_are_tried_in_the_given_order(fake_openai, make_settings):
    fake_openai.reply(PLAN)
    report = check(make_settings(), methods=["json_mode"])
    assert report.ok and report.method == "json_mode"
    assert "RAG_STRUCTURED_OUTPUT_METHOD=json_mode" in report.suggestion
    with pytest.raises(ValueError, match="unknown structured-output method"):
        check(make_settings(), methods=["xml"])


@pytest.mark.parametrize("behaviour,kind,suggestion,requests", [
    (HttpError.unauthorized(), "auth", "OPENAI_API_KEY", 1),
    (HttpError.model_not_found(), "not_found", "model name", 1),
    (HttpError.server_error(), "http_error", "server", 2),
    (HttpError.rate_limited(), "rate_limit", "rate limiting", 2),
], ids=["bad-key", "model-not-found", "server-error", "rate-limit"])
def test_failures_report_their_kind_and_stop_without_fallback(fake_openai, make_settings, behaviour, kind, suggestion,
                                                              requests):
    fake_openai.script(behaviour)
    report = check(make_settings(model_max_retries=3))
    assert not report.ok and report.method is None
    assert report.error_kind == kind
    assert suggestion in report.suggestion
    assert report.message and "fast-model" in report.message
    assert len(fake_openai.requests) == requests, "another method cannot fix this; only a transient one is retried, once"
    assert report.attempts[-1].retried is (requests == 2)


@pytest.mark.parametrize("behaviour", [HttpError.server_error(), HttpError.rate_limited(retry_after=0.1)],
                         ids=["500", "429"])
def test_one_transient_failure_does_not_fail_the_test(fake_openai, make_settings, behaviour):
    fake_openai.script(behaviour, times=1)
    fake_openai.reply(PLAN)
    report = check(make_settings(model_timeout_seconds=5))
    assert report.ok and report.method == "json_schema"
    assert report.attempts == [connection.MethodAttempt(method="json_schema", ok=True,
                                                        latency_ms=report.attempts[0].latency_ms, retried=True)]


def test_llama_cpp_refusing_json_schema_with_a_500_falls_back_to_function_calling(fake_openai, make_settings):
    fake_openai.script(HttpError.llama_cpp_json_schema(), method="json_schema")
    fake_openai.reply(PLAN)
    report = check(make_settings(model_timeout_seconds=5))
    assert report.ok and report.method == "function_calling" and report.switch_method == "function_calling"
    assert report.attempts[0].error_kind == "unsupported_method" and report.attempts[0].status == 500
    assert fake_openai.methods_seen == ["json_schema", "function_calling"], "a method refusal is not retried"
    assert "RAG_STRUCTURED_OUTPUT_METHOD=function_calling" in report.suggestion


def test_the_servers_own_endpoint_shows_its_error_message_redacted(fake_openai, make_settings, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    fake_openai.script(HttpError(500, "model failed to load: out of memory, key {key}"))
    report = check(make_settings())
    assert report.server_detail
    assert "out of memory" in report.message
    assert FAKE_KEY not in report.model_dump_json() and "***" in report.message


def test_a_typed_endpoint_never_shows_what_it_answered(fake_openai, make_settings, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # the server's own endpoint is another one
    fake_openai.script(HttpError(500, "internal admin page: secret-token-1234"))
    report = check(make_settings())
    assert not report.server_detail
    assert "secret-token-1234" not in report.model_dump_json() and "HTTP 500" in report.message


def test_bad_key_report_is_readable_and_key_free(fake_openai, make_settings):
    fake_openai.script(HttpError.unauthorized(echo_key=True))
    report = check(make_settings())
    assert report.error_kind == "auth" and "401" in report.message
    dumped = report.model_dump_json() + repr(report)
    assert FAKE_KEY not in dumped and FAKE_KEY[8:] not in dumped


def test_unreachable_host(make_settings):
    url = closed_port_url()
    report = check(make_settings(openai_base_url=url))
    assert not report.ok and report.error_kind == "connection"
    assert report.base_url == url
    assert "OPENAI_BASE_URL" in report.suggestion
    assert len(report.attempts) == 1


def test_timeout(fake_openai, make_settings):
    fake_openai.script(Delay(5, Respond(PLAN)))
    report = check(make_settings(model_timeout_seconds=0.5))
    assert not report.ok and report.error_kind == "timeout"
    assert "RAG_MODEL_TIMEOUT_SECONDS" in report.suggestion
    assert report.latency_ms is not None and 450 <= report.latency_ms < 1500
    assert len(fake_openai.requests) == 1


def test_nothing_configured_sends_nothing():
    settings = RagSettings(model_provider="auto", openai_api_key="", openai_base_url="")
    report = check(settings)
    assert not report.ok and report.error_kind == "not_configured"
    assert "OPENAI_API_KEY" in report.suggestion and report.attempts == []


def test_base_url_in_the_report_has_no_credentials(fake_openai, make_settings):
    fake_openai.reply(PLAN)
    url = fake_openai.base_url.replace("http://", "http://user:hunter2@")
    report = check(make_settings(openai_base_url=url))
    assert report.ok
    assert "hunter2" not in report.model_dump_json()


def test_pytest_does_not_collect_the_check_as_a_test():
    assert connection.test_connection.__test__ is False
