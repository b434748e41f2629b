"""The OpenAI-compatible roles, end to end through the real ChatOpenAI client and a loopback server."""
from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rag.errors import ModelCallError, PromptTemplateError
from rag.models.base import GraderInput, PlannerInput, RewriterInput
from rag.models.openai_compat import build_openai_roles, classify_error, public_url, redact
from rag.prompts.templates import load_default_prompts
from rag.schemas import ComplexityResult, EvidenceGrade, RewritePlan
from tests.models.conftest import FAKE_KEY, GRADE, PLAN, REWRITE
from tests.support.fake_openai import Delay, HttpError, Malformed, Refuse, Respond, closed_port_url

METHODS = ["json_schema", "function_calling", "json_mode"]

# langchain-openai warns on its own when a backend rejects json_schema; the error is what we assert.
pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")

ROLE_CASES = [
    # role, input, schema name, expected output, model setting
    ("planner", PlannerInput(question="Compare A and B"), "ComplexityResult", ComplexityResult(**PLAN), "fast-model"),
    ("grader", GraderInput(question="What is A?", context="A is a letter."), "EvidenceGrade", EvidenceGrade(**GRADE),
     "grade-model"),
    ("rewriter", RewriterInput(question="What is A v3.2?", grade_reason="too specific"), "RewritePlan",
     RewritePlan(**REWRITE), "fast-model"),
]


def invoke_role(roles, role, payload):
    return getattr(roles, role).invoke(payload)


# ---------------------------------------------------------------------------------------------------
# Each method, each role, through the real client
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("role,payload,schema_name,expected,model", ROLE_CASES, ids=[c[0] for c in ROLE_CASES])
def test_each_role_returns_its_schema_with_each_method(scripted, make_settings, method, role, payload, schema_name,
                                                       expected, model):
    roles = build_openai_roles(make_settings(structured_output_method=method))

    out = invoke_role(roles, role, payload)

    assert out == expected
    [req] = scripted.requests
    assert req.method == method, "the wire request must use the configured structured-output method"
    assert req.schema_name == schema_name
    assert req.model == model
    assert req.has_auth
    assert req.body.get("temperature") == 0
    assert payload.question in req.text, "the role's prompt template is rendered with the input"


@pytest.mark.parametrize("method", METHODS)
def test_a_grade_without_confidence_is_valid_with_each_method(fake_openai, make_settings, method):
    # Backends on function_calling / json_mode often leave optional-looking fields out; the reference's
    # schema makes confidence optional (default 0.0), so such a grade must parse, not fail closed.
    fake_openai.reply({k: v for k, v in GRADE.items() if k != "confidence"}, schema="EvidenceGrade")
    out = build_openai_roles(make_settings(structured_output_method=method)).grader.invoke(
        {"question": "What is A?", "context": "A is a letter."})
    assert out == EvidenceGrade(**{**GRADE, "confidence": 0.0})
    assert fake_openai.requests[0].method == method


def test_json_schema_sends_strict_response_format(scripted, make_settings):
    build_openai_roles(make_settings(structured_output_method="json_schema")).planner.invoke({"question": "q"})
    [req] = scripted.requests
    assert req.response_format["type"] == "json_schema"
    assert req.strict is True
    assert "tools" not in req.body


def test_function_calling_forces_the_schema_tool(scripted, make_settings):
    build_openai_roles(make_settings(structured_output_method="function_calling")).grader.invoke(
        {"question": "q", "context": "c"})
    [req] = scripted.requests
    assert [t["function"]["name"] for t in req.body["tools"]] == ["EvidenceGrade"]
    assert req.body["tool_choice"] == {"type": "function", "function": {"name": "EvidenceGrade"}}
    assert "response_format" not in req.body


