"""Hole 3 of issue 39: the OpenTelemetry switch on Settings turned export on (to localhost:4318, a port any local user
can hold) or off for everyone, whoever clicked. Now it is the admins' with a login and follows RAG_SHARED_STATE
without one, refused in the exporter itself, not only on the page."""
from __future__ import annotations

import pytest

from rag.access import AccessRefused, AccessSettings, Actor, Permit
from rag.telemetry import exporter

LOGIN = AccessSettings(login=True, admins=frozenset({"root@corp"}))


@pytest.fixture(autouse=True)
def _no_export(monkeypatch):
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    yield
    exporter.set_switch(None)


@pytest.mark.parametrize("permit", [
    Permit(Actor(identity="bob@corp"), LOGIN), Permit(Actor(), LOGIN),
    Permit(Actor(), AccessSettings(shared_state="read-only")),
])
def test_a_visitor_cannot_turn_export_on_for_everyone(permit):
    with pytest.raises(AccessRefused):
        exporter.set_switch(True, permit=permit)
    assert exporter.switch() is None and exporter.tracer() is None


@pytest.mark.parametrize("permit", [
    Permit(Actor(identity="Root@corp"), LOGIN), Permit(Actor(), AccessSettings(shared_state="open")),
])
def test_an_admin_or_an_open_server_may(permit):
    exporter.set_switch(False, permit=permit)
    assert exporter.switch() is False
