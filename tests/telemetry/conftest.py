"""Fixtures: the OpenTelemetry SDK's in-memory exporter as the receiver of every run in a test."""
from __future__ import annotations

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from rag.telemetry import exporter


@pytest.fixture
def spans(monkeypatch):
    """The spans the runs of the test sent (synchronously, so they are there when the run returns)."""
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    memory = InMemorySpanExporter()
    exporter.use_exporter(memory)
    yield memory
    exporter.reset()


def by_name(finished, name):
    return [s for s in finished if s.name == name]


def kind(span):
    return span.attributes.get("openinference.span.kind")


def children(finished, parent):
    return [s for s in finished if s.parent is not None and s.parent.span_id == parent.context.span_id]