def test_json_mode_sends_json_object_and_puts_the_schema_in_the_prompt(scripted, make_settings):
    build_openai_roles(make_settings(structured_output_method="json_mode")).rewriter.invoke({"question": "q"})
    [req] = scripted.requests
    assert req.response_format == {"type": "json_object"}
    assert "JSON" in req.text and '"step_back_question"' in req.text, "json_mode carries the schema in the prompt"


def test_grader_prompt_gets_every_template_variable(scripted, make_settings):
    roles = build_openai_roles(make_settings())
    roles.grader.invoke(GraderInput(question="Q-marker", context="CTX-marker", is_sub_agent=True, rewrite_count=1))
    text = scripted.requests[0].text
    assert "Q-marker" in text and "CTX-marker" in text
    assert "This is a sub-question of a larger question: True. Rewrites already done: 1." in text


def test_custom_prompts_are_used_and_versioned(scripted, make_settings):
    prompts = load_default_prompts().model_copy(update={"planner": "PLAN THIS: {question}", "version": "v7"})
    roles = build_openai_roles(make_settings(), prompts)
    roles.planner.invoke({"question": "hello"})
    assert scripted.requests[0].text == "PLAN THIS: hello"
    assert roles.prompt_version == "v7"


def test_a_bad_template_is_refused_when_the_roles_are_built(make_settings):
    prompts = load_default_prompts().model_copy(update={"grader": "Grade {question} with {unknown}"})
    with pytest.raises(PromptTemplateError, match="unknown"):
        build_openai_roles(make_settings(), prompts)


def test_provider_label_names_both_models(make_settings):
    assert build_openai_roles(make_settings()).provider == "openai-compatible:fast-model/grade-model"


# ---------------------------------------------------------------------------------------------------
# Lazy, reused clients
# ---------------------------------------------------------------------------------------------------


def test_building_roles_creates_no_client_and_sends_nothing(fake_openai, make_settings):
    roles = build_openai_roles(make_settings())
    assert roles.planner.pool._clients == {}
    assert fake_openai.requests == []


def test_clients_are_created_once_per_model_and_reused(scripted, make_settings):
    roles = build_openai_roles(make_settings())
    roles.planner.invoke({"question": "a"})
    first = roles.planner.pool.client("fast-model")
    roles.rewriter.invoke({"question": "b"})
    roles.planner.invoke({"question": "c"})
    roles.grader.invoke({"question": "d", "context": "e"})
    assert roles.planner.pool.client("fast-model") is first, "planner and rewriter share the FAST_MODEL client"
    assert set(roles.planner.pool._clients) == {"fast-model", "grade-model"}
    assert len(scripted.requests) == 4


def test_parallel_calls_share_one_client(scripted, make_settings):
    # a timeout far above any reply: this test is about sharing the client, not about speed, and 8 calls
    # on 4 threads can take longer than the fixture's 0.5 s on a busy machine
    roles = build_openai_roles(make_settings(model_timeout_seconds=30))
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda i: roles.grader.invoke({"question": f"q{i}", "context": "c"}), range(8)))
    assert all(o == EvidenceGrade(**GRADE) for o in outs)
    assert list(roles.grader.pool._clients) == ["grade-model"]


# ---------------------------------------------------------------------------------------------------
# Every failure becomes a ModelCallError with a kind
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_slow_reply_times_out_within_the_configured_timeout(fake_openai, make_settings, method):
    fake_openai.script(Delay(5, Respond(PLAN)))
    roles = build_openai_roles(make_settings(structured_output_method=method, model_timeout_seconds=0.5))
    started = time.monotonic()
    with pytest.raises(ModelCallError) as err:
        roles.planner.invoke({"question": "q"})
    elapsed = time.monotonic() - started
    assert err.value.kind == "timeout"
    assert 0.45 <= elapsed < 0.5 + 1.0
    assert "0.5 s" in str(err.value) and "RAG_MODEL_TIMEOUT_SECONDS" in str(err.value)


