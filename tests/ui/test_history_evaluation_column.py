"""The evaluation column of Run history as a table: what a run's cell says with and without its evaluation kept,
in both languages, and the one store query that names the page's evaluations."""
from __future__ import annotations

import pytest

from rag.eval.results_store import EvalRecord, EvalStore
from rag.eval.scoring import CaseResult
from rag.i18n import use_language
from rag.runs.run_info import RunInfo
from rag_debugger.ui.history_view import evaluation_names, evaluation_text


def info(eval_id: str | None) -> RunInfo:
    return RunInfo(run_id="main-1", thread_id="main-1", kind="main", question="q", created_at="2026-12-04T10:00:00",
                   status="done", eval_id=eval_id)


@pytest.mark.parametrize(("eval_id", "names", "lang", "text"), [
    (None, {"ev1": ("s.jsonl", "A")}, "en", ""),
    ("ev1", {"ev1": ("s.jsonl", "A")}, "en", "s.jsonl · A (evaluation ev1)"),
    ("ev1", {"ev1": ("s.jsonl", "A")}, "zh", "s.jsonl · A（评估 ev1）"),
    ("ev9", {"ev1": ("s.jsonl", "A")}, "en", "evaluation ev9"),  # deleted on the Evaluate page: the id still says
    ("ev9", None, "zh", "评估 ev9"),
])
def test_evaluation_text(eval_id, names, lang, text):
    with use_language(lang):
        assert evaluation_text(info(eval_id), names) == text


def test_the_pages_evaluations_are_named_in_one_query(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_HISTORY_DB", str(tmp_path / "h.db"))
    store = EvalStore(tmp_path / "h.db")
    for eval_id, label in (("ev1", "A"), ("ev2", "B")):
        store.save(EvalRecord.from_results([CaseResult(id="c", expected_route=None, route="answer")], eval_id=eval_id,
                                           set_name="mine", label=label))
    assert store.names(["ev2", "ev1", "ev1", "gone", ""]) == {"ev1": ("mine", "A"), "ev2": ("mine", "B")}
    assert store.names([]) == {}
    assert evaluation_names([info("ev1"), info(None), info("gone")]) == {"ev1": ("mine", "A")}
    monkeypatch.setenv("RAG_HISTORY_DB", str(tmp_path / "elsewhere.db"))
    assert evaluation_names([info(None)]) == {}  # no evaluation run on the page: the store is not opened
    assert evaluation_names([info("ev1")]) == {}  # no store file (a PostgreSQL history): none is created to look
    assert not (tmp_path / "elsewhere.db").exists()


def test_an_unreadable_store_leaves_the_ids(tmp_path, monkeypatch):
    bad = tmp_path / "h.db"
    bad.write_bytes(b"not a database" * 100)
    monkeypatch.setenv("RAG_HISTORY_DB", str(bad))
    assert evaluation_names([info("ev1")]) == {}
