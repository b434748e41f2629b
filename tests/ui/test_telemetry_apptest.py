"""The Settings page's OpenTelemetry section: what it says, that it shows no credential, and that its
switch only turns on or off what the server's environment configures."""
from __future__ import annotations

from rag.telemetry import exporter
from tests.ui.test_settings_trace_apptest import all_text

SECRET = "hunter2-OTEL-c0ffee"


def test_the_section_shows_where_traces_go_without_credentials_and_switches_off(app_test, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://bob:{SECRET}@127.0.0.1:9")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"authorization=Bearer%20{SECRET}")
    exporter.reset()
    try:
        at = app_test.run()
        at.switch_page("pages/settings.py").run()
        assert not at.exception
        shown = all_text(at)
        assert "traces go to http://127.0.0.1:9" in shown
        assert SECRET not in shown and "bob" not in shown
        assert at.toggle(key="set_otel_on").value is True
        at.toggle(key="set_otel_on").set_value(False).run()
        assert exporter.tracer() is None
        assert "Off." in all_text(at)
        at.toggle(key="set_otel_on").set_value(True).run()
        assert exporter.status().endpoint == "http://127.0.0.1:9", "back on, to the environment's receiver only"
    finally:
        exporter.reset()


def test_off_by_default(app_test, monkeypatch):
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    exporter.reset()
    at = app_test.run()
    at.switch_page("pages/settings.py").run()
    assert not at.exception
    assert at.toggle(key="set_otel_on").value is False
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in all_text(at)
