"""`python -m rag.eval --set NAME` against a team's PostgreSQL history (RAG_HISTORY_URL, the suite's server)."""
from __future__ import annotations

from rag.eval.__main__ import main
from rag.eval.cases import EvalCase
from rag.eval.question_sets import QuestionSetStore
from rag.runs.history import RunHistory


def test_a_set_stored_in_postgresql_runs_from_the_cli(monkeypatch, capsys, postgres_server):
    url = postgres_server.new_schema()
    monkeypatch.setenv("RAG_HISTORY_URL", url)
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    for key in ("RERANK_MODEL", "RERANK_API_KEY", "RERANK_HOST", "RAG_CANDIDATE_K", "RAG_MIN_SCORE", "RAG_PROMPT_VERSION"):
        monkeypatch.delenv(key, raising=False)
    with RunHistory(url) as history:
        QuestionSetStore(history.storage).create("team", [
            EvalCase(id="c", question="What is the capital of Australia?", expected_route="no_knowledge")])
    assert main(["--set", "team", "--quiet", "--min-route-accuracy", "1.0"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-3] == "route_accuracy: 1.000"
