"""Credentials never leave through messages, traces or logs: the ones inside OPENAI_BASE_URL (user info,
`?api-key=`), and any piece of a configured key that a server echoes back (keys without an `sk-` prefix
were only caught whole)."""
from __future__ import annotations

import logging

import pytest

from rag.api import initial_state, make_context
from rag.errors import ModelCallError
from rag.graph.build import build_rag_graph
from rag.models import connection
from rag.models.openai_compat import ClientPool, build_openai_roles, classify_error, public_url
from rag.redaction import redact_text, redact_url
from rag.schemas import ComplexityResult
from tests.models.conftest import PLAN
from tests.models.test_graph_with_real_client import StaticRetriever
from tests.support.fake_openai import HttpError, closed_port_url

pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")

PASSWORD = "PASSW0RD-9f3e71"
QUERY_KEY = "QUERYSECRET-77a1c0"
#: A key with no `sk-` prefix (Azure, self-hosted gateways).
PLAIN_KEY = "azureKEY0123456789abcdefghijKLMN"


def with_credentials(base_url: str) -> str:
    return base_url.replace("http://", f"http://alice:{PASSWORD}@") + f"?api-key={QUERY_KEY}&api-version=2024-06-01"


def leaks(text: str) -> list[str]:
    return [s for s in (PASSWORD, QUERY_KEY, PLAIN_KEY[:12], PLAIN_KEY[-12:], "alice:") if s in text]


@pytest.mark.parametrize(
    "url, shown",
    [
        (f"http://alice:{PASSWORD}@h:8000/v1?api-key={QUERY_KEY}&api-version=1",
         "http://h:8000/v1?api-key=***&api-version=1"),
        (f"https://h/v1?token={QUERY_KEY}#access_token={PASSWORD}", "https://h/v1?token=***"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
        ("./milvus.db", "./milvus.db"),
    ],
)
def test_one_function_shows_urls_without_credentials(url, shown):
    assert redact_url(url) == shown
    assert public_url(url) == shown


def test_a_failing_call_says_where_without_credentials_in_message_or_log(make_settings, caplog):
    url = with_credentials(closed_port_url())
    pool = ClientPool(make_settings(openai_base_url=url))
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(ModelCallError) as err:
            pool.call(role="planner", model="fast-model", schema=ComplexityResult, method="json_schema", prompt="hi")
    assert err.value.kind == "connection"
    assert "127.0.0.1" in str(err.value) and "api-version=2024-06-01" in str(err.value)
    logged = "\n".join(r.getMessage() + str(r.exc_info or "") for r in caplog.records)
    assert leaks(str(err.value) + repr(pool) + logged) == []


def test_a_library_message_echoing_the_raw_url_is_cleaned(make_settings):
    settings = make_settings(openai_base_url=with_credentials("http://127.0.0.1:9/v1"))
    raw = settings.openai_base_url
    error = classify_error(RuntimeError(f"could not POST {raw}/chat/completions"), role="grader", model="m",
                           base_url=raw, method="json_schema", timeout=1, secrets=settings.secret_strings())
    assert leaks(str(error)) == [] and "127.0.0.1:9" in str(error)


def test_a_server_echoing_part_of_a_key_without_sk_prefix_is_redacted(fake_openai, make_settings, caplog):
    echo = f"Incorrect API key provided: {PLAIN_KEY[:14]}********{PLAIN_KEY[-4:]} (full: {PLAIN_KEY[2:-2]})."
    fake_openai.script(HttpError(401, echo, code="invalid_api_key"))
    settings = make_settings(openai_api_key=PLAIN_KEY)
    report = connection.test_connection(settings)
    assert report.error_kind == "auth"
    assert leaks(report.model_dump_json()) == [], report.message

    fake_openai.reset()
    fake_openai.reply(PLAN, schema="ComplexityResult")
    fake_openai.script(HttpError(401, echo, code="invalid_api_key"), schema="EvidenceGrade")
    ctx = make_context(settings=settings, roles=build_openai_roles(settings), retriever=StaticRetriever(),
                       progress=lambda step: shown.append(step.detail))
    shown: list[str] = []
    with caplog.at_level(logging.DEBUG):
        final = build_rag_graph().invoke(initial_state("Compare Alpha and Beta"), context=ctx)  # the raw trace
    errors = [(r.get("rag_trace") or {}).get("grading_error") or "" for r in final["sub_results"]]
    assert errors and all("HTTP 401" in e for e in errors)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert leaks(" ".join(errors + shown) + logged) == []


def test_short_pieces_and_unrelated_text_are_left_alone():
    assert redact_text("the azure region", [PLAIN_KEY]) == "the azure region"  # "azure" < 8 characters
    assert redact_text(f"x{PLAIN_KEY[5:13]}y", [PLAIN_KEY]) == "x***y"
    assert redact_text("a 1234 b", ["1234"]) == "a *** b"  # a short secret still goes whole


def test_the_http_clients_request_log_lines_carry_no_credentials(fake_openai, make_settings, caplog):
    fake_openai.reply(PLAN)
    url = fake_openai.base_url.replace("http://", f"http://alice:{PASSWORD}@")
    pool = ClientPool(make_settings(openai_base_url=url))
    with caplog.at_level(logging.DEBUG):
        pool.call(role="planner", model="fast-model", schema=ComplexityResult, method="json_schema", prompt="hi")
    lines = [r.getMessage() for r in caplog.records]
    assert any("HTTP Request" in line and "127.0.0.1" in line for line in lines), "the client did log the request"
    assert leaks("\n".join(lines)) == []


def test_an_error_line_is_the_first_line_masked_or_the_type_name():
    from rag.redaction import error_line

    key = "sk-live-abcdefghijklmnop"
    shown = error_line(RuntimeError(f"call to https://u:p@llm.internal/v1 failed: Bearer {key}\nTraceback ..."), [key])
    assert shown == "call to https://llm.internal/v1 failed: Bearer ***"
    assert error_line(ValueError("   ")) == "ValueError"
    assert len(error_line(RuntimeError("x" * 900))) == 500
