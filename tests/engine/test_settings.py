"""Settings: which provider is active, placeholders count as unset, secrets never shown."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from rag.settings import RagSettings, is_really_set


@pytest.mark.parametrize("value, really", [
    (None, False), ("", False), ("  ", False), ("changeme", False), ("<your key>", False), ("sk-xxx", False),
    ("your-api-key", False), ("sk-live-123", True), ("http://127.0.0.1:8000/v1", True),
])
def test_placeholders_count_as_unset(value, really):
    assert is_really_set(value) is really


@pytest.mark.parametrize("kw, configured", [
    ({}, False),
    ({"openai_api_key": "changeme"}, False),
    ({"openai_api_key": "sk-live-123"}, True),
    ({"openai_base_url": "http://127.0.0.1:11434/v1"}, True),  # a local server needs no key
    ({"openai_api_key": "sk-live-123", "model_provider": "offline"}, False),
    ({"model_provider": "openai"}, True),
])
def test_which_provider_is_active(kw, configured, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAG_MODEL_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    settings = RagSettings(**kw)
    assert settings.models_configured() is configured
    assert settings.provider_label() == ("openai-compatible:gpt-4o-mini/gpt-4o-mini" if configured else "offline-rules")


def test_secrets_never_appear_in_repr_or_public_dict():
    settings = RagSettings(openai_api_key="sk-live-SECRET", rerank_api_key="rr-SECRET")
    assert "SECRET" not in repr(settings) and "SECRET" not in str(settings.public_dict())
    assert settings.public_dict()["openai_api_key"] == "set"


def test_a_bad_environment_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("RAG_TOP_K", "many")
    with pytest.raises(ValidationError, match="RAG_TOP_K"):
        RagSettings()
