"""A scriptable OpenAI-compatible chat server on 127.0.0.1, for driving the REAL `ChatOpenAI` client.

Why a real HTTP server rather than a mocked client: the structured-output methods differ only in what
goes over the wire (`response_format` json_schema with strict, a forced tool call, json_object), and
timeouts / HTTP errors / connection failures only happen in the HTTP stack. A stdlib
`ThreadingHTTPServer` on an ephemeral loopback port exercises all of it with no network and no deps.

Usage (see `tests/models/conftest.py` for the fixture)::

    with running_fake_openai() as fake:
        fake.reply({"complexity": "simple"}, schema="ComplexityResult")
        fake.reply(grade_dict, schema="EvidenceGrade", times=1)   # first grader call only
        fake.script(HttpError.unauthorized())                      # everything else: 401
        settings = RagSettings(openai_api_key="sk-test", openai_base_url=fake.base_url)
        ...
        assert fake.requests[0].method == "json_schema"

Rules are tried in the order they were added (or `first=True` to put one in front); the first rule
whose filters match the request and that has uses left answers it. With no matching rule the server
answers HTTP 500 "no scripted reply", so a test never silently gets a default answer.
"""
from __future__ import annotations

import itertools
import json
import re
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator, Optional, Union

__all__ = [
    "FakeOpenAI", "RecordedRequest", "Respond", "Malformed", "Refuse", "HttpError", "Delay", "Behaviour",
    "Truncated", "SlowStream", "running_fake_openai", "closed_port_url",
]

#: The root title of a JSON schema written into the prompt with "title" first (as rag's json_mode does).
_TITLE_RE = re.compile(r'\{\s*"title"\s*:\s*"([A-Za-z_][A-Za-z0-9_]*)"')
#: How rag's json_mode prompt names the object it asks for ("your answer as a ComplexityResult object").
_ANSWER_AS_RE = re.compile(r"answer as an? ([A-Za-z_][A-Za-z0-9_]*) object")


@dataclass
class RecordedRequest:
    """One request the server received. `method` is the structured-output method the client used,
    read from the wire: json_schema / function_calling / json_mode / plain."""

    path: str
    body: dict
    has_auth: bool
    received_at: float
    #: The bearer token sent, kept out of repr: only `HttpError` uses it, to play a server that echoes keys.
    _bearer: Optional[str] = field(default=None, repr=False, compare=False)

    @property
    def model(self) -> Optional[str]:
        return self.body.get("model")

    @property
    def response_format(self) -> Optional[dict]:
        return self.body.get("response_format")

    @property
    def method(self) -> str:
        rf = self.response_format or {}
        if rf.get("type") == "json_schema":
            return "json_schema"
        if rf.get("type") == "json_object":
            return "json_mode"
        if self.body.get("tools"):
            return "function_calling"
        return "plain"

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def max_tokens(self) -> Optional[int]:
        """The reply cap the client sent (`max_tokens`, or OpenAI's newer `max_completion_tokens`)."""
        value = self.body.get("max_tokens", self.body.get("max_completion_tokens"))
        return int(value) if value is not None else None

    @property
    def strict(self) -> Optional[bool]:
        """`strict` of the json_schema response format, or of the forced tool."""
        rf = self.response_format or {}
        if rf.get("type") == "json_schema":
            return rf.get("json_schema", {}).get("strict")
        tools = self.body.get("tools") or []
        if tools:
            return tools[0].get("function", {}).get("strict")
        return None

    @property
    def tool_name(self) -> Optional[str]:
        """The tool the client forced (tool_choice), else the first tool offered."""
        choice = self.body.get("tool_choice")
        if isinstance(choice, dict):
            name = choice.get("function", {}).get("name")
            if name:
                return name
        tools = self.body.get("tools") or []
        if tools:
            return tools[0].get("function", {}).get("name")
        return None

    @property
    def text(self) -> str:
        """All message text, concatenated (the rendered prompt)."""
        parts = []
        for msg in self.body.get("messages", []):
            content = msg.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(p.get("text", "") for p in content if isinstance(p, dict))
        return "\n".join(parts)

    @property
    def schema_name(self) -> Optional[str]:
        """Which output schema the client asked for: the json_schema name, the forced tool's name, or
        (json_mode, where only the prompt carries the schema) the first JSON schema in the prompt that
        opens with its title."""
        rf = self.response_format or {}
        if rf.get("type") == "json_schema":
            return rf.get("json_schema", {}).get("name")
        if self.tool_name:
            return self.tool_name
        match = _ANSWER_AS_RE.search(self.text) or _TITLE_RE.search(self.text)
        return match.group(1) if match else None


