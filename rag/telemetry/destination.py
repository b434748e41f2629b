"""Where the traces go, read from the standard OpenTelemetry variables only (pure, tested as a table).

Why only the environment: on a shared server a visitor must not be able to send the runs (questions,
documents, prompts) to a URL of their choosing. The Settings page can switch export on or off; the
destination, headers and service name come from whoever started the server.
"""
from __future__ import annotations

from typing import Literal, Mapping, Optional

from pydantic import BaseModel, ConfigDict

from rag.redaction import redact_url

#: The SDK's own default receivers (what `OTLPSpanExporter()` posts to without a variable).
DEFAULT_ENDPOINTS = {"http/protobuf": "http://localhost:4318", "grpc": "http://localhost:4317"}
DEFAULT_SERVICE = "rag-debugger"
#: Seconds the exporter waits for a receiver: the SDK's 10 s default keeps a process alive ~6 s at exit
#: when the collector is down; a batch is dropped rather than waited for.
DEFAULT_TIMEOUT_S = 3.0


class ExportConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    protocol: Literal["http/protobuf", "grpc"] = "http/protobuf"
    endpoint: str
    """The base endpoint (the HTTP exporter appends /v1/traces), or the traces URL when `traces_url`."""
    traces_url: bool = False
    """True when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT gave the full URL (used as is)."""
    headers: dict[str, str] = {}
    service_name: str = DEFAULT_SERVICE
    timeout_s: float = DEFAULT_TIMEOUT_S

    def public_endpoint(self) -> str:
        """The endpoint without credentials, for the Settings page and logs (never the headers)."""
        return redact_url(self.endpoint) or ""


def _headers(text: str) -> dict[str, str]:
    """`key=value,key2=value2` (values URL-encoded), the OTEL_EXPORTER_OTLP_HEADERS format."""
    from urllib.parse import unquote

    out = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if sep and key.strip():
            out[key.strip().lower()] = unquote(value.strip())
    return out


def export_config(env: Mapping[str, str], *, switch: Optional[bool] = None) -> Optional[ExportConfig]:
    """The export to make, or None when export is off. Off by default; on when an OTLP endpoint is set,
    unless `switch` is False; `switch=True` without an endpoint uses the SDK's local default receiver."""
    traces = (env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or "").strip()
    base = (env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "").strip()
    configured = bool(traces or base)
    if switch is False or (not configured and not switch):
        return None
    if (env.get("OTEL_SDK_DISABLED") or "").strip().lower() == "true" or \
            (env.get("OTEL_TRACES_EXPORTER") or "").strip().lower() == "none":
        return None
    protocol = (env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
                or "http/protobuf").strip().lower()
    if protocol not in ("grpc", "http/protobuf"):
        protocol = "http/protobuf"  # http/json is not shipped by the SDK: protobuf over HTTP instead
    headers = _headers(env.get("OTEL_EXPORTER_OTLP_HEADERS") or "")
    headers.update(_headers(env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or ""))
    try:
        timeout = float(env.get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") or env.get("OTEL_EXPORTER_OTLP_TIMEOUT") or 0)
    except ValueError:
        timeout = 0.0
    if timeout > 100:  # the spec says milliseconds; older SDKs read seconds
        timeout /= 1000.0
    service = (env.get("OTEL_SERVICE_NAME") or "").strip() or DEFAULT_SERVICE
    return ExportConfig(protocol=protocol, endpoint=traces or base or DEFAULT_ENDPOINTS[protocol],
                        traces_url=bool(traces), headers=headers, service_name=service,
                        timeout_s=timeout if timeout > 0 else DEFAULT_TIMEOUT_S)
