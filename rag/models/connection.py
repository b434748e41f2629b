"""The "Test connection" button: one small structured call saying whether the configured endpoint works.

Why a dedicated check rather than letting the first question fail: a run DEGRADES on model errors (the
grader fails closed, the planner falls back), so a wrong key or a backend without JSON-schema support
would look like "no knowledge" answers. This check names the problem and the setting that fixes it,
and finds a structured-output method that works when the configured one is not supported.
"""
from __future__ import annotations

import logging
import time
from typing import Iterable, Optional

from pydantic import BaseModel, Field

from rag.errors import ModelCallError
from rag.i18n import N_, _
from rag.models.call_limits import is_transient
from rag.models.health import CONNECTION_TEST_ROLE
from rag.models.openai_compat import METHODS, ClientPool, public_url
from rag.schemas import ComplexityResult
from rag.settings import RagSettings, endpoint_key, endpoint_problem, is_really_set

log = logging.getLogger(__name__)

PING_PROMPT = (
    "Connection test of a retrieval planner. Classify the question below as simple (it has one intent), "
    "give the reason 'ping', and return an empty list of sub-questions.\n\nQuestion:\nping"
)

#: Failures that another structured-output method may fix; any other failure ends the test at once.
_METHOD_FAILURES = frozenset({"unsupported_method", "invalid_output", "truncated"})
_TRANSIENT_PAUSE_S = 0.5

#: English (catalogue ids), translated when a report is built (the report is the session's own).
_SUGGESTIONS = {
    "not_configured": N_("Set OPENAI_API_KEY (and OPENAI_BASE_URL for an endpoint other than api.openai.com)."),
    "auth": N_("Check OPENAI_API_KEY: the endpoint rejected it (or this key may not use this model)."),
    "connection": N_("Check OPENAI_BASE_URL (scheme, host, port; usually ending in /v1) and that the server is "
                      "running and reachable from this machine."),
    "not_found": N_("Check the model name (FAST_MODEL / GRADE_MODEL) against the models this endpoint serves, and "
                     "that OPENAI_BASE_URL is the API root (usually ending in /v1)."),
    "timeout": N_("The endpoint did not answer in time: check its load, or raise RAG_MODEL_TIMEOUT_SECONDS."),
    "rate_limit": N_("The endpoint is rate limiting this key: wait and retry, or use another key or plan."),
    "http_error": N_("The server returned an error: check its logs and status."),
    "unsupported_method": N_("This endpoint accepts none of the structured-output methods tried "
                              "(json_schema, function_calling, json_mode): use a model that supports tool calling "
                              "or JSON mode."),
    "invalid_output": N_("The model answered, but not with valid structured output with any method tried: use a "
                          "model that follows JSON schemas or tool calls."),
    "truncated": N_("The model's reply ran past its token cap with every method tried: raise RAG_MAX_TOKENS_PLANNER, "
                    "or use a model that follows JSON schemas or tool calls."),
}


class MethodAttempt(BaseModel):
    """One structured call of the test."""

    method: str
    ok: bool
    latency_ms: int
    error_kind: Optional[str] = None
    status: Optional[int] = None
    message: str = ""
    retried: bool = False
    """A transient failure (429, 5xx, a dropped connection) was retried once before this result."""


class ConnectionReport(BaseModel):
    """What the settings page shows. Never contains the API key (messages are redacted, the base URL
    loses any user info)."""

    ok: bool
    latency_ms: Optional[int] = None
    method: Optional[str] = Field(None, description="the structured-output method that worked")
    configured_method: str
    model: str
    base_url: str
    error_kind: Optional[str] = None
    message: str
    suggestion: str = ""
    attempts: list[MethodAttempt] = Field(default_factory=list)
    server_detail: bool = False
    """Messages carry what the server said: only for the server's own configured endpoint, never for a
    URL typed in a browser (whatever answers there could be an internal service)."""

    @property
    def switch_method(self) -> Optional[str]:
        """The working method when it is not the configured one: what "Use … for this session" sets."""
        return self.method if self.ok and self.method and self.method != self.configured_method else None


_WHAT_HAPPENED = {
    "timeout": N_("no reply in time"),
    "connection": N_("cannot connect to the endpoint"),
    "auth": N_("the endpoint refused the key"),
    "rate_limit": N_("the endpoint is rate limiting"),
    "not_found": N_("the endpoint does not know this model or path"),
    "unsupported_method": N_("the endpoint does not accept this structured-output method"),
    "invalid_output": N_("the reply was not a valid structured answer"),
    "truncated": N_("the reply was cut off at its token cap"),
    "http_error": N_("the endpoint answered with an error"),
}


def safe_message(exc: ModelCallError, method: str, model: str, *, server_detail: bool = False) -> str:
    """What a failed test call did, in words the page may show: the kind, the HTTP status and the method.
    What the endpoint itself said is added only for the server's own configured endpoint (`server_detail`):
    whatever answers at a URL typed in a browser could be an internal service, and its reply must not
    reach the page (the full error goes to the server log only). The error is key-free already."""
    what = _(_WHAT_HAPPENED.get(exc.kind, _WHAT_HAPPENED["http_error"]))
    log.info("connection test: %s", exc)  # the whole (key-free) error, for the operator
    if exc.status is not None:
        text = _("{what} (model {model}, HTTP {status}, method {method})").format(
            what=what, model=model, status=exc.status, method=method)
    else:
        text = _("{what} (model {model}, method {method})").format(what=what, model=model, method=method)
    if server_detail:
        text += _("; the server said: {detail}").format(detail=str(exc))
    return text


