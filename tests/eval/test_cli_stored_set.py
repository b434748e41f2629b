"""`python -m rag.eval --set NAME`: a question set stored in the configured run history runs like a file;
a missing set, a missing history, an empty set and both or neither of file and --set are told plainly."""
from __future__ import annotations

import pytest

from rag.eval.__main__ import main
from rag.eval.cases import EvalCase
from rag.eval.question_sets import QuestionSetStore
from rag.runs.history import RunHistory


@pytest.fixture
def history_file(monkeypatch, tmp_path):
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    for key in ("RERANK_MODEL", "RERANK_API_KEY", "RERANK_HOST", "RAG_CANDIDATE_K", "RAG_MIN_SCORE",
                "RAG_PROMPT_VERSION", "RAG_HISTORY_URL"):
        monkeypatch.delenv(key, raising=False)
    path = tmp_path / "history.db"
    monkeypatch.setenv("RAG_HISTORY_DB", str(path))
    return path


def make_set(path, name: str, cases: list[EvalCase]) -> None:
    with RunHistory(path) as history:
        QuestionSetStore(history.storage).create(name, cases)


def test_a_stored_set_runs_and_gates(history_file, capsys, tmp_path):
    make_set(history_file, "Team regressions", [
        EvalCase(id="ok", question="What is the capital of Australia?", expected_route="no_knowledge"),
        EvalCase(id="wrong", question="What is the operating temperature range of the Lumen X2?",
                 expected_route="no_knowledge", from_run="main-0000", verdict="wrong")])
    out = tmp_path / "r.json"
    assert main(["--set", "team regressions", "--min-route-accuracy", "1.0", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "MISS wrong: expected no_knowledge, got answer" in captured.out
    assert captured.out.strip().splitlines()[-3:] == ["route_accuracy: 0.500", "source_hit_rate: n/a", "cases: 2"]
    assert "under --min-route-accuracy" in captured.err
    import json

    doc = json.loads(out.read_text("utf-8"))
    assert doc["set"] == "team regressions" and doc["cases"][1]["from_run"] == "main-0000"
    assert main(["--set", "Team regressions", "--quiet"]) == 0


@pytest.mark.parametrize(("args", "message"), [
    (["--set", "nope"], "no question set named 'nope'"),
    (["--set", "empty"], "question set 'empty': no cases"),
])
def test_unusable_stored_sets_exit_2(history_file, capsys, args, message):
    make_set(history_file, "empty", [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_no_history_exits_2_and_creates_none(history_file, capsys):
    assert main(["--set", "anything"]) == 2
    assert "no run history here" in capsys.readouterr().err
    assert not history_file.exists()


@pytest.mark.parametrize("args", [[], ["file.jsonl", "--set", "x"]])
def test_a_file_or_a_set_exactly_one(history_file, args, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert "give a set file or --set NAME" in capsys.readouterr().err


def test_retrieval_only_runs_a_stored_set(history_file, capsys):
    make_set(history_file, "gold", [EvalCase(id="t", question="What is the operating temperature range of the Lumen X2?",
                                             expected_sources=["lumen_x2_manual.md"])])
    assert main(["--set", "gold", "--retrieval-only", "--quiet"]) == 0
    assert "cases: 1" in capsys.readouterr().out
