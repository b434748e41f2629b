"""Where traces go comes from the standard variables only; the switch turns export on or off."""
from __future__ import annotations

import pytest

from rag.telemetry.destination import DEFAULT_TIMEOUT_S, export_config

CASES = [
    ({}, None, None),
    ({}, False, None),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, None, ("http/protobuf", "http://collector:4318", False)),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, False, None),
    ({}, True, ("http/protobuf", "http://localhost:4318", False)),
    ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, True, ("grpc", "http://localhost:4317", False)),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, None,
     ("grpc", "http://c:4317", False)),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:6006/v1/traces"}, None, ("http/protobuf", "http://c:6006/v1/traces", True)),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, None, None),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, None, None),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, None,
     ("http/protobuf", "http://c:4318", False)),
]


@pytest.mark.parametrize("env,switch,expected", CASES)
def test_the_destination_comes_from_the_environment(env, switch, expected):
    config = export_config(env, switch=switch)
    if expected is None:
        assert config is None
    else:
        assert (config.protocol, config.endpoint, config.traces_url) == expected


def test_headers_service_name_and_timeout_are_read():
    config = export_config({"OTEL_EXPORTER_OTLP_ENDPOINT": "https://cloud.langfuse.com/api/public/otel",
                            "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Basic%20cGs6c2s=,x-team = blue",
                            "OTEL_SERVICE_NAME": "support-bot", "OTEL_EXPORTER_OTLP_TIMEOUT": "1500"})
    assert config.headers == {"authorization": "Basic cGs6c2s=", "x-team": "blue"}
    assert config.service_name == "support-bot"
    assert config.timeout_s == 1.5
    assert export_config({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}).timeout_s == DEFAULT_TIMEOUT_S


def test_the_shown_endpoint_has_no_credentials():
    config = export_config({"OTEL_EXPORTER_OTLP_ENDPOINT": "https://user:hunter22pass@otel.example/?api_key=abcdefgh1234"})
    shown = config.public_endpoint()
    assert "hunter22pass" not in shown and "abcdefgh1234" not in shown and "otel.example" in shown
