"""The offline rewriter: step-back for over-specific questions, HyDE for the wrong vocabulary."""
from __future__ import annotations

import pytest

from rag.models.base import RewriterInput
from rag.models.offline.rewriter import rewrite_question
from rag.schemas import MAX_HYDE_CHARS, MAX_STEP_BACK_CHARS, RewritePlan


@pytest.mark.parametrize(
    "question, must_contain, must_not_contain",
    [
        ("Is Lumen X2 firmware 2.1 from 2023-11-02 still supported in 2026?", ["Lumen X2", "firmware", "support policy"],
         ["2.1", "2023-11-02", "2026"]),
        ("Lumen X2 固件 3.4.1 版本在 2024 年修复了什么？", ["Lumen", "固件"], ["3.4.1", "2024"]),
        ("Can the Lumen X2 run at -15 °C?", ["Lumen X2"], ["15 °C"]),
    ],
)
def test_specifics_get_a_step_back_question_without_them(question, must_contain, must_not_contain):
    plan = rewrite_question(RewriterInput(question=question))
    assert plan.method == "step_back"
    assert plan.hyde_document is None
    for text in must_contain:
        assert text in plan.step_back_question
    for text in must_not_contain:
        assert text not in plan.step_back_question


@pytest.mark.parametrize(
    "question, corpus_words",
    [
        ("丹瑾的大招叫什么？", ["终结技"]),
        ("My lantern dies too fast, any tips?", ["drains", "runtime", "quickly"]),
    ],
)
def test_missing_vocabulary_gets_a_hyde_passage_in_the_corpus_words(question, corpus_words):
    plan = rewrite_question(RewriterInput(question=question, grade_reason="[offline rules] partial"))
    assert plan.method == "hyde"
    assert plan.step_back_question is None
    for word in corpus_words:
        assert word in plan.hyde_document


@pytest.mark.parametrize("question, lang_marker",
                         [("青棠的背景故事讲了什么？", "关于"), ("Tell me about the diffuser", "explanation")])
def test_vague_question_without_known_synonyms_falls_back_to_a_generic_hyde(question, lang_marker):
    plan = rewrite_question(RewriterInput(question=question))
    assert plan.method == "hyde"
    assert lang_marker in plan.hyde_document


def test_rewrite_texts_respect_the_schema_limits():
    long_q = "Is Lumen X2 firmware 2.1 still supported in 2026? " + "very specific detail " * 40
    plan = rewrite_question(RewriterInput(question=long_q))
    assert len(plan.step_back_question or "") <= MAX_STEP_BACK_CHARS
    long_vague = "my lantern dies " + "and so on " * 200
    plan = rewrite_question(RewriterInput(question=long_vague))
    assert len(plan.hyde_document or "") <= MAX_HYDE_CHARS
    RewritePlan.model_validate(plan.model_dump())


def test_same_input_same_plan():
    inp = RewriterInput(question="丹瑾的大招叫什么？")
    assert rewrite_question(inp) == rewrite_question(inp)