def _methods_to_try(configured: str, methods: Optional[Iterable[str]]) -> list[str]:
    if methods is not None:
        chosen = list(dict.fromkeys(methods))
        unknown = [m for m in chosen if m not in METHODS]
        if unknown or not chosen:
            raise ValueError(f"unknown structured-output method(s) {unknown or '(none)'}; expected {METHODS}")
        return chosen
    fallbacks = [m for m in ("function_calling", "json_mode", "json_schema") if m != configured]
    return [configured, *fallbacks]


def test_connection(settings: RagSettings, *, methods: Optional[Iterable[str]] = None,
                    model: Optional[str] = None, server_detail: Optional[bool] = None) -> ConnectionReport:
    """One structured call to `model` (FAST_MODEL by default) with the configured method; when the
    backend refuses that method (whatever the status code) or answers it with something that does not
    parse, the other methods in turn. A transient failure is retried once; anything else ends the test.
    `server_detail` (default: only for the environment's own endpoint) lets messages carry the server's
    own words."""
    configured = settings.structured_output_method
    model = model or settings.fast_model
    base = dict(configured_method=configured, model=model, base_url=public_url(settings.openai_base_url))

    if not is_really_set(settings.openai_api_key) and not is_really_set(settings.openai_base_url):
        return ConnectionReport(ok=False, error_kind="not_configured", message="no OpenAI-compatible endpoint is "
                                "configured (no API key and no base URL)", suggestion=_SUGGESTIONS["not_configured"],
                                **base)

    problem = endpoint_problem(settings.openai_base_url) if settings.openai_base_url != RagSettings().openai_base_url \
        else None
    if problem:  # a browser-typed URL (the environment's own is trusted as configured)
        return ConnectionReport(ok=False, error_kind="not_configured", message=problem,
                                suggestion=_(_SUGGESTIONS["connection"]), **base)
    pool = ClientPool(settings.model_copy(update={"model_max_retries": 0}))
    detail = _is_servers_own_endpoint(settings) if server_detail is None else server_detail
    attempts: list[MethodAttempt] = []
    for method in _methods_to_try(configured, methods):
        attempt = _try_method(pool, method, model, detail)
        attempts.append(attempt)
        if attempt.ok:
            return _success(attempts, configured, base, detail)
        if attempt.error_kind not in _METHOD_FAILURES:
            break
    return _failure(attempts, base, detail)


def _is_servers_own_endpoint(settings: RagSettings) -> bool:
    """The endpoint under test is the one the server's environment configures (its operator's, whose
    error messages may be shown), not one a visitor typed."""
    env = RagSettings()
    return is_really_set(env.openai_base_url) and endpoint_key(settings.openai_base_url) == endpoint_key(env.openai_base_url)


def _try_method(pool: ClientPool, method: str, model: str, detail: bool) -> MethodAttempt:
    """One method, with one retry of a transient failure (a 429, a 5xx that is not a method refusal, a
    dropped connection): one busy moment of the server must not fail the test. A timeout is not retried."""
    retried = False
    pool.structured(model, ComplexityResult, method)  # the client's creation (imports) is not the endpoint's latency
    while True:
        started = time.perf_counter()
        try:
            pool.call(role=CONNECTION_TEST_ROLE, model=model, schema=ComplexityResult, method=method, prompt=PING_PROMPT)
        except ModelCallError as exc:
            if not retried and exc.kind != "timeout" and is_transient(exc.kind, exc.status):
                retried = True
                time.sleep(_TRANSIENT_PAUSE_S)
                continue
            return MethodAttempt(method=method, ok=False, latency_ms=_ms(started), error_kind=exc.kind,
                                 status=exc.status, message=safe_message(exc, method, model, server_detail=detail),
                                 retried=retried)
        return MethodAttempt(method=method, ok=True, latency_ms=_ms(started), retried=retried)


test_connection.__test__ = False  # type: ignore[attr-defined]  # pytest reads it: the name starts with "test_"


def _ms(started: float) -> int:
    return int(round((time.perf_counter() - started) * 1000))


def _success(attempts: list[MethodAttempt], configured: str, base: dict, detail: bool) -> ConnectionReport:
    good = attempts[-1]
    if good.method == configured:
        return ConnectionReport(ok=True, latency_ms=good.latency_ms, method=good.method,
                                message=_("connected: {model} answered a structured call with {method} in {latency} ms")
                                .format(model=base["model"], method=good.method, latency=good.latency_ms),
                                attempts=attempts, server_detail=detail, **base)
    failed = ", ".join(f"{a.method} ({a.error_kind})" for a in attempts if not a.ok)
    return ConnectionReport(
        ok=True, latency_ms=good.latency_ms, method=good.method,
        message=_("connected, but the configured method {configured} does not work with this endpoint (failed: {failed}); "
                  "{method} works ({latency} ms)").format(configured=configured, failed=failed, method=good.method,
                                                          latency=good.latency_ms),
        suggestion=_("Use {method} for this session below, and set RAG_STRUCTURED_OUTPUT_METHOD={method} in the "
                     "server's environment to make it the default.").format(method=good.method),
        attempts=attempts, server_detail=detail, **base,
    )


def _failure(attempts: list[MethodAttempt], base: dict, detail: bool) -> ConnectionReport:
    last = attempts[-1]
    kind = last.error_kind or "http_error"
    return ConnectionReport(ok=False, latency_ms=last.latency_ms, error_kind=kind, message=last.message,
                            suggestion=_(_SUGGESTIONS.get(kind, _SUGGESTIONS["http_error"])), attempts=attempts,
                            server_detail=detail, **base)


__all__ = ["test_connection", "ConnectionReport", "MethodAttempt", "PING_PROMPT"]
