"""tests/access/test_store_roles.py on the suite's real PostgreSQL server (a fresh schema each), and migration 8 of
a PostgreSQL history at version 7."""
from __future__ import annotations

import pytest

from rag.runs.history import RunHistory
from tests.access.test_store_roles import (  # noqa: F401 - collected again here, with this module's `history`
    _at_version_7,
    _check_migrated,
    test_a_private_run_re_imported_by_another_becomes_a_copy_of_their_own,
    test_a_run_without_an_owner_is_the_admins,
    test_an_import_is_owned_by_who_imported_it_never_by_what_the_file_says,
    test_creating_a_question_set,
    test_deleting_a_run,
    test_feedback_is_owned_and_withdrawn_by_its_owner_or_an_admin,
    test_private_runs_list_and_open_for_their_owner_only,
    test_question_sets_are_edited_and_deleted_by_their_owner,
)


@pytest.fixture
def history(postgres_server):
    with RunHistory(postgres_server.new_schema()) as found:
        yield found


def test_migration_8_on_a_version_7_postgresql_history(postgres_server):
    import psycopg

    url = postgres_server.new_schema()
    with psycopg.connect(url, autocommit=True) as conn:
        _at_version_7(conn.execute, "postgresql")
    with RunHistory(url) as history:
        _check_migrated(history)
