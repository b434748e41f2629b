"""The plausibility checks on model output (rag/rules/plausibility.py), as tables."""
from __future__ import annotations

import pytest

from rag.rules.plausibility import (
    INVENTED_OPTION,
    REASON_QUOTES_NOTHING,
    SUB_QUESTION_REPEATS,
    check_writes,
    invented_options,
    reason_quotes_nothing,
    repeats_question,
)

EVIDENCE = ["Danjin is a Havoc resonator from Jinzhou who fights with a sword.",
            "The X2 battery lasts 20 hours; the X1 lasts 12 hours.",
            "丹瑾是湮灭属性的共鸣者，使用迅刀。"]


@pytest.mark.parametrize("options,invented", [
    (["X2", "X1"], []),
    (["the X2 battery", "Jinzhou sword"], []),
    (["X3 Pro", "Quantum drive"], ["X3 Pro", "Quantum drive"]),
    (["X2", "a flying car"], ["a flying car"]),
    (["湮灭属性", "冰冻属性"], ["冰冻属性"]),
    (["", "  "], []),
    ([], []),
])
def test_hitl_options_that_no_chunk_mentions(options, invented):
    assert invented_options(options, EVIDENCE) == invented


@pytest.mark.parametrize("reason,flagged", [
    ("1234567890", True),
    ("12:39:48", True),
    ("", True),
    ("the evidence states it", True),            # says nothing of what the evidence holds
    ("Danjin is a Havoc resonator", False),
    ("chunk 2 gives the battery life", False),
    ("证据说丹瑾是湮灭属性", False),
    ("完全无关的内容", True),
])
def test_a_grade_reason_that_quotes_nothing_of_the_evidence(reason, flagged):
    assert reason_quotes_nothing(reason, EVIDENCE) is flagged


def test_without_evidence_a_reason_has_nothing_to_quote():
    assert reason_quotes_nothing("1234567890", []) is False


@pytest.mark.parametrize("sub,question,repeats", [
    ("What element is Danjin?", "What element is Danjin?", True),
    ("what element is danjin", "What element is Danjin?", True),
    ("What element is Danjin", "What element is Danjin and what weapon does Jiyan use?", False),
    ("What weapon does Jiyan use?", "What element is Danjin and what weapon does Jiyan use?", False),
    ("丹瑾是什么属性？", "丹瑾是什么属性", True),
    ("", "What?", False),
])
def test_a_sub_question_that_is_the_question_again(sub, question, repeats):
    assert repeats_question(sub, question) is repeats


def _trace(**fields):
    base = {"retrieved_chunks": [{"text": EVIDENCE[1]}], "evidence_reason": "the X2 battery lasts 20 hours",
            "hitl_options": []}
    return {**base, **fields}


@pytest.mark.parametrize("writes,before,checks", [
    ({"sub_questions": ["Compare X1 and X2", "How long does the X1 last?"]}, {"question": "Compare X1 and X2"},
     [(SUB_QUESTION_REPEATS, "planner", "Compare X1 and X2")]),
    ({"grade": {"route": "clarify"}, "rag_trace": _trace(hitl_options=["X2", "X9 Ultra"])}, {},
     [(INVENTED_OPTION, "grader", "X9 Ultra")]),
    ({"grade": {"route": "answer"}, "rag_trace": _trace(evidence_reason="1234567890")}, {},
     [(REASON_QUOTES_NOTHING, "grader", "1234567890")]),
    ({"grade": {"route": "no_knowledge"}, "rag_trace": _trace(evidence_reason="evidence_grading_unavailable",
                                                              grading_error="timeout: …")}, {}, []),
    ({"grade": {"route": "answer"}, "rag_trace": _trace()}, {}, []),
    ({"docs": [{"text": "x"}]}, {}, []),  # a retrieval step: nothing a model wrote
], ids=["repeated-sub-question", "invented-option", "empty-reason", "failed-grader", "plausible", "retrieval"])
def test_check_writes_finds_the_signs_in_a_steps_writes(writes, before, checks):
    assert [(w.check, w.role, w.subject) for w in check_writes(writes, before)] == checks


def test_each_graded_sub_question_is_checked_with_its_own_evidence():
    writes = {"sub_results": [
        {"question": "How long does the X2 last?", "docs": [], "rag_trace": _trace(evidence_reason="lasts 20 hours")},
        {"question": "Where is Danjin from?", "docs": [],
         "rag_trace": {"retrieved_chunks": [{"text": EVIDENCE[0]}], "evidence_reason": "battery", "hitl_options": []}},
    ]}
    [warning] = check_writes(writes, {"question": "X2 and Danjin"})
    assert (warning.check, warning.lane) == (REASON_QUOTES_NOTHING, "Where is Danjin from?")
