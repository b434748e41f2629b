"""How far one model call may go: its reply cap, its time budget, its retries and how many run at once.

Why these are rules of their own (pure functions, table-tested): a local server (llama.cpp, Ollama, vLLM on
one GPU) behaves unlike a cloud API. It answers one request at a time, it keeps generating after a client
gives up on a non-streamed call, and a small model without a reply cap runs to the end of its context
(thousands of tokens, minutes). So every call carries `max_tokens`, a reply cut at that cap is retried once
with a larger one, a timeout is not retried against a loopback server (it is still busy with the first
request), and the client, not the server, queues parallel calls. docs/models.md says why each number.
"""
from __future__ import annotations

import ipaddress
import math
from email.utils import parsedate_to_datetime
from typing import Mapping, Optional
from urllib.parse import urlsplit

#: Default reply caps per role, in tokens. Each fits the role's schema with room to spare (docs/models.md):
#: a planner's three or four sub-questions, a grade with its reason, HITL prompt and options, a rewrite's
#: HyDE passage (up to 1,200 characters), an answer of a few paragraphs with citations.
DEFAULT_MAX_TOKENS: dict[str, int] = {
    "planner": 384,
    "grader": 640,
    "rewriter": 512,
    "answerer": 1024,
}
#: The Test connection ping asks for a planner's answer.
ROLE_ALIASES = {"connection test": "planner"}

#: A reply cut at its cap is retried once with this many times the cap.
TRUNCATION_GROWTH = 2

#: Parallel calls to one endpoint: a cloud API serves many at once; a loopback server usually one.
CLOUD_CONCURRENCY = 4
LOOPBACK_CONCURRENCY = 1

#: Error kinds another attempt may fix (the same request, later); an `http_error` only with a 5xx status.
TRANSIENT_KINDS = frozenset({"timeout", "connection", "rate_limit"})

_BACKOFF_FIRST_S = 0.5
_BACKOFF_MAX_S = 8.0
_MIN_ATTEMPT_S = 0.1


def role_key(role: str) -> str:
    return ROLE_ALIASES.get(role, role)


def max_tokens_for(role: str, configured: Mapping[str, Optional[int]]) -> int:
    """The reply cap of `role`: the configured one (RAG_MAX_TOKENS_<ROLE>) or the role's default; an
    unknown role gets the largest structured default."""
    key = role_key(role)
    value = configured.get(key)
    if value:
        return int(value)
    return DEFAULT_MAX_TOKENS.get(key, max(DEFAULT_MAX_TOKENS["grader"], DEFAULT_MAX_TOKENS["planner"]))


def is_loopback(base_url: Optional[str]) -> bool:
    """A server on this machine (localhost, 127.0.0.0/8, ::1): most likely one that answers one request at
    a time and cannot be asked to stop except by closing a stream."""
    if not base_url:
        return False
    try:
        host = (urlsplit(str(base_url).strip()).hostname or "").lower()
    except ValueError:
        return False
    if host in ("localhost", "localhost.localdomain") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def concurrency_for(base_url: Optional[str], configured: Optional[int]) -> int:
    """How many calls may run at once against this endpoint (RAG_MODEL_CONCURRENCY, else by its kind)."""
    if configured:
        return max(1, int(configured))
    return LOOPBACK_CONCURRENCY if is_loopback(base_url) else CLOUD_CONCURRENCY


def retry_after_seconds(headers: Optional[Mapping[str, str]], now: Optional[float] = None) -> Optional[float]:
    """What a 429 (or 503) asks the client to wait: `Retry-After` in seconds or as an HTTP date, or
    `retry-after-ms`; None when the server did not say."""
    if not headers:
        return None
    lower = {str(k).lower(): str(v) for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
        return max(0.0, seconds) if math.isfinite(seconds) else None
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    import time

    return max(0.0, when - (time.time() if now is None else now))


def is_transient(kind: str, status: Optional[int] = None) -> bool:
    """A failure the same request may not meet again: a timeout, no connection, a rate limit, a 5xx."""
    return kind in TRANSIENT_KINDS or (kind == "http_error" and status is not None and status >= 500)


def retry_delay(kind: str, attempt: int, *, loopback: bool, retries_left: int, remaining_s: float,
                retry_after: Optional[float] = None, status: Optional[int] = None) -> Optional[float]:
    """How long to wait before the next attempt of a call that failed with `kind` on attempt `attempt`
    (0-based), or None when it must not be retried.

    Not retried: anything but a transient failure; a timeout against a loopback server (it is still
    generating the first reply; a second request would only queue behind it); a wait that would not
    leave time for an attempt within the budget; no retries left."""
    if not is_transient(kind, status) or retries_left <= 0:
        return None
    if kind == "timeout" and loopback:
        return None
    if retry_after is not None:  # the server's own wait, honoured, when an attempt still fits after it
        return retry_after if retry_after < remaining_s * 0.8 else None
    if remaining_s <= _MIN_ATTEMPT_S:
        return None
    return min(_BACKOFF_MAX_S, _BACKOFF_FIRST_S * (2 ** attempt), remaining_s * 0.25)


def grown_cap(cap: int) -> int:
    """The cap of the one retry of a reply cut at `cap`."""
    return cap * TRUNCATION_GROWTH


__all__ = [
    "DEFAULT_MAX_TOKENS", "TRUNCATION_GROWTH", "CLOUD_CONCURRENCY", "LOOPBACK_CONCURRENCY", "TRANSIENT_KINDS",
    "max_tokens_for", "is_loopback", "is_transient", "concurrency_for", "retry_after_seconds", "retry_delay",
    "grown_cap", "role_key",
]
