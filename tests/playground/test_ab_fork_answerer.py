"""The answerer as the fourth prompt role: an A/B fork compares the answers of two answerer prompts
given the same evidence (the graph runs once), against a real OpenAI client on the fake server;
offline both answers are the same extractive one, and the result says why."""
from __future__ import annotations

import pytest

from rag.errors import ForkNotReachedError
from rag.playground.ab_fork import ANSWER_STEP, run_ab
from rag.prompts.templates import load_default_prompts
from rag.settings import RagSettings
from tests.engine.fakes import FakeRoles, grade
from tests.runs.conftest import QUESTION
from tests.support.fake_openai import running_fake_openai

DEFAULT = load_default_prompts()
TERSE = DEFAULT.answerer + "\nTERSE: at most five words."
PLAN = {"complexity": "simple", "complexity_reason": "one thing", "sub_questions": []}
GRADE = {"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
         "route": "answer", "reason": "the evidence states it", "missing_slots": [], "hitl_prompt": "",
         "hitl_options": []}


def _answer(req) -> dict:
    """The model's answer depends on the prompt it is sent, as a real model's would."""
    if "TERSE" in req.text:
        return {"answer": "20 hours [1]"}
    return {"answer": "The X2 battery lasts 20 hours [1], the X1 12 hours [2]."}


def test_answerer_fork_answers_twice_from_the_same_evidence_with_a_model(retriever):
    with running_fake_openai() as fake:
        fake.reply(PLAN, schema="ComplexityResult")
        fake.reply(GRADE, schema="EvidenceGrade")
        fake.reply(_answer, method="plain")
        settings = RagSettings(model_provider="openai", openai_api_key="sk-test-answerer",
                               openai_base_url=fake.base_url, model_max_retries=0)
        result = run_ab(QUESTION, "answerer", TERSE, settings=settings, retriever=retriever)
        answers = [r for r in fake.requests if r.method == "plain"]
        graded = fake.requests_for("EvidenceGrade")
    assert result.role == "answerer" and result.fork_node == ANSWER_STEP
    # the graph ran once: one retrieval, one grade; then two answer calls, one per prompt
    assert retriever.queries.count(QUESTION) == 1 and len(graded) == 1
    assert len(answers) == 2 and ["TERSE" in r.text for r in answers] == [False, True]
    assert all("[1]" in r.text and "The X2 battery lasts 20 hours." in r.text for r in answers)  # same evidence
    a, b = result.a.role_output, result.b.role_output
    assert a["mode"] == b["mode"] == "generated"
    assert "the X1 12 hours [2]" in a["text"] and "20 hours [1]" in b["text"] and "X1" not in b["text"]
    assert [c["n"] for c in a["citations"]] == [1, 2] and [c["n"] for c in b["citations"]] == [1]
    assert result.a.role_calls == result.b.role_calls == 1
    assert result.a.template == DEFAULT.answerer and result.b.template == TERSE
    assert result.a.route == result.b.route == "answer"
    paths = {row.path for row in result.diff}
    assert {"answer", "citations"} <= paths and "mode" not in paths
    assert not result.hints


def test_offline_both_answers_are_the_same_extractive_one_and_the_note_says_why(settings, retriever):
    result = run_ab(QUESTION, "answerer", TERSE, settings=settings, retriever=retriever,
                    roles_factory=lambda prompts: FakeRoles().roles())
    assert result.a.role_output["mode"] == result.b.role_output["mode"] == "extractive"
    assert result.a.role_output["text"] == result.b.role_output["text"] and "[1]" in result.a.role_output["text"]
    assert result.same_outcome and result.a.role_calls == 0
    assert any("answer is extractive" in note for note in result.notes)


def test_a_question_that_does_not_end_in_answer_never_reaches_the_answer_step(settings, retriever):
    roles = FakeRoles(grader=grade(relevance="none", answerability="none", route="no_knowledge", reason="off topic"))
    with pytest.raises(ForkNotReachedError, match="never reaches the answer step"):
        run_ab(QUESTION, "answerer", TERSE, settings=settings, retriever=retriever,
               roles_factory=lambda prompts: roles.roles())


def test_a_bad_answerer_template_is_refused_before_anything_runs(settings, retriever):
    from rag.errors import PromptTemplateError

    with pytest.raises(PromptTemplateError, match="must use {context}"):
        run_ab(QUESTION, "answerer", "Answer {question}.", settings=settings, retriever=retriever,
               roles_factory=lambda prompts: FakeRoles().roles())
    assert retriever.queries == []


def test_the_debuggers_answer_step_uses_the_runs_prompt_version(retriever, tmp_path):
    """A run with a saved version answers with that version's answerer prompt (not the built-in file)."""
    from rag.prompts.versions import save_version
    from rag_debugger.workbench.session import DebugSession

    save_version("terse", DEFAULT.model_copy(update={"answerer": TERSE}))  # into the test's RAG_PROMPT_DIR
    with running_fake_openai() as fake:
        fake.reply(PLAN, schema="ComplexityResult")
        fake.reply(GRADE, schema="EvidenceGrade")
        fake.reply(_answer, method="plain")
        settings = RagSettings(model_provider="openai", openai_api_key="sk-test-answerer",
                               openai_base_url=fake.base_url, model_max_retries=0, prompt_version="terse")
        session = DebugSession(settings, retriever=retriever)
        session.start(QUESTION)
        session.run_to_end()
        answer = session.answer()
        sent = [r.text for r in fake.requests if r.method == "plain"]
    assert answer.mode == "generated" and "20 hours [1]" in answer.text
    assert len(sent) == 1 and "TERSE" in sent[0]
