"""Keeping credentials out of everything the app records or shows: one function for URLs, one for text.

Why a module of its own: settings reach the run history, exports, pages and logs by several roads
(`RagSettings.public_dict`, model error messages, the embedder's model id), and every road must strip
the same things. A base URL can carry credentials in two places, user info (`http://user:pass@host`)
and query parameters (`?api-key=...`, Azure-style); a server can echo a key, or part of it, in an
error message.
"""
from __future__ import annotations

import logging
import re
from typing import Iterable, Optional
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
#: The shortest piece of a configured secret that is still treated as the secret. Shorter pieces of a
#: key are everywhere (a key's "abcd" is also in ordinary words), longer ones are not.
MIN_SECRET_PIECE = 8
#: Query parameter names that carry credentials: api-key, api_key, key, access_token, token, sig,
#: signature, secret, password, auth, credential, session...
_SECRET_PARAM = re.compile(r"(?i)(key|token|secret|pass|pwd|sig|auth|cred|session|code)")
#: The user info of any URL inside a text ("http://user:pass@host" -> "http://host").
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@]+@")


def _is_secret_param(name: str) -> bool:
    return bool(_SECRET_PARAM.search(name))


def redact_url(url: Optional[str]) -> Optional[str]:
    """`url` without user info, with every secret-looking query value masked, and without a fragment
    (OAuth-style tokens travel there). Text that is not a URL with a host (a file path) is returned as
    is; an unparseable URL is replaced, since its parts cannot be told apart."""
    if not url:
        return url
    try:
        parts = urlsplit(url.strip())
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return "<unparseable URL>"
    if not parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    masked = [(k, MASK if _is_secret_param(k) else v) for k, v in query]
    return urlunsplit((parts.scheme, host, parts.path, urlencode(masked, safe="*"), ""))


_URL_IN_TEXT = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s\"'<>]+")


def redact_urls_in_text(text: str) -> str:
    """`text` with every URL in it passed through `redact_url` (for messages written by other libraries)."""
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)) or "", text)


class UrlRedactingFilter(logging.Filter):
    """Rewrites a log record whose message carries a URL with credentials. HTTP clients log every request
    with its full URL ("HTTP Request: POST http://user:pass@host/v1/..."), which would put the
    credentials of OPENAI_BASE_URL in the logs of anyone who turns on INFO logging."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken record is the logging module's business
            return True
        cleaned = redact_urls_in_text(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


#: Loggers of the HTTP stack under langchain-openai that write request URLs.
HTTP_LOGGERS = ("httpx", "httpx2", "httpcore", "openai", "openai._base_client")
_filter = UrlRedactingFilter()


def install_log_redaction() -> None:
    """Attach the URL filter to the HTTP stack's loggers (idempotent). A logger's filters apply to the
    records it creates, so each logger that writes URLs gets it."""
    for name in HTTP_LOGGERS:
        logger = logging.getLogger(name)
        if _filter not in logger.filters:
            logger.addFilter(_filter)


def url_secrets(url: Optional[str]) -> list[str]:
    """The credentials a URL carries (user name, password, secret-looking query values), for `redact_text`:
    a client library may echo the raw URL in an error message."""
    if not url:
        return []
    try:
        parts = urlsplit(url.strip())
        query = parse_qsl(parts.query, keep_blank_values=True)
        fragment = parse_qsl(parts.fragment, keep_blank_values=True)
    except ValueError:
        return [url]
    out = [parts.password or ""]  # the user name is removed with its URL (`_USERINFO`), not everywhere
    out += [v for k, v in query + fragment if _is_secret_param(k)]
    return [s for s in out if s]


def redact_text(text: str, secrets: Iterable[str], mask: str = MASK) -> str:
    """`text` with every configured secret masked, including any piece of one that is at least
    `MIN_SECRET_PIECE` characters long (a server that echoes a prefix of the key). Secrets shorter than
    that are masked where they occur whole (from 4 characters). Any URL in the text loses its user info."""
    text = _USERINFO.sub(r"\1", text)
    pieces: set[str] = set()
    whole: list[str] = []
    for secret in secrets:
        if not secret:
            continue
        if len(secret) >= MIN_SECRET_PIECE:
            pieces.update(secret[i:i + MIN_SECRET_PIECE] for i in range(len(secret) - MIN_SECRET_PIECE + 1))
        elif len(secret) >= 4:
            whole.append(secret)
    if pieces and len(text) >= MIN_SECRET_PIECE:
        hidden = [False] * len(text)
        for i in range(len(text) - MIN_SECRET_PIECE + 1):
            if text[i:i + MIN_SECRET_PIECE] in pieces:
                for j in range(i, i + MIN_SECRET_PIECE):
                    hidden[j] = True
        if any(hidden):
            out, i = [], 0
            while i < len(text):
                if hidden[i]:
                    while i < len(text) and hidden[i]:
                        i += 1
                    out.append(mask)
                else:
                    out.append(text[i])
                    i += 1
            text = "".join(out)
    for secret in sorted(whole, key=len, reverse=True):
        text = text.replace(secret, mask)
    return text


def error_line(exc: BaseException, secrets: Iterable[str] = ()) -> str:
    """An error as one line a page may show: its message's first line (at most 500 characters) with the
    configured secrets and any URL's user info masked (a library's message can echo the key or the endpoint),
    else the error's type name."""
    text = redact_text(str(exc), secrets).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__
