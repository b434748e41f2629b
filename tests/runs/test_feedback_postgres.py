"""The feedback storage tests of tests/runs/test_feedback.py on the suite's real PostgreSQL server (a fresh schema
each), and the version 4 migration of a PostgreSQL history at version 3. Apart from the SQLite ones so that
`pytest -m fast` keeps the rules and the SQLite tests (a file that uses the server is in the `server` lane)."""
from __future__ import annotations

import pytest

from rag.runs import schema
from rag.runs.feedback import give_feedback, new_feedback
from rag.runs.history import RunHistory
from tests.runs.test_feedback import (  # noqa: F401 - collected again here, with this module's `history`
    _at_version_3,
    _versions,
    test_feedback_on_a_deleted_run_is_refused_and_deleting_removes_it,
    test_feedback_round_trips_expected_and_markup,
    test_only_the_author_withdraws,
    test_run_history_filters_and_pages_in_sql,
    test_several_people_one_voice_each,
)


@pytest.fixture
def history(postgres_server):
    with RunHistory(postgres_server.new_schema()) as found:
        yield found


def test_migration_4_adds_feedback_to_a_version_3_postgresql_history(postgres_server):
    import psycopg

    url = postgres_server.new_schema()
    with psycopg.connect(url, autocommit=True) as conn:
        _at_version_3(conn.execute, "postgresql")
    with RunHistory(url) as history:
        assert _versions(history) == list(range(1, schema.LATEST + 1))
        assert history.get_run("main-v3").question == "before feedback"
        give_feedback(history, new_feedback("main-v3", verdict="wrong", reason="other", given_by="ann"))
        assert [r.run_id for r in history.list_runs(feedback="wrong")] == ["main-v3"]
        indexes = {r[0] for r in history.storage.execute("SELECT indexname FROM pg_indexes WHERE tablename='feedback'")}
        assert {"feedback_run", "feedback_verdict", "feedback_person"} <= indexes
