"""tests/runs/test_carried_feedback.py on the suite's real PostgreSQL server (a fresh schema each)."""
from __future__ import annotations

import pytest

from rag.runs.history import RunHistory
from tests.runs.test_carried_feedback import (  # noqa: F401 - collected again here, with this module's `history`
    test_a_carried_claim_is_nobody_s_label_for_agreement,
    test_a_re_import_never_replaces_a_verdict_given_here,
    test_alice_giving_feedback_again_replaces_only_her_own,
    test_an_older_claim_never_removes_anything_either,
    test_without_a_login_a_typed_name_withdraws_only_what_it_gave_here,
)


@pytest.fixture
def history(postgres_server):
    with RunHistory(postgres_server.new_schema()) as found:
        yield found
