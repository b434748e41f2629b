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
import uuid
from typing import Any, Iterable, Optional

import openai
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, ValidationError

from rag.errors import ModelCallError
from rag.models.base import ROLE_INPUTS, ModelRoles
from rag.models.call_limits import (
    concurrency_for,
    grown_cap,
    is_loopback,
    max_tokens_for,
    retry_after_seconds,
    retry_delay,
    role_key,
)
from rag.models.calls import CallCancelled, cancel_requested, current_task_id, live_observer, record_model_call
from rag.models.health import record_call
from rag.models.streaming import StreamDeadline, StreamedReply, read_stream
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
    # Whatever the status: llama-cpp-python's server refuses json_schema with a 500 from its request validation
    # ("Input should be 'text' or 'json_object'"), others with 400, 422 or 501.
    if status >= 400 and (param in ("response_format", "tools", "tool_choice")
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
        kind = "truncated"
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
    return any(c.__name__ in ("ModelRefusalError", "OpenAIRefusalError", "_Refused") for c in type(exc).__mro__)


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


def _example_value(prop: dict, defs: dict) -> Any:
    """A plausible value for one JSON-schema property: what an example answer shows."""
    if "$ref" in prop:
        return _example_object(defs.get(prop["$ref"].rsplit("/", 1)[-1], {}), defs)
    options = prop.get("anyOf") or prop.get("oneOf")
    if options:
        real = [o for o in options if o.get("type") != "null"]
        return _example_value(real[0], defs) if real else None
    if "enum" in prop:
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    kind = prop.get("type")
    if kind == "string":
        return "…"
    if kind == "number":
        return 0.5
    if kind == "integer":
        return 1
    if kind == "boolean":
        return False
    if kind == "array":
        return [_example_value(prop.get("items") or {"type": "string"}, defs)]
    if kind == "object":
        return _example_object(prop, defs)
    return None


def _example_object(schema: dict, defs: dict) -> dict:
    props = schema.get("properties") or {}
    return {name: (prop["default"] if "default" in prop and prop["default"] not in (None, [], "") else
                   _example_value(prop, defs)) for name, prop in props.items()}


def _field_lines(schema: dict, defs: dict) -> list[str]:
    lines = []
    for name, prop in (schema.get("properties") or {}).items():
        options = prop.get("enum")
        if options is None and "$ref" in prop:
            options = defs.get(prop["$ref"].rsplit("/", 1)[-1], {}).get("enum")
        what = f"one of {', '.join(json.dumps(o, ensure_ascii=False) for o in options)}" if options else \
            str(prop.get("type") or "value")
        lines.append(f"- {name}: {what}")
    return lines


def json_mode_instructions(schema: type[BaseModel]) -> str:
    """json_mode sends no schema on the wire, so the prompt must say what to answer (and OpenAI requires the
    word JSON in the messages for json_object). It shows the fields and an EXAMPLE answer, not the JSON
    schema: models given the schema itself answered with the schema (`{"title": "ComplexityResult", …}`)."""
    json_schema = schema.model_json_schema()
    defs = json_schema.get("$defs") or {}
    example = json.dumps(_example_object(json_schema, defs), ensure_ascii=False)
    fields = "\n".join(_field_lines(json_schema, defs))
    return (f"\n\nAnswer with ONE JSON object only (no prose, no code fences): your answer as a {schema.__name__} "
            f"object with these fields:\n{fields}\nAn example of the form (use your own values, not these):\n"
            f"{example}")


# --------------------------------------------------------------------------------------------------
# How many calls run at once against one endpoint (process-wide: a local server is shared by every
# session and every Send lane of this process)
# --------------------------------------------------------------------------------------------------

_slots_lock = threading.Lock()
_slots: dict[tuple[str, int], threading.Semaphore] = {}


def endpoint_slots(base_url: Optional[str], limit: int) -> threading.Semaphore:
    from rag.models.health import endpoint_key

    key = (endpoint_key(base_url), limit)
    with _slots_lock:
        slot = _slots.get(key)
        if slot is None:
            slot = _slots[key] = threading.Semaphore(limit)
        return slot


def _wait_for_slot(slot: threading.Semaphore) -> None:
    """Queue for a slot; Stop leaves the queue at once."""
    while not slot.acquire(timeout=0.05):
        if cancel_requested():
            raise CallCancelled("the model call was stopped while it waited for the endpoint")


def _pause(seconds: float) -> None:
    """A retry's wait, cut short by Stop."""
    end = time.perf_counter() + seconds
    while (left := end - time.perf_counter()) > 0:
        if cancel_requested():
            raise CallCancelled("the model call was stopped")
        time.sleep(min(0.05, left))


class _Attempts:
    """The bookkeeping of one role call's attempts against its one time budget."""

    def __init__(self, budget: float, retries: int, cap: int):
        self.started = time.perf_counter()
        self.deadline = self.started + budget
        self.budget = budget
        self.retries_left = retries
        self.cap = cap
        self.grown = False
        self.count = 0

    @property
    def remaining(self) -> float:
        return self.deadline - time.perf_counter()

    @property
    def spent(self) -> float:
        return time.perf_counter() - self.started

    def summary(self) -> str:
        plural = "attempt" if self.count == 1 else "attempts"
        return f"{self.count} {plural} in {self.spent:.1f} s of a {self.budget:g} s budget"


class ClientPool:
    """Lazily created `ChatOpenAI` clients (one per model name) and their structured bindings (one per
    model, schema and method). Thread-safe: parallel sub-questions grade at the same time.

    Every call streams (`stream=True`, usage included): the text reaches a live-call observer as it comes
    (rag.models.calls.live_calls), Stop and the time budget close the stream (which stops a local server
    generating), and the structured output is parsed once the stream has ended. Retries are this class's
    own (the client's are off), so that one budget covers them all."""

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
                max_retries=0,  # ClientPool retries itself, within the call's one budget
                temperature=0,
                stream_usage=True,
            )
            self._clients[model] = llm
        return llm

    def structured(self, model: str, schema: type[BaseModel], method: str) -> Runnable:
        """The chat model bound for `method` (the response format or the forced tool), exactly what
        `with_structured_output` sends; its reply is parsed here, at the end of the stream."""
        cache_key = (model, schema.__name__, method)
        with self._lock:
            runnable = self._structured.get(cache_key)
            if runnable is None:
                wire: Any = _tool_without_length_limits(schema) if method == "function_calling" else schema
                sequence = self._client_locked(model).with_structured_output(wire, method=method, include_raw=True)
                runnable = sequence.first.steps__["raw"]  # RunnableMap(raw=llm) | parser
                if method != "function_calling":  # streamed through the SDK's beta helper, whose first use
                    _ = self._client_locked(model).root_client.beta.chat.completions  # imports ~3 s: not in a budget
                self._structured[cache_key] = runnable
            return runnable

    # ---- the calls ----------------------------------------------------------------------------------
    def call(self, *, role: str, model: str, schema: type[BaseModel], method: str, prompt: str,
             config: Optional[RunnableConfig] = None) -> BaseModel:
        """One structured call; returns the validated output or raises ModelCallError (CallCancelled on Stop)."""
        if method == "json_mode":
            prompt = prompt + json_mode_instructions(schema)
        return self._run(role=role, model=model, schema=schema, method=method, prompt=prompt, config=config)

    def complete(self, *, role: str, model: str, prompt: str, config: Optional[RunnableConfig] = None) -> str:
        """One plain-text call (the answerer), bounded and streamed like the structured ones."""
        return self._run(role=role, model=model, schema=None, method="text", prompt=prompt, config=config)

    def _run(self, *, role: str, model: str, schema: Optional[type[BaseModel]], method: str, prompt: str,
             config: Optional[RunnableConfig]) -> Any:
        s = self._settings
        slot = endpoint_slots(s.openai_base_url, concurrency_for(s.openai_base_url, s.model_concurrency))
        if schema is None:  # create the client first: its import is not the model's time
            self.client(model)
        else:
            self.structured(model, schema, method)
        _wait_for_slot(slot)  # Send lanes queue here, not in a server that cannot cancel
        try:
            attempts = _Attempts(s.model_timeout_seconds, s.model_max_retries, max_tokens_for(role, s.max_tokens_settings()))
            ctx = dict(role=role, model=model, base_url=s.openai_base_url, method=method,
                       timeout=s.model_timeout_seconds, schema=schema, secrets=_secrets(s))
            while True:
                try:
                    result = self._attempt(role=role, model=model, schema=schema, method=method, prompt=prompt,
                                           config=config, ctx=ctx, attempts=attempts)
                except ModelCallError as error:
                    if self._again(error, attempts):
                        continue
                    record_call(s.openai_base_url, role, error_kind=error.kind)  # the sidebar's model badge
                    raise ModelCallError(error.kind, f"{error} [{attempts.summary()}]", status=error.status) from None
                record_call(s.openai_base_url, role)
                return result
        finally:
            slot.release()

    def _again(self, error: ModelCallError, attempts: _Attempts) -> bool:
        """Whether (and after what wait) to try once more, within the budget."""
        if error.kind == "truncated":
            if attempts.grown or attempts.remaining <= 0:
                return False
            attempts.cap, attempts.grown = grown_cap(attempts.cap), True  # once, with a larger cap
            return True
        delay = retry_delay(error.kind, attempts.count - 1, loopback=is_loopback(self._settings.openai_base_url),
                            retries_left=attempts.retries_left, remaining_s=attempts.remaining,
                            retry_after=getattr(error, "retry_after", None), status=error.status)
        if delay is None:
            return False
        log.debug("retrying a %s call in %.2f s", error.kind, delay)
        _pause(delay)
        attempts.retries_left -= 1
        return True

    def _cap_kwargs(self, cap: int) -> dict:
        """`max_tokens` as every OpenAI-compatible server reads it. langchain-openai renames `max_tokens` to
        `max_completion_tokens`, which OpenAI wants but local servers (llama.cpp, older vLLM) ignore, so
        another endpoint gets the classic field in the request body."""
        if self._settings.openai_base_url and "api.openai.com" not in self._settings.openai_base_url:
            return {"extra_body": {"max_tokens": cap}}
        return {"max_tokens": cap}

    def _attempt(self, *, role: str, model: str, schema: Optional[type[BaseModel]], method: str, prompt: str,
                 config: Optional[RunnableConfig], ctx: dict, attempts: _Attempts) -> Any:
        attempts.count += 1
        runnable = self.client(model) if schema is None else self.structured(model, schema, method)
        started = time.perf_counter()
        observer = live_observer()
        call_id = uuid.uuid4().hex
        if observer is not None:
            _notify(observer.call_started, call_id, role, model, current_task_id())
        kwargs = {"timeout": max(0.05, attempts.remaining), **self._cap_kwargs(attempts.cap)}

        def open_stream():
            return runnable.stream([("user", prompt)], config=config, **kwargs)

        on_text = (lambda text: observer.call_token(call_id, text)) if observer is not None else None
        try:
            reply = read_stream(open_stream, deadline=attempts.deadline, on_text=on_text)
        except CallCancelled:
            record_model_call(role, model, started, error_kind="cancelled", method=method, prompt=prompt)
            if observer is not None:
                _notify(observer.call_ended, call_id, False, "cancelled")
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure becomes ModelCallError
            if isinstance(exc, StreamDeadline):
                error = self._budget_error(ctx, attempts)
            elif isinstance(exc, openai.LengthFinishReasonError):  # the SDK's response_format helper says so
                error = self._truncated_error(ctx, attempts)
            else:
                error = classify_error(exc, **ctx)
                error.retry_after = _retry_after_of(exc)  # type: ignore[attr-defined]
            log.debug("model call failed: kind=%s %s", error.kind, error)
            record_model_call(role, model, started, error_kind=error.kind, method=method, prompt=prompt)
            if observer is not None:
                _notify(observer.call_ended, call_id, False, error.kind)
            raise error from None
        try:
            parsed = self._parsed(reply, schema, method, ctx, attempts)
        except ModelCallError as error:
            record_model_call(role, model, started, raw=reply.message, error_kind=error.kind, method=method,
                              prompt=prompt, chunks=reply.chunks, max_tokens=attempts.cap)
            if observer is not None:
                _notify(observer.call_ended, call_id, False, error.kind)
            raise
        record_model_call(role, model, started, raw=reply.message, method=method, prompt=prompt, chunks=reply.chunks,
                          max_tokens=attempts.cap)
        if observer is not None:
            _notify(observer.call_ended, call_id, True, None)
        return parsed

    def _budget_error(self, ctx: dict, attempts: _Attempts) -> ModelCallError:
        what = f"{ctx['role']} call to model {ctx['model']!r} at {public_url(ctx['base_url'])} (method {ctx['method']})"
        message = (f"{what}: no complete reply within {attempts.spent:.1f} s (the call's budget is {attempts.budget:g} s, "
                   f"retries included); raise RAG_MODEL_TIMEOUT_SECONDS, lower RAG_MAX_TOKENS_{role_key(ctx['role']).upper()} "
                   f"or check that the server is not overloaded")
        return ModelCallError("timeout", redact(message, ctx["secrets"]))

    def _truncated_error(self, ctx: dict, attempts: _Attempts) -> ModelCallError:
        what = f"{ctx['role']} call to model {ctx['model']!r} at {public_url(ctx['base_url'])} (method {ctx['method']})"
        kind_of = ctx["schema"].__name__ if ctx.get("schema") is not None else "answer"
        message = (f"{what}: the reply was cut off at its cap of {attempts.cap} tokens before a complete {kind_of}; "
                   f"raise RAG_MAX_TOKENS_{role_key(ctx['role']).upper()} if the model needs more")
        return ModelCallError("truncated", redact(message, ctx["secrets"]))

    def _parsed(self, reply: StreamedReply, schema: Optional[type[BaseModel]], method: str, ctx: dict,
                attempts: _Attempts) -> Any:
        if reply.finish_reason == "length":
            raise self._truncated_error(ctx, attempts)
        if schema is None:
            content = reply.message.content
            return content if isinstance(content, str) else str(content)
        try:
            return parse_structured(reply.message, schema, method)
        except ModelCallError:
            raise
        except Exception as exc:  # noqa: BLE001 - a reply that does not parse is invalid output
            raise classify_error(exc, **ctx) from None


