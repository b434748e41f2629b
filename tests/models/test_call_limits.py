"""The rules of one call's bounds (rag/models/call_limits.py), as tables."""
from __future__ import annotations

import pytest

from rag.models.call_limits import (
    DEFAULT_MAX_TOKENS,
    concurrency_for,
    grown_cap,
    is_loopback,
    is_transient,
    max_tokens_for,
    retry_after_seconds,
    retry_delay,
)
from rag.settings import MAX_TOKENS_ROLES, RagSettings


@pytest.mark.parametrize("url,loopback", [
    ("http://127.0.0.1:8080/v1", True),
    ("http://localhost:11434/v1", True),
    ("http://[::1]:8000/v1", True),
    ("http://127.5.0.2/v1", True),
    ("https://api.openai.com/v1", False),
    ("http://10.0.0.5:8000/v1", False),
    ("http://my-gpu-box:8000/v1", False),
    (None, False),
    ("not a url", False),
])
def test_loopback_endpoints_are_recognised(url, loopback):
    assert is_loopback(url) is loopback


@pytest.mark.parametrize("url,configured,expected", [
    ("http://127.0.0.1:8080/v1", None, 1),
    ("https://api.openai.com/v1", None, 4),
    (None, None, 4),
    ("http://127.0.0.1:8080/v1", 3, 3),
    ("https://api.openai.com/v1", 1, 1),
])
def test_concurrency_defaults_by_endpoint_kind(url, configured, expected):
    assert concurrency_for(url, configured) == expected


@pytest.mark.parametrize("role,configured,expected", [
    ("planner", {}, DEFAULT_MAX_TOKENS["planner"]),
    ("grader", {"grader": 900}, 900),
    ("grader", {"grader": None}, DEFAULT_MAX_TOKENS["grader"]),
    ("connection test", {}, DEFAULT_MAX_TOKENS["planner"]),
    ("connection test", {"planner": 200}, 200),
    ("answerer", {}, DEFAULT_MAX_TOKENS["answerer"]),
])
def test_max_tokens_per_role(role, configured, expected):
    assert max_tokens_for(role, configured) == expected


def test_every_role_with_a_setting_has_a_default_and_an_env_var(monkeypatch):
    assert set(DEFAULT_MAX_TOKENS) == set(MAX_TOKENS_ROLES)
    for role in MAX_TOKENS_ROLES:
        monkeypatch.setenv(f"RAG_MAX_TOKENS_{role.upper()}", "123")
    assert RagSettings().max_tokens_settings() == {role: 123 for role in MAX_TOKENS_ROLES}


def test_a_truncated_reply_is_retried_with_twice_the_cap():
    assert grown_cap(384) == 768


@pytest.mark.parametrize("kind,status,transient", [
    ("timeout", None, True), ("connection", None, True), ("rate_limit", 429, True), ("http_error", 500, True),
    ("http_error", 503, True), ("http_error", 400, False), ("auth", 401, False), ("invalid_output", None, False),
    ("unsupported_method", 500, False), ("truncated", None, False),
])
def test_which_failures_are_transient(kind, status, transient):
    assert is_transient(kind, status) is transient


@pytest.mark.parametrize("kind,attempt,loopback,left,remaining,after,status,expected", [
    ("timeout", 0, True, 2, 20.0, None, None, None),          # a loopback server is still generating
    ("timeout", 0, False, 2, 20.0, None, None, 0.5),          # a cloud endpoint: back off and try again
    ("http_error", 1, True, 2, 20.0, None, 500, 1.0),          # backoff doubles
    ("http_error", 0, True, 0, 20.0, None, 500, None),         # no retries left
    ("rate_limit", 0, False, 2, 20.0, 3.0, 429, 3.0),          # Retry-After honoured
    ("rate_limit", 0, False, 2, 3.0, 3.0, 429, None),          # ... but not past the budget
    ("http_error", 0, False, 2, 0.4, None, 502, 0.1),          # a short budget: a short wait
    ("http_error", 0, False, 2, 0.05, None, 502, None),        # no time left for an attempt
    ("auth", 0, False, 2, 20.0, None, 401, None),              # never retried
])
def test_retry_delay(kind, attempt, loopback, left, remaining, after, status, expected):
    delay = retry_delay(kind, attempt, loopback=loopback, retries_left=left, remaining_s=remaining,
                        retry_after=after, status=status)
    assert delay == (pytest.approx(expected) if expected is not None else None)


@pytest.mark.parametrize("headers,expected", [
    ({"Retry-After": "2"}, 2.0),
    ({"retry-after": "0.5"}, 0.5),
    ({"retry-after-ms": "1500"}, 1.5),
    ({"Retry-After": "Thu, 01 Jan 1970 00:00:10 GMT"}, 5.0),  # an HTTP date, 5 s after "now" = 5
    ({"Retry-After": "soon"}, None),
    ({}, None),
    (None, None),
])
def test_retry_after_header(headers, expected):
    assert retry_after_seconds(headers, now=5.0) == expected
