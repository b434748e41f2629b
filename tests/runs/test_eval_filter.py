"""Run history's evaluation filter (`list_runs(evals=...)`): the runs an evaluation recorded for its cases
(`runs.eval_id`) shown only, or left out, in SQL, with the other filters and pages; and a real evaluation's runs
(a HITL case is its main run and the resume) told apart from a debugger's run. SQLite here; the same tests on
PostgreSQL: tests/runs/test_eval_filter_postgres.py."""
from __future__ import annotations

import pytest

from rag.runs.history import RunHistory


@pytest.fixture
def history(tmp_path):
    """An SQLite history; tests/runs/test_eval_filter_postgres.py runs the same tests on PostgreSQL."""
    with RunHistory(str(tmp_path / "history.db")) as found:
        yield found


def _run(history: RunHistory, i: int, eval_id: str | None = None, run_by: str = "") -> str:
    run_id = history.record_start(f"q{i}", eval_id=eval_id, run_by=run_by).run_id
    history.storage.execute("UPDATE runs SET created_at=? WHERE run_id=?", (f"2026-01-01T00:00:{i:02d}+00:00", run_id))
    return run_id


def test_evaluation_runs_shown_only_or_left_out_newest_first_and_paged(history):
    runs = [_run(history, i, eval_id="ev1" if i % 3 == 0 else "ev2" if i % 3 == 1 else None,
                 run_by="ann" if i < 6 else "") for i in range(12)]  # runs[-1] newest
    evals = [r for i, r in enumerate(runs) if i % 3 != 2][::-1]
    others = [r for i, r in enumerate(runs) if i % 3 == 2][::-1]
    assert [r.run_id for r in history.list_runs(evals="evals")] == evals
    assert [r.run_id for r in history.list_runs(evals="no_evals")] == others
    assert len(history.list_runs(evals="all")) == len(history.list_runs()) == 12  # "all" (and None) filter nothing
    assert [r.run_id for r in history.list_runs(evals="evals", limit=3, offset=3)] == evals[3:6]
    assert [r.run_id for r in history.list_runs(evals="no_evals", limit=3, offset=3)] == others[3:]
    assert [r.run_id for r in history.list_runs(evals="no_evals", run_by="ann", light=True)] == [runs[5], runs[2]]
    assert {r.eval_id for r in history.list_runs(evals="evals", light=True)} == {"ev1", "ev2"}  # a light row has it


def test_a_real_evaluations_runs_are_the_ones_the_filter_shows(history, monkeypatch):
    from rag.api import make_context
    from rag.eval.cases import EvalCase
    from rag.eval.runner import run_cases, settings_for_kb
    from rag.runs.history_writes import run_recorded

    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    settings = settings_for_kb("bundled")
    mine = run_recorded(history, "What is the capital of Australia?", ctx=make_context(settings=settings))  # a debugger-like run
    cases = [EvalCase(id="temp", question="What is the operating temperature range of the Lumen X2?"),
             EvalCase(id="nova", question="How do I reset the Nova?", hitl_answer="Nova Thermostat")]
    results = run_cases(cases, settings, history=history, eval_id="ev-real", cache=False)
    listed = history.list_runs(evals="evals")
    assert {r.run_id for r in listed} == {r.run_id for r in history.eval_runs("ev-real")}
    assert len(listed) == 3 and {r.kind for r in listed} == {"main", "resume"}  # the HITL case: main and resume
    assert {res.run_id for res in results} <= {r.run_id for r in listed}
    assert [r.run_id for r in history.list_runs(evals="no_evals")] == [mine.run_id]
