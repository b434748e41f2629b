"""The three model roles on any OpenAI-compatible endpoint (`langchain-openai` `ChatOpenAI`).

Why a Runnable per role rather than the bare structured model: the graph needs ONE failure type it can
degrade on (`ModelCallError` with a short `kind`), whatever went wrong (HTTP status, timeout,
unreachable host, malformed JSON, a backend that does not speak json_schema), and it needs the
messages to be safe to show and trace: the API key never appears in a message, a log line or a repr,
even when a careless server echoes it back.

Clients are created on the first call (importing the app or building the roles costs nothing and
needs no network), once per model name, and shared by the roles and threads (parallel sub-questions).
"""
from __future__ import annotations

import json
import logging
import re
import threading
import time
from typing import Any, Iterable, Optional

import openai
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, ValidationError

from rag.errors import ModelCallError
from rag.models.base import ROLE_INPUTS, ModelRoles
from rag.models.calls import record_model_call
from rag.models.health import record_call
from rag.prompts import load_prompts
from rag.prompts.templates import PromptSet, render, validate_template
from rag.redaction import install_log_redaction, redact_text, redact_url
from rag.schemas import ComplexityResult, EvidenceGrade, RewritePlan
from rag.settings import RagSettings, is_really_set

log = logging.getLogger(__name__)
install_log_redaction()  # the HTTP client logs each request's full URL, credentials included

METHODS = ("json_schema", "function_calling", "json_mode")

#: Role -> (output schema, settings attribute naming its model).
ROLE_OUTPUTS: dict[str, type[BaseModel]] = {
    "planner": ComplexityResult,
    "grader": EvidenceGrade,
    "rewriter": RewritePlan,
}
ROLE_MODEL_SETTING = {"planner": "fast_model", "grader": "grade_model", "rewriter": "fast_model"}

#: Sent when no key is configured (local servers such as vLLM or Ollama accept any key; the OpenAI
#: client refuses to start without one).
NO_KEY_PLACEHOLDER = "EMPTY"

_MAX_DETAIL = 300


# --------------------------------------------------------------------------------------------------
# Secret-free text
# --------------------------------------------------------------------------------------------------

_KEYLIKE = re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*.]{6,}")
_BEARER = re.compile(r"(?i)\bbearer\s+\S+")


