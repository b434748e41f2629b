"""The evaluation filter tests of tests/runs/test_eval_filter.py on the suite's real PostgreSQL server (a fresh
schema each). Apart from the SQLite ones so that `pytest -m fast` keeps those (a file that uses the server is in
the `server` lane)."""
from __future__ import annotations

import pytest

from rag.runs.history import RunHistory
from tests.runs.test_eval_filter import (  # noqa: F401 - collected again here, with this module's `history`
    test_a_real_evaluations_runs_are_the_ones_the_filter_shows,
    test_evaluation_runs_shown_only_or_left_out_newest_first_and_paged,
)


@pytest.fixture
def history(postgres_server):
    with RunHistory(postgres_server.new_schema()) as found:
        yield found