@pytest.mark.parametrize("method", METHODS)
def test_malformed_json_is_invalid_output(fake_openai, make_settings, method):
    fake_openai.script(Malformed())
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(structured_output_method=method)).planner.invoke({"question": "q"})
    assert err.value.kind == "invalid_output"
    assert "ComplexityResult" in str(err.value)


@pytest.mark.parametrize("method", METHODS)
def test_json_that_breaks_the_schema_is_invalid_output(fake_openai, make_settings, method):
    fake_openai.script(Respond({"relevance": "very", "answerability": "sufficient", "confidence": 3, "route": "answer"}))
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(structured_output_method=method)).grader.invoke(
            {"question": "q", "context": "c"})
    assert err.value.kind == "invalid_output"
    assert "EvidenceGrade" in str(err.value)


def test_a_rewrite_plan_with_both_texts_is_invalid_output(fake_openai, make_settings):
    fake_openai.script(Respond({"method": "hyde", "hyde_document": "doc", "step_back_question": "q?"}))
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings()).rewriter.invoke({"question": "q"})
    assert err.value.kind == "invalid_output"


@pytest.mark.parametrize("method", METHODS)
def test_refusal_is_invalid_output(fake_openai, make_settings, method):
    fake_openai.script(Refuse("I cannot help with that."))
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(structured_output_method=method)).planner.invoke({"question": "q"})
    assert err.value.kind == "invalid_output"
    if method != "function_calling":  # a streamed tool-call reply carries no refusal field (langchain drops it)
        assert "refused" in str(err.value)


def test_empty_reply_is_invalid_output(fake_openai, make_settings):
    fake_openai.script(lambda req: (200, {
        "id": "x", "object": "chat.completion", "created": 0, "model": req.model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]}))
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(structured_output_method="function_calling")).planner.invoke({"question": "q"})
    assert err.value.kind == "invalid_output"
    assert "empty" in str(err.value)


@pytest.mark.parametrize("behaviour,kind,hint", [
    (HttpError.unauthorized(), "auth", "OPENAI_API_KEY"),
    (HttpError.forbidden(), "auth", "OPENAI_API_KEY"),
    (HttpError.model_not_found(), "not_found", "FAST_MODEL"),
    (HttpError.rate_limited(), "rate_limit", "retry"),
    (HttpError.server_error(), "http_error", "HTTP 500"),
    (HttpError.json_schema_unsupported(), "unsupported_method", "RAG_STRUCTURED_OUTPUT_METHOD"),
    (HttpError.tools_unsupported(), "unsupported_method", "RAG_STRUCTURED_OUTPUT_METHOD"),
    (HttpError(400, "Your message is too long."), "http_error", "HTTP 400"),
], ids=["401", "403", "404", "429", "500", "400-json-schema", "400-tools", "400-other"])
def test_http_errors_map_to_kinds_with_advice(fake_openai, make_settings, behaviour, kind, hint):
    fake_openai.script(behaviour)
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings()).planner.invoke({"question": "q"})
    assert err.value.kind == kind
    assert hint in str(err.value)
    assert "fast-model" in str(err.value) and fake_openai.base_url in str(err.value)


def test_model_not_found_names_the_model_the_role_uses(fake_openai, make_settings):
    fake_openai.script(HttpError.model_not_found(), model="grade-model")
    fake_openai.reply(PLAN)
    roles = build_openai_roles(make_settings())
    assert roles.planner.invoke({"question": "q"}) == ComplexityResult(**PLAN)
    with pytest.raises(ModelCallError) as err:
        roles.grader.invoke({"question": "q", "context": "c"})
    assert err.value.kind == "not_found"
    assert "'grade-model'" in str(err.value) and "GRADE_MODEL" in str(err.value)


def test_unreachable_host_is_a_connection_error(make_settings):
    url = closed_port_url()
    with pytest.raises(ModelCallError) as err:
        build_openai_roles(make_settings(openai_base_url=url)).planner.invoke({"question": "q"})
    assert err.value.kind == "connection"
    assert "OPENAI_BASE_URL" in str(err.value) and url in str(err.value)
    assert "refused" in str(err.value).lower()


