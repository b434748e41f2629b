"""A finished run's outcome in words (the header said "Result: no_knowledge / answerable")."""
from __future__ import annotations

import pytest

from rag.i18n import use_language
from rag.outcome_words import ROUTE_WORDS, STATUS_WORDS, outcome_words


@pytest.mark.parametrize("route, status, expected", [
    ("answer", "answerable", "Answered from the retrieved evidence"),
    ("answer", "partial", "Answered from the retrieved evidence"),
    ("no_knowledge", "no_knowledge", "No answer: the knowledge base has nothing that answers this"),
    ("no_knowledge", "answerable",
     "No answer: the knowledge base has nothing that answers this (although retrieval found enough to answer)"),
    ("clarify", "needs_clarification", "Asks the user to clarify the question"),
    ("scope_select", "needs_scope_selection", "Asks the user which one they mean"),
    ("answer", None, "Answered from the retrieved evidence"),
    ("odd", "answerable", "Finished with route odd (although retrieval found enough to answer)"),
])
def test_the_route_in_words_and_an_unusual_status_said_too(route, status, expected):
    assert outcome_words(route, status) == expected


@pytest.mark.parametrize("route", sorted(ROUTE_WORDS))
@pytest.mark.parametrize("status", sorted(STATUS_WORDS))
def test_every_combination_has_chinese_words(route, status):
    with use_language("zh"):
        text = outcome_words(route, status)
    assert text and not any(word in text for word in ("retrieval", "answer from", "knowledge base"))
