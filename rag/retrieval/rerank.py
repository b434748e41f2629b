"""Rerank through an HTTP cross-encoder endpoint, Jina / Cohere style `POST /v1/rerank`.

Request: {"model", "query", "documents": [text...], "top_n"}; reply: {"results": [{"index",
"relevance_score"}...]}. On only when model, key and host are all really set (placeholders count
as unset). Every failure comes back as an error string; the caller falls back to score order.
The API key goes in the Authorization header only, never into an error or a trace.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Optional

from pydantic import BaseModel, ValidationError

from rag.redaction import redact_text, redact_url, url_secrets
from rag.settings import RagSettings, is_really_set


class RerankConfig(BaseModel):
    model: str
    endpoint: str
    timeout_seconds: float

    model_config = {"frozen": True}


def rerank_endpoint(host: str) -> str:
    """The rerank URL for a host: kept as is when it already names a rerank path."""
    host = host.strip().rstrip("/")
    if not host.startswith(("http://", "https://")):
        host = "http://" + host
    if host.endswith("/rerank"):
        return host
    if host.endswith("/v1"):
        return host + "/rerank"
    return host + "/v1/rerank"


def rerank_config(settings: RagSettings) -> Optional[RerankConfig]:
    host = settings.rerank_host
    if host is None or not (is_really_set(settings.rerank_model) and is_really_set(settings.rerank_api_key)
                            and is_really_set(host)):
        return None
    return RerankConfig(model=settings.rerank_model, endpoint=rerank_endpoint(host),
                        timeout_seconds=settings.rerank_timeout_seconds)


class _Result(BaseModel):
    index: int
    relevance_score: float


class _Reply(BaseModel):
    results: list[_Result]


def call_rerank(config: RerankConfig, api_key: str, query: str, texts: list[str], top_n: int
                ) -> tuple[Optional[list[tuple[int, float]]], Optional[str]]:
    """[(index into texts, score)] best first, or None and an error message."""
    body = json.dumps({"model": config.model, "query": query, "documents": texts, "top_n": top_n},
                      ensure_ascii=False).encode("utf-8")
    req = urllib.request.Request(config.endpoint, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json", "Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(req, timeout=config.timeout_seconds) as resp:
            payload = resp.read()
    except urllib.error.HTTPError as exc:
        return None, f"rerank HTTP {exc.code} from {redact_url(config.endpoint)}"
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return None, redact_text(f"rerank request failed: {type(exc).__name__}: {reason}",
                                 url_secrets(config.endpoint) + [api_key])
    try:
        reply = _Reply.model_validate_json(payload)
    except ValidationError as exc:
        return None, f"rerank reply invalid: {exc.errors()[0]['msg'] if exc.errors() else exc}"
    pairs = [(r.index, r.relevance_score) for r in reply.results if 0 <= r.index < len(texts)]
    if not pairs:
        return None, "rerank reply empty"
    seen: set[int] = set()
    unique = []
    for pair in sorted(pairs, key=lambda p: -p[1]):  # best first; a repeated index keeps its best score
        if pair[0] not in seen:
            seen.add(pair[0])
            unique.append(pair)
    return unique, None