def public_url(url: Optional[str]) -> str:
    """The base URL as it may be shown: `rag.redaction.redact_url` (no user info, secret-looking query
    values masked), or the default endpoint when none is set."""
    if not url:
        return "https://api.openai.com/v1 (default)"
    return redact_url(url) or ""


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove every secret, any 8+ character piece of one, and anything that looks like an API key or
    bearer token from `text`."""
    text = redact_text(text, secrets)
    text = _BEARER.sub("Bearer ***", text)
    return _KEYLIKE.sub(lambda m: f"{m.group(1)}-***", text)


def _short(text: str, limit: int = _MAX_DETAIL) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _secrets(settings: RagSettings) -> list[str]:
    return settings.secret_strings()


# --------------------------------------------------------------------------------------------------
# Error classification (pure: exception -> ModelCallError)
# --------------------------------------------------------------------------------------------------

_UNSUPPORTED_HINTS = ("response_format", "json_schema", "json_object", "tool_choice", "tools", "tool call",
                      "function call", "function_call", "structured output")
_MODEL_MISSING_HINTS = ("not found", "does not exist", "no such model", "unknown model", "model_not_found")

FALLBACK_HINT = "set RAG_STRUCTURED_OUTPUT_METHOD to function_calling or json_mode"


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return str(getattr(exc, "message", "") or exc)


def _status_error_kind(status: int, text: str, body: Any) -> str:
    low = text.lower()
    param = ""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        param = str(body["error"].get("param") or "").lower()
        code = str(body["error"].get("code") or "").lower()
        low = f"{low} {code}"
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "rate_limit"
    if status == 404 or ("model" in low and any(h in low for h in _MODEL_MISSING_HINTS)):
        return "not_found"
    if status in (400, 422, 501) and (param in ("response_format", "tools", "tool_choice")
                                       or any(h in low for h in _UNSUPPORTED_HINTS)):
        return "unsupported_method"
    return "http_error"


def classify_error(
    exc: BaseException,
    *,
    role: str,
    model: str,
    base_url: Optional[str],
    method: str,
    timeout: float,
    schema: Optional[type[BaseModel]] = None,
    secrets: Iterable[str] = (),
) -> ModelCallError:
    """Turn anything a structured call can raise into a key-free `ModelCallError` whose message says
    what happened AND what to change."""
    where = public_url(base_url)
    status: Optional[int] = getattr(exc, "status", None) if isinstance(exc, ModelCallError) else None
    what = f"{role} call to model {model!r} at {where} (method {method})"
    schema_name = schema.__name__ if schema else "structured output"

    if isinstance(exc, ModelCallError):
        kind, message = exc.kind, str(exc)
    elif isinstance(exc, openai.APITimeoutError):  # before APIConnectionError: it is a subclass
        kind = "timeout"
        message = (f"{what}: no reply within {timeout:g} s; raise RAG_MODEL_TIMEOUT_SECONDS or check that the "
                   f"server is not overloaded")
    elif isinstance(exc, openai.APIConnectionError):
        root = _root_cause(exc)
        detail = f"{type(root).__name__}: {root}" if root is not exc else str(exc)
        kind = "connection"
        message = (f"{what}: cannot connect ({_short(detail, 160)}); check OPENAI_BASE_URL and that the server "
                   f"is running and reachable")
    elif isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        server = _short(_server_message(exc))
        kind = _status_error_kind(status, server, exc.body)
        advice = {
            "auth": "check OPENAI_API_KEY (and that this key may use this model)",
            "rate_limit": "wait and retry, or raise RAG_MODEL_MAX_RETRIES",
            "not_found": ("check FAST_MODEL / GRADE_MODEL, and that OPENAI_BASE_URL is the API root "
                          "(it often ends in /v1)"),
            "unsupported_method": f"this backend does not accept method {method!r}; {FALLBACK_HINT}",
            "http_error": "the server reported an error",
        }[kind]
        message = f"{what}: HTTP {status}: {server}; {advice}"
    elif isinstance(exc, (openai.LengthFinishReasonError,)):
        kind = "invalid_output"
        message = f"{what}: the reply was cut off (token limit) before a complete {schema_name}"
    elif isinstance(exc, openai.ContentFilterFinishReasonError) or _is_refusal(exc):
        kind = "invalid_output"
        message = f"{what}: the model refused or its output was filtered: {_short(str(exc), 160)}"
    elif isinstance(exc, (ValidationError, json.JSONDecodeError, ValueError, TypeError, KeyError)):
        kind = "invalid_output"
        message = f"{what}: the reply is not a valid {schema_name}: {_short(_validation_text(exc))}"
    elif isinstance(exc, openai.OpenAIError):
        kind = "http_error"
        message = f"{what}: {type(exc).__name__}: {_short(str(exc))}"
    else:
        kind = "http_error"
        message = f"{what}: unexpected {type(exc).__name__}: {_short(str(exc))}"
    return ModelCallError(kind, redact(message, secrets), status=status)


def _root_cause(exc: BaseException) -> BaseException:
    """The innermost exception (e.g. httpx's "Connection refused" under openai's "Connection error.")."""
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        nxt = exc.__cause__ or exc.__context__
        if nxt is None:
            break
        exc = nxt
    return exc


def _is_refusal(exc: BaseException) -> bool:
    return any(c.__name__ in ("ModelRefusalError", "OpenAIRefusalError") for c in type(exc).__mro__)


def _validation_text(exc: BaseException) -> str:
    inner: Optional[BaseException] = exc
    while inner is not None and not isinstance(inner, ValidationError):
        inner = inner.__cause__  # a parser's OutputParserException wraps the pydantic error
    exc = inner or exc
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False, include_input=False)
        return "; ".join(f"{'.'.join(map(str, e.get('loc', ()))) or 'reply'}: {e.get('msg')}" for e in errors[:4])
    text = str(exc).split("For troubleshooting")[0].strip()  # drop langchain's doc link
    return f"{type(exc).__name__}: {text}"


# --------------------------------------------------------------------------------------------------
# Clients and structured calls
# --------------------------------------------------------------------------------------------------


def json_mode_instructions(schema: type[BaseModel]) -> str:
    """json_mode sends no schema on the wire, so the prompt must carry it (and OpenAI requires the
    word JSON in the messages for json_object)."""
    json_schema = schema.model_json_schema()
    json_schema = {"title": json_schema.pop("title", schema.__name__), **json_schema}  # name first: readable
    return ("\n\nReply with ONE JSON object only (no prose, no code fences) that conforms to this JSON "
            "schema:\n" + json.dumps(json_schema, ensure_ascii=False))


class ClientPool:
    """Lazily created `ChatOpenAI` clients (one per model name) and their structured wrappers (one per
    model, schema and method). Thread-safe: parallel sub-questions grade at the same time."""

    def __init__(self, settings: RagSettings):
        self._settings = settings
        self._lock = threading.Lock()
        self._clients: dict[str, Any] = {}
        self._structured: dict[tuple[str, str, str], Runnable] = {}

    @property
    def settings(self) -> RagSettings:
        return self._settings

    def client(self, model: str):
        with self._lock:
            return self._client_locked(model)

    def _client_locked(self, model: str):
        llm = self._clients.get(model)
        if llm is None:
            from langchain_openai import ChatOpenAI  # heavy import: only when a model is really used

            s = self._settings
            key = s.openai_api_key if is_really_set(s.openai_api_key) else NO_KEY_PLACEHOLDER
            llm = ChatOpenAI(
                model=model,
                base_url=s.openai_base_url or None,
                api_key=key,
                timeout=s.model_timeout_seconds,
                max_retries=s.model_max_retries,
                temperature=0,
            )
            self._clients[model] = llm
        return llm

    def structured(self, model: str, schema: type[BaseModel], method: str) -> Runnable:
        cache_key = (model, schema.__name__, method)
        with self._lock:
            runnable = self._structured.get(cache_key)
            if runnable is None:
                runnable = self._client_locked(model).with_structured_output(
                    schema, method=method, include_raw=True
                )
                self._structured[cache_key] = runnable
            return runnable

    def call(self, *, role: str, model: str, schema: type[BaseModel], method: str, prompt: str,
             config: Optional[RunnableConfig] = None) -> BaseModel:
        """One structured call; returns the validated output or raises ModelCallError."""
        s = self._settings
        if method == "json_mode":
            prompt = prompt + json_mode_instructions(schema)
        ctx = dict(role=role, model=model, base_url=s.openai_base_url, method=method,
                   timeout=s.model_timeout_seconds, schema=schema, secrets=_secrets(s))
        try:
            parsed = self._call(role=role, model=model, schema=schema, method=method, prompt=prompt,
                                config=config, ctx=ctx)
        except ModelCallError as error:
            record_call(s.openai_base_url, role, error_kind=error.kind)  # the sidebar's model badge
            raise
        record_call(s.openai_base_url, role)
        return parsed

    def _call(self, *, role: str, model: str, schema: type[BaseModel], method: str, prompt: str,
              config: Optional[RunnableConfig], ctx: dict) -> BaseModel:
        s = self._settings
        started = time.perf_counter()
        try:
            result = self.structured(model, schema, method).invoke([("user", prompt)], config=config)
        except Exception as exc:  # noqa: BLE001 - every failure becomes ModelCallError
            error = classify_error(exc, **ctx)
            log.debug("model call failed: kind=%s %s", error.kind, error)
            record_model_call(role, model, started, error_kind=error.kind, method=method, prompt=prompt)
            raise error from None
        record_model_call(role, model, started, raw=result.get("raw") if isinstance(result, dict) else None,
                          method=method, prompt=prompt)
        parsed, problem = result.get("parsed"), result.get("parsing_error")
        if problem is not None:
            error = classify_error(problem, **ctx)
            log.debug("model call failed: kind=%s %s", error.kind, error)
            raise error from None
        if not isinstance(parsed, schema):
            where = public_url(s.openai_base_url)
            message = (f"{role} call to model {model!r} at {where} (method {method}): "
                       f"{_missing_output_reason(result.get('raw'), schema)}")
            raise ModelCallError("invalid_output", redact(message, _secrets(s)))
        return parsed


def _missing_output_reason(raw: Any, schema: type[BaseModel]) -> str:
    """Why a reply parsed to nothing: with function_calling, a tool call whose arguments are not JSON
    lands in `invalid_tool_calls` and the parser returns None instead of raising."""
    invalid = getattr(raw, "invalid_tool_calls", None) or []
    if invalid:
        error = invalid[0].get("error") or "arguments are not valid JSON"
        return f"the tool call's arguments are not a valid {schema.__name__}: {_short(str(error), 200)}"
    if not getattr(raw, "tool_calls", None) and not getattr(raw, "content", None):
        return f"the reply is empty (no content and no tool call carrying a {schema.__name__})"
    return f"the reply carries no {schema.__name__}"


class StructuredRole(Runnable):
    """One role: typed input -> rendered prompt -> structured call -> pydantic output."""

    def __init__(self, role: str, pool: ClientPool, template: str, method: Optional[str] = None):
        validate_template(role, template)  # fail at build time, not on the first question
        self.role = role
        self.pool = pool
        self.template = template
        self.input_type_ = ROLE_INPUTS[role]
        self.output_type_ = ROLE_OUTPUTS[role]
        self.model = getattr(pool.settings, ROLE_MODEL_SETTING[role])
        self.method = method or pool.settings.structured_output_method
        self.name = f"{role}:{self.model}"

    @property
    def InputType(self):  # noqa: N802 - Runnable API
        return self.input_type_

    @property
    def OutputType(self):  # noqa: N802 - Runnable API
        return self.output_type_

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> BaseModel:
        data = input if isinstance(input, self.input_type_) else self.input_type_.model_validate(input)
        prompt = render(self.role, self.template, data.model_dump())
        return self.pool.call(role=self.role, model=self.model, schema=self.output_type_, method=self.method,
                              prompt=prompt, config=config)

    def __repr__(self) -> str:
        return (f"StructuredRole(role={self.role!r}, model={self.model!r}, method={self.method!r}, "
                f"base_url={public_url(self.pool.settings.openai_base_url)!r})")


def provider_label(settings: RagSettings) -> str:
    return f"openai-compatible:{settings.fast_model}/{settings.grade_model}"


def build_openai_roles(settings: RagSettings, prompts: Optional[PromptSet] = None) -> ModelRoles:
    """Planner and rewriter on FAST_MODEL, grader on GRADE_MODEL. Creates no client yet."""
    prompts = prompts or load_prompts(settings.prompt_version)
    pool = ClientPool(settings)
    roles = {role: StructuredRole(role, pool, prompts.get(role)) for role in ROLE_OUTPUTS}
    return ModelRoles(
        planner=roles["planner"], grader=roles["grader"], rewriter=roles["rewriter"],
        provider=provider_label(settings), prompt_version=prompts.version,
    )


__all__ = [
    "build_openai_roles", "provider_label", "classify_error", "redact", "public_url", "ClientPool",
    "StructuredRole", "METHODS", "ROLE_OUTPUTS", "FALLBACK_HINT", "json_mode_instructions",
]
