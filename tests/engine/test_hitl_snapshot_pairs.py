"""The resume snapshot is built only for a state that asks the user one of its two questions, with the
status that question comes with; any other mix (a what-if fork wrote one of the two fields) asks nothing,
instead of failing HitlResumeState's validation inside the page."""
from __future__ import annotations

import pytest

from rag.rules.hitl import build_hitl_resume_state

Q = "How do I update the firmware of the Lumen X2?"


@pytest.mark.parametrize("route,status,question,asks", [
    ("clarify", "needs_clarification", Q, True),
    ("scope_select", "needs_scope_selection", Q, True),
    ("no_knowledge", "needs_clarification", Q, False),  # the route edited over a clarify stop
    ("clarify", "answerable", Q, False),  # the status edited
    ("clarify", "needs_scope_selection", Q, False),  # the other question's status
    (None, "needs_clarification", Q, False),
    ("answer", "answerable", Q, False),
    ("clarify", "needs_clarification", "", False),  # no question to resume
    ("clarify", "needs_clarification", None, False),
])
def test_a_snapshot_only_for_a_question_to_the_user_with_its_own_status(route, status, question, asks):
    snapshot = build_hitl_resume_state({"question": question, "route": route, "retrieval_status": status})
    assert (snapshot is not None) is asks
    if asks:
        assert (snapshot.route, snapshot.retrieval_status, snapshot.question) == (route, status, Q)