def test_retries_are_bounded_by_settings(fake_openai, make_settings):
    fake_openai.script(HttpError.server_error())
    with pytest.raises(ModelCallError):
        build_openai_roles(make_settings(model_max_retries=1)).planner.invoke({"question": "q"})
    assert len(fake_openai.requests) == 2, "one call plus exactly one retry"


def test_a_transient_error_is_retried_to_success(fake_openai, make_settings):
    fake_openai.script(HttpError.server_error(), times=1)
    fake_openai.reply(PLAN)
    out = build_openai_roles(make_settings(model_max_retries=1)).planner.invoke({"question": "q"})
    assert out == ComplexityResult(**PLAN)


# ---------------------------------------------------------------------------------------------------
# The key never leaks
# ---------------------------------------------------------------------------------------------------


def test_the_api_key_appears_in_no_error_log_or_repr(fake_openai, make_settings, caplog):
    """A server that echoes the key in its 401 body, failures of every kind, DEBUG logging everywhere:
    the key must be in none of the texts a user or a log collector could see."""
    caplog.set_level(logging.DEBUG)
    settings = make_settings()
    roles = build_openai_roles(settings)
    texts = [repr(roles), str(roles), repr(roles.planner), repr(roles.grader.pool.settings)]

    behaviours = [HttpError.unauthorized(echo_key=True), HttpError(400, "bad key {key} for tools", param="tools"),
                  HttpError(500, "upstream said Bearer {key}"), Malformed(f"{{oops {FAKE_KEY}"),
                  Respond({"complexity": FAKE_KEY}), Refuse(f"no, {FAKE_KEY}")]
    for behaviour in behaviours:
        fake_openai.reset()
        fake_openai.script(behaviour)
        for role, payload in [("planner", {"question": "q"}), ("grader", {"question": "q", "context": "c"})]:
            with pytest.raises(ModelCallError) as err:
                getattr(roles, role).invoke(payload)
            texts += [str(err.value), repr(err.value), err.value.kind, str(err.value.args)]
    fake_openai.reset()
    fake_openai.script(Delay(5, Respond(PLAN)))
    with pytest.raises(ModelCallError) as err:
        roles.planner.invoke({"question": "q"})
    texts.append(str(err.value))
    roles.planner.pool.client("fast-model")  # a created client
    texts += [repr(roles.planner.pool.client("fast-model")), str(roles.planner.pool._clients)]
    texts += [r.getMessage() for r in caplog.records] + [caplog.text]

    assert fake_openai.requests and all(r.has_auth for r in fake_openai.requests), "the key was really sent"
    leaks = [t for t in texts if FAKE_KEY in t or FAKE_KEY[8:] in t]
    assert leaks == []
    assert any("***" in t for t in texts), "the echoed key was redacted, not just absent"


def test_redact_removes_keys_bearer_tokens_and_key_like_strings():
    text = f"key {FAKE_KEY} header Bearer abc.def and masked sk-proj-****abcd and sk-otherkey123456"
    out = redact(text, [FAKE_KEY])
    assert FAKE_KEY not in out and "abc.def" not in out and "sk-otherkey123456" not in out and "****abcd" not in out


def test_public_url_drops_credentials_and_masks_secret_query_values():
    assert public_url("https://user:pw@example.com:8443/v1?api_key=x#f") == "https://example.com:8443/v1?api_key=***"
    assert "api.openai.com" in public_url(None)


def test_unexpected_exceptions_still_become_model_call_errors():
    err = classify_error(RuntimeError(f"boom {FAKE_KEY}"), role="planner", model="m", base_url="http://h/v1",
                         method="json_schema", timeout=1, secrets=[FAKE_KEY])
    assert isinstance(err, ModelCallError) and err.kind == "http_error"
    assert FAKE_KEY not in str(err) and "RuntimeError" in str(err)