_LENGTH_KEYWORDS = ("maxLength", "minLength", "maxItems", "minItems")


def _strip_lengths(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_lengths(v) for k, v in node.items() if k not in _LENGTH_KEYWORDS}
    if isinstance(node, list):
        return [_strip_lengths(v) for v in node]
    return node


def _tool_without_length_limits(schema: type[BaseModel]) -> dict:
    """The forced tool for `schema` without its length limits (the reply is validated against the real
    schema once it has arrived). Why: llama.cpp's server turns a tool's JSON schema into a grammar, and a
    1,200-character `maxLength` (the rewriter's HyDE passage) unrolls into a grammar it refuses to parse;
    llama-cpp-python's server then drops the connection and dies."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return _strip_lengths(convert_to_openai_tool(schema)["function"])


def _notify(hook: Any, *args: Any) -> None:
    try:
        hook(*args)
    except Exception:  # noqa: BLE001 - a broken observer must not fail the model call
        log.debug("live-call observer failed", exc_info=True)


def _retry_after_of(exc: BaseException) -> Optional[float]:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return retry_after_seconds(dict(headers)) if headers is not None else None


def parse_structured(message: Any, schema: type[BaseModel], method: str) -> BaseModel:
    """The schema's object from a whole reply, as `with_structured_output` would parse it: the forced tool
    call's arguments (function_calling), else the content as JSON (code fences tolerated). Raises what the
    parsers raise (ValidationError, JSON errors) or an `invalid_output` ModelCallError."""
    refusal = (getattr(message, "additional_kwargs", None) or {}).get("refusal")
    if refusal:
        raise _Refused(str(refusal))
    if method == "function_calling":
        calls = getattr(message, "tool_calls", None) or []
        if not calls:
            raise ModelCallError("invalid_output", _missing_output_reason(message, schema))
        return schema.model_validate(calls[0].get("args") or {})
    from langchain_core.utils.json import parse_json_markdown

    content = message.content if isinstance(message.content, str) else str(message.content)
    if not content.strip():
        raise ModelCallError("invalid_output", _missing_output_reason(message, schema))
    return schema.model_validate(parse_json_markdown(content))


class _Refused(Exception):
    """A structured-output refusal (`message.refusal`)."""


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
    "StructuredRole", "METHODS", "ROLE_OUTPUTS", "FALLBACK_HINT", "json_mode_instructions", "parse_structured",
    "endpoint_slots",
]
