"""The `real_model` lane: a real small model on loopback (tests/support/real_model.py), once per session.

The model is tiny and not smart (it routes this workflow's questions right about one time in seven): these
tests check what does not depend on its wits (caps, budgets, methods, streaming, prompt sensitivity), never
accuracy. The server answers one request at a time.
"""
from __future__ import annotations

import pytest

from tests.support.real_model import MODEL_ALIAS, RealModelUnavailable, running_real_model


@pytest.fixture(scope="session")
def real_model_base_url():
    """`http://127.0.0.1:<port>/v1` of llama.cpp's server with the bundled small model. A lane that cannot
    start fails its tests with the reason (run scripts/real_model.sh first): never a silent skip."""
    try:
        with running_real_model() as base_url:
            yield base_url
    except RealModelUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def real_settings(real_model_base_url):
    """Settings for the real model: no key (a local server needs none), budgets for a CPU model."""
    from rag.settings import RagSettings

    def make(**overrides):
        values = dict(model_provider="openai", openai_base_url=real_model_base_url, openai_api_key=None,
                      fast_model=MODEL_ALIAS, grade_model=MODEL_ALIAS, structured_output_method="function_calling",
                      model_timeout_seconds=90, model_max_retries=1)
        values.update(overrides)
        return RagSettings(**values)

    return make
