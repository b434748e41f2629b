"""Evaluation results kept in the history file: saved per configuration, grouped, exported."""
from __future__ import annotations

import csv
import io
import json

import pytest

from rag.errors import UnknownRunError
from rag.eval.results_store import CSV_COLUMNS, EvalRecord, EvalStore, export_csv, export_json
from rag.eval.scoring import CaseResult

RESULTS = [CaseResult("a", "answer", "answer", ("x.md",), ("x.md",), None, ("en",), "q1?", None, 12.0,
                      (("grade_documents", 4),)),
           CaseResult("b", "clarify", "answer", (), (), None, ("zh",), "q2?", None, 9.0)]


def test_configurations_of_one_evaluation_share_a_group_and_survive_reopening(tmp_path):
    store = EvalStore(tmp_path / "history.db")
    a = store.save(EvalRecord.from_results(RESULTS, set_name="s.jsonl", label="A"))
    b = store.save(EvalRecord.from_results(RESULTS[:1], set_name="s.jsonl", label="B", group_id=a.group_id))
    other = store.save(EvalRecord.from_results(RESULTS, set_name="t.jsonl", label="A"))
    reopened = EvalStore(tmp_path / "history.db")
    assert [r.label for r in reopened.group(a.group_id)] == ["A", "B"]
    assert reopened.get(b.eval_id).results() == RESULTS[:1]
    assert a.summary["route_accuracy"] == 0.5 and a.summary["cases"] == 2
    assert [g[0] for g in reopened.groups()] == [other.group_id, a.group_id]
    assert reopened.groups()[1][3] == ["A", "B"]
    reopened.delete_group(a.group_id)
    with pytest.raises(UnknownRunError):
        reopened.get(a.eval_id)


def test_exports_hold_every_case_of_every_configuration():
    records = [EvalRecord.from_results(RESULTS, set_name="s", label="A"),
               EvalRecord.from_results(RESULTS, set_name="s", label="B")]
    doc = json.loads(export_json(records))
    assert [c["label"] for c in doc["configurations"]] == ["A", "B"]
    rows = list(csv.DictReader(io.StringIO(export_csv(records))))
    assert list(rows[0]) == CSV_COLUMNS and len(rows) == 4
    assert rows[1]["id"] == "b" and rows[1]["correct"] == "False" and rows[1]["route"] == "answer"
