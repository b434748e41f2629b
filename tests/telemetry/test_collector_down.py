"""A collector that is not listening: the run finishes as fast as with export off, one log line says so,
and the Settings status shows it."""
from __future__ import annotations

import logging
import time

from rag import run_rag_graph
from rag.settings import RagSettings
from rag.telemetry import exporter
from tests.support.fake_openai import closed_port_url

QUESTION = "What is the operating temperature range of the Lumen X2?"


def test_a_collector_that_is_down_never_breaks_or_slows_a_run(monkeypatch, caplog):
    settings = RagSettings(model_provider="offline")
    run_rag_graph(QUESTION, settings=settings)  # warm: the index and the graph are loaded once
    started = time.perf_counter()
    run_rag_graph(QUESTION, settings=settings)
    off = time.perf_counter() - started

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", closed_port_url())
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    exporter.reset()
    try:
        caplog.set_level(logging.INFO, logger="rag_debugger.telemetry")
        results = []
        started = time.perf_counter()
        for _ in range(3):
            results.append(run_rag_graph(QUESTION, settings=settings))
        on = (time.perf_counter() - started) / 3
        assert all(r["route"] == "answer" for r in results)
        assert on < off * 3 + 0.5, "the run does not wait for the collector"
        assert exporter.status().state in ("waiting", "failing")
        exporter.flush(8000)
        deadline = time.monotonic() + 10
        while exporter.status().state != "failing" and time.monotonic() < deadline:
            time.sleep(0.1)
        status = exporter.status()
        assert status.state == "failing" and status.failed >= 1 and status.problem
        run_rag_graph(QUESTION, settings=settings)
        exporter.flush(8000)
        lines = [r for r in caplog.records if r.name == "rag_debugger.telemetry"]
        assert len(lines) == 1, [r.getMessage() for r in lines]
        assert "failed" in lines[0].getMessage() and lines[0].exc_info is None
    finally:
        exporter.reset()


def test_the_settings_switch_turns_export_off_and_on_but_not_elsewhere(monkeypatch):
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    exporter.reset()
    try:
        assert exporter.tracer() is None and exporter.status().state == "off"
        exporter.set_switch(True)
        assert exporter.tracer() is not None
        assert exporter.status().endpoint == "http://localhost:4318", "the SDK's default receiver, nothing else"
        exporter.set_switch(False)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
        assert exporter.tracer() is None, "off wins over the environment"
        exporter.set_switch(None)
        assert exporter.tracer() is not None and exporter.status().endpoint == "http://127.0.0.1:9"
    finally:
        exporter.reset()


def test_grpc_and_http_pick_their_exporter():
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as Grpc
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as Http

    from rag.telemetry.destination import export_config
    from rag.telemetry.exporter import _otlp_exporter

    grpc = _otlp_exporter(export_config({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317",
                                         "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}))
    http = _otlp_exporter(export_config({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:6006/"}))
    full = _otlp_exporter(export_config({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:6006/x/traces"}))
    assert isinstance(grpc, Grpc) and isinstance(http, Http)
    assert http._endpoint == "http://127.0.0.1:6006/v1/traces", "the base endpoint gets /v1/traces, once"
    assert full._endpoint == "http://127.0.0.1:6006/x/traces", "a traces endpoint is used as given"
    for e in (grpc, http, full):
        e.shutdown()
