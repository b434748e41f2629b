"""Fixtures: a fake OpenAI-compatible server on loopback and settings pointing at it.

Other test directories can reuse the server the same way:
`from tests.support.fake_openai import running_fake_openai` in their own conftest.
"""
from __future__ import annotations

import pytest

from rag.settings import RagSettings
from tests.support.fake_openai import FakeOpenAI, running_fake_openai

#: A recognizable key: tests assert it never shows up in errors, logs, reprs or reports.
FAKE_KEY = "sk-test-SECRET-4f9d2c81e7a64b0c"

PLAN = {"complexity": "complex", "complexity_reason": "two products compared",
        "sub_questions": ["What is A?", "What is B?"]}
GRADE = {"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
         "route": "answer", "reason": "the evidence states it", "missing_slots": [], "hitl_prompt": "",
         "hitl_options": []}
REWRITE = {"method": "step_back", "step_back_question": "What are the attributes of characters?",
           "hyde_document": None}


@pytest.fixture
def fake_openai() -> FakeOpenAI:
    with running_fake_openai() as fake:
        yield fake


@pytest.fixture
def scripted(fake_openai: FakeOpenAI) -> FakeOpenAI:
    """The server answering every role correctly."""
    fake_openai.reply(PLAN, schema="ComplexityResult")
    fake_openai.reply(GRADE, schema="EvidenceGrade")
    fake_openai.reply(REWRITE, schema="RewritePlan")
    return fake_openai


@pytest.fixture
def make_settings(fake_openai: FakeOpenAI):
    """Settings for the fake server; fast test timeouts, no retries, distinct model names per role."""

    def make(**overrides) -> RagSettings:
        values = dict(model_provider="openai", openai_api_key=FAKE_KEY, openai_base_url=fake_openai.base_url,
                      fast_model="fast-model", grade_model="grade-model", model_timeout_seconds=0.5,
                      model_max_retries=0, structured_output_method="json_schema")
        values.update(overrides)
        return RagSettings(**values)

    return make
