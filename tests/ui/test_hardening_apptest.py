"""The app under AppTest against what an adversarial review tried: credentials inside OPENAI_BASE_URL,
and a damaged history file."""
from __future__ import annotations

from tests.ui.test_settings_trace_apptest import all_text, button

PASSWORD = "PASSW0RD-9f3e71"
QUERY_KEY = "QUERYSECRET-77a1c0"
RAW_URL = f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={QUERY_KEY}&api-version=2024-06-01"


def test_the_settings_page_never_shows_credentials_from_the_base_url(app_test, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", RAW_URL)
    at = app_test.run()
    at.switch_page("pages/settings.py").run()
    assert not at.exception
    shown = all_text(at)
    assert PASSWORD not in shown and QUERY_KEY not in shown and "alice" not in shown
    assert at.text_input(key="set_base_url").value == "http://127.0.0.1:9/v1?api-key=***&api-version=2024-06-01"
    # Saving without touching the field keeps the real URL (the field only hides its credentials).
    button(at, "Save model settings").click().run()
    assert at.session_state["settings_overrides"]["openai_base_url"] == RAW_URL
    assert PASSWORD not in all_text(at)
