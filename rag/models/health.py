"""The health of the last model call to each endpoint: ok, or which role failed with what kind.

Why: the sidebar's model badge said "Model: …" in green from the settings alone, so a dead endpoint
looked healthy while every run degraded. The roles record each call here (rag/models/openai_compat.py)
and the badge shows the last one. Process-wide and keyed by a hash of the endpoint: one endpoint's
health is the same for every session using it, and the URL (which may carry credentials) is
neither kept nor shown.
"""
from __future__ import annotations

import hashlib
import threading
import time
from typing import Optional

from pydantic import BaseModel, ConfigDict

_lock = threading.Lock()
#: The role name `rag.models.connection.test_connection` calls with.
CONNECTION_TEST_ROLE = "connection test"
_last: dict[str, "CallHealth"] = {}


class CallHealth(BaseModel):
    model_config = ConfigDict(frozen=True)

    ok: bool
    role: str
    kind: Optional[str] = None
    """The error kind of a failed call (`connection`, `timeout`, `invalid_output`…)."""
    at: float

    @property
    def state(self) -> tuple[bool, Optional[str], bool]:
        """What a badge shows: a change of this redraws it. Besides ok / error kind, whether the call was the
        connection test: a run's first call after a test of the same health must not leave the badge on
        "(connection test)"."""
        return self.ok, self.kind, self.role == CONNECTION_TEST_ROLE


def endpoint_key(base_url: Optional[str]) -> str:
    return hashlib.sha256((base_url or "").encode()).hexdigest()[:16]


def record_call(base_url: Optional[str], role: str, *, error_kind: Optional[str] = None) -> None:
    health = CallHealth(ok=error_kind is None, role=role, kind=error_kind, at=time.time())
    with _lock:
        _last[endpoint_key(base_url)] = health


def last_call(base_url: Optional[str]) -> Optional[CallHealth]:
    with _lock:
        return _last.get(endpoint_key(base_url))


def forget(base_url: Optional[str]) -> None:
    """Drop what is known of an endpoint (a new server on a port an old one used is not that one)."""
    with _lock:
        _last.pop(endpoint_key(base_url), None)
