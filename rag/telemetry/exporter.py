"""The one tracer provider of the process: built on first use when export is on, with the SDK's
`BatchSpanProcessor` so that ending a span only queues it (the export runs in the SDK's thread).

Why a wrapper around the OTLP exporter: a collector that is down, slow or refuses the data must be
visible (the Settings page reads `status()`) and logged once, not once per batch, and must never
raise into a run. The SDK already drops a batch it could not send; the wrapper only watches.
"""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from rag.access import OPERATOR_PERMIT, Permit
from rag.telemetry.destination import ExportConfig, export_config

log = logging.getLogger("rag_debugger.telemetry")


@dataclass
class ExportStatus:
    """What the Settings page shows. `state`: "off", "waiting" (nothing sent yet), "ok" or "failing"."""

    state: str = "off"
    endpoint: str = ""
    protocol: str = ""
    service_name: str = ""
    problem: str = ""
    sent: int = 0
    failed: int = 0


_lock = threading.RLock()
_switch: Optional[bool] = None
_provider: Any = None
_tracer: Any = None
_config: Optional[ExportConfig] = None
_status = ExportStatus()
_logged_down = False


def _watching(inner: Any) -> Any:
    """`inner` (a SpanExporter) wrapped so its failures reach `status()` and the log once."""
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Watching(SpanExporter):
        def export(self, spans):  # noqa: D401 - the SDK's interface
            global _logged_down
            try:
                result = inner.export(spans)
                problem = "" if result == SpanExportResult.SUCCESS else "the receiver did not accept the spans"
            except Exception as exc:  # noqa: BLE001 - an exporter bug must not reach the SDK's thread as a crash
                result, problem = SpanExportResult.FAILURE, type(exc).__name__
            with _lock:
                if problem:
                    _status.state, _status.problem = "failing", problem
                    _status.failed += len(spans)
                    if not _logged_down:
                        _logged_down = True
                        log.warning("OpenTelemetry export to %s failed (%s); runs go on, spans are dropped "
                                    "until it answers", _status.endpoint, problem)
                else:
                    if _logged_down:
                        log.info("OpenTelemetry export to %s works again", _status.endpoint)
                    _logged_down = False
                    _status.state, _status.problem = "ok", ""
                    _status.sent += len(spans)
            return result

        def shutdown(self):
            inner.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return inner.force_flush(timeout_millis) if hasattr(inner, "force_flush") else True

    return Watching()


def _otlp_exporter(config: ExportConfig) -> Any:
    if config.protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        endpoint = config.endpoint
        insecure = endpoint.startswith("http://")
        return OTLPSpanExporter(endpoint=endpoint, insecure=insecure, headers=config.headers or None,
                                timeout=config.timeout_s)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter

    url = config.endpoint if config.traces_url else config.endpoint.rstrip("/") + "/v1/traces"
    return HttpSpanExporter(endpoint=url, headers=config.headers or None, timeout=config.timeout_s)


def _quiet_sdk_logs() -> None:
    """The SDK logs every failed batch with its traceback; the wrapper says it once instead."""
    for name in ("opentelemetry.sdk.trace.export", "opentelemetry.exporter.otlp.proto.http.trace_exporter",
                 "opentelemetry.exporter.otlp.proto.grpc.exporter", "opentelemetry.exporter.otlp.proto.http"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _build(config: ExportConfig, exporter: Any = None, *, batch: bool = True) -> None:
    """Install a provider for `config` (or for a given exporter, in tests)."""
    global _provider, _tracer, _config, _status, _logged_down
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    _quiet_sdk_logs()
    resource = Resource.create({"service.name": config.service_name,
                                "openinference.project.name": config.service_name})
    provider = TracerProvider(resource=resource)
    watched = _watching(exporter if exporter is not None else _otlp_exporter(config))
    provider.add_span_processor(BatchSpanProcessor(watched, schedule_delay_millis=500) if batch
                                else SimpleSpanProcessor(watched))
    old = _provider
    _provider, _config, _logged_down = provider, config, False
    _tracer = provider.get_tracer("rag.telemetry")
    _status = ExportStatus(state="waiting", endpoint=config.public_endpoint() if exporter is None else "in-memory",
                           protocol=config.protocol, service_name=config.service_name)
    if old is not None:
        threading.Thread(target=old.shutdown, daemon=True).start()  # never wait for a dead collector


def _drop() -> None:
    global _provider, _tracer, _config, _status
    old, _provider, _tracer, _config = _provider, None, None, None
    _status = ExportStatus()
    if old is not None:
        threading.Thread(target=old.shutdown, daemon=True).start()


def tracer(env: Optional[Mapping[str, str]] = None) -> Any:
    """The tracer to emit runs with, or None when export is off (the common, free case)."""
    if _tracer is not None and env is None:
        return _tracer
    config = export_config(os.environ if env is None else env, switch=_switch)
    with _lock:
        if config is None:
            if _config is not None and _config.endpoint != "in-memory":
                _drop()
            return _tracer if (_config is not None and _config.endpoint == "in-memory") else None
        if _config != config:
            _build(config)
        return _tracer


def set_switch(on: Optional[bool], permit: Permit = OPERATOR_PERMIT) -> None:
    """The Settings switch: True/False overrides the environment's on/off (never its destination);
    None follows the environment again. It is the process's, so it is the admins' (rag/access.py): AccessRefused
    for anyone else, checked here and not only on the page."""
    permit.require("switch_telemetry")
    global _switch
    with _lock:
        _switch = on
        if on is False:
            _drop()
    tracer()


def switch() -> Optional[bool]:
    return _switch


def status() -> ExportStatus:
    with _lock:
        return ExportStatus(**vars(_status))


def use_exporter(exporter: Any, *, batch: bool = False, service_name: str = "rag-debugger-tests") -> None:
    """Send spans to `exporter` (the SDK's InMemorySpanExporter in tests, a no-op one in benchmarks)."""
    with _lock:
        _build(ExportConfig(endpoint="in-memory", service_name=service_name), exporter, batch=batch)


def reset() -> None:
    """Back to the environment's configuration (tests)."""
    global _switch
    with _lock:
        _switch = None
        _drop()


def flush(timeout_ms: int = 5000) -> bool:
    provider = _provider
    return bool(provider.force_flush(timeout_ms)) if provider is not None else True
