"""An evaluation's cases recorded as runs on the PostgreSQL engine (the SQLite test and the shared
checks are in test_case_runs.py)."""
from __future__ import annotations

from rag.runs.history import RunHistory
from tests.eval.test_case_runs import _offline, check_recorded  # noqa: F401 - the autouse fixture


def test_an_evaluation_records_its_cases_runs_in_postgresql(postgres_server):
    with RunHistory(postgres_server.new_schema()) as history:
        check_recorded(history)
