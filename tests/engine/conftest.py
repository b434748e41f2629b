import pytest

from rag.settings import RagSettings


@pytest.fixture
def settings() -> RagSettings:
    return RagSettings(model_provider="offline")
