"""A shared server's key stays with the server's endpoint (issue: a visitor who typed only a base URL made
Test connection, and their runs, send the server's key to it), Test connection never shows what the
endpoint said, a base URL with a query string or fragment is refused, and RAG_LOCK_MODEL_SETTINGS=1 keeps
every session on the server's model settings. Attacks run against real loopback servers."""
from __future__ import annotations

import pytest

from rag.models.connection import test_connection as check_connection
from rag.settings import RagSettings, endpoint_problem, session_settings, uses_foreign_endpoint_without_key
from tests.support.fake_openai import HttpError, running_fake_openai

ENV_KEY = "sk-server-ONLY-7c1e9a0b2d4f6e8a"
VISITOR_KEY = "sk-visitor-OWN-1234567890ab"
PLAN = {"complexity": "simple", "complexity_reason": "ping", "sub_questions": []}
INTERNAL_BODY = "INTERNAL-SECRET: db password hunter2"

pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")


@pytest.fixture
def server_env(monkeypatch):
    """The server's own endpoint and key, in its environment."""
    with running_fake_openai() as own:
        monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", own.base_url)
        monkeypatch.delenv("RAG_LOCK_MODEL_SETTINGS", raising=False)
        own.reply(PLAN)
        yield own


def bearers(fake) -> list:
    return [r._bearer for r in fake.requests]


@pytest.mark.parametrize("overrides, locked, expected_key, expected_url", [
    ({}, False, ENV_KEY, "own"),
    ({"openai_base_url": "http://127.0.0.1:9/v1"}, False, None, "http://127.0.0.1:9/v1"),
    ({"openai_base_url": "http://127.0.0.1:9/v1", "openai_api_key": VISITOR_KEY}, False, VISITOR_KEY,
     "http://127.0.0.1:9/v1"),
    ({"openai_base_url": "own/"}, False, ENV_KEY, "own/"),  # the same endpoint, written with a slash
    ({"openai_base_url": "http://127.0.0.1:9/v1"}, True, ENV_KEY, "own"),  # locked: the session asks in vain
    ({"fast_model": "x", "openai_api_key": VISITOR_KEY}, True, ENV_KEY, "own"),
    ({"top_k": 3}, True, ENV_KEY, "own"),  # retrieval settings stay the session's own
])
def test_the_environment_key_belongs_to_the_environment_endpoint(server_env, overrides, locked, expected_key,
                                                                 expected_url):
    own = server_env.base_url
    overrides = {k: (v.replace("own", own) if isinstance(v, str) and v.startswith("own") else v)
                 for k, v in overrides.items()}
    settings = session_settings(overrides, locked=locked)
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    assert key == expected_key
    assert settings.openai_base_url == (own if expected_url == "own" else expected_url.replace("own", own))
    if "top_k" in overrides:
        assert settings.top_k == 3


def test_test_connection_to_a_visitor_url_never_carries_the_server_key(server_env):
    with running_fake_openai() as visitor:
        visitor.reply(PLAN)
        settings = session_settings({"openai_base_url": visitor.base_url})
        check_connection(settings)
        assert visitor.requests, "the test did call the visitor's URL"
        assert ENV_KEY not in bearers(visitor) and all(b in (None, "EMPTY") for b in bearers(visitor))
        assert uses_foreign_endpoint_without_key({"openai_base_url": visitor.base_url})
        assert not uses_foreign_endpoint_without_key({"openai_base_url": visitor.base_url,
                                                      "openai_api_key": VISITOR_KEY})


def test_a_run_of_that_session_never_carries_the_server_key_either(server_env):
    from rag.api import run_rag_graph

    with running_fake_openai() as visitor:
        visitor.reply(PLAN, schema="ComplexityResult")
        visitor.reply({"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
                       "route": "answer", "reason": "ok", "missing_slots": [], "hitl_prompt": "",
                       "hitl_options": []}, schema="EvidenceGrade")
        settings = session_settings({"openai_base_url": visitor.base_url, "model_provider": "openai"})
        run_rag_graph("What is the operating temperature range of the Lumen X2?", settings=settings)
        assert visitor.requests and ENV_KEY not in bearers(visitor)


def test_the_page_never_shows_what_the_endpoint_answered(server_env):
    with running_fake_openai() as internal:
        internal.script(HttpError(500, INTERNAL_BODY, type="server_error"))
        report = check_connection(session_settings({"openai_base_url": internal.base_url}))
    shown = report.model_dump_json()
    assert not report.ok and report.error_kind == "http_error"
    assert "HTTP 500" in report.message
    assert "INTERNAL-SECRET" not in shown and "hunter2" not in shown


@pytest.mark.parametrize("url, ok", [
    ("http://127.0.0.1:8000/v1", True),
    ("https://api.example.com/v1/", True),
    ("http://127.0.0.1:8000/admin?x=", False),
    ("http://127.0.0.1:8000/v1#frag", False),
    ("http://127.0.0.1:8000/v1?", False),
    ("ftp://host/v1", False),
    ("file:///etc/passwd", False),
    ("http:///v1", False),
    ("http://host:notaport/v1", False),
])
def test_a_base_url_with_a_query_or_fragment_cannot_rewrite_the_path(url, ok):
    assert (endpoint_problem(url) is None) is ok


def test_test_connection_refuses_a_typed_url_with_a_query_before_calling_it(server_env):
    with running_fake_openai() as internal:
        internal.reply(PLAN)
        report = check_connection(session_settings({"openai_base_url": internal.base_url + "/admin?x="}))
        assert not report.ok and not internal.requests


def test_locked_settings_call_only_the_server_endpoint(server_env, monkeypatch):
    monkeypatch.setenv("RAG_LOCK_MODEL_SETTINGS", "1")
    with running_fake_openai() as visitor:
        visitor.reply(PLAN)
        report = check_connection(session_settings({"openai_base_url": visitor.base_url,
                                                    "openai_api_key": VISITOR_KEY}))
        assert report.ok and not visitor.requests
    assert server_env.requests and bearers(server_env)[-1] == ENV_KEY
    assert RagSettings().openai_base_url == server_env.base_url