# --------------------------------------------------------------------------------------------------
# Behaviours: what to answer. Each returns (status, json-able body or raw bytes).
# --------------------------------------------------------------------------------------------------

_ids = itertools.count(1)


def _completion(req: RecordedRequest, message: dict, finish_reason: str) -> dict:
    return {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": req.model or "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def _answer_with_text(req: RecordedRequest, text: str) -> dict:
    """Put `text` where the client's method expects it: tool arguments for function_calling,
    message content otherwise."""
    if req.method == "function_calling":
        call = {"id": f"call_{next(_ids)}", "type": "function",
                "function": {"name": req.tool_name or "unknown", "arguments": text}}
        return _completion(req, {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")
    return _completion(req, {"role": "assistant", "content": text, "refusal": None}, "stop")


@dataclass
class Respond:
    """Answer `obj` (a JSON-able dict, or a callable(request) -> dict) as JSON content
    (json_schema / json_mode) or as the forced tool call (function_calling)."""

    obj: Union[dict, Callable[[RecordedRequest], dict]]

    def __call__(self, req: RecordedRequest) -> tuple[int, Any]:
        obj = self.obj(req) if callable(self.obj) else self.obj
        return 200, _answer_with_text(req, json.dumps(obj, ensure_ascii=False))


@dataclass
class Malformed:
    """A 200 reply whose content (or tool arguments) is not valid JSON."""

    text: str = '{"complexity": simple,, "sub_questions": [oops'

    def __call__(self, req: RecordedRequest) -> tuple[int, Any]:
        return 200, _answer_with_text(req, self.text)


@dataclass
class Refuse:
    """A structured-output refusal (`message.refusal`), as OpenAI sends for unsafe requests."""

    text: str = "I'm sorry, I cannot help with that."

    def __call__(self, req: RecordedRequest) -> tuple[int, Any]:
        return 200, _completion(req, {"role": "assistant", "content": None, "refusal": self.text}, "stop")


@dataclass
class HttpError:
    """An HTTP error with an OpenAI-style error body. `message` may contain `{model}` and `{key}`
    (the bearer token the client sent: a careless server echoing the key, to test redaction)."""

    status: int
    message: str
    type: str = "invalid_request_error"
    code: Optional[str] = None
    param: Optional[str] = None
    headers: Optional[dict] = None
    """Extra response headers (e.g. `{"Retry-After": "1"}` on a 429)."""

    def __call__(self, req: RecordedRequest) -> tuple:
        text = self.message.replace("{model}", str(req.model)).replace("{key}", req._bearer or "")
        body = {"error": {"message": text, "type": self.type, "param": self.param, "code": self.code}}
        return (self.status, body, self.headers) if self.headers else (self.status, body)

    @classmethod
    def unauthorized(cls, echo_key: bool = True) -> "HttpError":
        msg = "Incorrect API key provided: {key}." if echo_key else "Incorrect API key provided."
        return cls(401, msg, code="invalid_api_key")

    @classmethod
    def forbidden(cls) -> "HttpError":
        return cls(403, "You are not allowed to use this model.", type="permission_error")

    @classmethod
    def model_not_found(cls) -> "HttpError":
        return cls(404, "The model `{model}` does not exist or you do not have access to it.",
                   code="model_not_found")

    @classmethod
    def rate_limited(cls, retry_after: Optional[float] = None) -> "HttpError":
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else None
        return cls(429, "Rate limit reached. Please try again later.", type="requests", code="rate_limit_exceeded",
                   headers=headers)

    @classmethod
    def llama_cpp_json_schema(cls) -> "HttpError":
        """What llama-cpp-python's server answers to `response_format: json_schema`: a 500 from its request
        validation, not a 400."""
        return cls(500, "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should "
                        "be 'text' or 'json_object'\", 'input': 'json_schema'}]", type="internal_server_error")

    @classmethod
    def server_error(cls) -> "HttpError":
        return cls(500, "The server had an error while processing your request.", type="server_error")

    @classmethod
    def json_schema_unsupported(cls) -> "HttpError":
        """What backends without strict structured outputs answer (OpenAI's own wording)."""
        return cls(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
                   param="response_format")

    @classmethod
    def tools_unsupported(cls) -> "HttpError":
        return cls(400, "This model does not support tools (tool_choice / function calling).", param="tools")

    @classmethod
    def json_mode_unsupported(cls) -> "HttpError":
        return cls(400, "Invalid parameter: 'response_format' of type 'json_object' is not supported with this model.",
                   param="response_format")


@dataclass
class Truncated:
    """A reply cut at the token cap: `finish_reason: "length"` and the first `chars` characters of `obj`'s
    JSON (so it does not parse), as a server does when `max_tokens` ends the reply. `obj` may be a callable
    (request) -> dict."""

    obj: Union[dict, Callable[[RecordedRequest], dict]]
    chars: int = 12

    def __call__(self, req: RecordedRequest) -> tuple[int, Any]:
        obj = self.obj(req) if callable(self.obj) else self.obj
        reply = _answer_with_text(req, json.dumps(obj, ensure_ascii=False)[: self.chars])
        reply["choices"][0]["finish_reason"] = "length"
        return 200, reply


@dataclass
class SlowStream:
    """A streamed reply of `pieces` of text (content, or tool arguments for function_calling), one every
    `interval` seconds; `pieces=None` streams a JSON string that never ends (a runaway model). The server notes when the
    client closed the stream early (`FakeOpenAI.closed_early`). A request without `stream` gets the whole
    text at the end, after the same wait."""

    pieces: Optional[list[str]] = None
    interval: float = 0.05
    finish_reason: str = "stop"

    def __call__(self, req: RecordedRequest) -> tuple[int, Any]:
        return 200, _SlowSSE(self, req)


@dataclass
class _SlowSSE:
    spec: SlowStream
    req: RecordedRequest


@dataclass
class Delay:
    """Wait `seconds` (cut short when the server stops), then answer with `then`."""

    seconds: float
    then: "Behaviour"


Behaviour = Union[Respond, Malformed, Refuse, HttpError, Delay, Truncated, SlowStream,
                  Callable[[RecordedRequest], tuple]]


# --------------------------------------------------------------------------------------------------
# Server-sent events: what a `stream: true` request gets
# --------------------------------------------------------------------------------------------------


def _pieces(text: str, size: int = 7) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _chunk(req: RecordedRequest, cid: str, delta: dict, finish_reason: Optional[str] = None) -> dict:
    return {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
            "model": req.model or "fake-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]}


def _delta_for(req: RecordedRequest, text: str, first: bool, call_id: str) -> dict:
    """One piece of text where the method expects it: tool-call argument deltas for function_calling."""
    if req.method == "function_calling":
        call: dict = {"index": 0, "function": {"arguments": text}}
        if first:
            call.update(id=call_id, type="function")
            call["function"]["name"] = req.tool_name or "unknown"
        return {"role": "assistant", "content": None, "tool_calls": [call]} if first else {"tool_calls": [call]}
    return {"role": "assistant", "content": text} if first else {"content": text}


def completion_as_events(req: RecordedRequest, completion: dict) -> list[dict]:
    """A whole `chat.completion` as the chunks a streaming server sends for it (text in small pieces,
    then the finish reason, then the usage when the client asked for it)."""
    cid = completion["id"]
    choice = completion["choices"][0]
    message = choice["message"]
    events: list[dict] = []
    if message.get("refusal"):
        events.append(_chunk(req, cid, {"role": "assistant", "content": None, "refusal": message["refusal"]}))
    elif message.get("tool_calls"):
        call = message["tool_calls"][0]
        for i, piece in enumerate(_pieces(call["function"]["arguments"])):
            delta = {"index": 0, "function": {"arguments": piece}}
            if i == 0:
                delta.update(id=call["id"], type="function")
                delta["function"]["name"] = call["function"]["name"]
            events.append(_chunk(req, cid, {"tool_calls": [delta]} if i else
                                 {"role": "assistant", "content": None, "tool_calls": [delta]}))
    else:
        for i, piece in enumerate(_pieces(message.get("content") or "")):
            events.append(_chunk(req, cid, {"role": "assistant", "content": piece} if i == 0 else {"content": piece}))
    events.append(_chunk(req, cid, {}, choice["finish_reason"]))
    if (req.body.get("stream_options") or {}).get("include_usage"):
        events.append({"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                       "model": req.model or "fake-model", "choices": [], "usage": completion.get("usage")})
    return events


@dataclass
class _Rule:
    behaviour: Behaviour
    schema: Optional[str] = None
    method: Optional[str] = None
    model: Optional[str] = None
    times: Optional[int] = None  # None: forever

    def matches(self, req: RecordedRequest) -> bool:
        if self.times is not None and self.times <= 0:
            return False
        if self.schema is not None and req.schema_name != self.schema:
            return False
        if self.method is not None and req.method != self.method:
            return False
        if self.model is not None and req.model != self.model:
            return False
        return True


# --------------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):  # noqa: D401 - stdlib hook
        """A client that timed out closes the socket before the delayed answer: not an error here."""


class FakeOpenAI:
    """The server plus its script and the requests it recorded. Start with `start()` (or use
    `running_fake_openai()`); `base_url` is what goes into OPENAI_BASE_URL."""

    def __init__(self) -> None:
        self._rules: list[_Rule] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._received = threading.Condition(self._lock)
        self.requests: list[RecordedRequest] = []
        #: Streamed replies the client closed before their end (Stop, a budget, a cap).
        self.closed_early = 0
        self._server: Optional[_Server] = None
        self._thread: Optional[threading.Thread] = None

    # ---- scripting -------------------------------------------------------------------------------
    def script(self, behaviour: Behaviour, *, schema: Optional[str] = None, method: Optional[str] = None,
               model: Optional[str] = None, times: Optional[int] = None, first: bool = False) -> "FakeOpenAI":
        """Add a rule. Filters: `schema` (ComplexityResult / EvidenceGrade / RewritePlan), `method`
        (json_schema / function_calling / json_mode / plain), `model`. `times=None` answers forever."""
        rule = _Rule(behaviour, schema=schema, method=method, model=model, times=times)
        with self._lock:
            if first:
                self._rules.insert(0, rule)
            else:
                self._rules.append(rule)
        return self

    def reply(self, obj: Union[dict, Callable[[RecordedRequest], dict]], **filters) -> "FakeOpenAI":
        """Answer `obj` in whatever form the client's method expects."""
        return self.script(Respond(obj), **filters)

    def slow(self, seconds: float, obj: Optional[dict] = None, **filters) -> "FakeOpenAI":
        then = Respond(obj) if obj is not None else HttpError.server_error()
        return self.script(Delay(seconds, then), **filters)

    def reject_method(self, method: str, **filters) -> "FakeOpenAI":
        """Make the server refuse one structured-output method with a 400, as a backend without that
        feature does; put in front so that it wins over any reply already scripted."""
        error = {"json_schema": HttpError.json_schema_unsupported, "function_calling": HttpError.tools_unsupported,
                 "json_mode": HttpError.json_mode_unsupported}[method]()
        return self.script(error, method=method, first=True, **filters)

    def reset(self) -> None:
        with self._lock:
            self._rules.clear()
            self.requests.clear()
            self.closed_early = 0

    # ---- inspection ------------------------------------------------------------------------------
    def wait_for_requests(self, count: int = 1, timeout: float = 30.0) -> bool:
        """Block until the server has received `count` requests (a test waits on the server's state,
        not on a guess of how long a request takes to arrive)."""
        with self._received:
            return self._received.wait_for(lambda: len(self.requests) >= count, timeout=timeout)

    def requests_for(self, schema: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.schema_name == schema]

    @property
    def methods_seen(self) -> list[str]:
        return [r.method for r in self.requests]

    # ---- lifecycle -------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "FakeOpenAI":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # keep test output quiet
                pass

            def do_GET(self):
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "request body is not JSON", "type": "invalid_request_error"}})
                    return
                auth = self.headers.get("Authorization") or ""
                bearer = auth[7:] if auth.lower().startswith("bearer ") else auth
                req = RecordedRequest(path=self.path, body=body, has_auth=bool(auth), received_at=time.monotonic(),
                                      _bearer=bearer)
                answer = fake._answer(req)
                status, payload = answer[0], answer[1]
                headers = answer[2] if len(answer) > 2 else None
                if isinstance(payload, _SlowSSE):
                    self._slow(payload)
                elif status == 200 and req.stream and isinstance(payload, dict) and "choices" in payload:
                    self._events(completion_as_events(req, payload))
                else:
                    self._send(status, payload, headers)

            def _send(self, status: int, payload: Any, headers: Optional[dict] = None) -> None:
                data = payload if isinstance(payload, bytes) else json.dumps(payload, ensure_ascii=False).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout): nothing to answer

            def _start_events(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

            def _event(self, data: str) -> None:
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()

            def _events(self, events: list[dict]) -> None:
                try:
                    self._start_events()
                    for event in events:
                        self._event(json.dumps(event, ensure_ascii=False))
                    self._event("[DONE]")
                except OSError:
                    pass

            def _slow(self, sse: "_SlowSSE") -> None:
                spec, req = sse.spec, sse.req
                # a runaway: an object whose one string never ends (valid partial JSON, as a constrained model writes)
                pieces = iter(spec.pieces) if spec.pieces is not None else \
                    itertools.chain(['{"complexity_reason": "'], itertools.repeat("x "))
                if not req.stream:  # the whole reply after the same wait (finite pieces only)
                    text = "".join(spec.pieces or [])
                    if fake._stopping.wait(spec.interval * len(spec.pieces or [])):
                        return
                    reply = _answer_with_text(req, text)
                    reply["choices"][0]["finish_reason"] = spec.finish_reason
                    self._send(200, reply)
                    return
                cid = f"chatcmpl-fake-{next(_ids)}"
                try:
                    self._start_events()
                    for i, piece in enumerate(pieces):
                        if fake._stopping.wait(spec.interval):
                            return
                        self._event(json.dumps(_chunk(req, cid, _delta_for(req, piece, i == 0, f"call_{cid}"))))
                    self._event(json.dumps(_chunk(req, cid, {}, spec.finish_reason)))
                    self._event("[DONE]")
                except OSError:
                    with fake._lock:
                        fake.closed_early += 1

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- dispatch --------------------------------------------------------------------------------
    def _answer(self, req: RecordedRequest) -> tuple:
        with self._lock:
            self.requests.append(req)
            self._received.notify_all()
            rule = next((r for r in self._rules if r.matches(req)), None)
            if rule is not None and rule.times is not None:
                rule.times -= 1
        if rule is None:
            return 500, {"error": {"message": f"fake server: no scripted reply for schema={req.schema_name} "
                                              f"method={req.method} model={req.model}", "type": "server_error"}}
        behaviour = rule.behaviour
        while isinstance(behaviour, Delay):
            if self._stopping.wait(behaviour.seconds):
                return 503, {"error": {"message": "fake server stopping", "type": "server_error"}}
            behaviour = behaviour.then
        return behaviour(req)


@contextmanager
def running_fake_openai() -> Iterator[FakeOpenAI]:
    """A started server, stopped on exit: the body of a pytest fixture in any test directory."""
    fake = FakeOpenAI().start()
    try:
        yield fake
    finally:
        fake.stop()


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
